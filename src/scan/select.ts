/**
 * The sources a scan reads: the selected codecs (all when none is named) and each one's roots, the caller's
 * overrides or the codec's default roots, once each. One rule for every caller that asks what a scan would
 * read: `normalizeScanOptions` (src/scan/options.ts) and the empty report (src/cost/empty-report.ts), which
 * takes this file without the scan, the listing memo or the event cache (it needs only the registry).
 */
import type { Codec } from '../../cursors/protocol/codec.js';
import { invalidOption } from '../../cursors/protocol/errors.js';
import { findCodec, getCodec, listCodecs } from '../registry.js';
import type { ScanOptions } from './types.js';

export interface ScanSource {
  codec: Codec;
  roots: string[];
}

/** The sources `agents` and `roots` select; a bad agent list or root override throws as the scan does. */
export function scanSources(user: Pick<ScanOptions, 'agents' | 'roots'>, env: NodeJS.ProcessEnv): ScanSource[] {
  let codecs: Codec[];
  if (user.agents === undefined) codecs = [...listCodecs()];
  else {
    if (!Array.isArray(user.agents) || user.agents.some((a) => typeof a !== 'string')) throw invalidOption('agents', 'an array of agent ids', user.agents);
    codecs = [];
    for (const a of user.agents) {
      const c = getCodec(a);
      if (!codecs.includes(c)) codecs.push(c);
    }
  }
  const overrides = new Map<Codec, string[]>();
  if (user.roots !== undefined) {
    if (user.roots === null || typeof user.roots !== 'object') throw invalidOption('roots', 'an object of agent → string[]', user.roots);
    for (const [name, roots] of Object.entries(user.roots)) {
      if (!Array.isArray(roots) || roots.some((r) => typeof r !== 'string')) throw invalidOption(`roots.${name}`, 'an array of paths', roots);
      const c = findCodec(name);
      if (c === undefined) throw invalidOption('roots', `agent ids (${listCodecs().map((x) => x.id).join(', ')})`, name);
      overrides.set(c, [...(overrides.get(c) ?? []), ...roots]);
    }
  }
  return codecs.map((codec) => ({ codec, roots: [...new Set(overrides.get(codec) ?? codec.defaultRoots(env))] }));
}
