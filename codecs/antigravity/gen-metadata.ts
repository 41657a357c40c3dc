/**
 * Antigravity's protobuf blobs, decoded: one `gen_metadata` row (one model generation) into its token
 * attempts, a `trajectory_metadata_blob` into the conversation's start and workspace, and the model a row
 * names into a name the price data knows. Field numbers and their meaning, with sources, in README.md.
 * Pure: bytes in, plain records out; a malformed blob throws `ProtobufError`.
 */
import { protoBytes, protoBytesAll, protoFields, protoText, protoVarint, type ProtoField } from '../../cursors/protobuf.js';

/** One token-bearing attempt of a generation: the final one (`attempt` 0) or a retry (1, 2, …). */
export interface GenAttempt {
  attempt: number;
  /** Uncached input (`ModelUsageStats` #2). */
  input: number;
  cacheRead: number;
  cacheWrite: number;
  /** Every output token, thinking included: max(#3, #9 + #10). */
  output: number;
  /** Thinking tokens (#9), part of `output`. */
  thinking: number;
  /** Response id (#11), else the provider's message id (#12), else the message id (#7). */
  id: string | undefined;
  /** The attempt's own model enum (#1), when not 0. */
  modelEnum: number | undefined;
}

/** One `gen_metadata` row decoded. */
export interface GenRow {
  /** The model the row names: response model (#19), display label (#21), else its enum (#3); raw. */
  model: string | undefined;
  /** Epoch ms of the generation (#9.#4), when recorded. */
  timeMs: number | undefined;
  attempts: GenAttempt[];
}

/** A `google.protobuf.Timestamp` `{#1 seconds, #2 nanos}` as epoch ms, or undefined. */
function timestampMs(b: Uint8Array | undefined): number | undefined {
  if (b === undefined) return undefined;
  const f = protoFields(b);
  const s = protoVarint(f, 1);
  if (s === undefined || s <= 0 || s > 253_402_300_799) return undefined;
  return s * 1000 + Math.floor(Math.min(protoVarint(f, 2) ?? 0, 999_999_999) / 1e6);
}

function attemptOf(b: Uint8Array, attempt: number): GenAttempt | undefined {
  const f = protoFields(b);
  const n = (k: number) => protoVarint(f, k) ?? 0;
  const thinking = n(9);
  const output = Math.max(n(3), thinking + n(10));
  const a: GenAttempt = { attempt, input: n(2), cacheRead: n(5), cacheWrite: n(4), output, thinking, id: protoText(f, 11) ?? protoText(f, 12) ?? protoText(f, 7), modelEnum: n(1) || undefined };
  return a.input + a.cacheRead + a.cacheWrite + a.output > 0 ? a : undefined;
}

/** A `gen_metadata.data` blob: its model, time and token-bearing attempts (the final one first, then retries). */
export function decodeGenRow(blob: Uint8Array): GenRow {
  const chat = protoBytes(protoFields(blob), 1);
  if (chat === undefined) throw new TypeError('no chat model message (field 1)');
  const c: ProtoField[] = protoFields(chat);
  const attempts: GenAttempt[] = [];
  const last = protoBytes(c, 4);
  const first = last === undefined ? undefined : attemptOf(last, 0);
  if (first !== undefined) attempts.push(first);
  protoBytesAll(c, 17).forEach((retry, i) => {
    const u = protoBytes(protoFields(retry), 2);
    const a = u === undefined ? undefined : attemptOf(u, i + 1);
    if (a !== undefined) attempts.push(a);
  });
  const info = protoBytes(c, 9);
  const modelEnum = protoVarint(c, 3);
  return {
    model: protoText(c, 19) ?? protoText(c, 21) ?? (modelEnum ? enumName(modelEnum) : undefined),
    timeMs: info === undefined ? undefined : timestampMs(protoBytes(protoFields(info), 4)),
    attempts,
  };
}

