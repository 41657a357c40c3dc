/**
 * `diff(a, b)`: a message-level structural diff of two sessions, from the same agent or not.
 *
 * 1. Key each message by (role, content) — string equality, as the spec says — and intern keys to ints.
 * 2. Align with a longest common subsequence: the common prefix and suffix are trimmed first (a fork shares
 *    its parent's history), the middle is solved exactly by dynamic programming when it is small, else by
 *    Hirschberg's linear-space recursion (same LCS, O(n·m) time, O(n+m) memory).
 * 3. Between two aligned (unchanged) messages lies a gap of removals (only in A) and additions (only in B).
 *    Inside a gap, each removal is paired, in order, with the first not-yet-paired addition of the same role
 *    that comes after the previous pairing; such a pair is a `modification` (same role, different content).
 *    Unpaired ones stay removals and additions. Pairing keeps both index sequences increasing, so the
 *    operations read in order of both sessions.
 */
import type { DiffOperation, SessionDiff, SessionMessage, Session } from './types.js';

type Step = { op: 'eq' | 'del' | 'ins'; i: number; j: number };

/** Cells above which the full DP table gives way to Hirschberg. */
const DP_MAX_CELLS = 4_000_000;

function lcsTable(a: Int32Array, b: Int32Array, aFrom: number, aTo: number, bFrom: number, bTo: number, out: Step[]): void {
  const n = aTo - aFrom;
  const m = bTo - bFrom;
  const w = m + 1;
  const t = new Uint32Array((n + 1) * w);
  for (let i = n - 1; i >= 0; i--) {
    for (let j = m - 1; j >= 0; j--) {
      t[i * w + j] = a[aFrom + i] === b[bFrom + j] ? (t[(i + 1) * w + j + 1] as number) + 1 : Math.max(t[(i + 1) * w + j] as number, t[i * w + j + 1] as number);
    }
  }
  let i = 0;
  let j = 0;
  while (i < n && j < m) {
    if (a[aFrom + i] === b[bFrom + j]) out.push({ op: 'eq', i: aFrom + i++, j: bFrom + j++ });
    else if ((t[(i + 1) * w + j] as number) >= (t[i * w + j + 1] as number)) out.push({ op: 'del', i: aFrom + i++, j: -1 });
    else out.push({ op: 'ins', i: -1, j: bFrom + j++ });
  }
  while (i < n) out.push({ op: 'del', i: aFrom + i++, j: -1 });
  while (j < m) out.push({ op: 'ins', i: -1, j: bFrom + j++ });
}

/** LCS lengths of a[aFrom..aTo) against every prefix of b[bFrom..bTo) (forward) or suffix (reverse). */
function lcsRow(a: Int32Array, b: Int32Array, aFrom: number, aTo: number, bFrom: number, bTo: number, reverse: boolean): Uint32Array {
  const m = bTo - bFrom;
  let prev = new Uint32Array(m + 1);
  let cur = new Uint32Array(m + 1);
  for (let k = 0; k < aTo - aFrom; k++) {
    const x = reverse ? a[aTo - 1 - k] : a[aFrom + k];
    for (let j = 1; j <= m; j++) {
      const y = reverse ? b[bTo - j] : b[bFrom + j - 1];
      cur[j] = x === y ? (prev[j - 1] as number) + 1 : Math.max(prev[j] as number, cur[j - 1] as number);
    }
    [prev, cur] = [cur, prev];
  }
  return prev;
}

