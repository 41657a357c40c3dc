/**
 * `sessionfold serve`: a served run prints exactly what a local run prints, right after any change to the
 * agent folders (appends, new files in new folders, deletions, rewrites), and the client falls back to a
 * local run when no server of its build answers. The watch-backed discovery equals a full discovery.
 */
import { execFile, type ChildProcess } from 'node:child_process';
import { appendFileSync, existsSync, mkdirSync, readFileSync, renameSync, rmSync, truncateSync, writeFileSync } from 'node:fs';
import { connect, createServer } from 'node:net';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { claude } from '../codecs/claude/index.js';
import { discoverSource } from '../src/scan/discover.js';
import { encodeFrame, FRAME, FrameReader, getSocketPath, isServed } from '../src/serve/protocol.js';
import { WatchedDiscovery } from '../src/serve/watch.js';
import { copyClaudeFixtures, copyCodexFixtures, makeHome, sink, snapshotTree, type Home } from './sessions-helpers.js';
import { runCli } from '../src/cli/run.js';
import { computeServed } from '../src/cli/served-compute.js';
import { runServedCommand } from '../src/cli/served.js';
import { startServer } from '../src/serve/server.js';
import { claudeAssistant } from './helpers/claude-lines.js';
import { startServeProcess } from './helpers/serve-process.js';
import { COUNTED } from './helpers/served-count.js';

const CLI = new URL('../dist/src/cli/main.cjs', import.meta.url).pathname;
const exec = promisify(execFile);

let seq = 0;
/** A Claude assistant line of a fresh response (its own message id and request id). */
function assistantLine(sessionId: string): string {
  seq++;
  return claudeAssistant(sessionId, '/tmp/proj', `serve_${seq}`, 7 + seq, `2026-08-03T12:00:${String(seq % 60).padStart(2, '0')}.000Z`);
}

/** A collecting stream (sessions-helpers' sink), shaped as a terminal 140 columns wide when `tty`. */
function shapedSink(tty: boolean): ReturnType<typeof sink> {
  const s = sink();
  if (tty) Object.assign(s, { isTTY: true, columns: 140 });
  return s;
}

/** One command in this process, through the server on `via.socket` or locally: its exit code and output. */
async function inProcess(args: string[], env: NodeJS.ProcessEnv, via: { socket: string; cwd: string } | 'local', tty = false) {
  const out = shapedSink(tty);
  const err = shapedSink(tty);
  const code =
    via === 'local'
      ? await runCli(args, { stdout: out, stderr: err, env: { ...env, SESSIONFOLD_SOCKET: 'off' } })
      : await runServedCommand(args, { stdout: out, stderr: err, env: { ...env, SESSIONFOLD_SOCKET: via.socket }, cwd: via.cwd });
  return { code, out: out.text(), err: err.text() };
}

