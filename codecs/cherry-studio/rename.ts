/**
 * An engine's events under Cherry's name. The engines (Claude's, pi's) keep their own events for later lines
 * and their own dedup keys, so a response that the runtime's own folder also holds counts once.
 */
import type { SessionfoldEvent } from '../../cursors/protocol/events.js';
import type { Emit, LineCore } from '../../cursors/protocol/line-core.js';
import { CODEC_ID } from './paths.js';

/** `emit` with each event copied under Cherry's name. */
function renamed(emit: Emit): Emit {
  return (e) => emit({ ...e, agent: CODEC_ID } as SessionfoldEvent);
}

/** `core` with every event it emits named `cherry-studio`; its state and cursor are the engine's. */
export function renamedCore<S>(core: LineCore<S>): LineCore<S> {
  const { lineWalked } = core;
  return {
    ...core,
    line: (s, line, start, emit) => core.line(s, line, start, renamed(emit)),
    end: (s, emit) => core.end(s, renamed(emit)),
    ...(lineWalked !== undefined && { lineWalked: (s, w, start, emit) => lineWalked(s, w, start, renamed(emit)) }),
  };
}
