/**
 * The deliberately simple second reader of the CodeBuddy CLI's transcripts (CodeBuddy Code's and WorkBuddy's):
 * JSON.parse every line; for completed assistant messages, tool calls and reasoning, the first usage object
 * (`message.usage`, `providerData.usage`, `providerData.rawUsage`), once per session and response id. Billed
 * input is the prompt as the CLI counts it (cache reads inside); the cache reads are its hit.
 */
import { jsonLines } from './json-lines.js';
import { emptyTotals, type UsageTotals } from './usage-totals.js';

export function naiveCodeBuddyTotals(text: string): UsageTotals {
  const sum = emptyTotals();
  const seen = new Set<string>();
  for (const r of jsonLines(text)) {
    if (!(r.type === 'function_call' || r.type === 'reasoning' || (r.type === 'message' && r.role === 'assistant'))) continue;
    if (r.status !== undefined && r.status !== 'completed') continue;
    const u = r.message?.usage ?? r.providerData?.usage ?? r.providerData?.rawUsage;
    if (u === undefined) continue;
    const key = `${r.sessionId}:${r.providerData?.messageId ?? r.providerData?.traceId ?? r.id}`;
    if (seen.has(key)) continue;
    seen.add(key);
    sum.input += u.input_tokens ?? u.prompt_tokens;
    sum.cached += u.cache_read_input_tokens ?? u.prompt_cache_hit_tokens ?? 0;
    sum.output += u.output_tokens ?? u.completion_tokens;
    const copies = [r.message?.usage, r.providerData?.usage, r.providerData?.rawUsage].filter(Boolean);
    const thinking = copies.map((c: any) => c.completion_thinking_tokens ?? c.outputTokensDetails?.[0]?.reasoning_tokens) as (number | undefined)[];
    sum.reasoning += thinking.find((n) => n !== undefined) ?? 0;
    sum.responses++;
  }
  return sum;
}
