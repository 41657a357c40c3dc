/**
 * The files beside a Grok Build session (codecs/grok/meta.ts): `summary.json` and a hashed workspace's `.cwd`
 * are read only when they are regular files of a sane size. A FIFO in their place would block a plain read
 * until some writer opened it, so the read runs in a child process here, whose hang fails the test instead of
 * stopping the suite.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { readGrokMeta } from '../codecs/grok/meta.js';
import { buildIfStale } from './helpers/agent-cli.js';

const META = fileURLToPath(new URL('../dist/codecs/grok/meta.js', import.meta.url));

let dir: string;
let session: string;
beforeAll(() => buildIfStale(['grok']), 120_000);
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'sf-grok-meta-'));
  session = join(dir, 'sessions', '%2Fhome%2Fdev%2Fapp', '019a0000-0000-7000-8000-000000000001');
  mkdirSync(session, { recursive: true });
  writeFileSync(join(session, 'updates.jsonl'), '');
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

/** `readGrokMeta` of the session's updates file, in a child process given `ms` to answer. */
function metaInChild(ms: number): { meta: unknown; timedOut: boolean } {
  const script = `import { readGrokMeta } from ${JSON.stringify(META)}; console.log(JSON.stringify(readGrokMeta(process.argv[1])));`;
  const r = spawnSync(process.execPath, ['--input-type=module', '-e', script, join(session, 'updates.jsonl')], { timeout: ms, encoding: 'utf8' });
  return { meta: r.status === 0 ? JSON.parse(r.stdout) : undefined, timedOut: r.signal !== null };
}

describe('grok: the files beside a session', () => {
  it('reads a subagent summary', () => {
    writeFileSync(join(session, 'summary.json'), JSON.stringify({ session_kind: 'subagent', parent_session_id: 'p1' }));
    expect(readGrokMeta(join(session, 'updates.jsonl'))).toEqual({ subagent: true, parent: 'p1' });
  });

  it('does not wait on a FIFO in place of summary.json: it says nothing', () => {
    execFileSync('mkfifo', [join(session, 'summary.json')]);
    expect(metaInChild(4_000)).toEqual({ meta: {}, timedOut: false });
  }, 15_000);

  it('does not read a summary.json far larger than Grok writes', () => {
    const pad = ' '.repeat(2 << 20);
    writeFileSync(join(session, 'summary.json'), `{"session_kind": "subagent",${pad}"parent_session_id": "p1"}`);
    expect(readGrokMeta(join(session, 'updates.jsonl'))).toEqual({});
  });
});
