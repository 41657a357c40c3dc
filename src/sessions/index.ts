/** The SessionManager and its parts (list, get, search, export, diff, ids), for the public barrel. */
export { createSessionManager, type SessionManager } from './manager.js';
export type { SessionStream, StreamOptions } from './get.js';
export { resolveUnifiedId, resolveNativeId } from './ids.js';
export { diffMessages, diffSessions } from './diff.js';
export { renderExport, exportPieces, toExportHeader, toExportMessage, EXPORT_FORMATS, type ExportSource } from './export.js';
export { renderMarkdown, type MarkdownOptions } from './markdown.js';
export { SessionFold, type FoldOptions, type FoldResult } from './fold.js';
export { DEFAULT_LIST_LIMIT } from './list.js';
export type { ResumeCommand } from './resume.js';
export { DEFAULT_SEARCH_LIMIT } from './search.js';
export type * from './types.js';
