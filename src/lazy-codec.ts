/**
 * A built-in codec as the registry holds it: its descriptor (names, version, capabilities, roots; each
 * codec's `descriptor.ts`) at once, its module (the parsers) only when its files are listed or read. A
 * command over agents whose folders are missing (an empty `cost report`) compiles and runs no codec's code;
 * one over a Claude history loads Claude's alone.
 *
 * What loads the module: `discover()` when one of the roots exists (under roots that are all missing there
 * is nothing to find), `read()`, and `load()` (the registry's `loadCodec`). Until then `discoverSync` is
 * undefined, so a listing goes through `discover()`, the same files in the same order (the Codec contract).
 * The other members belong to a codec whose files were found, so they need the module: before it is loaded
 * they throw USAGE_ERROR naming the member, which says a caller forgot `await loadCodec(codec)`.
 */
import { statSync } from 'node:fs';
import type { BatchRead, Codec, CodecCapabilities, CodecDescriptor, CodecListing, DetectScore, DiscoverOptions, LineCore, NativeSearchHit, NativeSearchQuery, ReadOptions, SessionFile, UsageScanResult } from '../cursors/protocol/codec.js';
import type { SessionfoldEvent } from '../cursors/protocol/events.js';
import { SessionfoldError } from '../cursors/protocol/errors.js';

/** A built-in codec: its descriptor, and how to load the codec itself. */
export interface BuiltinCodec {
  descriptor: CodecDescriptor;
  load(): Promise<Codec>;
}

/** Nothing is at `root` (or a folder on its way is a file): no codec can find a session under it. */
function missing(root: string): boolean {
  try {
    statSync(root);
    return false;
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    return code === 'ENOENT' || code === 'ENOTDIR';
  }
}

/** The optional methods a lazy codec forwards, bound to the loaded codec once. */
const FORWARDED = ['discoverSync', 'dependencyStamp', 'locate', 'lineCoreFor', 'scanUsage', 'nativeSearch', 'resumeCommand', 'detect', 'batchKey', 'readBatch'] as const;
type Forwarded = { [K in (typeof FORWARDED)[number]]?: Codec[K] };

function bindForwarded(c: Codec): Forwarded {
  const out: Record<string, unknown> = {};
  for (const k of FORWARDED) {
    const f = c[k] as ((...args: never[]) => unknown) | undefined;
    if (typeof f === 'function') out[k] = f.bind(c);
  }
  return out as Forwarded;
}

/** A codec whose module loads when it is first needed (see the file's comment). */
export class LazyCodec implements Codec {
  readonly id: string;
  readonly aliases: readonly string[];
  readonly displayName: string;
  readonly parserVersion: number;
  readonly capabilities: CodecCapabilities;
  readonly defaultRoots: (env?: NodeJS.ProcessEnv) => string[];
  readonly rootVariables?: readonly string[];
  #full: Codec | undefined;
  /** The loaded codec's optional methods, bound once: a getter hands out the same function each time. */
  #bound: Forwarded = {};
  #loading: Promise<Codec> | undefined;
  /** The descriptor's listing (`CodecDescriptor.listing`; the codec object spreads its descriptor, so has it too). */
  readonly listing?: CodecListing;
  readonly #load: () => Promise<Codec>;

  constructor(builtin: BuiltinCodec) {
    const d = builtin.descriptor;
    this.id = d.id;
    this.aliases = d.aliases;
    this.displayName = d.displayName;
    this.parserVersion = d.parserVersion;
    this.capabilities = d.capabilities;
    this.defaultRoots = d.defaultRoots;
    if (d.rootVariables !== undefined) this.rootVariables = d.rootVariables;
    if (d.listing !== undefined) this.listing = d.listing;
    this.#load = builtin.load;
  }

  /**
   * The descriptor's listing while the module is not loaded (`CodecDescriptor.listing`), for a discovery that
   * may need no more than the files' stats (src/scan/discover.ts `withoutParsers`); undefined once it is
   * loaded, or when the descriptor has none. Such a discovery loads nothing: `loadFor` does what `discover()`
   * would have.
   */
  get unloadedListing(): CodecListing | undefined {
    return this.#full === undefined ? this.listing : undefined;
  }

