/**
 * Every codec's golden events (fixtures/expected/<agent>/, which each codec's own tests hold it to) against
 * the capabilities it declares about usage, because the folds act on the declaration without reading:
 * - `recordsUsage: false`: no usage event, and every session event says `usageRecorded: false` (a cost
 *   report then says the usage is unknown instead of $0);
 * - a session event that says `usageRecorded: false` has no usage event of its session;
 * - a session event that says `usageUnknown: true` comes from a codec declaring `usageRecordedAtEnd` or
 *   `usageMayBeUnknown`, without which a cost report would count that session's missing usage as none and say
 *   nothing; and a codec declaring either shows such a session in its goldens.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { SessionfoldEvent } from '../cursors/protocol/events.js';
import { BUILTIN_CODECS } from '../src/builtin-codecs.js';

const EXPECTED = new URL('../fixtures/expected/', import.meta.url).pathname;
const capabilitiesOf = new Map(BUILTIN_CODECS.map((c) => [c.descriptor.id, c.descriptor.capabilities]));
const agents = readdirSync(EXPECTED, { withFileTypes: true })
  .filter((e) => e.isDirectory())
  .map((e) => e.name)
  .sort();

/** Each golden file of `agent`, its events. */
function goldens(agent: string): { file: string; events: SessionfoldEvent[] }[] {
  const dir = join(EXPECTED, agent);
  return readdirSync(dir)
    .filter((f) => f.endsWith('.events.jsonl'))
    .map((file) => ({
      file,
      events: readFileSync(join(dir, file), 'utf8')
        .split('\n')
        .filter((l) => l !== '')
        .map((l) => JSON.parse(l) as SessionfoldEvent),
    }));
}

describe('declared usage capabilities match the golden events', () => {
  it('covers every codec with golden files', () => {
    expect(agents.length).toBeGreaterThan(15);
    for (const a of agents) expect(capabilitiesOf.has(a), a).toBe(true);
  });

  for (const agent of agents) {
    it(agent, () => {
      const caps = capabilitiesOf.get(agent)!;
      const mayBeUnknown = caps.usageRecordedAtEnd === true || caps.usageMayBeUnknown === true;
      if (caps.usageKnownAtEnd === true) expect(mayBeUnknown, 'usageKnownAtEnd goes with usageMayBeUnknown').toBe(true);
      let unknownSeen = false;
      for (const { file, events } of goldens(agent)) {
        const sessions = events.filter((e) => e.type === 'session');
        const usage = events.filter((e) => e.type === 'usage');
        if (caps.recordsUsage === false) {
          expect(usage, file).toEqual([]);
          expect(sessions.length, file).toBeGreaterThan(0);
          for (const s of sessions) expect(s.usageRecorded, file).toBe(false);
        }
        const unrecorded = new Set(sessions.filter((s) => s.usageRecorded === false).map((s) => s.sessionId));
        expect(usage.filter((u) => unrecorded.has(u.sessionId)), file).toEqual([]);
        const unknown = sessions.filter((s) => s.usageUnknown === true);
        if (unknown.length > 0) {
          unknownSeen = true;
          expect(mayBeUnknown, `${file} says usageUnknown`).toBe(true);
        }
      }
      if (mayBeUnknown) expect(unknownSeen, 'a codec declaring unknown usage shows it in a golden').toBe(true);
    });
  }
});
