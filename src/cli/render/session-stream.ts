/**
 * `sessions show` and `sessions export` as pieces, in order, as the session streams in (the manager's
 * `stream`). Joined, the pieces are the whole-session renderings' bytes: Markdown is `renderMarkdown(get(…))`
 * (its lines joined with `\n`: each piece after the header starts with the `\n` that joins it to the one
 * before), JSONL is `renderJsonl(get(…), events)` (each line with its `\n`).
 */
import type { UsageEvent } from '../../../cursors/protocol/events.js';
import { JsonlLines } from '../../sessions/export.js';
import type { SessionStream } from '../../sessions/get.js';
import { markdownCostSummary, markdownHeader, markdownMessage, type MarkdownOptions } from '../../sessions/markdown.js';

export async function* markdownPieces(stream: SessionStream, o: MarkdownOptions): AsyncGenerator<string> {
  yield markdownHeader(stream.session, stream.messageCount).join('\n');
  for await (const m of stream.messages()) yield `\n${markdownMessage(m, o).join('\n')}`;
  yield `\n${markdownCostSummary(stream.session).join('\n')}`;
}

/** JSONL; `stream` must come with its orphan usage (`stream(…, { orphanUsage: true })`). */
export async function* jsonlPieces(stream: SessionStream, events: readonly UsageEvent[] = []): AsyncGenerator<string> {
  const w = new JsonlLines(stream.session, stream.messageCount, stream.callDurations, events);
  yield w.head().map((l) => `${l}\n`).join('');
  let i = 0;
  for await (const m of stream.messages()) yield w.message(m, i++).map((l) => `${l}\n`).join('');
}
