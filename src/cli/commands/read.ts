/**
 * `sessionfold read <file> [--agent <id>] [--cursor <cursor.json>] [--kinds …]`: stream a session file's
 * events as NDJSON. With --cursor the read resumes from the cursor in that file (a missing file means from
 * byte 0; a file that is not a cursor is CURSOR_INVALID and left as it is), prints `{"type":"start","restarted":…,"replaced":{…}}` first on stderr, and writes the new cursor
 * atomically when the read completes. `read -` parses standard input (no cursor).
 */
import type { ReadCursor, ReadOptions } from '../../../cursors/protocol/codec.js';
import { newReadInfo } from '../../../cursors/protocol/codec.js';
import { EVENT_KINDS, isEventKind, type EventKind } from '../../../cursors/protocol/events.js';
import { detectCodec, getCodec, loadCodec } from '../../registry.js';
import { isReadCursor, jsonOf, readOwnFile, writeFileAtomic } from '../../../cursors/store.js';
import { readStreamEvents } from '../../../cursors/stream.js';
import type { SessionfoldError } from '../../../cursors/protocol/errors.js';
import { CliError, defineCommand, list, str, type CommandContext } from '../command.js';
import { LineWriter } from '../output.js';

/**
 * The cursor in `path`; undefined when there is none yet (absent, empty, or JSON `null`: a file holding
 * nothing). A file that is not a cursor is CURSOR_INVALID, never overwritten.
 */
async function loadCursor(path: string): Promise<ReadCursor | undefined> {
  const text = await readOwnFile(path, 'cursor file', jsonOf((v) => v === null || isReadCursor(v)));
  return text === undefined ? undefined : ((JSON.parse(text) as ReadCursor | null) ?? undefined);
}

export default defineCommand({
  name: 'read',
  description: 'Stream the events of one session file as NDJSON on stdout. `-` reads standard input.',
  usage: '<file|->',
  options: {
    agent: { type: 'string', short: 'a', description: 'Codec id or alias (claude, codex, …); detected from the file when absent', valueName: '<id>' },
    cursor: { type: 'string', description: 'Resume from / save the cursor in this file', valueName: '<cursor.json>' },
    kinds: { type: 'string', description: `Event kinds to yield (default all): ${EVENT_KINDS.join(',')}`, valueName: '<k,k>' },
    strict: { type: 'boolean', description: 'Fail on the first malformed line instead of skipping it' },
    'max-line-bytes': { type: 'string', description: 'Skip and count lines longer than this (default 64 MiB; a line is held whole in memory)', valueName: '<n>' },
  },
  async run(ctx: CommandContext) {
    const file = ctx.positionals[0];
    if (file === undefined) throw new CliError('USAGE_ERROR', 'read needs a file (or - for stdin)');
    const agent = str(ctx, 'agent');
    if (agent === undefined && file === '-') throw new CliError('USAGE_ERROR', 'read - needs --agent <id>: standard input has no path to tell the agent by');
    // Without --agent, the codecs tell from the path and the first bytes whose format the file is.
    const codec = agent !== undefined ? getCodec(agent) : await detectCodec(file, ctx.env);
    let kinds: EventKind[] | undefined;
    const k = list(ctx, 'kinds');
    if (k !== undefined) {
      if (k.length === 0) throw new CliError('INVALID_OPTION', `Invalid option --kinds: expected one or more of ${EVENT_KINDS.join(',')}, got an empty list`);
      for (const x of k) if (!isEventKind(x)) throw new CliError('INVALID_OPTION', `Invalid option --kinds: expected ${EVENT_KINDS.join('|')}, got "${x}"`);
      kinds = k as EventKind[];
    }
    const maxLine = str(ctx, 'max-line-bytes');
    const maxLineBytes = maxLine === undefined ? undefined : Number(maxLine);
    if (maxLineBytes !== undefined && !(Number.isSafeInteger(maxLineBytes) && maxLineBytes > 0)) {
      throw new CliError('INVALID_OPTION', `Invalid option --max-line-bytes: expected a positive integer, got "${maxLine}"`);
    }
    const out = new LineWriter(ctx.stdout);
    const info = newReadInfo();
    // What was skipped or noticed, by code: how many, and the first one's message (it says where and why).
    const skipped = new Map<string, { n: number; first: string }>();
    const onSkip = (e: SessionfoldError) => {
      const s = skipped.get(e.code);
      if (s === undefined) skipped.set(e.code, { n: 1, first: e.message });
      else s.n++;
    };
    const base: ReadOptions = { kinds, info, strict: ctx.values.strict === true, onSkip, ...(maxLineBytes !== undefined && { maxLineBytes }) };

    if (file === '-') {
      if (str(ctx, 'cursor') !== undefined) throw new CliError('USAGE_ERROR', '--cursor cannot be used with standard input');
      const { lineCore } = await loadCodec(codec);
      if (!lineCore) throw new CliError('USAGE_ERROR', `${codec.id} is not a line format; it cannot be read from standard input`);
      for await (const e of readStreamEvents(lineCore, process.stdin, base)) await out.line(JSON.stringify(e));
      await out.flush();
      return 0;
    }

    const cursorPath = str(ctx, 'cursor');
    if (cursorPath === undefined) {
      for await (const e of codec.read(file, base)) await out.line(JSON.stringify(e));
      await out.flush();
      for (const [code, { n, first }] of skipped) ctx.stderr.write(`warning ${code}: ${n} line(s) of ${file} (the first: ${first})\n`);
      return 0;
    }
    if (!codec.capabilities.incremental) throw new CliError('USAGE_ERROR', `${codec.id} does not support resumable reads (--cursor)`);
    const from = await loadCursor(cursorPath);
    let next: ReadCursor | undefined;
    let partial = false;
    const events = codec.read(file, {
      ...base,
      resume: {
        from,
        onStart: (s) => ctx.stderr.write(`${JSON.stringify({ type: 'start', restarted: s.restarted, ...(s.reason && { reason: s.reason }), replaced: s.replaced })}\n`),
        onCursor: (u) => {
          next = u.cursor;
          partial = u.partialLine;
        },
      },
    });
    for await (const e of events) await out.line(JSON.stringify(e));
    await out.flush();
    if (next !== undefined) await writeFileAtomic(cursorPath, JSON.stringify(next) + '\n');
    ctx.stderr.write(`${JSON.stringify({ type: 'end', offset: info.bytesCommitted, partialLine: partial, lines: info.lines, events: info.events, skippedLines: info.skippedLines })}\n`);
    return 0;
  },
});