/** A `trajectory_metadata_blob.data`: the conversation's start (#2) and its workspace folder (#1.#1, a file URI). */
export function decodeTrajectory(blob: Uint8Array): { startMs: number | undefined; cwd: string | undefined } {
  const f = protoFields(blob);
  const folder = protoBytes(f, 1);
  const uri = folder === undefined ? undefined : protoText(protoFields(folder), 1);
  let cwd: string | undefined;
  if (uri?.startsWith('file://') === true) {
    try {
      cwd = decodeURIComponent(new URL(uri).pathname) || undefined;
    } catch {
      cwd = undefined;
    }
  }
  return { startMs: timestampMs(protoBytes(f, 2)), cwd };
}

/** Antigravity's `Model` enum values the readers in README.md name; others keep their number. */
const ENUM_NAMES: Record<number, string> = {
  246: 'gemini-2.5-pro',
  312: 'gemini-2.5-flash',
  313: 'gemini-2.5-flash',
  329: 'gemini-2.5-flash',
  330: 'gemini-2.5-flash-lite',
  281: 'claude-sonnet-4',
  282: 'claude-sonnet-4',
  290: 'claude-opus-4',
  291: 'claude-opus-4',
  333: 'claude-sonnet-4-5',
  334: 'claude-sonnet-4-5',
  340: 'claude-haiku-4-5',
  341: 'claude-haiku-4-5',
  342: 'gpt-oss-120b',
};

/** An enum value as a model id: a known one, `model_placeholder_m<n - 1000>` from 1000, else `antigravity-model-<n>`. */
export function enumName(n: number): string {
  return ENUM_NAMES[n] ?? (n >= 1000 ? `model_placeholder_m${n - 1000}` : `antigravity-model-${n}`);
}

/** Antigravity's internal model ids and placeholders, as the price data names the model behind them. */
const MODEL_ALIASES: Record<string, string> = {
  'model_placeholder_m26': 'claude-opus-4-6',
  'model_placeholder_m35': 'claude-sonnet-4-6',
  'model_placeholder_m16': 'gemini-3.1-pro-preview',
  'model_placeholder_m36': 'gemini-3.1-pro-preview',
  'model_placeholder_m37': 'gemini-3.1-pro-preview',
  'model_placeholder_m18': 'gemini-3-flash-preview',
  'model_placeholder_m47': 'gemini-3-flash-preview',
  'model_placeholder_m84': 'gemini-3-flash-preview',
  'model_placeholder_m20': 'gemini-3.5-flash',
  'model_placeholder_m132': 'gemini-3.5-flash',
  'model_placeholder_m133': 'gemini-3.5-flash',
  'model_placeholder_m187': 'gemini-3.5-flash',
  'model_openai_gpt_oss_120b_medium': 'gpt-oss-120b',
  'gemini-pro-default': 'gemini-3.1-pro-preview',
  'gemini-pro-agent': 'gemini-3.1-pro-preview',
  'gemini-3-flash-agent': 'gemini-3.5-flash',
  'gemini-3-flash-agent-a': 'gemini-3.5-flash',
  'gemini-3-flash-agent-b': 'gemini-3.5-flash',
  'gemini-3-flash-a': 'gemini-3.5-flash',
  'gemini-3-flash-b': 'gemini-3.5-flash',
  'gemini-3-flash-c': 'gemini-3-flash-preview',
  'gemini-3-flash': 'gemini-3-flash-preview',
  'gemini-3.1-pro': 'gemini-3.1-pro-preview',
  'gemini-3-pro': 'gemini-3-pro-preview',
};

/**
 * A recorded model as a price-data name: lower case, a display label's effort (`Gemini 3.5 Flash (High)`) and
 * a trailing `-high`/`-medium`/`-low`/`-extra-low` or ` thinking` dropped (they name how hard the model
 * thinks, not another price), spaces as hyphens, then `MODEL_ALIASES`. Undefined for a routing label
 * (`gemini-default`), which names no model.
 */
export function priceModelName(raw: string): string | undefined {
  let m = raw.trim().toLowerCase().replace(/\s*\(.*$/, '').replace(/\s+thinking$/, '').replace(/\s+/g, '-');
  if (m === '' || m === 'gemini-default') return undefined;
  if (MODEL_ALIASES[m] !== undefined) return MODEL_ALIASES[m];
  m = m.replace(/-(?:extra-low|low|medium|high)$/, '');
  return MODEL_ALIASES[m] ?? m;
}
