/**
 * 32- and 64-bit xxhash of ids, for cursor state (seen-id sets) and dedup keys. xxhash-wasm initializes
 * once per process (top-level await), after which every call is synchronous.
 */
import xxhash from 'xxhash-wasm';

const api = await xxhash();

/** 32-bit xxhash of a string id, as stored in cursor state. */
export function hashId32(id: string): number {
  return api.h32(id, 0) >>> 0;
}

/** 64-bit xxhash of a string, as 16 hex digits. */
export function hashId64(id: string): string {
  return api.h64ToString(id);
}

/** 64-bit xxhash of bytes, as 16 hex digits. */
export function hashBytes64(bytes: Uint8Array): string {
  return api.h64Raw(bytes).toString(16).padStart(16, '0');
}

/** Streaming 64-bit xxhash (used by the event cache's fast prefix fingerprint). */
export function createHash64(): { update(b: Uint8Array): void; digest(): string } {
  const h = api.create64();
  return {
    update(b: Uint8Array) {
      h.update(b);
    },
    digest() {
      return h.digest().toString(16).padStart(16, '0');
    },
  };
}
