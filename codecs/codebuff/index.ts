/**
 * `codebuff`: Codebuff (formerly Manicode), whose chats are
 * `~/.config/manicode/projects/<project>/chats/<chatId>/chat-messages.json`: one JSON array per chat, rewritten
 * whole as the chat goes on, read in constant memory with stream-json (walk.ts) behind a fingerprint cursor
 * (cursors/read-document.ts), so an unchanged chat is never parsed again. README.md has the format, the token
 * semantics and the sources.
 */
import type { Codec } from '../../cursors/protocol/codec.js';
import { fromSyncListing } from '../../cursors/discovery.js';
import { createDocumentRead } from '../../cursors/read-document.js';
import { parseCodebuffChat } from './parse.js';
import { discoverCodebuffSync } from './paths.js';
import { codebuffDescriptor } from './descriptor.js';

export { parseCodebuffChat } from './parse.js';
export { chatIdTime, discoverCodebuffSync, getCodebuffRoots } from './paths.js';


/** Codebuff: chat documents under `~/.config/manicode/projects`; see its README. */
export const codebuff: Codec = {
  ...codebuffDescriptor,
  ...fromSyncListing(discoverCodebuffSync),
  getParseDependencies: () => [],
  read: createDocumentRead(codebuffDescriptor, parseCodebuffChat),
};
export default codebuff;
