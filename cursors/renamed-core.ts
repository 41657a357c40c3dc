/**
 * An engine's events under another agent's name: for an agent whose files another agent's engine writes
 * (Cherry Studio runs pi). The engine keeps its own state, cursor and dedup keys, so a response that the
 * engine's own agent also holds counts once. A wrapper of the core, so an engine whose read has paths beyond
 * its core (Claude's native usage engine) gives a host its read instead (codecs/claude/read-as.ts).
 */
import type { SessionfoldEvent } from './protocol/events.js';
import type { Emit, LineCore } from './protocol/line-core.js';

/** `core` with every event it emits named `agent`; its state and cursor are the engine's. */
export function renamedCore<S>(core: LineCore<S>, agent: string): LineCore<S> {
  const { lineWalked } = core;
  const renamed = (emit: Emit): Emit => (e) => emit({ ...e, agent } as SessionfoldEvent);
  return {
    ...core,
    line: (s, line, start, emit) => core.line(s, line, start, renamed(emit)),
    end: (s, emit) => core.end(s, renamed(emit)),
    ...(lineWalked !== undefined && { lineWalked: (s, w, start, emit) => lineWalked(s, w, start, renamed(emit)) }),
  };
}