  /** Load the module as `discover(roots)` does: when one of the roots exists. */
  async loadFor(roots: readonly string[]): Promise<void> {
    if (this.#full === undefined && !roots.every(missing)) await this.load();
  }

  /** The codec itself, loaded once. */
  load(): Promise<Codec> {
    this.#loading ??= this.#load().then((c) => this.#take(c));
    return this.#loading;
  }

  /** Take the codec object its module exports, already imported by the caller (src/index.ts): no import, no await. */
  adopt(c: Codec): void {
    if (this.#full === c) return;
    this.#loading = Promise.resolve(this.#take(c));
  }

  #take(c: Codec): Codec {
    if (c.id !== this.id || c.parserVersion !== this.parserVersion) throw new Error(`the ${this.id} codec's module is not its descriptor's (${c.id}, version ${c.parserVersion})`);
    this.#bound = bindForwarded(c);
    this.#full = c;
    return c;
  }

  /** The codec itself when loaded, else undefined. */
  get loaded(): Codec | undefined {
    return this.#full;
  }

  #need(member: string): Codec {
    if (this.#full === undefined) throw new SessionfoldError('USAGE_ERROR', `${this.id}.${member}: the codec is not loaded yet (await loadCodec(codec) first)`, { agent: this.id });
    return this.#full;
  }

  /** A forwarded method of the loaded codec (bound once), or undefined when it has none; throws before loading. */
  #forward<K extends keyof Forwarded>(member: K): Forwarded[K] {
    this.#need(member);
    return this.#bound[member];
  }

  discover(roots: readonly string[], options?: DiscoverOptions): AsyncIterable<SessionFile> {
    const full = this.#full;
    if (full !== undefined) return full.discover(roots, options);
    const self = this;
    return (async function* () {
      if (roots.every(missing)) return;
      yield* (await self.load()).discover(roots, options);
    })();
  }

  get discoverSync(): ((roots: readonly string[], options?: DiscoverOptions) => Iterable<SessionFile>) | undefined {
    return this.#bound.discoverSync;
  }

  read(file: string, options?: ReadOptions): AsyncIterable<SessionfoldEvent> {
    const full = this.#full;
    if (full !== undefined) return full.read(file, options);
    const self = this;
    return (async function* () {
      yield* (await self.load()).read(file, options);
    })();
  }

  getParseDependencies(file: string): string[] {
    return this.#need('getParseDependencies').getParseDependencies(file);
  }

  get dependencyStamp(): ((file: string, dependency: string, options?: DiscoverOptions) => string | undefined) | undefined {
    return this.#forward('dependencyStamp');
  }

  get locate(): ((roots: readonly string[], nativeId: string) => Promise<SessionFile | undefined>) | undefined {
    return this.#forward('locate');
  }

  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  get lineCore(): LineCore<any> | undefined {
    return this.#need('lineCore').lineCore;
  }

  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  get lineCoreFor(): ((file: string) => LineCore<any> | undefined) | undefined {
    return this.#forward('lineCoreFor');
  }

  get scanUsage(): ((files: readonly string[]) => Promise<(UsageScanResult | false | undefined)[]> | undefined) | undefined {
    return this.#forward('scanUsage');
  }

  get nativeSearch(): ((roots: readonly string[], query: NativeSearchQuery) => Promise<NativeSearchHit[] | undefined>) | undefined {
    return this.#forward('nativeSearch');
  }

  get resumeCommand(): ((nativeId: string, file?: SessionFile) => string[]) | undefined {
    return this.#forward('resumeCommand');
  }

  get detect(): ((file: string, head: Buffer) => DetectScore) | undefined {
    return this.#forward('detect');
  }

  get batchKey(): ((file: string) => string | undefined) | undefined {
    return this.#forward('batchKey');
  }

  get readBatch(): ((reads: readonly BatchRead[]) => Promise<AsyncIterable<SessionfoldEvent>[]>) | undefined {
    return this.#forward('readBatch');
  }
}
