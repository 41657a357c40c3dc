/**
 * Calendar buckets (day, ISO week, month) of instants in an IANA time zone, and the reverse (a wall-clock
 * date in a zone → the instant). Folds call `dayKey` once per event, so nothing here may build an
 * Intl.DateTimeFormat per call: one formatter per zone, used only to learn the zone's UTC offset twice per
 * UTC day of history seen (and once per quarter hour on a day with a DST transition: every offset and
 * transition in use sits on a 15-minute grid), then plain integer arithmetic and a per-day string cache.
 * UTC skips Intl entirely.
 */
import { readlinkSync } from 'node:fs';
import { invalidOption } from '../../cursors/protocol/errors.js';

const DAY_MS = 86_400_000;
const QUARTER_MS = 900_000;

/** The local zone of this process (`TZ` or the system setting). */
export function localTimeZone(): string {
  if (localIsUtc()) return 'UTC';
  return new Intl.DateTimeFormat().resolvedOptions().timeZone || 'UTC';
}

/** Zone names for which Node's Intl resolves the local zone to `UTC` (checked one by one with Node 20's ICU). */
const UTC_ZONES = new Set(['UTC', 'GMT', 'Etc/UTC', 'Etc/GMT', 'Etc/UCT', 'Universal', 'Zulu', 'GMT0']);

/**
 * Whether the local zone is UTC, told as ICU tells it (`$TZ`, else the `/etc/localtime` link) without Intl:
 * the first Intl call loads ICU's locale and zone data, 30–80 ms of every start on a UTC server or container
 * (profiles of an empty `cost report`). Any other answer goes to Intl.
 */
function localIsUtc(): boolean {
  const tz = process.env.TZ;
  if (tz !== undefined) return UTC_ZONES.has(tz.replace(/^:/, ''));
  try {
    const link = readlinkSync('/etc/localtime');
    const at = link.lastIndexOf('zoneinfo/');
    return at >= 0 && UTC_ZONES.has(link.slice(at + 'zoneinfo/'.length));
  } catch {
    return false;
  }
}

/** Throw INVALID_OPTION unless `tz` is an IANA zone this runtime knows. */
export function checkTimeZone(tz: string, name = 'timeZone'): string {
  // What Intl answers for it, without the ~10 ms Intl took to load its zone data on first use (one profile of a warm report).
  if (tz === 'UTC') return 'UTC';
  try {
    return new Intl.DateTimeFormat('en-US', { timeZone: tz }).resolvedOptions().timeZone;
  } catch {
    throw invalidOption(name, 'an IANA time zone such as Europe/Paris or UTC', tz);
  }
}

/** Days since 1970-01-01 → `YYYY-MM-DD` parts (proleptic Gregorian; Hinnant's civil_from_days). */
export function civilFromDays(days: number): [number, number, number] {
  const z = days + 719468;
  const era = Math.floor(z / 146097);
  const doe = z - era * 146097;
  const yoe = Math.floor((doe - Math.floor(doe / 1460) + Math.floor(doe / 36524) - Math.floor(doe / 146096)) / 365);
  const doy = doe - (365 * yoe + Math.floor(yoe / 4) - Math.floor(yoe / 100));
  const mp = Math.floor((5 * doy + 2) / 153);
  const d = doy - Math.floor((153 * mp + 2) / 5) + 1;
  const m = mp < 10 ? mp + 3 : mp - 9;
  return [yoe + era * 400 + (m <= 2 ? 1 : 0), m, d];
}

/**
 * `YYYY-MM-DD` parts → days since 1970-01-01 (proleptic Gregorian; Hinnant's days_from_civil). Linear in
 * the day, so a day past the month's end rolls over as in `Date.UTC` (Feb 31 → Mar 3 or 2).
 */
export function daysFromCivil(y: number, m: number, d: number): number {
  const yy = m <= 2 ? y - 1 : y;
  const era = Math.floor(yy / 400);
  const yoe = yy - era * 400;
  const doy = Math.floor((153 * (m > 2 ? m - 3 : m + 9) + 2) / 5) + d - 1;
  const doe = yoe * 365 + Math.floor(yoe / 4) - Math.floor(yoe / 100) + doy;
  return era * 146097 + doe - 719468;
}

const pad2 = (n: number) => (n < 10 ? `0${n}` : `${n}`);

