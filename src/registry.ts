/**
 * The codec registry: codecs register under their id and aliases. Built-in codecs are listed in
 * `src/builtin-codecs.ts`; `registerCodec()` adds a plugin codec at run time.
 */
import type { Codec } from '../cursors/protocol/codec.js';
import { SessionfoldError } from '../cursors/protocol/errors.js';
import { BUILTIN_CODECS } from './builtin-codecs.js';

const byName = new Map<string, Codec>();
const ordered: Codec[] = [];

/** Register a codec under its id and aliases (and an extra adapter name, if given). Replaces an earlier one with the same id. */
export function registerCodec(codec: Codec, adapterName?: string): void {
  const existing = ordered.findIndex((c) => c.id === codec.id);
  if (existing >= 0) ordered.splice(existing, 1, codec);
  else ordered.push(codec);
  for (const name of [codec.id, ...codec.aliases, ...(adapterName ? [adapterName] : [])]) byName.set(name.toLowerCase(), codec);
}

/** The codec registered under `name` (id or alias), or undefined. */
export function findCodec(name: string): Codec | undefined {
  return byName.get(name.toLowerCase());
}

/** The codec registered under `name`, or AGENT_NOT_FOUND. */
export function getCodec(name: string): Codec {
  const c = findCodec(name);
  if (!c) throw new SessionfoldError('AGENT_NOT_FOUND', `Unknown agent "${name}". Known: ${ordered.map((x) => x.id).join(', ')}`, { agent: name });
  return c;
}

/** Every registered codec, built-ins first, in registration order. */
export function listCodecs(): readonly Codec[] {
  return ordered;
}

for (const c of BUILTIN_CODECS) registerCodec(c);
