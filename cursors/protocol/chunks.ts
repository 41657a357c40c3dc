/** A read's events by chunk (`EventChunks`): what `Codec.read()` may offer beside its events one by one. */
import type { SessionfoldEvent } from './events.js';

/** The key of `EventChunks`' method. */
export const EVENT_CHUNKS: unique symbol = Symbol.for('sessionfold.eventChunks');

/**
 * A read's events that can also be taken by chunk: `[EVENT_CHUNKS]()` starts the same read and yields its
 * events as arrays (each the consumer's to keep, never empty), in the same order, with the same `resume`
 * callbacks at the same points; the events themselves are then never iterated one by one. `read()` of a JSONL
 * codec (cursors/read-jsonl.ts) returns one: a per-event `for await` costs a promise and a turn per event
 * (50,000 events in a script: 70-95 ms against 27-60 ms in arrays; bench/RESULTS.md, "Per-event async"). A codec that transforms another read's events returns its own
 * iterable, without the method, and is taken event by event.
 */
export interface EventChunks extends AsyncIterable<SessionfoldEvent> {
  [EVENT_CHUNKS](): AsyncIterable<SessionfoldEvent[]>;
}

/** The chunks of a read that offers them (see `EventChunks`), else undefined. */
export function eventChunks(events: AsyncIterable<SessionfoldEvent>): AsyncIterable<SessionfoldEvent[]> | undefined {
  const take = (events as Partial<EventChunks>)[EVENT_CHUNKS];
  return typeof take === 'function' ? take.call(events) : undefined;
}

/**
 * `events` (a read not yet started) offering `chunks` as its `EventChunks` method. The method is not enumerable:
 * a wrapper that spreads or `Object.assign`s a read into its own object must not carry the untransformed
 * chunks along, or the scan would take them and bypass the wrapper.
 */
export function withEventChunks<G extends AsyncIterable<SessionfoldEvent>>(events: G, chunks: () => AsyncIterable<SessionfoldEvent[]>): G & EventChunks {
  return Object.defineProperty(events, EVENT_CHUNKS, { value: chunks, enumerable: false, writable: false, configurable: true }) as G & EventChunks;
}
