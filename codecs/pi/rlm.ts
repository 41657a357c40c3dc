/**
 * What the pi engine reads beyond pi for an agent that runs RLM child sessions (Prime Agent, codecs/prime-agent):
 * where a session sits in the tree of its parent's artifacts, and how a `child_usage_attributed` entry bounds
 * the usage of the assistant message it targets. Pure functions; parse.ts applies them when its core is
 * created with `rlm: true`, so pi and the other forks read exactly as before.
 *
 * Prime writes a child's own calls in the child's file, and restates them in the parent: each call of a child
 * adds its usage into the parent's in-memory assistant message (the one whose turn spawned it) and appends
 * `{type: "child_usage_attributed", targetId, childUsage, aggregateUsage}`. The line already on disk keeps the
 * parent's own usage, but any whole-file write from memory (a fork, a branch, a checkpoint, a migration on open)
 * writes the aggregate into that message. Prime's own scan undoes it the same way whichever form is on disk:
 * the attribution's aggregate, less the child usage attributed to that target (README.md of the codec).
 */
import { basename, dirname } from 'node:path';
import type { UsageEvent } from '../../cursors/protocol/events.js';
import { asObject, asString, isBadCount, tokenCount, usdAmount, type Json, type PiEntry } from './schema.js';

/** The entry that restates a child's usage in its parent. */
export const ATTRIBUTION = 'child_usage_attributed';
/** A child's folder under its parent's artifact folder: `sub-` and 8 hex digits (Prime's `_createChildRlmSessionDir`). */
const CHILD_DIR = /^sub-[0-9a-f]{8}$/;
/** An Act lane's folder: `act` (depth 1) or `act-depth-<n>`. */
const ACT_DIR = /^act(?:-depth-([1-9][0-9]?))?$/;

/** What a session's place in its parent's artifacts says: how deep it was spawned, and its parent when the path names it. */
export interface RlmPlace {
  depth: number;
  /** The parent session's id, when the path says it (an Act lane lies in its root's artifact folder). */
  parentId?: string;
}

/**
 * The place of a session file in Prime's artifact tree: each `sub-xxxxxxxx` folder around it is one level of
 * spawning (Prime's own `legacyChildDepthFromPath` counts them so), and an Act lane's `act` / `act-depth-<n>`
 * folder sits directly in its root session's artifact folder, named by the root's id. Undefined for any other
 * file: a root session, a fork, stdin.
 */
export function rlmPlace(file: string): RlmPlace | undefined {
  const dir = dirname(file);
  const act = ACT_DIR.exec(basename(dir));
  if (act !== null) {
    const parentId = basename(dirname(dir));
    return { depth: act[1] === undefined ? 1 : Number(act[1]), ...(parentId !== '' && { parentId }) };
  }
  let depth = 0;
  for (let d = dir; CHILD_DIR.test(basename(d)); d = dirname(d)) depth++;
  return depth > 0 ? { depth } : undefined;
}

/** The header's `rlmDepth` when it is a count (0 for a root session). */
export function headerRlmDepth(v: unknown): number | undefined {
  return typeof v === 'number' && Number.isSafeInteger(v) && v >= 0 ? v : undefined;
}

/** The four counts and the cost of a usage that an attribution leaves a target at most. */
export interface UsageCap {
  input: number;
  output: number;
  cacheRead: number;
  cacheWrite: number;
  /** USD; undefined when either side records none. */
  cost: number | undefined;
}

const COUNTS = ['input', 'output', 'cacheRead', 'cacheWrite'] as const;

/**
 * The bound an attribution puts on its target: `aggregateUsage - childUsage`, count by count. Attributions of
 * one target accumulate (each aggregate is the previous one plus that child call), so every one of them gives
 * the target's own usage plus what was attributed before it, and the first gives the own usage itself: the
 * smallest bound is the own usage, the target's usage as written is never below it. Undefined when a count is
 * not sane or the child exceeds the aggregate (then the attribution bounds nothing).
 */
export function attributionCap(entry: PiEntry): { target: string; cap: UsageCap } | undefined {
  const target = asString(entry.targetId);
  const child = asObject(entry.childUsage);
  const aggregate = asObject(entry.aggregateUsage);
  if (target === undefined || child === undefined || aggregate === undefined) return undefined;
  const cap = { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, cost: undefined as number | undefined };
  for (const k of COUNTS) {
    if (isBadCount(child[k]) || isBadCount(aggregate[k])) return undefined;
    const left = tokenCount(aggregate[k]) - tokenCount(child[k]);
    if (left < 0) return undefined;
    cap[k] = left;
  }
  const total = usdAmount(asObject(aggregate.cost)?.total);
  const part = usdAmount(asObject(child.cost)?.total);
  if (total !== undefined && part !== undefined && total >= part) cap.cost = total - part;
  return { target, cap };
}

/**
 * Lower a usage event to a cap, count by count (a part, reasoning or one-hour writes, follows its whole). The
 * event is the target's as its line wrote it, so this only ever takes the children's part out of it.
 */
export function capUsage(e: UsageEvent, cap: UsageCap): void {
  e.inputTokens = Math.min(e.inputTokens, cap.input);
  e.outputTokens = Math.min(e.outputTokens, cap.output);
  e.cacheReadTokens = Math.min(e.cacheReadTokens, cap.cacheRead);
  e.cacheWriteTokens = Math.min(e.cacheWriteTokens, cap.cacheWrite);
  e.reasoningTokens = Math.min(e.reasoningTokens, e.outputTokens);
  e.cacheWrite1hTokens = Math.min(e.cacheWrite1hTokens, e.cacheWriteTokens);
  // The cost the line wrote is kept when the cap only differs from it by the float error of the subtraction.
  if (e.costUsd !== undefined && cap.cost !== undefined && cap.cost < e.costUsd * (1 - 1e-9)) e.costUsd = cap.cost > 0 ? cap.cost : undefined;
}

/** The usage a compaction or a branch summary records for the model call that wrote it (Prime adds `usage` to both). */
export function summaryUsage(entry: PiEntry): Json | undefined {
  return entry.type === 'compaction' || entry.type === 'branch_summary' ? asObject(entry.usage) : undefined;
}
