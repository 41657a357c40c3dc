/**
 * `sessionfold/cursors`: bytes in, lines out, and byte-exact resumable reads.
 */
export { LineSplitter } from './line-splitter.js';
export type { LineHandler, LongLineHandler, LineSplitterOptions } from './line-splitter.js';
export { createJsonlRead, assertJsonlCursor, RESUME_BUFFER_LIMIT } from './read-jsonl.js';
export { createDocumentRead } from './read-document.js';
export type { DocumentParser } from './read-document.js';
export { parseSync } from './sync.js';
export type { ParseSyncOptions } from './sync.js';
export { RESTART, parseJsonObject, hasAnyMarker } from './core.js';
export { compileProjection, scanFields, scanFieldsJs, MAX_DEPTH } from './scan-fields.js';
export type { CompiledProjection, FieldProjection } from './scan-fields.js';
export type { LineCore, CoreContext, Emit, LineResult } from './core.js';
export { CursorStore, writeFileAtomic, CURSOR_STORE_VERSION } from './store.js';
export type { CursorDocument } from './store.js';
export { readLines } from './read-lines.js';
export type { LineRecord } from './read-lines.js';
export { hashId32, hashId64, hashBytes64, createHash64 } from './ids.js';
export { readStreamEvents } from './stream.js';
