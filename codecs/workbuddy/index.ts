/**
 * `workbuddy`: WorkBuddy (Tencent's desktop agent) transcripts, `~/.workbuddy/projects/<cwd slug>/<id>.jsonl`
 * (`~/.workbuddy-ai` for WorkBuddy AI; `$WORKBUDDY_CONFIG_DIR` moves the folder). WorkBuddy runs the CodeBuddy
 * CLI, which writes them, so the codec is CodeBuddy's engine under WorkBuddy's roots and name (README.md).
 *
 * @example
 * import { workbuddy } from 'sessionfold/codecs/workbuddy';
 * for await (const f of workbuddy.discover(workbuddy.defaultRoots()))
 *   for await (const e of workbuddy.read(f.path, { kinds: ['usage'] })) console.log(e.sessionId, e.inputTokens);
 */
import type { Codec } from '../../cursors/protocol/codec.js';
import { defineCodeBuddyCodec } from '../codebuddy/index.js';
import { workbuddyDescriptor } from './descriptor.js';

export { CODEC_ID as WORKBUDDY_CODEC_ID, getWorkBuddyRoots, SESSIONFOLD_WORKBUDDY_ENV, WORKBUDDY_DATA_FOLDERS, WORKBUDDY_ENV } from './paths.js';

/** The WorkBuddy codec. */
export const workbuddy: Codec = defineCodeBuddyCodec(workbuddyDescriptor);
export default workbuddy;
