/**
 * `mimo`: MiMo Code (XiaomiMiMo/MiMo-Code), a fork of OpenCode that keeps OpenCode's tables in `mimocode.db`,
 * read by OpenCode's engine (codecs/opencode/README.md, "Forks") under MiMo's id, roots and database names.
 * The messages MiMo imported from Claude Code and Codex yield nothing (codecs/opencode/imports.ts). README.md
 * has the format and its sources.
 */
import type { Codec } from '../../cursors/protocol/codec.js';
import { defineOpencodeCodec } from '../opencode/index.js';
import { CODEC_ID, isMimoDatabaseName } from './paths.js';
import { mimoDescriptor } from './descriptor.js';

export { CODEC_ID as MIMO_CODEC_ID, getMimoRoots, isMimoDatabaseName } from './paths.js';

/** The MiMo Code codec: `mimocode.db` and its channel databases. */
export const mimo: Codec = defineOpencodeCodec({
  agent: CODEC_ID,
  isDatabaseName: isMimoDatabaseName,
  // MiMo's importers rewrite messages they wrote before (`onConflictDoUpdate` on a re-sync), and nothing in
  // MiMo's source is cited for settled messages: every read walks them
  settledMessages: false,
  descriptor: mimoDescriptor,
  command: 'mimo',
});
export default mimo;
