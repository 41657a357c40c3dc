/**
 * Agents that keep pi's session files under their own roots, read by pi's engine (codecs/pi/): each one's
 * roots and its own environment variables, its fixture (fixtures/<agent>/, written in the agent's format as
 * its source writes it: no real session of these agents is public) read to golden events, chunk invariance
 * and resume, which codec claims each file of a HOME holding every pi-format agent (exactly one), and
 * `sessions list` / `cost report --agent` through the built CLI under that isolated HOME. Regenerate the
 * golden files with `UPDATE_GOLDEN=1 npx vitest run test/pi-forks.test.ts`.
 */
import { cp, mkdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { gjc } from '../codecs/gjc/index.js';
import { kimchi } from '../codecs/kimchi/index.js';
import { pi } from '../codecs/pi/index.js';
import { senpi } from '../codecs/senpi/index.js';
import type { Codec } from '../cursors/protocol/codec.js';
import { byKind, expectChunkInvariant, expectResumeEqualsFull, lineBoundaries, readEvents } from './helpers/codec-harness.js';
import { expectGolden } from './helpers/golden.js';
import { cliJson, expectOneOwnerEach, isolatedHome } from './helpers/isolated-home.js';
import { parseSync } from '../cursors/sync.js';
import { assistant, EXPECTED_DIR, HEADER, jsonl, PI_V3, usages } from './pi-helpers.js';

const OWN = fileURLToPath(new URL('../fixtures/', import.meta.url));

interface Fork {
  codec: Codec;
  /** The fixture session, relative to fixtures/<agent>/. */
  file: string;
  /** Where fixtures/<agent>/ goes under HOME for the agent's default roots. */
  home: string;
  /** `defaultRoots` under an environment (HOME is `/h`), and what it gives. */
  roots: [NodeJS.ProcessEnv, string[]][];
  sessionId: string;
  /** The title `sessions list` shows: the agent's own name for the session, else the first prompt. */
  title: string;
  cwd: string;
}

const FORKS: Fork[] = [
  {
    codec: senpi,
    file: 'agent/sessions/--home-dev-shop--/2026-06-02T09-15-00-000Z_019e2a10-7c3b-7d4e-9a01-5e6f7a8b9c0d.jsonl',
    home: '.senpi',
    roots: [
      [{}, ['/h/.senpi/agent/sessions']],
      [{ SENPI_CODING_AGENT_DIR: '~/s' }, ['/h/s/sessions']],
      [{ SENPI_CODING_AGENT_SESSION_DIR: '/x/sessions', SENPI_CODING_AGENT_DIR: '/a' }, ['/x/sessions', '/a/sessions']],
      [{ PI_CODING_AGENT_DIR: '/p' }, ['/h/.senpi/agent/sessions']],
    ],
    sessionId: '019e2a10-7c3b-7d4e-9a01-5e6f7a8b9c0d',
    title: 'Cart total test',
    cwd: '/home/dev/shop',
  },
  {
    codec: kimchi,
    file: 'harness/sessions/--home-dev-api--/2026-06-09T14-02-10-000Z_019e4b22-91a0-7f3c-8b5d-2e7c1a9f0d43.jsonl',
    home: join('.config', 'kimchi'),
    roots: [
      [{}, ['/h/.config/kimchi/harness/sessions']],
      [{ XDG_CONFIG_HOME: '/x' }, ['/h/.config/kimchi/harness/sessions']],
      [{ KIMCHI_CODING_AGENT_DIR: '/k' }, ['/k/sessions']],
      [{ PI_CODING_AGENT_DIR: '/p' }, ['/h/.config/kimchi/harness/sessions']],
    ],
    sessionId: '019e4b22-91a0-7f3c-8b5d-2e7c1a9f0d43',
    title: 'Why does the health check return 503 after deploy?',
    cwd: '/home/dev/api',
  },
  {
    codec: gjc,
    file: 'agent/sessions/-web/2026-06-11T08-40-00-000Z_019e55d0-3f2a-7b81-a4c6-0d9e8f7a6b5c.jsonl',
    home: '.gjc',
    roots: [
      [{}, ['/h/.gjc/agent/sessions']],
      [{ XDG_DATA_HOME: '/d' }, process.platform === 'win32' ? ['/h/.gjc/agent/sessions'] : ['/h/.gjc/agent/sessions', '/d/gjc/sessions']],
      [{ GJC_CODING_AGENT_DIR: '~/g', XDG_DATA_HOME: '/d' }, ['/h/g/sessions']],
      [{ GJC_CONFIG_DIR: '.gajae' }, ['/h/.gajae/agent/sessions']],
      [{ GJC_CONFIG_DIR: '../escape' }, ['/h/.gjc/agent/sessions']],
      [{ PI_CODING_AGENT_DIR: '/p', PI_CONFIG_DIR: '.p' }, ['/h/.gjc/agent/sessions']],
    ],
    sessionId: '019e55d0-3f2a-7b81-a4c6-0d9e8f7a6b5c',
    title: 'Fix flaky login test',
    cwd: '/home/dev/web',
  },
];
const EACH = FORKS.map((f) => [f.codec.id, f] as const);
const fixture = (f: Fork) => join(OWN, f.codec.id, f.file);

describe('pi-format agents: roots, fixtures, golden events', () => {
  it.each(EACH)('%s: default roots and the agent\'s own variables', (_id, f) => {
    for (const [env, roots] of f.roots) expect(f.codec.defaultRoots({ HOME: '/h', ...env }), JSON.stringify(env)).toEqual(roots);
  });

  it.each(EACH)('%s: discovers its fixture by file name and reads it to the golden events', async (_id, f) => {
    const root = join(OWN, f.codec.id, f.file.split('/').slice(0, -2).join('/'));
    const found = [];
    for await (const s of f.codec.discover([root])) found.push([s.agent, s.sessionId]);
    expect(found).toEqual([[f.codec.id, f.sessionId]]);
    const events = await expectChunkInvariant(f.codec, fixture(f));
    await expectGolden(join(EXPECTED_DIR, f.codec.id), f.file.split('/').pop()!.replace(/\.jsonl$/, ''), events);
    const kinds = byKind(events);
    expect(kinds.session.at(-1)).toMatchObject({ agent: f.codec.id, nativeId: f.sessionId, cwd: f.cwd });
    const us = usages(events);
    expect(us.length).toBeGreaterThan(0);
    expect(us.every((u) => u.agent === f.codec.id && u.dedupKey.startsWith(`${f.codec.id}:`) && (u.costUsd ?? 0) > 0)).toBe(true);
  });

  it.each(EACH)('%s: a read resumed at every line boundary equals one full read', async (_id, f) => {
    const content = await readFile(fixture(f));
    await expectResumeEqualsFull(f.codec, content, lineBoundaries(content), {}, f.file.split('/').pop());
  });
});

describe('the parts of a usage gajae-code records (its Usage, from omp)', () => {
  /** An assistant entry whose usage carries `extra` beside pi's four counts (1200 input, 300 output, 500 written). */
  const withParts = (id: string, extra: Record<string, unknown>) => {
    const e = assistant(id, null, 'done', 1200, 300, 0.02) as { message: { usage: Record<string, unknown> } };
    Object.assign(e.message.usage, { cacheWrite: 500, totalTokens: 2000 }, extra);
    return e;
  };

  it('reads reasoning, one-hour cache writes and web searches as parts of the counts they belong to', () => {
    const lines = jsonl([
      HEADER,
      withParts('a0000001', { reasoningTokens: 120, cttl: { ephemeral5m: 200, ephemeral1h: 300 }, server: { webSearch: 2, webFetch: 1 } }),
      withParts('a0000002', { reasoningTokens: 301, cttl: { ephemeral1h: 501 }, server: { webSearch: 0 } }),
      withParts('a0000003', {}),
    ]);
    const us = usages(parseSync(gjc.lineCore!, lines, { file: 'x.jsonl' }));
    expect(us.map((u) => [u.outputTokens, u.reasoningTokens, u.cacheWriteTokens, u.cacheWrite1hTokens, u.webSearchRequests])).toEqual([
      [300, 120, 500, 300, 2],
      [300, 0, 500, 0, undefined], // parts larger than their whole are not parts of it
      [300, 0, 500, 0, undefined],
    ]);
  });
});

describe('pi-format agents in one HOME, through the CLI', () => {
  const PI_FILE = join('.pi', 'agent', 'sessions', '--tmp-as-agent-fixture-project--', '2026-05-12T01-02-27-657Z_019e19b4-eb48-746a-aa6b-8dfcfa37954b.jsonl');
  const h = isolatedHome('sf-pi-forks-', async (home) => {
    for (const f of FORKS) await cp(join(OWN, f.codec.id), join(home, f.home), { recursive: true });
    await mkdir(join(home, PI_FILE, '..'), { recursive: true });
    await cp(PI_V3, join(home, PI_FILE));
  });
  const cli = (args: string[]) => cliJson(h.env, args);

  it('each session file is under the default roots of exactly one codec, the one detection picks', async () => {
    const ownerOf = (inHome: string) => (inHome.startsWith('.pi') ? 'pi' : FORKS.find((f) => inHome.startsWith(f.home))!.codec.id);
    expect(await expectOneOwnerEach(h, ownerOf)).toBe(FORKS.length + 1);
  });

  it.each(EACH)('%s: sessions list and cost report --agent count its session alone', async (_id, f) => {
    const list = (await cli(['sessions', 'list', f.codec.id, '--json'])) as { agent: string; sessionId: string; title: string; cwd: string }[];
    expect(list.map((s) => [s.agent, s.sessionId, s.title, s.cwd])).toEqual([[f.codec.id, f.sessionId, f.title, f.cwd]]);
    const us = usages(await readEvents(f.codec, join(h.home, f.home, f.file)));
    const report = (await cli(['cost', 'report', '--agent', f.codec.id, '--json', '--group-by', 'agent', '--no-cache'])) as { breakdowns: Record<string, { requestCount: number; inputTokens: number; outputTokens: number; cacheReadTokens: number; cacheWriteTokens: number; totalUsd: number }> };
    expect(Object.keys(report.breakdowns)).toEqual([f.codec.id]);
    expect(report.breakdowns[f.codec.id]).toMatchObject({
      requestCount: us.length,
      inputTokens: us.reduce((n, u) => n + u.inputTokens, 0),
      outputTokens: us.reduce((n, u) => n + u.outputTokens, 0),
      cacheReadTokens: us.reduce((n, u) => n + u.cacheReadTokens, 0),
      cacheWriteTokens: us.reduce((n, u) => n + u.cacheWriteTokens, 0),
    });
    expect(report.breakdowns[f.codec.id]!.totalUsd).toBeCloseTo(us.reduce((n, u) => n + (u.costUsd ?? 0), 0), 9);
  });

  it('a report over every agent counts pi\'s session once and each fork\'s under its own name', async () => {
    const report = (await cli(['cost', 'report', '--json', '--group-by', 'agent', '--no-cache'])) as { breakdowns: Record<string, { requestCount: number }> };
    const piCount = usages(await readEvents(pi, join(h.home, PI_FILE))).length;
    expect(report.breakdowns.pi?.requestCount).toBe(piCount);
    for (const f of FORKS) expect(report.breakdowns[f.codec.id]?.requestCount, f.codec.id).toBe(usages(await readEvents(f.codec, fixture(f))).length);
  });
});
