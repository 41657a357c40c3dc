/**
 * sessionfold — read every coding agent's sessions incrementally and fold them into answers.
 *
 * The package root is the curated surface: events and the codec contract, the registry and the built-in
 * codecs, `read()` and resumable cursors, the SessionManager, the cost totals and the usage export. Parts for
 * codec authors (the line reader, `createJsonlRead`, the field scanner) are in `sessionfold/cursors`.
 *
 * @example
 * import { read } from 'sessionfold';
 * for await (const e of read('claude', file, { kinds: ['usage'] })) console.log(e.model, e.outputTokens);
 */

// Events: what every codec yields (ARCHITECTURE.md has the table).
export { CORE_EVENT_VERSION, EVENT_KINDS, isEventKind, isUsageEvent } from '../cursors/protocol/events.js';
export type {
  EventKind,
  EventBase,
  SessionfoldEvent,
  SessionEvent,
  MessageEvent,
  MessageRole,
  UsageEvent,
  ToolCallEvent,
  ToolResultEvent,
  UnknownEvent,
  EventOfKind,
  KindCounts,
} from '../cursors/protocol/events.js';

// The codec contract, read options and cursors.
export { getParserVersion, getParserString } from '../cursors/protocol/codec.js';
export type {
  Codec,
  CodecCapabilities,
  Persistence,
  SessionFile,
  ReadOptions,
  ReadInfo,
  ReadCursor,
  JsonlCursor,
  RowCursor,
  FingerprintCursor,
  ResumeOptions,
  ResumeStart,
  CursorUpdate,
} from '../cursors/protocol/codec.js';
export { CursorStore } from '../cursors/store.js';
export type { CursorDocument } from '../cursors/store.js';

// Errors: one class, a closed set of codes.
export { SessionfoldError, isSessionfoldError, ERROR_CODES } from '../cursors/protocol/errors.js';
export type { ErrorCode, SessionfoldErrorDetails } from '../cursors/protocol/errors.js';

// The registry, the built-in codecs, and `read()`. The package names every built-in codec (codec-objects.ts),
// so their modules are loaded anyway: the registry's lazy entries take them at once, without an await (a
// top-level await would keep `require()` of this module from working), and a codec from `getCodec()` has every
// member (the CLI instead loads each codec when it needs it).
import * as codecObjects from './codec-objects.js';
import { adoptCodecs } from './registry.js';
export { registerCodec, findCodec, getCodec, listCodecs, loadCodec, loadCodecs } from './registry.js';
adoptCodecs(Object.values(codecObjects));
export { read } from './read.js';
export * from './codec-objects.js';

// The SessionManager: list, get, search, export, diff, resume.
export { createSessionManager, type SessionManager } from './sessions/manager.js';
export { EXPORT_FORMATS, exportPieces } from './sessions/export.js';
export type { ExportSource } from './sessions/export.js';
export type { SessionStream, StreamOptions } from './sessions/get.js';
export type {
  AgentName,
  SessionSummary,
  Session,
  SessionMessage,
  SessionMessageUsage,
  SessionToolCall,
  SessionListOptions,
  SessionQuery,
  SessionRef,
  SessionDiff,
  DiffOperation,
  ExportFormat,
  SessionManagerOptions,
  SessionWithUsage,
} from './sessions/types.js';
export type { ResumeCommand } from './sessions/resume.js';

// Cost: totals over every agent's history, and the usage export.
export { totalCost, usageBlocks } from './cost/total.js';
export { createBlocksFold, foldBlocks } from './cost/blocks.js';
export type { BlocksReport, UsageBlock, BlocksFoldOptions } from './cost/blocks.js';
export { statusLine } from './cost/statusline.js';
export type { StatusLineQuery, StatusLineData } from './cost/statusline.js';
export { createPricer } from './cost/pricing.js';
export { COST_MODES } from './cost/types.js';
export type { Pricer, PricerOptions, PriceResult } from './cost/pricing.js';
export type { CostRecord, CostSummary, CostBreakdown, CostAggregationOptions, CostMode, CostGroupBy, UnpricedUsage } from './cost/types.js';
export { exportUsage, ExportCursor } from './cost/export.js';
export type { UsageExportLine, UsageExportOptions } from './cost/export.js';

// The session store: sessions of any agent kept, forked, archived and pruned (as the `store` agent).
export { SessionStore, isValidName, validateName, importSession, forkAgentSession, defaultStoreRoot } from './store/index.js';
export type {
  SessionStoreOptions,
  ImportOptions,
  ImportResult,
  AgentForkOptions,
  SessionInfo,
  StoreMeta,
  StoreOrigin,
  ForkProvenance,
  FamilyInfo,
  FamilyWrite,
  UsageLogRecord,
  ModelChangeRecord,
  GitMetadataRecord,
  SessionTree,
  SubagentLineage,
} from './store/index.js';
