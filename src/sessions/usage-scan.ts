/**
 * Exact cost and models of many sessions at once, through the scan engine (`scanUsageBatches`): the event
 * cache serves unchanged files without reading them and the worker pool parses the rest in parallel, so a
 * warm `list --sort cost` (or `--model`) costs a few stats instead of a usage read of every file.
 *
 * Per file, usage is counted once per dedupKey and only for the session of the file's first record, as the
 * session fold does (another session's usage is relayed from it: a Claude parent's copies of a subagent's
 * responses), and the cache's ledger records (`retained`: usage a rewritten file no longer holds) are left
 * out, so a summary's cost equals `get()`'s; usage marked `copied` goes to `copiedCost`, as there.
 * `list()` uses it when at least SCAN_MIN_FILES candidates need usage; fewer are read directly.
 *
 * What it keeps per file is small and its own: the keys seen as 64-bit hashes (KeyTable, the cost fold's
 * accepted risk), the session id and model names as copies. A record's strings are slices of its batch's
 * string table (src/scan/segment.ts), so holding one of them (a Set of dedupKeys) held that whole table: at
 * scale 1 of the bench's history the main heap's old space grew by ~20 MB over the scan.
 */
import type { Codec } from '../../cursors/protocol/codec.js';
import type { CostRecord } from '../cost/types.js';
import type { ManagerContext } from './context.js';
import { KeyTable } from '../key-table.js';
import { OwnSession } from '../own-session.js';
import { addUsage, emptyCost, type PriceFn } from './cost.js';

export const SCAN_MIN_FILES = 32;

export interface FileUsage {
  /** The file's own spend (usage marked `copied` left out, as in the session fold). */
  cost: CostRecord;
  /** Usage marked `copied`: another session's spend, in this file's copy of its history. */
  copiedCost?: CostRecord;
  /** Requests per model (fallback models left out). */
  models: Map<string, number>;
}

/**
 * A copy of `s` that holds no larger string: a slice of a batch's string table keeps the whole table alive.
 * Only for the few strings kept per file (its session id, its model names).
 */
export function ownString(s: string): string {
  return JSON.parse(JSON.stringify(s)) as string;
}

interface FileState {
  /** The session of the file's first record: another session's usage relayed from it is not its own. */
  own: OwnSession;
  keys: KeyTable;
  usage: FileUsage | undefined;
}

/** Usage of the files in `paths`, keyed by path; files without usage are absent. */
export async function usageByFile(ctx: ManagerContext, codec: Codec, paths: ReadonlySet<string>, price: PriceFn, since?: Date): Promise<Map<string, FileUsage>> {
  const { scanUsageBatches } = await import('../scan/index.js');
  const o = ctx.options;
  const files = new Map<string, FileState>();
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
      let f = files.get(r.file);
      // A table of 16 slots to start: most files hold few keys, and there are thousands of files.
      if (f === undefined) files.set(r.file, (f = { own: new OwnSession(ownString), keys: new KeyTable(1), usage: undefined }));
      if (!f.own.claim(r.sessionId)) continue;
      if (!f.keys.add(r.dedupKey)) continue;
      const u: FileUsage = (f.usage ??= { cost: emptyCost(), models: new Map() });
      if (r.copied === true) addUsage((u.copiedCost ??= emptyCost()), r, price(r));
      else addUsage(u.cost, r, price(r));
      if (r.modelFallback === true) continue;
      const n = u.models.get(r.model);
      if (n === undefined) u.models.set(ownString(r.model), 1);
      else u.models.set(r.model, n + 1);
    }
  }
  const out = new Map<string, FileUsage>();
  for (const [file, f] of files) if (f.usage !== undefined) out.set(file, f.usage);
  return out;
}
