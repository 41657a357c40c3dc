/**
 * What kimi-cli's share folder (`~/.kimi`, `$KIMI_SHARE_DIR`) says of its sessions beyond their own folders
 * (README.md, "kimi-cli's share folder"): `config.toml`'s default model, the model of the usage its wires do not
 * name.
 *
 * The file is shared by every session, and kimi-cli rewrites it when the user switches models or logs in, or
 * when a platform's list of models changes: a stat of it would read every session again each time. So it is a
 * parse dependency stamped by what the sessions take from it (`Codec.dependencyStamp`, index.ts), and it is
 * read once per state: its stat (device, inode, size, mtime and ctime in nanoseconds) keeps what was read, once
 * settled (git's "racily clean" rule, cursors/listing-memo.ts). Anything unreadable, oversized or malformed
 * says nothing: the session is read without it.
 */
import { statSync } from 'node:fs';
import { settledBefore, statsStamp } from '../../cursors/listing-memo.js';
import { readRegularFileSync } from '../../cursors/read-file.js';
import type { CliConfig } from './schema.js';
import { parseToml } from './toml.js';
import { rec, str } from './values.js';

/** Larger than any config.toml (a few kilobytes, a few dozen models): a larger file is not read. */
const MAX_CONFIG_BYTES = 1 << 20;

/**
 * The model config.toml makes kimi-cli run with: `models[default_model].model`, the API's name of the model.
 * Undefined when there is no default, or it names no model entry (kimi-cli itself refuses such a config).
 */
export function defaultModelOf(toml: string): string | undefined {
  const doc = parseToml(toml) as CliConfig | undefined; // as written by hand, perhaps: each value is checked
  const key = str(doc?.default_model);
  return key === undefined ? undefined : str(rec(rec(doc?.models)?.[key])?.model);
}

interface Kept<T> {
  stamp: string;
  value: T;
}

/** What was read of each file, by path, while its stamp holds. */
const kept = new Map<string, Kept<unknown>>();

/**
 * `make` of the text of the regular file at `path`, kept while its stat stays the same; `empty` when it is
 * missing, not a regular file, over `maxBytes` or unreadable.
 */
function readKept<T>(path: string, maxBytes: number, empty: T, make: (text: string) => T): T {
  const started = Date.now();
  const st = statSync(path, { bigint: true, throwIfNoEntry: false });
  if (st === undefined) {
    kept.delete(path);
    return empty;
  }
  const stamp = statsStamp(st);
  const hit = kept.get(path);
  if (hit !== undefined && hit.stamp === stamp) return hit.value as T;
  let value: T;
  try {
    value = make(readRegularFileSync(path, maxBytes));
  } catch {
    return empty;
  }
  if (settledBefore(Number(st.mtimeMs), started)) kept.set(path, { stamp, value });
  else kept.delete(path);
  return value;
}

/** The default model of the config.toml at `path` (`defaultModelOf`); undefined when there is none to read. */
export function cliDefaultModel(path: string): string | undefined {
  return readKept<string | undefined>(path, MAX_CONFIG_BYTES, undefined, defaultModelOf);
}

