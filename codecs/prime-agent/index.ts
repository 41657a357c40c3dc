/**
 * `prime-agent`: sessions of Prime Agent (PrimeIntellect-ai/prime-agent), a fork of pi that writes pi's session
 * files flat in its sessions folder and its RLM children and Act lanes in a `session-artifacts` tree beside it
 * (README.md). The engine is pi's with `rlm: true`: children are subagents of their parent, and the usage a
 * parent restates for them (`child_usage_attributed`, and the aggregate a rewrite puts in the parent's
 * message) is counted in the child's file only.
 */
import type { Codec } from '../../cursors/protocol/codec.js';
import { definePiCodec } from '../pi/index.js';
import { primeAgentDescriptor } from './descriptor.js';
import { discoverPrimeAgent, locatePrimeAgent } from './discover.js';

export { CODEC_ID, artifactsRoot, getPrimeAgentRoots } from './paths.js';
export { discoverPrimeAgent, locatePrimeAgent } from './discover.js';

/** The Prime Agent codec. */
export const primeAgent: Codec = definePiCodec({
  descriptor: primeAgentDescriptor,
  command: 'prime-agent',
  core: { rlm: true },
  layout: { discover: (_agent, roots) => discoverPrimeAgent(roots), locate: (_agent, roots, id) => locatePrimeAgent(roots, id) },
});
export default primeAgent;
