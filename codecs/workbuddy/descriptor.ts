/**
 * What the registry knows of this codec before it reads a file: names, version, capabilities and roots
 * (cursors/protocol/codec.ts `CodecDescriptor`). The version and capabilities are the CodeBuddy engine's.
 */
import type { CodecDescriptor } from '../../cursors/protocol/codec.js';
import { codeBuddyFamilyDescriptor } from '../codebuddy/descriptor.js';
import { CODEC_ID, getWorkBuddyRoots, SESSIONFOLD_WORKBUDDY_ENV, WORKBUDDY_ENV } from './paths.js';

export const workbuddyDescriptor: CodecDescriptor = codeBuddyFamilyDescriptor({
  id: CODEC_ID,
  aliases: ['workbuddy-ai'],
  displayName: 'WorkBuddy',
  defaultRoots: getWorkBuddyRoots,
  rootVariables: [WORKBUDDY_ENV, SESSIONFOLD_WORKBUDDY_ENV],
});
