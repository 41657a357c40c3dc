/**
 * The records of an OpenHands conversation folder as this codec reads them (README.md, "Format"): plain JSON
 * objects, whose `kind` names the SDK class that wrote them (DiscriminatedUnionMixin, `openhands/sdk/utils/models.py`).
 */
export { rec, recs, str, type JsonRecord as Rec } from '../../cursors/json-value.js';
import { recs, str, type JsonRecord as Rec } from '../../cursors/json-value.js';

/** The class a record's `kind` names; some SDK releases wrote it module-qualified (`pkg.module.Class`). */
export function kindOf(r: Rec): string | undefined {
  const k = str(r.kind);
  return k === undefined ? undefined : k.slice(k.lastIndexOf('.') + 1);
}

/**
 * Model names that name no model: `MetricsSnapshot.model_name`'s default (`default`), `TokenUsage.model`'s (``),
 * the placeholder of an ACP-run conversation's LLM (`acp-managed`, `agent/acp_agent.py`), and what the agent
 * server puts in place of model names in the stats it streams (`<redacted>`, `conversation_stats.py`).
 */
const NO_MODEL: ReadonlySet<string> = new Set(['default', 'acp-managed', '<redacted>']);

/** `v` as a model name, undefined when it names none. */
export function modelName(v: unknown): string | undefined {
  const s = str(v)?.trim();
  return s === undefined || NO_MODEL.has(s) ? undefined : s;
}

/** The text of a message's content: a string, or its `{type: "text", text}` parts joined. */
export function textOf(content: unknown): string {
  if (typeof content === 'string') return content;
  return recs(content)
    .filter((p) => p.type === 'text' && typeof p.text === 'string')
    .map((p) => p.text as string)
    .join('\n');
}

/** The reasoning of a message or action: `reasoning_content`, else its Anthropic thinking blocks' text. */
export function thinkingOf(r: Rec): string | undefined {
  const own = str(r.reasoning_content);
  if (own !== undefined) return own;
  const blocks = recs(r.thinking_blocks)
    .map((b) => str(b.thinking))
    .filter((t): t is string => t !== undefined);
  return blocks.length > 0 ? blocks.join('\n') : undefined;
}
