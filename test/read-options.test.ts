import { describe, expect, it } from 'vitest';
import { normalizeReadOptions } from '../cursors/protocol/codec.js';

describe('normalizeReadOptions', () => {
  it('says once whether a read asks for a conversation', () => {
    expect(normalizeReadOptions().conversation).toBe(true);
    expect(normalizeReadOptions({ kinds: ['session', 'usage'] }).conversation).toBe(false);
    for (const kind of ['message', 'tool_call', 'tool_result'] as const) {
      expect(normalizeReadOptions({ kinds: ['usage', kind] }).conversation).toBe(true);
    }
  });

  it('fills the kinds and tells a read of every kind', () => {
    const all = normalizeReadOptions();
    const some = normalizeReadOptions({ kinds: ['usage'] });
    expect(all.allKinds).toBe(true);
    expect(some.allKinds).toBe(false);
    expect([...some.kinds]).toEqual(['usage']);
  });

  it('refuses an unknown kind with INVALID_OPTION', () => {
    expect(() => normalizeReadOptions({ kinds: ['usage', 'nope' as 'usage'] })).toThrow(expect.objectContaining({ code: 'INVALID_OPTION' }));
  });
});
