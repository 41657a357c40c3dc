/**
 * stream-json's tokenizer over a document's chunks, for whole-document parsers (cursors/read-document.ts): each
 * chunk is decoded as UTF-8 (a character split across chunks included, a leading BOM dropped), tokenized, and
 * its tokens handed to `onToken`; the generator yields after each chunk so the parser can hand out what it has
 * assembled before the next one, and once more after the tokenizer is flushed at the end and `atEnd` (which
 * throws for a document that did not end where it should) has run.
 */
import { StringDecoder } from 'node:string_decoder';
import { jsonParser, type Token } from 'stream-json/core/parser.js';
import { getManyValues, isMany, none } from 'stream-chain/defs.js';

export type { Token } from 'stream-json/core/parser.js';

export function* tokenizeChunks(chunks: Iterable<Buffer>, onToken: (t: Token) => void, atEnd?: () => void): Generator<void> {
  const parse = jsonParser({ streamValues: false });
  const decoder = new StringDecoder('utf8');
  let first = true;
  // The tokenizer takes text, and `none` to flush (stream-chain's flushable protocol).
  const feed = (text: string | typeof none): void => {
    const r = parse(text as string);
    if (isMany(r)) for (const t of getManyValues(r) as Token[]) onToken(t);
  };
  for (const chunk of chunks) {
    let text = decoder.write(chunk);
    if (first && text.charCodeAt(0) === 0xfeff) text = text.slice(1);
    if (text.length > 0) first = false;
    feed(text);
    yield;
  }
  const rest = decoder.end();
  if (rest !== '') feed(rest);
  feed(none);
  atEnd?.();
  yield;
}
