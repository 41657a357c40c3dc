/** The second readers' loop: each line of a JSONL text as JSON, a line that does not parse left out. */
export function* jsonLines(text: string): Generator<any> {
  for (const line of text.split('\n')) {
    let r: unknown;
    try {
      r = JSON.parse(line);
    } catch {
      continue;
    }
    yield r;
  }
}
