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

// The registry, the built-in codecs, and `read()`. The package loads every built-in codec here, as it names
// them all below: a codec from `getCodec()` has every member at once (the CLI loads each when it needs it).
import { loadCodecs } from './registry.js';
export { registerCodec, findCodec, getCodec, listCodecs, loadCodec, loadCodecs } from './registry.js';
await loadCodecs();
export { read } from './read.js';
export { sessionfoldJsonl } from '../codecs/sessionfold-jsonl/index.js';
export { claude } from '../codecs/claude/index.js';
export { codex } from '../codecs/codex/index.js';
export { gemini } from '../codecs/gemini/index.js';
export { copilot } from '../codecs/copilot/index.js';
export { pi } from '../codecs/pi/index.js';
export { omp } from '../codecs/omp/index.js';
export { openclaw } from '../codecs/openclaw/index.js';
export { opencode } from '../codecs/opencode/index.js';
export { hermes } from '../codecs/hermes/index.js';
export { cursor } from '../codecs/cursor/index.js';
export { goose } from '../codecs/goose/index.js';
/** Qwen Code chats (`~/.qwen/projects/<project>/chats/<id>.jsonl`), incremental, glued records split. */
export { qwen } from '../codecs/qwen/index.js';
/** Factory Droid sessions (`~/.factory/sessions`), with the `settings.json` sidecar's token totals. */
export { droid } from '../codecs/droid/index.js';
export { kimi } from '../codecs/kimi/index.js';
export { amp } from '../codecs/amp/index.js';
export { antigravity } from '../codecs/antigravity/index.js';
/** Cline tasks (VS Code globalStorage `saoudrizwan.claude-dev/tasks/<id>/ui_messages.json`), fingerprint reads. */
export { cline } from '../codecs/cline/index.js';
/** Roo Code tasks (globalStorage `rooveterinaryinc.roo-cline/tasks`), Cline's format, cache-inclusive `tokensIn`. */
export { roo } from '../codecs/roo/index.js';
/** Kilo Code: the extension's tasks (globalStorage `kilocode.kilo-code/tasks`, Cline's format) and Kilo CLI's `kilo.db`. */
export { kilo } from '../codecs/kilo/index.js';
/** Grok Build (xAI's `grok` CLI) sessions (`~/.grok/sessions/<workspace>/<id>/updates.jsonl`), incremental. */
export { grok } from '../codecs/grok/index.js';
/** The community grok-cli's database (`~/.grok/grok.db`): sessions, messages, tool calls and usage rows. */
export { grokCli } from '../codecs/grok-cli/index.js';
/** Codebuff chats (`~/.config/manicode/projects/<project>/chats/<id>/chat-messages.json`), fingerprint cursor. */
export { codebuff } from '../codecs/codebuff/index.js';
/** Z Code's usage database (`~/.zcode/cli/db/db.sqlite`): one usage event per model request, no messages. */
export { zcode } from '../codecs/zcode/index.js';
export { sessionfoldStore } from '../codecs/sessionfold-jsonl/store.js';

// The SessionManager: list, get, search, export, diff, resume.
export { createSessionManager, type SessionManager } from './sessions/manager.js';
export { EXPORT_FORMATS } from './sessions/export.js';
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
} from './sessions/types.js';
export type { ResumeCommand } from './sessions/resume.js';

// Cost: totals over every agent's history, and the usage export.
export { totalCost, usageBlocks } from './cost/total.js';
export { createBlocksFold, foldBlocks } from './cost/blocks.js';
export type { BlocksReport, UsageBlock, BlocksFoldOptions } from './cost/blocks.js';
export { statusLine } from './cost/statusline.js';
export type { StatusLineQuery, StatusLineData } from './cost/statusline.js';
export { createPricer, COST_MODES } from './cost/pricing.js';
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
