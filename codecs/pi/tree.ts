/**
 * The entry tree of a pi session file and the branch its messages follow, kept so that a resumed read yields
 * what a full read would (README.md, "Branches and resume").
 *
 * Every entry is a node with its parent (entries without an id, v1's, hang under the entry before them, as
 * pi's migration links them). The branch is the path from the last entry to the root. A node's events wait
 * in the tree until the read ends; then, in file order, a node on the branch yields all its events and a
 * node off it only its usage. The last OPEN_NODES nodes (within OPEN_BYTES of lines) stay open: a cursor
 * carries them, the next read yields them again (`replaced`), and a later entry may still move them on or
 * off the branch. Older nodes
 * are settled: the cursor keeps only a 32-bit hash of their ids and the deepest settled node on the branch
 * (the anchor). A later entry that would change whether a settled node is on the branch (it hangs under a
 * settled node other than the anchor, or starts a new root while the anchor exists) makes a resumed read
 * start over from byte 0 (RESTART), where the whole file is in the tree again: exact, at the cost of a full
 * read, and only when someone goes back more than OPEN_NODES entries in pi's tree view.
 */
import type { KindCounts, SessionfoldEvent } from '../../cursors/protocol/events.js';
import { usageEventFromJson } from '../../cursors/protocol/events.js';
import { hashId32 } from '../../cursors/ids.js';

/** Nodes a cursor keeps open (with their events), counted back from the last entry. */
export const OPEN_NODES = 64;
/** ...and no more than this many bytes of their lines (a few huge tool results settle early). */
export const OPEN_BYTES = 4 << 20;

export interface PiNode {
  id: string;
  /** The parent as linked (null: a root). */
  parent: string | null;
  events: SessionfoldEvent[];
  /** Length of its line. */
  bytes: number;
}

export interface PiTree {
  /** Open nodes in file order. */
  nodes: PiNode[];
  byId: Map<string, PiNode>;
  /** Id of the last entry. */
  leaf: string | null;
  /** The deepest settled node on the branch; null when none is. */
  anchor: string | null;
  /** 32-bit hashes of the settled nodes' ids. */
  seen: Set<number>;
}

export function emptyTree(): PiTree {
  return { nodes: [], byId: new Map(), leaf: null, anchor: null, seen: new Set() };
}

/** What a new entry's written parent links to; `restart` when only a full read can tell. */
export type Link = { parent: string | null } | { restart: true };

/**
 * Link an entry: no parentId field (v1) or one naming no entry of the file hangs it under the last entry
 * (pi would cut the branch there; a hand-edited or foreign file reads better this way); `null` makes it a
 * root. A parent whose id hash is among the settled ones, or a link that would move settled nodes on or off
 * the branch, needs the whole file: restart.
 */
export function linkEntry(t: PiTree, written: unknown): Link {
  let parent: string | null;
  if (written === null) parent = null;
  else if (typeof written !== 'string') parent = t.leaf;
  else if (t.byId.has(written) || written === t.anchor) parent = written;
  else if (t.seen.size > 0 && t.seen.has(hashId32(written))) return { restart: true };
  else parent = t.leaf;
  if (parent === t.leaf && parent !== null) return { parent };
  let cur = parent;
  while (cur !== null && cur !== t.anchor) {
    const n = t.byId.get(cur);
    if (n === undefined) return { restart: true };
    cur = n.parent;
  }
  return cur === t.anchor ? { parent } : { restart: true };
}

/** An id for a new node: its own, unless taken (then made unique by its offset), or restart. */
export function nodeId(t: PiTree, id: string | undefined, offset: number): string | { restart: true } {
  if (id === undefined) return `@${offset}`;
  if (t.byId.has(id) || id === t.anchor) return `${id}@${offset}`;
  if (t.seen.size > 0 && t.seen.has(hashId32(id))) return { restart: true };
  return id;
}

export function addNode(t: PiTree, node: PiNode): void {
  t.nodes.push(node);
  t.byId.set(node.id, node);
  t.leaf = node.id;
}

/** Ids of the open nodes on the branch (from the last entry up to the anchor). */
export function branchIds(t: PiTree): Set<string> {
  const out = new Set<string>();
  let cur = t.leaf;
  while (cur !== null) {
    const n = t.byId.get(cur);
    if (n === undefined) break;
    out.add(cur);
    cur = n.parent;
  }
  return out;
}

