/**
 * An export format's layout as three parts: `head()`, then `message(m)` for each message in order, then
 * `end()`; their concatenation is the whole text. A format writes its bytes here once, and both drivers
 * below follow the same order: `wholeText` for a session in memory (`renderExport`), `layoutPieces` for
 * messages that come one by one (`exportPieces`, a session too large to hold).
 */
import type { SessionMessage } from './types.js';

/** One format's pieces (see the file header). */
export interface ExportLayout {
  head(): string;
  message(m: SessionMessage): string;
  end(): string;
}

/** The layout over messages in memory, as one string. */
export function wholeText(layout: ExportLayout, messages: Iterable<SessionMessage>): string {
  const parts = [layout.head()];
  for (const m of messages) parts.push(layout.message(m));
  parts.push(layout.end());
  return parts.join('');
}

/** The layout's pieces, each message's as soon as it comes. */
export async function* layoutPieces(layout: ExportLayout, messages: AsyncIterable<SessionMessage> | Iterable<SessionMessage>): AsyncGenerator<string> {
  yield layout.head();
  for await (const m of messages) yield layout.message(m);
  yield layout.end();
}