function hirschberg(a: Int32Array, b: Int32Array, aFrom: number, aTo: number, bFrom: number, bTo: number, out: Step[]): void {
  const n = aTo - aFrom;
  const m = bTo - bFrom;
  if (n === 0) {
    for (let j = bFrom; j < bTo; j++) out.push({ op: 'ins', i: -1, j });
    return;
  }
  if (m === 0) {
    for (let i = aFrom; i < aTo; i++) out.push({ op: 'del', i, j: -1 });
    return;
  }
  if (n * m <= DP_MAX_CELLS || n === 1) {
    lcsTable(a, b, aFrom, aTo, bFrom, bTo, out);
    return;
  }
  const mid = aFrom + (n >> 1);
  const left = lcsRow(a, b, aFrom, mid, bFrom, bTo, false);
  const right = lcsRow(a, b, mid, aTo, bFrom, bTo, true);
  let best = -1;
  let split = 0;
  for (let j = 0; j <= m; j++) {
    const v = (left[j] as number) + (right[m - j] as number);
    if (v > best) [best, split] = [v, j];
  }
  hirschberg(a, b, aFrom, mid, bFrom, bFrom + split, out);
  hirschberg(a, b, mid, aTo, bFrom + split, bTo, out);
}

/** The edit script of a longest common subsequence of two key sequences. */
export function alignKeys(a: Int32Array, b: Int32Array): Step[] {
  const out: Step[] = [];
  let pre = 0;
  while (pre < a.length && pre < b.length && a[pre] === b[pre]) out.push({ op: 'eq', i: pre, j: pre++ });
  let suf = 0;
  while (suf < a.length - pre && suf < b.length - pre && a[a.length - 1 - suf] === b[b.length - 1 - suf]) suf++;
  hirschberg(a, b, pre, a.length - suf, pre, b.length - suf, out);
  for (let k = suf; k > 0; k--) out.push({ op: 'eq', i: a.length - k, j: b.length - k });
  return out;
}

/** Operations over two message lists (see the file header). */
export function diffMessages(ma: readonly SessionMessage[], mb: readonly SessionMessage[]): Pick<SessionDiff, 'operations' | 'stats'> {
  const ids = new Map<string, number>();
  const key = (m: SessionMessage) => {
    const k = `${m.role}\u0000${m.content}`;
    let id = ids.get(k);
    if (id === undefined) ids.set(k, (id = ids.size));
    return id;
  };
  const steps = alignKeys(Int32Array.from(ma, key), Int32Array.from(mb, key));
  const operations: DiffOperation[] = [];
  const stats = { removals: 0, additions: 0, modifications: 0, unchanged: 0 };
  let dels: number[] = [];
  let inss: number[] = [];
  const flushGap = () => {
    let ptr = 0;
    for (const i of dels) {
      const role = ma[i]?.role;
      let k = ptr;
      while (k < inss.length && mb[inss[k] as number]?.role !== role) k++;
      if (k < inss.length) {
        for (; ptr < k; ptr++) {
          operations.push({ type: 'addition', indexB: inss[ptr] as number, messageB: mb[inss[ptr] as number] as SessionMessage });
          stats.additions++;
        }
        const j = inss[k] as number;
        operations.push({ type: 'modification', indexA: i, indexB: j, messageA: ma[i] as SessionMessage, messageB: mb[j] as SessionMessage });
        stats.modifications++;
        ptr = k + 1;
      } else {
        operations.push({ type: 'removal', indexA: i, messageA: ma[i] as SessionMessage });
        stats.removals++;
      }
    }
    for (; ptr < inss.length; ptr++) {
      operations.push({ type: 'addition', indexB: inss[ptr] as number, messageB: mb[inss[ptr] as number] as SessionMessage });
      stats.additions++;
    }
    dels = [];
    inss = [];
  };
  for (const s of steps) {
    if (s.op === 'del') dels.push(s.i);
    else if (s.op === 'ins') inss.push(s.j);
    else {
      flushGap();
      operations.push({ type: 'unchanged', indexA: s.i, indexB: s.j, messageA: ma[s.i] as SessionMessage, messageB: mb[s.j] as SessionMessage });
      stats.unchanged++;
    }
  }
  flushGap();
  return { operations, stats };
}

/** The SessionDiff of two loaded sessions. */
export function diffSessions(a: Session, b: Session): SessionDiff {
  return {
    a: { agent: a.agent, sessionId: a.sessionId, unifiedId: a.unifiedId },
    b: { agent: b.agent, sessionId: b.sessionId, unifiedId: b.unifiedId },
    ...diffMessages(a.messages, b.messages),
  };
}
