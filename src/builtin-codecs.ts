/**
 * The codecs that ship with sessionfold, in the order `sessions` and `cost` list agents: each codec's
 * descriptor, and its module behind a dynamic import, which the registry loads when the codec's files are
 * listed or read (src/lazy-codec.ts).
 */
import type { BuiltinCodec } from './lazy-codec.js';
import { sessionfoldJsonlDescriptor } from '../codecs/sessionfold-jsonl/descriptor.js';
import { claudeDescriptor } from '../codecs/claude/descriptor.js';
import { cherryStudioDescriptor } from '../codecs/cherry-studio/descriptor.js';
import { coworkDescriptor } from '../codecs/cowork/descriptor.js';
import { codexDescriptor } from '../codecs/codex/descriptor.js';
import { geminiDescriptor } from '../codecs/gemini/descriptor.js';
import { copilotDescriptor } from '../codecs/copilot/descriptor.js';
import { copilotVscodeDescriptor } from '../codecs/copilot-vscode/descriptor.js';
import { piDescriptor } from '../codecs/pi/descriptor.js';
import { ompDescriptor } from '../codecs/omp/descriptor.js';
import { senpiDescriptor } from '../codecs/senpi/descriptor.js';
import { kimchiDescriptor } from '../codecs/kimchi/descriptor.js';
import { primeAgentDescriptor } from '../codecs/prime-agent/descriptor.js';
import { gjcDescriptor } from '../codecs/gjc/descriptor.js';
import { openclawDescriptor } from '../codecs/openclaw/descriptor.js';
import { opencodeDescriptor } from '../codecs/opencode/descriptor.js';
import { hermesDescriptor } from '../codecs/hermes/descriptor.js';
import { cursorDescriptor } from '../codecs/cursor/descriptor.js';
import { gooseDescriptor } from '../codecs/goose/descriptor.js';
import { qwenDescriptor } from '../codecs/qwen/descriptor.js';
import { droidDescriptor } from '../codecs/droid/descriptor.js';
import { kimiDescriptor } from '../codecs/kimi/descriptor.js';
import { ampDescriptor } from '../codecs/amp/descriptor.js';
import { antigravityDescriptor } from '../codecs/antigravity/descriptor.js';
import { clineDescriptor } from '../codecs/cline/descriptor.js';
import { rooDescriptor } from '../codecs/roo/descriptor.js';
import { kiloDescriptor } from '../codecs/kilo/descriptor.js';
import { mimoDescriptor } from '../codecs/mimo/descriptor.js';
import { grokDescriptor } from '../codecs/grok/descriptor.js';
import { grokCliDescriptor } from '../codecs/grok-cli/descriptor.js';
import { codebuffDescriptor } from '../codecs/codebuff/descriptor.js';
import { zcodeDescriptor } from '../codecs/zcode/descriptor.js';
import { crushDescriptor } from '../codecs/crush/descriptor.js';
import { vibeDescriptor } from '../codecs/vibe/descriptor.js';
import { kiroDescriptor } from '../codecs/kiro/descriptor.js';
import { codebuddyDescriptor } from '../codecs/codebuddy/descriptor.js';
import { workbuddyDescriptor } from '../codecs/workbuddy/descriptor.js';
import { junieDescriptor } from '../codecs/junie/descriptor.js';
import { auggieDescriptor } from '../codecs/auggie/descriptor.js';
import { zedDescriptor } from '../codecs/zed/descriptor.js';
import { commandCodeDescriptor } from '../codecs/commandcode/descriptor.js';
import { muxDescriptor } from '../codecs/mux/descriptor.js';
import { openHandsDescriptor } from '../codecs/openhands/descriptor.js';
import { dshDescriptor } from '../codecs/dsh/descriptor.js';
import { jcodeDescriptor } from '../codecs/jcode/descriptor.js';
import { fxDescriptor } from '../codecs/fx/descriptor.js';
import { reasonixDescriptor } from '../codecs/reasonix/descriptor.js';
import { devinDescriptor } from '../codecs/devin/descriptor.js';
import { openCodeReviewDescriptor } from '../codecs/opencodereview/descriptor.js';
import { sessionfoldStoreDescriptor } from '../codecs/sessionfold-jsonl/descriptor.js';