/** Index of the first node that stays open in a cursor: the last OPEN_NODES, within OPEN_BYTES. */
export function firstOpen(t: PiTree): number {
  const stop = Math.max(0, t.nodes.length - OPEN_NODES);
  let bytes = 0;
  for (let i = t.nodes.length - 1; i >= stop; i--) {
    bytes += (t.nodes[i] as PiNode).bytes;
    if (bytes > OPEN_BYTES) return i + 1;
  }
  return stop;
}

/**
 * Yield the open nodes' events in file order (all on the branch; usage only off it; all of every node with
 * `every`), and return per kind how many of them come from nodes that stay open.
 */
export function flushTree(t: PiTree, every: boolean, emit: (e: SessionfoldEvent) => void): KindCounts {
  const branch = every ? undefined : branchIds(t);
  const open = firstOpen(t);
  const counts: KindCounts = {};
  t.nodes.forEach((n, i) => {
    const on = branch === undefined || branch.has(n.id);
    for (const e of n.events) {
      if (!on && e.type !== 'usage') continue;
      emit(e);
      if (i >= open) counts[e.type] = (counts[e.type] ?? 0) + 1;
    }
  });
  return counts;
}

/**
 * After a first pass that linked every entry of a read (two-pass reads, README.md "Branches and resume"):
 * which nodes, in file order, are on the final branch, where the nodes that stay open begin, and the tree cut
 * to those open nodes with the rest settled, as `snapshotTree` would settle them. The second pass then yields
 * a settled node's events as its line comes (all on the branch, usage only off it) and holds only open ones.
 */
export function settleTree(t: PiTree): { onBranch: Uint8Array; open: number; tree: PiTree } {
  const branch = branchIds(t);
  const open = firstOpen(t);
  const onBranch = new Uint8Array(t.nodes.length);
  const tree: PiTree = { nodes: [], byId: new Map(), leaf: t.leaf, anchor: t.anchor, seen: new Set(t.seen) };
  t.nodes.forEach((n, i) => {
    const on = branch.has(n.id);
    if (on) onBranch[i] = 1;
    if (i >= open) {
      tree.nodes.push(n);
      tree.byId.set(n.id, n);
      return;
    }
    tree.seen.add(hashId32(n.id));
    if (on) tree.anchor = n.id;
  });
  return { onBranch, open, tree };
}

/** A settled node's events as `flushTree` yields them: all on the branch (or with `every`), usage only off it. */
export function emitNode(events: readonly SessionfoldEvent[], on: boolean, emit: (e: SessionfoldEvent) => void): void {
  for (const e of events) if (on || e.type === 'usage') emit(e);
}

interface TreeSnapshot {
  nodes: [string, string | null, SessionfoldEvent[], number][];
  leaf: string | null;
  anchor: string | null;
  seen: number[];
}

/** The tree as a cursor keeps it: the open nodes, the anchor, and the settled ids' hashes. */
export function snapshotTree(t: PiTree): TreeSnapshot {
  const open = firstOpen(t);
  const branch = branchIds(t);
  let anchor = t.anchor;
  const seen = new Set(t.seen);
  for (let i = 0; i < open; i++) {
    const n = t.nodes[i] as PiNode;
    seen.add(hashId32(n.id));
    if (branch.has(n.id)) anchor = n.id;
  }
  return {
    nodes: t.nodes.slice(open).map((n) => [n.id, n.parent, n.events, n.bytes]),
    leaf: t.leaf,
    anchor,
    seen: [...seen],
  };
}

/** The tree back from `snapshotTree`, or undefined when the value is not one. */
export function restoreTree(v: unknown): PiTree | undefined {
  const s = v as Partial<TreeSnapshot> | null;
  if (s === null || typeof s !== 'object' || !Array.isArray(s.nodes) || !Array.isArray(s.seen)) return undefined;
  const t = emptyTree();
  for (const n of s.nodes) {
    if (!Array.isArray(n) || typeof n[0] !== 'string' || !Array.isArray(n[2])) return undefined;
    const events = (n[2] as SessionfoldEvent[]).map((e) => (e !== null && typeof e === 'object' && e.type === 'usage' ? usageEventFromJson(e) : e));
    addNode(t, { id: n[0], parent: typeof n[1] === 'string' ? n[1] : null, events, bytes: typeof n[3] === 'number' ? n[3] : 0 });
  }
  t.leaf = typeof s.leaf === 'string' ? s.leaf : null;
  t.anchor = typeof s.anchor === 'string' ? s.anchor : null;
  for (const h of s.seen) if (typeof h === 'number') t.seen.add(h);
  return t;
}