/** ISO week key (`2026-W02`, weeks start on Monday) of a day number. */
export function isoWeekKey(days: number): string {
  const weekday = (((days + 3) % 7) + 7) % 7; // 0 = Monday (1970-01-01 was a Thursday)
  const thursday = days - weekday + 3;
  const [year] = civilFromDays(thursday);
  const jan1 = Math.floor(Date.UTC(year, 0, 1) / DAY_MS);
  const week = Math.floor((thursday - jan1) / 7) + 1;
  return `${year}-W${pad2(week)}`;
}

/** Buckets and conversions in one time zone. Create one per fold; it caches as it goes. */
export class ZoneCalendar {
  readonly timeZone: string;
  readonly #utc: boolean;
  readonly #fmt: Intl.DateTimeFormat | undefined;
  readonly #offsets = new Map<number, number>();
  /** Per UTC day: its offset when constant all day, null when the day has a transition. */
  readonly #dayOffsets = new Map<number, number | null>();
  readonly #days = new Map<number, string>();
  readonly #weeks = new Map<number, string>();
  #lastQuarter = NaN;
  #lastOffset = 0;
  #lastDay = NaN;
  #lastDayKey = '';

  constructor(timeZone: string = localTimeZone()) {
    this.timeZone = checkTimeZone(timeZone);
    this.#utc = /^(?:utc|etc\/utc|etc\/gmt|gmt|etc\/uct|uct|etc\/zulu|zulu)$/i.test(this.timeZone);
    this.#fmt = this.#utc
      ? undefined
      : new Intl.DateTimeFormat('en-US', { timeZone: this.timeZone, hourCycle: 'h23', year: 'numeric', month: 'numeric', day: 'numeric', hour: 'numeric', minute: 'numeric', second: 'numeric' });
  }

