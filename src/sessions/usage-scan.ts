/**
 * Exact cost and models of many sessions at once, through the scan engine (`scanUsageBatches`): the event
 * cache serves unchanged files without reading them and the worker pool parses the rest in parallel, so a
 * warm `list --sort cost` (or `--model`) costs a few stats instead of a usage read of every file.
 *
 * Per file, usage is counted once per dedupKey and only for the session of the file's first record, as the
 * session fold does (another session's usage is relayed from it: a Claude parent's copies of a subagent's
 * responses), and the cache's ledger records (`retained`: usage a rewritten file no longer holds) are left
 * out, so a summary's cost equals `get()`'s.
 * `list()` uses it when at least SCAN_MIN_FILES candidates need usage; fewer are read directly.
 */
import type { Codec } from '../../cursors/protocol/codec.js';
import type { CostRecord } from '../cost/types.js';
import type { ManagerContext } from './context.js';
import { addUsage, emptyCost, type PriceFn } from './cost.js';

export const SCAN_MIN_FILES = 32;

export interface FileUsage {
  cost: CostRecord;
  /** Requests per model (fallback models left out). */
  models: Map<string, number>;
}

/** Usage of the files in `paths`, keyed by path; files without usage are absent. */
export async function usageByFile(ctx: ManagerContext, codec: Codec, paths: ReadonlySet<string>, price: PriceFn, since?: Date): Promise<Map<string, FileUsage>> {
  const { scanUsageBatches } = await import('../scan/index.js');
  const o = ctx.options;
  const out = new Map<string, FileUsage>();
  const seen = new Map<string, Set<string>>();
  const own = new Map<string, string>();
  const batches = scanUsageBatches({
    agents: [codec.id],
    roots: { [codec.id]: ctx.rootsFor(codec) },
    env: o.env,
    cache: o.cache,
    ...(o.cachePath !== undefined && { cachePath: o.cachePath }),
    ...(since !== undefined && { since }),
    onWarning: () => undefined, // a file the scan cannot read keeps its peeked summary
  });
  for await (const batch of batches) {
    for (const r of batch) {
      if (r.retained === true || !paths.has(r.file)) continue;
      const sessionId = own.get(r.file);
      if (sessionId === undefined) own.set(r.file, r.sessionId);
      else if (sessionId !== r.sessionId) continue;
      let keys = seen.get(r.file);
      if (keys === undefined) seen.set(r.file, (keys = new Set()));
      if (keys.has(r.dedupKey)) continue;
      keys.add(r.dedupKey);
      let u = out.get(r.file);
      if (u === undefined) out.set(r.file, (u = { cost: emptyCost(), models: new Map() }));
      addUsage(u.cost, r, price(r));
      if (r.modelFallback !== true) u.models.set(r.model, (u.models.get(r.model) ?? 0) + 1);
    }
  }
  return out;
}
