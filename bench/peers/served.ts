/**
 * The peers run's served section: `sessionfold serve` started (untimed) on the corpus with its own cache,
 * then the CLI timed as a client, as a status line or monitor would call it:
 *
 * - with nothing changed;
 * - right after appending 1 MB to one session, the largest (its whole prefix is verified again) or the most
 *   recent (the one an agent is writing); the append is untimed and the client starts the moment it is
 *   written, so the server's work on the append is in the time;
 * - 0.3 s after such an append (the server has done that work by then, as it does between status-line polls).
 *
 * Every append grows the corpus (expected.json follows), and every timed report must match expected.json to
 * the token and be the server's (its count of answered commands grows by each case's runs: a client the
 * server does not answer runs the report itself, with the same output); afterwards the grown files are cut
 * back and the corpus documents restored, so the next run measures the same corpus. The server's peak RSS is read from /proc when there is one. `onlyUnchanged` (the
 * size curve) times the first case alone.
 */
import { mkdtempSync, readFileSync, rmSync, truncateSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { appendToCorpus, readCorpusDocs } from '../../fixtures/generate/index.js';
import type { Corpus } from '../lib/corpus.js';
import { startServe } from '../lib/serve.js';
import { agreement, describeAgreement } from './compare.js';
import { measure, median, type Measurement } from './measure.js';
import { parseSessionfold, sessionfoldInvocation } from './tools.js';

export interface ServedCase {
  name: string;
  runs: Measurement[];
  wallMs: number;
  cpuMs?: number;
  agreement: string;
}

export interface ServedResult {
  cases: ServedCase[];
  serverPeakRssMb?: number;
  /** Wall of the server's first command (it builds its cache). */
  primeMs: number;
}

export async function measureServed(o: { mainJs: string; corpus: Corpus; cacheDir: string; runs: number; log: (s: string) => void; onlyUnchanged?: boolean }): Promise<ServedResult> {
  const { corpus } = o;
  const socket = join(o.cacheDir, 'serve.sock');
  const db = join(o.cacheDir, 'served.db');
  for (const s of ['', '-wal', '-shm']) rmSync(db + s, { force: true });
  const serverHome = mkdtempSync(join(corpus.dir, '.home-'));
  const server = await startServe(o.mainJs, socket, { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: serverHome, TZ: 'UTC' });
  const paths = { dir: corpus.dir, claude: corpus.roots.claude, codex: corpus.roots.codex };
  // One client home for every run, as a user has one: the server keeps the recent commands (argv, cwd and
  // environment) current, and a fresh HOME per run would make each run a new command.
  const clientHome = mkdtempSync(join(corpus.dir, '.home-'));
  const client = async (): Promise<Measurement> => {
    const inv = sessionfoldInvocation(o.mainJs, paths, clientHome, 'cache', db);
    const m = await measure({ ...inv, env: { ...inv.env, SESSIONFOLD_SOCKET: socket } }, clientHome);
    if (m.code !== 0) throw new Error(`served client: exit ${m.code}: ${m.stderr}`);
    return m;
  };
  const docs = ['manifest.json', 'expected.json'].map((name) => [join(corpus.dir, name), readFileSync(join(corpus.dir, name))] as const);
  const grown = new Map<string, number>();
  const check = (m: Measurement): string => describeAgreement(agreement(readCorpusDocs(corpus.dir).expected, parseSessionfold(m.stdout)));
  try {
    const prime = await client();
    const cases: ServedCase[] = [];
    const timed = async (name: string, before: () => Promise<void>) => {
      const runs: Measurement[] = [];
      const agreements = new Set<string>();
      const counts = await server.status();
      for (let i = 0; i < o.runs; i++) {
        await before();
        const m = await client();
        runs.push(m);
        agreements.add(check(m));
        o.log(`  run ${i + 1}/${o.runs} ${name}: ${(m.wallMs / 1000).toFixed(3)} s wall`);
      }
      await server.expectServed(counts, o.runs, name);
      const cpu = runs.map((m) => m.cpuMs).filter((x): x is number => x !== undefined);
      cases.push({ name, runs, wallMs: median(runs.map((m) => m.wallMs)), ...(cpu.length > 0 && { cpuMs: median(cpu) }), agreement: [...agreements].join('; ') });
    };
    const append = (pick: 'largest' | 'recent') => {
      for (const f of appendToCorpus({ dir: corpus.dir, bytes: 1_000_000, agent: 'claude', pick }).files) {
        if (!grown.has(f.path)) grown.set(f.path, f.fromBytes);
      }
    };
    await timed('served, nothing changed', async () => {});
    for (const pick of o.onlyUnchanged ? [] : (['largest', 'recent'] as const)) {
      await timed(`served, right after +1 MB to the ${pick === 'recent' ? 'most recent' : 'largest'} session`, async () => append(pick));
    }
    if (!o.onlyUnchanged) {
      await timed('served, 0.3 s after +1 MB to the largest session', async () => {
        append('largest');
        await new Promise((r) => setTimeout(r, 300));
      });
    }
    const rss = server.peakRssMb();
    return { cases, primeMs: prime.wallMs, ...(rss !== undefined && { serverPeakRssMb: rss }) };
  } finally {
    await server.stop();
    rmSync(serverHome, { recursive: true, force: true });
    rmSync(clientHome, { recursive: true, force: true });
    for (const [path, size] of grown) truncateSync(join(corpus.dir, path), size);
    for (const [path, text] of docs) writeFileSync(path, text);
  }
}
