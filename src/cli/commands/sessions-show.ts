/**
 * `sessionfold sessions show <agent> <id>` (or `<agent>:<id>`): one session for reading. Markdown by default,
 * with long tool inputs, outputs and thinking cut to SHOW_BLOCK_LINES lines (`--full` keeps all); on a
 * terminal the output goes through `$PAGER` (default `less -FRX`, which exits at once when it fits).
 * `--format json|jsonl` prints the export formats unchanged.
 *
 * Markdown is written as the session is read (the manager's `stream`): the header from a first, text-free
 * pass, then each message as soon as it is settled, so a show holds about one message, not the session
 * (bench/RESULTS.md, peak RSS). The bytes are `renderExport(get(…), 'markdown')`'s.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { renderExport } from '../../sessions/export.js';
import type { MarkdownOptions } from '../../sessions/markdown.js';
import { markdownPieces } from '../render/session-markdown.js';
import type { SessionStream } from '../../sessions/get.js';
import type { ExportFormat } from '../../sessions/types.js';
import { getSessionFor } from './sessions-export.js';
import { bool, defineCommand, type CommandContext } from '../command.js';
import { makeManager, parseChoice, sessionArgs } from './sessions-common.js';
import { tuneHeapForStream } from '../heap.js';
import { withProgress } from '../progress.js';

export const SHOW_BLOCK_LINES = 40;

/** Text out in chunks of about CHUNK characters, each write waiting for `drain` when the stream asks. */
const CHUNK = 1 << 16;

/** Where the text goes: stdout, or a pager's stdin; `closed` once a pager has gone (q before the end). */
interface Sink {
  out: NodeJS.WritableStream;
  closed: () => boolean;
  done: () => Promise<void>;
}

/** A pager started on a terminal (unless --no-pager); stdout when it cannot start. */
async function openSink(ctx: CommandContext): Promise<Sink> {
  const plain: Sink = { out: ctx.stdout, closed: () => false, done: async () => undefined };
  const tty = (ctx.stdout as { isTTY?: boolean }).isTTY === true;
  if (!tty || ctx.values.pager === false) return plain;
  const pager = ctx.env.PAGER || 'less -FRX';
  const child: ChildProcess = spawn(pager, { shell: true, stdio: ['pipe', 'inherit', 'inherit'], env: { LESS: 'FRX', ...ctx.env } });
  const started = await new Promise<boolean>((resolve) => {
    child.once('spawn', () => resolve(true));
    child.once('error', () => resolve(false));
  });
  const stdin = child.stdin;
  if (!started || stdin === null) return plain;
  let gone = false;
  const closed = new Promise<void>((resolve) => child.once('close', () => resolve()));
  void closed.then(() => (gone = true));
  stdin.on('error', () => (gone = true));
  return {
    out: stdin,
    closed: () => gone,
    done: async () => {
      if (!gone) stdin.end();
      await closed;
    },
  };
}

/** Buffers text and writes it in CHUNK-sized pieces with backpressure; stops writing once the sink closed. */
class ChunkWriter {
  #parts: string[] = [];
  #size = 0;
  constructor(readonly sink: Sink) {}
  async add(text: string): Promise<void> {
    this.#parts.push(text);
    this.#size += text.length;
    if (this.#size >= CHUNK) await this.flush();
  }
  async flush(): Promise<void> {
    const chunk = this.#parts.join('');
    this.#parts = [];
    this.#size = 0;
    if (chunk === '' || this.sink.closed()) return;
    const out = this.sink.out;
    if (!out.write(chunk)) await new Promise<void>((resolve) => {
      const go = () => {
        out.off('drain', go);
        out.off('close', go);
        resolve();
      };
      out.on('drain', go);
      out.on('close', go);
    });
  }
}

/** The session as Markdown, written piece by piece; stops reading when a pager has gone. */
async function writeMarkdown(stream: SessionStream, o: MarkdownOptions, w: ChunkWriter): Promise<void> {
  for await (const piece of markdownPieces(stream, o)) {
    if (w.sink.closed()) return;
    await w.add(piece);
  }
  await w.flush();
}

export default defineCommand({
  name: 'show',
  description: 'Show one session: Markdown (default, paged on a terminal), or --format json|jsonl.',
  usage: '<agent> <session-id> | <agent>:<session-id> [--format markdown|json|jsonl] [--full]',
  options: {
    format: { type: 'string', short: 'f', description: 'markdown (default) | json | jsonl', valueName: '<format>' },
    full: { type: 'boolean', description: `Do not cut tool blocks and thinking at ${SHOW_BLOCK_LINES} lines` },
    pager: { type: 'boolean', description: 'Page on a terminal (default; --no-pager writes straight out)' },
  },
  async run(ctx: CommandContext) {
    const { agent, id } = sessionArgs(ctx);
    const format: ExportFormat = parseChoice(ctx, 'format', ['markdown', 'json', 'jsonl'] as const) ?? 'markdown';
    const cut: MarkdownOptions = bool(ctx, 'full') ? {} : { maxBlockLines: SHOW_BLOCK_LINES };
    if (format !== 'markdown') {
      const session = await withProgress(ctx, 'Reading the session', () => getSessionFor(ctx, agent, id));
      ctx.stdout.write(renderExport(session, format, cut));
      return 0;
    }
    tuneHeapForStream(ctx.env);
    const stream = await withProgress(ctx, 'Reading the session', () => makeManager(ctx).stream(agent, id));
    const sink = await openSink(ctx);
    try {
      await writeMarkdown(stream, cut, new ChunkWriter(sink));
    } finally {
      await sink.done();
    }
    return 0;
  },
});
