/**
 * Regression tests from a fresh-eyes review of the cost, scan, cache and sessions folds: each pins a defect
 * that was found and fixed (see the review report).
 */
import type { CommandContext } from '../src/cli/command.js';
import { appendFile, mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import { runCli } from '../src/cli/run.js';
import { makeHome, sink } from './sessions-helpers.js';
import { ZoneCalendar, parseDateInZone } from '../src/cost/calendar.js';
import { parseDateOption } from '../src/cli/commands/sessions-common.js';

describe('since/until in a zone whose DST transition is at midnight', () => {
  // America/Santiago springs forward at 00:00 on 2026-09-06 (to 01:00): local midnight does not exist.
  // Asia/Amman fell back at 01:00 on 2021-10-29 (to 00:00), Asia/Gaza on 2016-10-29: midnight happened twice.
  test.each([
    ['America/Santiago', '2026-09-06', '2026-09-05'],
    ['Asia/Amman', '2021-10-29', '2021-10-28'],
    ['Asia/Gaza', '2016-10-29', '2016-10-28'],
  ])('%s: --since %s starts that day and --until the day before ends it', (tz, gapDay, dayBefore) => {
    const cal = new ZoneCalendar(tz);
    const since = parseDateInZone(gapDay, cal, false).getTime();
    expect(cal.dayKey(since)).toBe(gapDay);
    expect(cal.dayKey(since - 1)).toBe(dayBefore);
    const until = parseDateInZone(dayBefore, cal, true).getTime();
    expect(cal.dayKey(until)).toBe(dayBefore);
    expect(until + 1).toBe(since);
  });
});

describe('a calendar date that does not exist is rejected, not rolled into the next month', () => {
  test('cost --since/--until (parseDateInZone)', () => {
    const cal = new ZoneCalendar('UTC');
    expect(() => parseDateInZone('2026-02-30', cal, true, '--until')).toThrow(/--until/);
    expect(() => parseDateInZone('2026-04-31T10:00', cal, false)).toThrow(/since/);
    expect(parseDateInZone('2028-02-29', cal).toISOString()).toBe('2028-02-29T00:00:00.000Z');
  });
  test('sessions --since/--until (parseDateOption)', () => {
    const ctx = (values: Record<string, string>, tz = 'UTC') =>
      ({ positionals: [], values, stdout: process.stdout, stderr: process.stderr, env: { TZ: tz }, runCli: async () => 0 }) as CommandContext;
    expect(() => parseDateOption(ctx({ until: '2026-02-30' }), 'until', true)).toThrow(/--until/);
    expect(parseDateOption(ctx({ since: '2028-02-29' }), 'since', false)?.toISOString()).toBe('2028-02-29T00:00:00.000Z');
    // The same zone rules as `cost`: the command's TZ (or --tz) decides where a day starts and ends.
    expect(parseDateOption(ctx({ until: '2026-03-01' }, 'America/Santiago'), 'until', true)?.toISOString()).toBe('2026-03-02T02:59:59.999Z');
  });
});

describe('events export --after on a response the agent is still writing', () => {
  const sid = '55555555-5555-4555-8555-555555555555';
  const line = (o: Record<string, unknown>) => JSON.stringify({ sessionId: sid, cwd: '/w/a', version: '2.0.0', ...o }) + '\n';
  // Claude Code writes one API response over several lines (one per content block), output tokens growing.
  const assistant = (uuid: string, content: unknown[], output: number) =>
    line({
      type: 'assistant',
      uuid,
      timestamp: '2026-03-01T10:00:01.000Z',
      requestId: 'req_1',
      message: { id: 'msg_1', type: 'message', role: 'assistant', model: 'claude-sonnet-4-5-20250929', content, usage: { input_tokens: 10, output_tokens: output } },
    });
  const cli = async (argv: string[], env: NodeJS.ProcessEnv) => {
    const out = sink();
    const err = sink();
    const code = await runCli(argv, { stdout: out, stderr: err, env });
    return { code, out: out.text(), err: err.text() };
  };
  const events = (ndjson: string) => ndjson.split('\n').filter((l) => l !== '').map((l) => JSON.parse(l) as { dedupKey: string; outputTokens: number });

  test('exports the final copy once the response is complete, then nothing more', async () => {
    const home = await makeHome();
    const dir = join(home.claude, 'projects', '-w-a');
    await mkdir(dir, { recursive: true });
    const file = join(dir, `${sid}.jsonl`);
    await writeFile(file, line({ type: 'user', uuid: 'u1', timestamp: '2026-03-01T10:00:00.000Z', message: { role: 'user', content: 'hello' } }) + assistant('a1', [{ type: 'thinking', thinking: 'hmm', signature: 'x' }], 2));
    const cursor = join(home.dir, 'usage.cursor');

    const first = await cli(['events', 'export', '--after', cursor], home.env);
    expect(first.code).toBe(0);
    expect(events(first.out).map((e) => e.outputTokens)).toEqual([2]);

    await appendFile(file, assistant('a2', [{ type: 'text', text: 'the answer' }], 900));
    const second = await cli(['events', 'export', '--after', cursor], home.env);
    expect(events(second.out)).toMatchObject([{ dedupKey: 'claude:msg_1', outputTokens: 900 }]);
    const report = await cli(['cost', 'report', '--json', '--group-by', 'none'], home.env);
    expect(JSON.parse(report.out).outputTokens).toBe(900);

    const third = await cli(['events', 'export', '--after', cursor], home.env);
    expect(events(third.out)).toEqual([]);
  });
});
