/**
 * The constructed `agent_progress` fixtures (fixtures/claude/progress): their parent's session id, and a
 * deliberately simple second reader of Claude usage that knows progress copies, for the tests to check the
 * codec and the CLI against.
 */
export const PARENT_ID = 'aaaaaaaa-1111-4222-8333-444444444444';

export interface Row {
  out: number;
  tokens: [number, number, number, number];
  session: string;
}

/**
 * The simple reader: JSON.parse every line; an assistant line's own `message`, else a `progress` line's
 * `data.message.message` (in session `agent-<data.agentId>`); skip lines without a usage object and
 * `<synthetic>` ones; one response per message.id (requestId without one); keep the copy with most output,
 * then most tokens (the first among equals). Files are read in the order given, so a response in several
 * files is one row.
 */
export function simpleResponses(files: { text: string; session: string }[]): Map<string, Row> {
  const rows = new Map<string, Row>();
  const n = (v: unknown) => (typeof v === 'number' ? v : 0);
  let anonymous = 0;
  for (const { text, session } of files) {
    for (const l of text.split('\n')) {
      let r: any;
      try {
        r = JSON.parse(l);
      } catch {
        continue;
      }
      let line = r;
      let where = session;
      if (typeof r?.message !== 'object' && r?.type === 'progress' && typeof r.data?.message?.message === 'object') {
        line = r.data.message;
        where = `agent-${r.data.agentId}`;
      }
      const m = line?.message;
      if (typeof m !== 'object' || m === null || typeof m.usage !== 'object' || m.usage === null || m.model === '<synthetic>') continue;
      const key = m.id ?? (line.requestId !== undefined ? `req ${line.requestId}` : `anonymous ${anonymous++}`);
      const u = m.usage;
      const row: Row = { out: n(u.output_tokens), tokens: [n(u.input_tokens), n(u.output_tokens), n(u.cache_read_input_tokens), n(u.cache_creation_input_tokens)], session: where };
      const prev = rows.get(key);
      const sum = (x: Row) => x.tokens.reduce((a, b) => a + b, 0);
      if (prev === undefined || row.out > prev.out || (row.out === prev.out && sum(row) > sum(prev))) rows.set(key, row);
    }
  }
  return rows;
}

/** Responses and tokens per session of a reader's rows (or of usage events, keyed on their dedupKey). */
export function perSession(rows: Iterable<Row>): Record<string, { requests: number; tokens: number[] }> {
  const out: Record<string, { requests: number; tokens: number[] }> = {};
  for (const r of rows) {
    const s = (out[r.session] ??= { requests: 0, tokens: [0, 0, 0, 0] });
    s.requests++;
    r.tokens.forEach((t, i) => (s.tokens[i] = (s.tokens[i] as number) + t));
  }
  return out;
}


/**
 * The line Claude Code 2.1.x writes into `parent`'s transcript for a line of its subagent `agent`
 * (`agent-<id>`) streaming response `line` (that subagent line, as its own file holds it): `type: "progress"`,
 * the parent's `sessionId` and `cwd`, the copy under `data.message` (README of fixtures/claude/progress).
 */
export function progressLine(parent: string, agent: string, line: string, timestamp: string): string {
  return JSON.stringify({
    type: 'progress',
    sessionId: parent,
    cwd: '/w',
    uuid: `prog-${agent}-${timestamp}`,
    timestamp,
    parentToolUseID: 'toolu_task',
    toolUseID: 'agent_msg_1',
    data: { type: 'agent_progress', agentId: agent.slice('agent-'.length), message: JSON.parse(line) as unknown },
  });
}
