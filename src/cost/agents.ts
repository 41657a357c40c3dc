/**
 * The agents a cost query selects, by codec id: what a scan reads and what the CLI names. Apart from the
 * scan and the fold (it needs only the registry), so an empty report (src/cost/empty-report.ts) takes it
 * without loading them.
 */
import { getCodec } from '../registry.js';
import type { CostAggregationOptions } from './types.js';

/** Codec ids of the agents an aggregation selects (undefined: all). Unknown names throw AGENT_NOT_FOUND. */
export function selectedAgents(options: Pick<CostAggregationOptions, 'agent' | 'agents'>): string[] | undefined {
  const names = [...(options.agent !== undefined ? [options.agent] : []), ...(options.agents ?? [])];
  return names.length > 0 ? [...new Set(names.map((a) => getCodec(a).id))] : undefined;
}