export const BUILTIN_CODECS: readonly BuiltinCodec[] = [
  { descriptor: sessionfoldJsonlDescriptor, load: async () => (await import('../codecs/sessionfold-jsonl/index.js')).sessionfoldJsonl },
  { descriptor: claudeDescriptor, load: async () => (await import('../codecs/claude/index.js')).claude },
  { descriptor: cherryStudioDescriptor, load: async () => (await import('../codecs/cherry-studio/index.js')).cherryStudio },
  { descriptor: coworkDescriptor, load: async () => (await import('../codecs/cowork/index.js')).cowork },
  { descriptor: codexDescriptor, load: async () => (await import('../codecs/codex/index.js')).codex },
  { descriptor: geminiDescriptor, load: async () => (await import('../codecs/gemini/index.js')).gemini },
  { descriptor: copilotDescriptor, load: async () => (await import('../codecs/copilot/index.js')).copilot },
  { descriptor: copilotVscodeDescriptor, load: async () => (await import('../codecs/copilot-vscode/index.js')).copilotVscode },
  { descriptor: piDescriptor, load: async () => (await import('../codecs/pi/index.js')).pi },
  { descriptor: ompDescriptor, load: async () => (await import('../codecs/omp/index.js')).omp },
  { descriptor: senpiDescriptor, load: async () => (await import('../codecs/senpi/index.js')).senpi },
  { descriptor: kimchiDescriptor, load: async () => (await import('../codecs/kimchi/index.js')).kimchi },
  { descriptor: primeAgentDescriptor, load: async () => (await import('../codecs/prime-agent/index.js')).primeAgent },
  { descriptor: gjcDescriptor, load: async () => (await import('../codecs/gjc/index.js')).gjc },
  { descriptor: openclawDescriptor, load: async () => (await import('../codecs/openclaw/index.js')).openclaw },
  { descriptor: opencodeDescriptor, load: async () => (await import('../codecs/opencode/index.js')).opencode },
  { descriptor: hermesDescriptor, load: async () => (await import('../codecs/hermes/index.js')).hermes },
  { descriptor: cursorDescriptor, load: async () => (await import('../codecs/cursor/index.js')).cursor },
  { descriptor: gooseDescriptor, load: async () => (await import('../codecs/goose/index.js')).goose },
  { descriptor: qwenDescriptor, load: async () => (await import('../codecs/qwen/index.js')).qwen },
  { descriptor: droidDescriptor, load: async () => (await import('../codecs/droid/index.js')).droid },
  { descriptor: kimiDescriptor, load: async () => (await import('../codecs/kimi/index.js')).kimi },
  { descriptor: ampDescriptor, load: async () => (await import('../codecs/amp/index.js')).amp },
  { descriptor: antigravityDescriptor, load: async () => (await import('../codecs/antigravity/index.js')).antigravity },
  { descriptor: clineDescriptor, load: async () => (await import('../codecs/cline/index.js')).cline },
  { descriptor: rooDescriptor, load: async () => (await import('../codecs/roo/index.js')).roo },
  { descriptor: kiloDescriptor, load: async () => (await import('../codecs/kilo/index.js')).kilo },
  { descriptor: grokDescriptor, load: async () => (await import('../codecs/grok/index.js')).grok },
  { descriptor: grokCliDescriptor, load: async () => (await import('../codecs/grok-cli/index.js')).grokCli },
  { descriptor: codebuffDescriptor, load: async () => (await import('../codecs/codebuff/index.js')).codebuff },
  { descriptor: zcodeDescriptor, load: async () => (await import('../codecs/zcode/index.js')).zcode },
  { descriptor: crushDescriptor, load: async () => (await import('../codecs/crush/index.js')).crush },
  { descriptor: vibeDescriptor, load: async () => (await import('../codecs/vibe/index.js')).vibe },
  { descriptor: kiroDescriptor, load: async () => (await import('../codecs/kiro/index.js')).kiro },
  { descriptor: codebuddyDescriptor, load: async () => (await import('../codecs/codebuddy/index.js')).codebuddy },
  { descriptor: workbuddyDescriptor, load: async () => (await import('../codecs/workbuddy/index.js')).workbuddy },
  { descriptor: junieDescriptor, load: async () => (await import('../codecs/junie/index.js')).junie },
  { descriptor: auggieDescriptor, load: async () => (await import('../codecs/auggie/index.js')).auggie },
  { descriptor: zedDescriptor, load: async () => (await import('../codecs/zed/index.js')).zed },
  { descriptor: mimoDescriptor, load: async () => (await import('../codecs/mimo/index.js')).mimo },
  { descriptor: commandCodeDescriptor, load: async () => (await import('../codecs/commandcode/index.js')).commandCode },
  { descriptor: muxDescriptor, load: async () => (await import('../codecs/mux/index.js')).mux },
  { descriptor: openHandsDescriptor, load: async () => (await import('../codecs/openhands/index.js')).openHands },
  { descriptor: dshDescriptor, load: async () => (await import('../codecs/dsh/index.js')).dsh },
  { descriptor: jcodeDescriptor, load: async () => (await import('../codecs/jcode/index.js')).jcode },
  { descriptor: fxDescriptor, load: async () => (await import('../codecs/fx/index.js')).fx },
  { descriptor: reasonixDescriptor, load: async () => (await import('../codecs/reasonix/index.js')).reasonix },
  { descriptor: devinDescriptor, load: async () => (await import('../codecs/devin/index.js')).devin },
  { descriptor: openCodeReviewDescriptor, load: async () => (await import('../codecs/opencodereview/index.js')).openCodeReview },
  { descriptor: sessionfoldStoreDescriptor, load: async () => (await import('../codecs/sessionfold-jsonl/store.js')).sessionfoldStore },
];