describe('sessionfold serve (built CLI, a server child process)', () => {
  let home: Home;
  let server: ChildProcess;
  let log = '';
  let socket: string;
  const session = '11111111-1111-4111-8111-111111111111';
  let sessionFile: string;

  const run = async (args: string[], served: boolean) => {
    const env = { ...home.env, SESSIONFOLD_SOCKET: served ? socket : 'off', SESSIONFOLD_CACHE: join(home.dir, served ? 'served.db' : 'local.db') };
    const r = await exec(process.execPath, [CLI, ...args], { env, maxBuffer: 64 << 20 });
    return { stdout: r.stdout, stderr: r.stderr };
  };
  const servedCount = () => (log.match(/^served /gm) ?? []).length;
  const failedCount = () => (log.match(/^failed sessions list/gm) ?? []).length;
  let answered = 0; // the served runs so far, each of which the server must have answered once
  /** A served run, answered by the server: its count reaches one more, and stays there until the next. */
  const servedRun = async (args: string[]) => {
    const r = await run(args, true);
    answered++;
    await expect.poll(servedCount, COUNTED).toBe(answered);
    return r;
  };
  /** The served run answers, and equals the local run. */
  const expectSame = async (args: string[]) => {
    const served = await servedRun(args);
    const local = await run(args, false);
    expect(served).toEqual(local);
    return local.stdout;
  };
  const REPORT = ['cost', 'report', '--json', '--group-by', 'session', '--tz', 'UTC'];

  beforeAll(async () => {
    home = await makeHome();
    await copyClaudeFixtures(home);
    await copyCodexFixtures(home);
    sessionFile = join(home.claude, 'projects', '-tmp-proj', `${session}.jsonl`);
    socket = join(home.dir, 'run', 'sf.sock');
    // The server's own zone is not the clients' (UTC): what it computes and what they show must not depend on it.
    server = (await startServeProcess(CLI, socket, { ...home.env, TZ: 'Asia/Tokyo' }, (text) => (log += text))).child;
  }, 30_000);

  afterAll(async () => {
    if (server.exitCode === null) {
      const exited = new Promise((r) => server.once('exit', r));
      server.kill('SIGTERM');
      await exited;
    }
  });

  it('answers cost report and sessions list as a local run does', async () => {
    const first = await expectSame(REPORT);
    expect(JSON.parse(first).totalUsd).toBeGreaterThan(0);
    await expectSame(['sessions', 'list', '--json']);
    await expectSame(['cost', 'report', '--group-by', 'model', '--tz', 'UTC']);
  }, 60_000);

  it('answers every format byte for byte as a local run does, in the client\'s time zone, not the server\'s', async () => {
    const formats = [['--format', 'table'], ['--json'], ['--format', 'csv'], ['--format', 'markdown'], ['--compact'], ['--breakdown'], ['--no-cost'], ['--order', 'desc']];
    for (const f of formats) {
      for (const g of ['day', 'session']) await expectSame(['cost', 'report', '--group-by', g, ...f]);
    }
    // day buckets in UTC, the clients' zone: a server that bucketed in its own (Asia/Tokyo) would differ
    const byDay = await expectSame(['cost', 'report', '--group-by', 'day', '--json']);
    expect(Object.keys((JSON.parse(byDay) as { breakdowns: object }).breakdowns).length).toBeGreaterThan(0);
    await expectSame(['cost', 'report', '--group-by', 'none', '--format', 'csv']);
    for (const args of [[], ['claude'], ['codex', '--sort', 'cost'], ['--limit', '2', '--direction', 'asc'], ['--full', '--json']]) await expectSame(['sessions', 'list', ...args]);
    // An unknown agent: the server's compute step throws, it refuses, and the client runs the command
    // locally, which fails exactly as a local run does.
    const failing = (served: boolean) => run(['sessions', 'list', 'nobody-agent'], served).catch((e: { code: number; stdout: string; stderr: string }) => ({ code: e.code, stdout: e.stdout, stderr: e.stderr }));
    const before = failedCount();
    const served = await failing(true);
    expect(served).toEqual(await failing(false));
    expect(served).toMatchObject({ code: 1, stderr: expect.stringMatching(/^error AGENT_NOT_FOUND/) as unknown });
    await expect.poll(failedCount, COUNTED).toBe(before + 1);
    expect(servedCount()).toBe(answered);
  }, 120_000);

  it('sees an append the moment the write returns, every time', async () => {
    let last = '';
    for (let i = 0; i < 4; i++) {
      appendFileSync(sessionFile, `${assistantLine(session)}\n`);
      const out = await expectSame(REPORT);
      expect(out).not.toBe(last);
      last = out;
    }
  }, 60_000);

  it('sees a new session in a new folder, a subagent in a new subagents/ folder, and appends to both', async () => {
    const proj = join(home.claude, 'projects', '-tmp-new');
    mkdirSync(proj);
    const id = '55555555-5555-4555-8555-555555555555';
    writeFileSync(join(proj, `${id}.jsonl`), `${assistantLine(id)}\n`);
    await expectSame(REPORT);
    const sub = join(proj, id, 'subagents');
    mkdirSync(sub, { recursive: true });
    writeFileSync(join(sub, 'agent-a1.jsonl'), `${assistantLine(id)}\n`);
    await expectSame(REPORT);
    appendFileSync(join(sub, 'agent-a1.jsonl'), `${assistantLine(id)}\n`);
    appendFileSync(join(proj, `${id}.jsonl`), `${assistantLine(id)}\n`);
    await expectSame(REPORT);
    await expectSame(['sessions', 'list', '--json']);
  }, 60_000);

  it('sees a rewrite in place, a truncation and a deletion', async () => {
    const text = readFileSync(sessionFile, 'utf8');
    writeFileSync(sessionFile, text.replace(/"output_tokens":(\d+)/, '"output_tokens":99$1')); // same path, new bytes
    await expectSame(REPORT);
    truncateSync(sessionFile, text.indexOf('\n') + 1);
    await expectSame(REPORT);
    rmSync(join(home.claude, 'projects', '-tmp-new'), { recursive: true });
    await expectSame(REPORT);
  }, 60_000);

  it('stays exact when a local run writes the cache the server uses', async () => {
    appendFileSync(sessionFile, `${assistantLine(session)}\n`);
    const env = { ...home.env, SESSIONFOLD_SOCKET: 'off', SESSIONFOLD_CACHE: join(home.dir, 'served.db') };
    await exec(process.execPath, [CLI, ...REPORT], { env }); // reads the append first, writes its row
    appendFileSync(sessionFile, `${assistantLine(session)}\n`);
    await expectSame(REPORT);
  }, 60_000);

  it('never writes to agent files', async () => {
    const before = await snapshotTree(home.claude);
    const codexBefore = await snapshotTree(home.codex);
    await servedRun(REPORT);
    await servedRun(['sessions', 'list', '--json']);
    expect(await snapshotTree(home.claude)).toEqual(before);
    expect(await snapshotTree(home.codex)).toEqual(codexBefore);
  }, 60_000);

  it('refuses a request from another build, and a second server on the same socket', async () => {
    const reply = await new Promise<{ kind: number; payload: Buffer }[]>((resolve) => {
      const s = connect(socket);
      const reader = new FrameReader();
      const frames: { kind: number; payload: Buffer }[] = [];
      s.on('connect', () => s.write(`${JSON.stringify({ v: 1, build: 'other', argv: REPORT, env: {}, cwd: '/' })}\n`));
      s.on('data', (d: Buffer) => frames.push(...reader.push(d)));
      s.on('close', () => resolve(frames));
    });
    expect(reply.map((f) => f.kind)).toEqual([FRAME.refused]);
    const second = await exec(process.execPath, [CLI, 'serve', '--socket', socket], { env: home.env }).catch((e: { code: number; stderr: string }) => e);
    expect(second).toMatchObject({ code: 1 });
    expect((second as { stderr: string }).stderr).toMatch(/^error IO_ERROR: a sessionfold server already listens on /);
  }, 30_000);

  it('says how it is doing (serve --status)', async () => {
    const r = await exec(process.execPath, [CLI, 'serve', '--status', '--socket', socket], { env: home.env });
    const st = JSON.parse(r.stdout) as { served: number; watching: boolean; recent: string[]; discovery: { watched: number }; socket: string };
    expect(st.served).toBe(answered); // every served run's count was seen in the log before this request
    expect(st).toMatchObject({ socket, watching: true });
    expect(st.recent).toContain(REPORT.join(' '));
    expect(st.discovery.watched).toBeGreaterThan(0);
  }, 30_000);

  it('stops on SIGTERM and removes its socket; clients then run locally', async () => {
    // 'close', not 'exit': only then has its stderr (the "stopped" line) all arrived
    const closed = new Promise((r) => server.once('close', r));
    server.kill('SIGTERM');
    expect(await closed).toBe(0);
    expect(log).toMatch(/stopped \(\d+ served/);
    expect(existsSync(socket)).toBe(false);
    expect(await run(REPORT, true)).toEqual(await run(REPORT, false));
    expect(servedCount()).toBe(answered);
    const none = await exec(process.execPath, [CLI, 'serve', '--status', '--socket', socket], { env: home.env }).catch((e: { code: number; stderr: string }) => e);
    expect(none).toMatchObject({ code: 1 });
    expect((none as { stderr: string }).stderr).toMatch(/^error IO_ERROR: no sessionfold server listens on /);
  }, 30_000);
});

describe('the serve client', () => {
  it('runs locally when the socket is stale, when the server refuses, and when SESSIONFOLD_SOCKET=off', async () => {
    const home = await makeHome();
    await copyCodexFixtures(home);
    const args = [CLI, 'cost', 'report', '--json', '--tz', 'UTC'];
    const local = await exec(process.execPath, args, { env: { ...home.env, SESSIONFOLD_SOCKET: 'off' } });
    // a plain file where the socket should be
    const stale = join(home.dir, 'stale.sock');
    writeFileSync(stale, '');
    expect((await exec(process.execPath, args, { env: { ...home.env, SESSIONFOLD_SOCKET: stale } })).stdout).toBe(local.stdout);
    // a server that refuses every request (another build)
    const sock = join(home.dir, 'refuse.sock');
    let asked = 0;
    const srv = createServer((s) => {
      asked++;
      s.on('data', () => s.end(encodeFrame(FRAME.refused, JSON.stringify({ reason: 'another build' }))));
    });
    await new Promise<void>((r) => srv.listen(sock, r));
    try {
      expect((await exec(process.execPath, args, { env: { ...home.env, SESSIONFOLD_SOCKET: sock } })).stdout).toBe(local.stdout);
      expect(asked).toBe(1);
    } finally {
      await new Promise((r) => srv.close(r));
    }
  }, 30_000);

  it('serves only cost report and sessions list, never their --help; finds its socket from the environment', () => {
    expect(isServed(['cost', 'report', '--json'])).toBe(true);
    expect(isServed(['sessions', 'list'])).toBe(true);
    expect(isServed(['cost', 'report', '--help'])).toBe(false);
    expect(isServed(['events', 'export'])).toBe(false);
    expect(isServed(['read', '-'])).toBe(false);
    expect(getSocketPath({ SESSIONFOLD_SOCKET: 'off', HOME: '/h' })).toBeUndefined();
    expect(getSocketPath({ SESSIONFOLD_SOCKET: '/x.sock' })).toBe('/x.sock');
    expect(getSocketPath({ XDG_RUNTIME_DIR: '/run/user/1' })).toBe('/run/user/1/sessionfold.sock');
    expect(getSocketPath({ HOME: '/h' })).toBe('/h/.cache/sessionfold/server.sock');
  });

  it('splits frames however the bytes arrive', () => {
    const bytes = Buffer.concat([encodeFrame(FRAME.started, ''), encodeFrame(FRAME.data, '{"data":"héllo"}'), encodeFrame(FRAME.refused, '')]);
    for (const step of [1, 2, 5, 7, bytes.length]) {
      const r = new FrameReader();
      const got: { kind: number; payload: Buffer }[] = [];
      for (let i = 0; i < bytes.length; i += step) got.push(...r.push(bytes.subarray(i, i + step)));
      expect(got.map((f) => [f.kind, f.payload.toString()])).toEqual([
        [FRAME.started, ''],
        [FRAME.data, '{"data":"héllo"}'],
        [FRAME.refused, ''],
      ]);
      expect(r.pending).toBe(0);
    }
  });
});

describe('serve without notifications (as on systems other than Linux)', () => {
  it('lists and stats for every command, in process, and still answers as a local run does', async () => {
    const home = await makeHome();
    await copyClaudeFixtures(home);
    const socket = join(home.dir, 'in-process.sock');
    const server = await startServer({ socket, compute: computeServed, watch: false, sweepMs: 0 });
    const args = ['cost', 'report', '--json', '--group-by', 'session', '--tz', 'UTC'];
    const served = () => inProcess(args, { ...home.env, SESSIONFOLD_CACHE: join(home.dir, 's.db') }, { socket, cwd: home.dir });
    const local = () => inProcess(args, { ...home.env, SESSIONFOLD_CACHE: join(home.dir, 'l.db') }, 'local');
    const file = join(home.claude, 'projects', '-tmp-proj', '11111111-1111-4111-8111-111111111111.jsonl');
    try {
      expect(await served()).toEqual(await local());
      appendFileSync(file, `${assistantLine('11111111-1111-4111-8111-111111111111')}\n`);
      const after = await served();
      expect(after).toEqual(await local());
      expect(after.code).toBe(0);
      await expect.poll(() => server.stats.served, COUNTED).toBe(2);
      expect(server.stats).toMatchObject({ refreshes: 0, discovery: { cached: 0, full: 0 } });
    } finally {
      await server.close();
    }
  }, 30_000);
});

describe('served output follows the client, not the server', () => {
  it('formats for the client\'s terminal (its width) and time zone (its TZ, else the system\'s)', async () => {
    const home = await makeHome();
    await copyClaudeFixtures(home);
    await copyCodexFixtures(home);
    const socket = join(home.dir, 'shape.sock');
    const { TZ: _tz, NO_COLOR: _nc, COLUMNS: _c, ...noTz } = home.env;
    const serverTz = process.env.TZ;
    process.env.TZ = 'Asia/Tokyo'; // the server's own zone, which must not show
    const server = await startServer({ socket, compute: computeServed, sweepMs: 0 });
    const tables = new Map<string, string>();
    try {
      for (const tty of [true, false]) {
        for (const zone of ['America/Santiago', undefined]) {
          const env = { ...noTz, ...(zone !== undefined && { TZ: zone }), SESSIONFOLD_CACHE: join(home.dir, 'shape.db') };
          for (const args of [['sessions', 'list', '--limit', '5'], ['cost', 'report', '--group-by', 'day']]) {
            // Both run as a client process would: in the client's zone, which the served answer is
            // rendered in (the server computes in the zone of the request's TZ; its own shows in the
            // child-process test above).
            if (zone === undefined) delete process.env.TZ;
            else process.env.TZ = zone;
            const served = await inProcess(args, env, { socket, cwd: home.dir }, tty);
            const local = await inProcess(args, env, 'local', tty);
            process.env.TZ = 'Asia/Tokyo';
            expect({ code: served.code, out: served.out }).toEqual({ code: local.code, out: local.out });
            if (args[0] === 'sessions') tables.set(`${tty} ${zone}`, served.out);
          }
        }
      }
      await expect.poll(() => server.stats.served, COUNTED).toBe(8);
      // The terminal's width (140 columns, against 120 off a terminal) and the zone both show in the table.
      expect(tables.get('true America/Santiago')).not.toBe(tables.get('false America/Santiago'));
      expect(tables.get('true America/Santiago')).not.toBe(tables.get('true undefined'));
    } finally {
      await server.close();
      if (serverTz === undefined) delete process.env.TZ;
      else process.env.TZ = serverTz;
    }
  }, 60_000);
});

describe('served right after a write, in one process (the tightest race)', () => {
  it('counts every append made just before the request, ten times in a row', async () => {
    const home = await makeHome();
    const proj = join(home.claude, 'projects', '-tmp-race');
    mkdirSync(proj, { recursive: true });
    const sid = '3c3c3c3c-1111-4222-8333-444444444444';
    const file = join(proj, `${sid}.jsonl`);
    writeFileSync(file, `${claudeAssistant(sid, '/tmp/race', 'race_0', 100, '2026-08-03T12:00:00.000Z')}\n`);
    const socket = join(home.dir, 'race.sock');
    const server = await startServer({ socket, compute: computeServed, sweepMs: 0 });
    const output = async (): Promise<number> => {
      const r = await inProcess(['cost', 'report', '--json', '--tz', 'UTC'], { ...home.env, SESSIONFOLD_CACHE: join(home.dir, 'race.db') }, { socket, cwd: home.dir });
      expect(r.code).toBe(0);
      return (JSON.parse(r.out) as { outputTokens: number }).outputTokens;
    };
    try {
      let want = await output();
      expect(want).toBe(100);
      const firstListings = server.stats.discovery.full; // one per agent
      for (let i = 1; i <= 10; i++) {
        appendFileSync(file, `${claudeAssistant(sid, '/tmp/race', `race_${i}`, 1000 + i, `2026-08-03T12:00:${String(i).padStart(2, '0')}.000Z`)}\n`);
        want += 1000 + i;
        expect(await output()).toBe(want); // no wait between the write and the request
      }
      expect(server.stats.discovery.full).toBe(firstListings); // every later discovery came from the notifications
      expect(server.stats.discovery.restats).toBeGreaterThanOrEqual(10);
    } finally {
      await server.close();
    }
  }, 30_000);
});

describe('WatchedDiscovery', () => {
  it('equals a full discovery after appends, new files and folders, renames, sidecars, deletions, and roots that come and go', async () => {
    const home = await makeHome();
    await copyClaudeFixtures(home);
    const root = join(home.claude, 'projects');
    const later = join(home.dir, 'later', 'projects');
    const roots = [later, root];
    let changes = 0;
    const w = new WatchedDiscovery(() => changes++);
    const settle = () => new Promise((r) => setTimeout(r, 50));
    const check = async () => {
      await settle();
      const full = await discoverSource(claude, roots);
      expect(await w.source(claude, roots, () => discoverSource(claude, roots))).toEqual(full);
    };
    const line = (id: string) => `${assistantLine(id)}\n`;
    const S1 = '11111111-1111-4111-8111-111111111111';
    try {
      await check();
      expect(w.stats.full).toBe(1);
      const file = join(root, '-tmp-proj', `${S1}.jsonl`);
      appendFileSync(file, line(S1));
      await check();
      expect(w.stats).toMatchObject({ full: 1, cached: 1, relisted: 0, restats: 1 });
      expect(changes).toBeGreaterThan(0);
      await check(); // nothing changed: nothing stat'ed
      expect(w.stats).toMatchObject({ full: 1, cached: 2, restats: 1 });
      // a new folder with a session: listed again, only the new file stat'ed
      mkdirSync(join(root, '-tmp-b'));
      writeFileSync(join(root, '-tmp-b', '66666666-6666-4666-8666-666666666666.jsonl'), line('66666666-6666-4666-8666-666666666666'));
      await check();
      expect(w.stats).toMatchObject({ full: 1, relisted: 1, restats: 2 });
      // replaced by a rename (an atomic rewrite): the new file's stats, not the cached ones
      writeFileSync(join(root, '-tmp-b', 'tmp'), line(S1) + line(S1));
      renameSync(join(root, '-tmp-b', 'tmp'), file);
      await check();
      // a subagent's sidecar written after its transcript: the transcript's dependency fingerprint changes
      const subDir = join(root, '-tmp-proj', S1, 'subagents');
      mkdirSync(subDir, { recursive: true });
      writeFileSync(join(subDir, 'agent-x1.jsonl'), line(S1));
      await check();
      writeFileSync(join(subDir, 'agent-x1.meta.json'), JSON.stringify({ agentType: 'Explore' }));
      await check();
      // a folder deleted and made again: its new files are still seen, and so are appends to them
      rmSync(join(root, '-tmp-b'), { recursive: true });
      await check();
      mkdirSync(join(root, '-tmp-b'));
      writeFileSync(join(root, '-tmp-b', '88888888-8888-4888-8888-888888888888.jsonl'), line('88888888-8888-4888-8888-888888888888'));
      await check();
      appendFileSync(join(root, '-tmp-b', '88888888-8888-4888-8888-888888888888.jsonl'), line('88888888-8888-4888-8888-888888888888'));
      await check();
      rmSync(file);
      await check();
      // a root that did not exist appears; a root deleted and made again
      mkdirSync(join(later, '-tmp-c'), { recursive: true });
      writeFileSync(join(later, '-tmp-c', '77777777-7777-4777-8777-777777777777.jsonl'), line('77777777-7777-4777-8777-777777777777'));
      await check();
      rmSync(later, { recursive: true });
      await check();
      mkdirSync(join(later, '-tmp-d'), { recursive: true });
      writeFileSync(join(later, '-tmp-d', '99999999-9999-4999-8999-999999999999.jsonl'), line('99999999-9999-4999-8999-999999999999'));
      await check();
      appendFileSync(join(later, '-tmp-d', '99999999-9999-4999-8999-999999999999.jsonl'), line('99999999-9999-4999-8999-999999999999'));
      await check();
      expect(w.stats.watched).toBeGreaterThan(3);
      expect(w.stats.relisted).toBeGreaterThan(2);
    } finally {
      w.close();
    }
  });
});
