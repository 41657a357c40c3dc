/**
 * sessionfold — read every coding agent's sessions incrementally and fold them into answers.
 *
 * @example
 * import { getCodec } from 'sessionfold';
 * for await (const e of getCodec('claude').read(file, { kinds: ['usage'] })) console.log(e.outputTokens);
 */
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
export { getParserVersion, getParserString, normalizeReadOptions, newReadInfo, DEFAULT_BUFFER_SIZE, DEFAULT_MAX_LINE_BYTES } from '../cursors/protocol/codec.js';
export type {
  Codec,
  CodecCapabilities,
  Persistence,
  SessionFile,
  ReadOptions,
  NormalizedReadOptions,
  ReadInfo,
  ReadCursor,
  JsonlCursor,
  RowCursor,
  ResumeOptions,
  ResumeStart,
  CursorUpdate,
} from '../cursors/protocol/codec.js';
export { SessionfoldError, isSessionfoldError, ERROR_CODES } from '../cursors/protocol/errors.js';
export type { ErrorCode, SessionfoldErrorDetails } from '../cursors/protocol/errors.js';
export { registerCodec, findCodec, getCodec, listCodecs } from './registry.js';
export { loadTags, getTagsPath } from './tags.js';
export type { TagIndex } from './tags.js';
export * from './cost/index.js';
export * from './sessions/index.js';
export { scanUsage, scanUsageBatches, newScanStats, newScanDelta, getCachePath } from './scan/index.js';
export type { UsageRecord, ScanOptions, ScanStats, ScanDelta } from './scan/types.js';
export { sessionfoldJsonl } from '../codecs/sessionfold-jsonl/index.js';
export { claude } from '../codecs/claude/index.js';
export { codex } from '../codecs/codex/index.js';
