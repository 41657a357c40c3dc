/**
 * The executable raises V8's tier-up budget for its scans (src/cli/jit.ts) only on the V8 it was measured on,
 * never over a budget the user set, and not with SESSIONFOLD_JIT=0.
 */
import { describe, expect, it } from 'vitest';
import { appliesTo } from '../src/cli/jit.js';

describe('the CLI scan budget', () => {
  it('applies on V8 11.3 (Node 20) unless the user set the budget or turned it off', () => {
    expect(appliesTo('11.3.244.8-node.38', ' ', {})).toBe(true);
    expect(appliesTo('11.3.244.8-node.38', '--max-old-space-size=4096 ', {})).toBe(true);
    expect(appliesTo('11.3.244.8-node.38', '--interrupt-budget=1000 ', {})).toBe(false);
    expect(appliesTo('11.3.244.8-node.38', ' --interrupt_budget=1000', {})).toBe(false);
    expect(appliesTo('11.3.244.8-node.38', ' ', { SESSIONFOLD_JIT: '0' })).toBe(false);
    expect(appliesTo('11.3.244.8-node.38', ' ', { SESSIONFOLD_JIT: '1' })).toBe(true);
    expect(appliesTo('12.4.254.21-node.33', ' ', {})).toBe(false);
    expect(appliesTo('11.8.172.17-node.15', ' ', {})).toBe(false);
  });
});