  /** Offset at an instant, straight from Intl (the slow path). */
  #intlOffset(at: number): number {
    const p: Record<string, number> = {};
    for (const part of (this.#fmt as Intl.DateTimeFormat).formatToParts(at)) if (part.type !== 'literal') p[part.type] = Number(part.value);
    return Date.UTC(p.year as number, (p.month as number) - 1, p.day as number, p.hour as number, p.minute as number, p.second as number) - at;
  }

  /**
   * The zone's offset from UTC at instant `ms`, in ms (local = UTC + offset). A UTC day whose start and end
   * have the same offset has it throughout (zones change at most once a day), so most days cost two Intl
   * calls in all; a day with a transition is resolved per quarter hour.
   */
  offsetAt(ms: number): number {
    if (this.#utc) return 0;
    const q = Math.floor(ms / QUARTER_MS);
    if (q === this.#lastQuarter) return this.#lastOffset;
    const day = Math.floor(ms / DAY_MS);
    let whole = this.#dayOffsets.get(day);
    if (whole === undefined) {
      const a = this.#intlOffset(day * DAY_MS);
      whole = a === this.#intlOffset((day + 1) * DAY_MS - QUARTER_MS) ? a : null;
      this.#dayOffsets.set(day, whole);
    }
    let off: number;
    if (whole !== null) off = whole;
    else {
      let o = this.#offsets.get(q);
      if (o === undefined) {
        o = this.#intlOffset(q * QUARTER_MS);
        this.#offsets.set(q, o);
      }
      off = o;
    }
    this.#lastQuarter = q;
    this.#lastOffset = off;
    return off;
  }

  /** Local day number (days since 1970-01-01 in this zone) of instant `ms`. */
  dayNumber(ms: number): number {
    return Math.floor((ms + this.offsetAt(ms)) / DAY_MS);
  }

  /** `YYYY-MM-DD` of instant `ms` in this zone. */
  dayKey(ms: number): string {
    const d = this.dayNumber(ms);
    if (d === this.#lastDay) return this.#lastDayKey;
    let s = this.#days.get(d);
    if (s === undefined) {
      const [y, m, dd] = civilFromDays(d);
      s = `${y}-${pad2(m)}-${pad2(dd)}`;
      this.#days.set(d, s);
    }
    this.#lastDay = d;
    this.#lastDayKey = s;
    return s;
  }

  /** ISO week `YYYY-Www` (Monday first) of instant `ms` in this zone. */
  weekKey(ms: number): string {
    const d = this.dayNumber(ms);
    let s = this.#weeks.get(d);
    if (s === undefined) {
      s = isoWeekKey(d);
      this.#weeks.set(d, s);
    }
    return s;
  }

  readonly #months = new Map<string, string>();
  /** `YYYY-MM` of instant `ms` in this zone. */
  monthKey(ms: number): string {
    const day = this.dayKey(ms);
    let m = this.#months.get(day);
    if (m === undefined) {
      m = day.slice(0, 7);
      this.#months.set(day, m);
    }
    return m;
  }

  /**
   * The instant at which the wall clock of this zone shows the given time. Candidates are the wall time under
   * the offsets in force a day before and a day after: a wall time shown twice (fall back) resolves to its
   * first occurrence, one that does not exist (spring forward; in some zones that is midnight, e.g.
   * America/Santiago) resolves forward, to the transition.
   */
  toInstant(year: number, month: number, day: number, hour = 0, minute = 0, second = 0, millis = 0): number {
    const wall = Date.UTC(year, month - 1, day, hour, minute, second, millis);
    const before = wall - this.offsetAt(wall - DAY_MS);
    const after = wall - this.offsetAt(wall + DAY_MS);
    const beforeOk = before + this.offsetAt(before) === wall;
    const afterOk = after + this.offsetAt(after) === wall;
    if (beforeOk && afterOk) return Math.min(before, after);
    if (beforeOk) return before;
    if (afterOk) return after;
    return Math.max(before, after);
  }
}

/**
 * Parse a CLI date: `2026-01-01`, `20260101`, `2026-01-01T10:00` (wall time in the zone) or an ISO instant
 * with `Z` / an offset. A bare date is the start of that day in the zone, or with `endOfDay` its last ms.
 */
export function parseDateInZone(text: string, cal: ZoneCalendar, endOfDay = false, name = 'since'): Date {
  const s = text.trim();
  const date = /^(\d{4})-?(\d{2})-?(\d{2})$/.exec(s);
  if (date) {
    const [y, m, d] = [Number(date[1]), Number(date[2]), Number(date[3])];
    // A day past the month's end (2026-02-30) would roll over into the next month: reject it.
    if (m < 1 || m > 12 || d < 1 || d > new Date(Date.UTC(y, m, 0)).getUTCDate()) throw invalidOption(name, 'a date YYYY-MM-DD or an ISO-8601 time', text);
    return new Date(endOfDay ? cal.toInstant(y, m, d + 1) - 1 : cal.toInstant(y, m, d));
  }
  const wall = /^(\d{4})-(\d{2})-(\d{2})[T ](\d{2}):(\d{2})(?::(\d{2})(?:\.(\d{1,3}))?)?$/.exec(s);
  if (wall) {
    const n = wall.slice(1).map((x) => (x === undefined ? 0 : Number(x)));
    const [y, m, d, h, mi, sec] = n as [number, number, number, number, number, number];
    if (m < 1 || m > 12 || d < 1 || d > new Date(Date.UTC(y, m, 0)).getUTCDate() || h > 23 || mi > 59 || sec > 59) {
      throw invalidOption(name, 'a date YYYY-MM-DD or an ISO-8601 time', text);
    }
    return new Date(cal.toInstant(n[0] as number, n[1] as number, n[2] as number, n[3] as number, n[4] as number, n[5] as number, Number(((wall[7] ?? '0') + '00').slice(0, 3))));
  }
  if (/^\d{4}-\d{2}-\d{2}T.*(?:Z|[+-]\d{2}:?\d{2})$/i.test(s)) {
    const ms = Date.parse(s);
    if (!Number.isNaN(ms)) return new Date(ms);
  }
  throw invalidOption(name, 'a date YYYY-MM-DD or an ISO-8601 time', text);
}

/**
 * The start of the day, ISO week (Monday) or month `back` periods before the one holding instant `nowMs`, in
 * the calendar's zone: `back` 0 is the current period's start. `--last N` selects from `periodStart(…, N - 1)`.
 */
export function periodStart(cal: ZoneCalendar, unit: 'day' | 'week' | 'month', back: number, nowMs: number): number {
  const today = cal.dayNumber(nowMs);
  if (unit === 'month') {
    const [y, m] = civilFromDays(today);
    const months = y * 12 + (m - 1) - back;
    return cal.toInstant(Math.floor(months / 12), (months % 12) + 1, 1);
  }
  const day = unit === 'day' ? today - back : today - ((((today + 3) % 7) + 7) % 7) - 7 * back;
  const [y, m, d] = civilFromDays(day);
  return cal.toInstant(y, m, d);
}
