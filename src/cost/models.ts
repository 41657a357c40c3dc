/**
 * Model-name normalization for pricing. Agents record model ids in many spellings: dated (`claude-sonnet-4-
 * 20250514`), provider-prefixed (`anthropic/claude-sonnet-4.5`, `openai/gpt-5`, `models/gemini-2.5-pro`),
 * Bedrock inference profiles (`us.anthropic.claude-3-7-sonnet-20250219-v1:0`), Vertex versions
 * (`claude-opus-4-1@20250805`) and Claude Code's context suffix (`claude-sonnet-4-5[1m]`). The pricer turns a
 * recorded id into an ordered list of lookup candidates ONCE per distinct (provider, model) and memoizes the
 * result, so none of this runs per event.
 */

/** One price-data lookup to try: `providerId` undefined lets genai-prices pick by its model-match rules. */
export interface ModelCandidate {
  providerId: string | undefined;
  model: string;
}

/** Provider ids we try, in order, when neither the event nor the name tells the provider. First-party only. */
export const FIRST_PARTY_PROVIDERS: readonly string[] = [
  'anthropic',
  'openai',
  'google',
  'x-ai',
  'deepseek',
  'moonshotai',
  'zai',
  'mistral',
  'minimax',
  'cohere',
];

/** Bedrock-style `<region>.<vendor>.<model>-v1:0` ids. */
const BEDROCK_RE = /^(?:(?:us|eu|apac|au|jp|ca|global|us-gov)\.)?(anthropic|meta|amazon|mistral|cohere|ai21|deepseek|openai|qwen|moonshotai|minimax)\.(.+?)(?:-v\d+(?::\d+)?)?$/;
/** Dated suffixes: `-20250514`, `-2025-05-14`. */
const DATE_SUFFIX_RE = /-(?:20\d{6}|20\d{2}-\d{2}-\d{2})$/;
/** Vendor prefixes that name a provider id of the price data. */
const VENDOR_ALIASES: Record<string, string> = {
  anthropic: 'anthropic',
  claude: 'anthropic',
  openai: 'openai',
  google: 'google',
  gemini: 'google',
  vertex: 'google',
  'vertex_ai': 'google',
  xai: 'x-ai',
  'x-ai': 'x-ai',
  deepseek: 'deepseek',
  moonshotai: 'moonshotai',
  moonshot: 'moonshotai',
  zai: 'zai',
  'z-ai': 'zai',
  mistral: 'mistral',
  mistralai: 'mistral',
  minimax: 'minimax',
  cohere: 'cohere',
  bedrock: 'aws',
  amazon: 'aws',
};

/** The result of normalizing a recorded model id. */
export interface NormalizedModel {
  /** Lowercased, trimmed, suffix- and prefix-free name (`claude-sonnet-4-20250514`). */
  name: string;
  /** `name` without a dated suffix (`claude-sonnet-4`), when it had one. */
  undated: string | undefined;
  /** Provider id implied by a prefix (`openai/…`, `us.anthropic.…`), if any. */
  vendor: string | undefined;
}

/** Normalize a recorded model id (pure; memoize the caller side). */
export function normalizeModelName(raw: string): NormalizedModel {
  let name = raw.trim().toLowerCase();
  let vendor: string | undefined;
  name = name.replace(/\[[^\]]*\]$/, ''); // claude-sonnet-4-5[1m]
  const slash = name.lastIndexOf('/');
  if (slash >= 0) {
    const first = name.slice(0, name.indexOf('/'));
    vendor = VENDOR_ALIASES[first];
    name = name.slice(slash + 1);
  }
  const bedrock = BEDROCK_RE.exec(name);
  if (bedrock) {
    vendor ??= VENDOR_ALIASES[bedrock[1] as string];
    name = bedrock[2] as string;
  }
  name = name.replace(/@(20\d{6})$/, '-$1'); // Vertex: claude-opus-4-1@20250805
  const undated = DATE_SUFFIX_RE.test(name) ? name.replace(DATE_SUFFIX_RE, '') : undefined;
  return { name, undated, vendor };
}

/**
 * Ordered lookup candidates for a recorded (provider, model): the provider the event names, then the
 * library's own model-match rules, then a provider implied by a prefix, then each first-party provider;
 * the whole list again for the undated name. Duplicates are removed.
 */
export function modelCandidates(model: string, provider?: string): ModelCandidate[] {
  const raw = model.trim().toLowerCase();
  const norm = normalizeModelName(model);
  const out: ModelCandidate[] = [];
  const seen = new Set<string>();
  const add = (providerId: string | undefined, m: string) => {
    const k = `${providerId ?? ''}\u0000${m}`;
    if (m === '' || seen.has(k)) return;
    seen.add(k);
    out.push({ providerId, model: m });
  };
  const prov = provider?.trim().toLowerCase() || undefined;
  const names = norm.undated === undefined ? [norm.name] : [norm.name, norm.undated];
  if (prov !== undefined) add(prov, raw);
  for (const n of names) {
    if (prov !== undefined) add(prov, n);
    add(undefined, n);
    if (norm.vendor !== undefined) add(norm.vendor, n);
    for (const p of FIRST_PARTY_PROVIDERS) add(p, n);
  }
  return out;
}
