/**
 * `read()`: one session file's events, by agent id or codec, with a return type that narrows to the kinds
 * asked for. `Codec.read` stays wide (every codec implements it over every kind); this is the entry users call.
 */
import type { Codec, ReadOptions } from '../cursors/protocol/codec.js';
import type { EventKind, EventOfKind, SessionfoldEvent } from '../cursors/protocol/events.js';
import { getCodec } from './registry.js';

/**
 * Read a session file's events as the agent's codec parses them, in file order, as they are read.
 *
 * @example
 * for await (const e of read('claude', file, { kinds: ['usage'] })) total += e.outputTokens;
 */
export function read<const K extends EventKind>(agent: string | Codec, file: string, options: ReadOptions & { kinds: readonly K[] }): AsyncIterable<EventOfKind<K>>;
export function read(agent: string | Codec, file: string, options?: ReadOptions): AsyncIterable<SessionfoldEvent>;
export function read(agent: string | Codec, file: string, options?: ReadOptions): AsyncIterable<SessionfoldEvent> {
  const codec = typeof agent === 'string' ? getCodec(agent) : agent;
  return codec.read(file, options);
}
