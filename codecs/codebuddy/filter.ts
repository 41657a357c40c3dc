/**
 * The byte markers of a usage-only CodeBuddy read (kinds ⊆ {usage, session}): the lines such a read needs
 * once the session has opened with its cwd, found before any JSON.parse, so that the lines it does not need
 * (`function_call_result` lines of megabytes, prompts, reasoning) are passed over (LineCore `markers`).
 *
 * A line matters to such a read when it may carry a usage object (`message.usage`, `providerData.usage`,
 * `providerData.rawUsage`), name a model (`providerData.model` / `requestModelId`: the model a later record
 * without one falls back to) or, with titles, name the session's title (`ai-title`, `topic` records). Markers
 * are quoted keys or values: a quote inside a JSON string is escaped (`\"usage\"`), so tool output that
 * mentions them does not match. At most four markers (the native line source searches for four at once):
 * a read with titles takes wider ones (`sage"` for both usage keys, `odel` for both model keys), which match
 * more lines (every `"message"`, any text with `model` in it) but never fewer.
 */
import type { EventKind } from '../../cursors/protocol/events.js';

const bytes = (ms: readonly string[]): readonly Buffer[] => ms.map((m) => Buffer.from(m));

const USAGE = bytes(['"usage"', '"rawUsage"', '"model"', '"requestModelId"']);
const USAGE_AND_TITLES = bytes(['sage"', 'odel', '"ai-title"', '"topic"']);

/** The markers of a read of `kinds`: undefined when it wants messages or tools (every line is parsed). */
export function usageFilter(kinds: ReadonlySet<EventKind>, titles: boolean): readonly Buffer[] | undefined {
  for (const k of kinds) if (k !== 'usage' && k !== 'session') return undefined;
  return titles && kinds.has('session') ? USAGE_AND_TITLES : USAGE;
}
