/**
 * `sessions show`'s Markdown as pieces, in order, as the session streams in: the header, each message's
 * section, the cost summary. Joined they are `renderMarkdown(get(…))`'s bytes (its lines joined with `\n`:
 * each piece after the header starts with the `\n` that joins it to the one before).
 */
import type { SessionStream } from '../../sessions/get.js';
import { markdownCostSummary, markdownHeader, markdownMessage, type MarkdownOptions } from '../../sessions/markdown.js';

export async function* markdownPieces(stream: SessionStream, o: MarkdownOptions): AsyncGenerator<string> {
  yield markdownHeader(stream.session, stream.messageCount).join('\n');
  for await (const m of stream.messages()) yield `\n${markdownMessage(m, o).join('\n')}`;
  yield `\n${markdownCostSummary(stream.session).join('\n')}`;
}
