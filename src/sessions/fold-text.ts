/**
 * The text a session fold makes of events: a tool output as text (a `tool` message's content, what search
 * scores) and the title cut from a prompt. Apart from the fold so search can read outputs the same way.
 */

export const TITLE_MAX_CHARS = 100;

/** Text of a tool output: strings as they are, text blocks joined, anything else as JSON. */
export function outputText(output: unknown): string {
  if (output === undefined || output === null) return '';
  if (typeof output === 'string') return output;
  if (Array.isArray(output)) {
    const texts = output.map((b) => (b !== null && typeof b === 'object' && typeof (b as { text?: unknown }).text === 'string' ? (b as { text: string }).text : undefined));
    if (texts.every((t) => t !== undefined)) return texts.join('\n');
  }
  if (typeof output === 'object') {
    const c = (output as { content?: unknown }).content;
    if (typeof c === 'string' || Array.isArray(c)) return outputText(c);
  }
  try {
    return JSON.stringify(output) ?? String(output);
  } catch {
    return String(output);
  }
}

/** Whitespace collapsed, cut to `max` characters (code points), trailing space dropped: idempotent. */
export function cutTitle(text: string, max = TITLE_MAX_CHARS): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  const cps = Array.from(flat);
  return cps.length <= max ? flat : cps.slice(0, max).join('').trimEnd();
}
