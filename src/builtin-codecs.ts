/** The codecs that ship with sessionfold, in the order `sessions` and `cost` list agents. */
import type { Codec } from '../cursors/protocol/codec.js';
import { sessionfoldJsonl } from '../codecs/sessionfold-jsonl/index.js';
import { claude } from '../codecs/claude/index.js';
import { codex } from '../codecs/codex/index.js';
import { gemini } from '../codecs/gemini/index.js';
import { copilot } from '../codecs/copilot/index.js';
import { pi } from '../codecs/pi/index.js';
import { omp } from '../codecs/omp/index.js';
import { openclaw } from '../codecs/openclaw/index.js';
import { opencode } from '../codecs/opencode/index.js';
import { hermes } from '../codecs/hermes/index.js';
import { cursor } from '../codecs/cursor/index.js';
import { goose } from '../codecs/goose/index.js';
import { qwen } from '../codecs/qwen/index.js';
import { droid } from '../codecs/droid/index.js';
import { kimi } from '../codecs/kimi/index.js';
import { amp } from '../codecs/amp/index.js';
import { antigravity } from '../codecs/antigravity/index.js';
import { cline } from '../codecs/cline/index.js';
import { roo } from '../codecs/roo/index.js';
import { kilo } from '../codecs/kilo/index.js';
import { grok } from '../codecs/grok/index.js';
import { grokCli } from '../codecs/grok-cli/index.js';
import { codebuff } from '../codecs/codebuff/index.js';
import { zcode } from '../codecs/zcode/index.js';
import { sessionfoldStore } from '../codecs/sessionfold-jsonl/store.js';

export const BUILTIN_CODECS: readonly Codec[] = [sessionfoldJsonl, claude, codex, gemini, copilot, pi, omp, openclaw, opencode, hermes, cursor, goose, qwen, droid, kimi, amp, antigravity, cline, roo, kilo, grok, grokCli, codebuff, zcode, sessionfoldStore];
