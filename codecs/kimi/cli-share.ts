/**
 * What kimi-cli's share folder (`~/.kimi`, `$KIMI_SHARE_DIR`) says of its sessions beyond their own folders
 * (README.md, "kimi-cli's share folder"): `config.toml`'s default model, the model of the usage its wires do not
 * name, and `kimi.json`'s work dirs, which only the MD5 in a session's folder name points to.
 *
 * Both files are shared by every session. kimi-cli rewrites `config.toml` when the user switches models or logs
 * in, or when a platform's list of models changes, and `kimi.json` whenever it creates a session: a stat of
 * them would read every session again each time. So they are parse dependencies stamped by
 * what one session takes from them (`Codec.dependencyStamp`, index.ts), and each is read once per state: its
 * stat (device, inode, size, mtime and ctime in nanoseconds) keeps what was read, once settled (git's "racily
 * clean" rule, cursors/listing-memo.ts). Anything unreadable, oversized or malformed says nothing: the session
 * is read without it.
 */
import { statSync } from 'node:fs';
import { nodeCrypto } from '../../cursors/builtins.js';
import { settledBefore, statsStamp } from '../../cursors/listing-memo.js';
import { readRegularFileSync } from '../../cursors/read-file.js';
import type { CliConfig, CliMetadata } from './schema.js';
import { parseToml } from './toml.js';
import { rec, str } from './values.js';

/** Larger than any config.toml (a few kilobytes, a few dozen models): a larger file is not read. */
const MAX_CONFIG_BYTES = 1 << 20;

/** Larger than any kimi.json (some 150 bytes a work dir): a larger file is not read. */
const MAX_METADATA_BYTES = 16 << 20;

/** `kaos/local.py` `LocalKaos.name`: the KAOS whose work dirs' folders are their MD5 alone. */
const LOCAL_KAOS = 'local';

/**
 * The model config.toml makes kimi-cli run with: `models[default_model].model`, the API's name of the model.
 * Undefined when there is no default, or it names no model entry (kimi-cli itself refuses such a config).
 */
export function defaultModelOf(toml: string): string | undefined {
  const doc = parseToml(toml) as CliConfig | undefined; // as written by hand, perhaps: each value is checked
  const key = str(doc?.default_model);
  return key === undefined ? undefined : str(rec(rec(doc?.models)?.[key])?.model);
}

/** kimi.json's work dirs by their sessions folder's name: `<md5 of the path>`, `<kaos>_<md5>` off the local KAOS. */
export function workDirsOf(json: string): Map<string, string> {
  const out = new Map<string, string>();
  let doc: unknown;
  try {
    doc = JSON.parse(json);
  } catch {
    return out;
  }
  const dirs = (rec(doc) as CliMetadata | undefined)?.work_dirs;
  if (!Array.isArray(dirs)) return out;
  for (const wd of dirs) {
    const path = str(rec(wd)?.path);
    if (path === undefined) continue;
    const kaos = str(rec(wd)?.kaos) ?? LOCAL_KAOS;
    const md5 = nodeCrypto().createHash('md5').update(path, 'utf8').digest('hex');
    const key = kaos === LOCAL_KAOS ? md5 : `${kaos}_${md5}`;
    if (!out.has(key)) out.set(key, path);
  }
  return out;
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

/** The work dir whose sessions folder is named `key`, from the kimi.json at `path`. */
export function cliWorkDir(path: string, key: string): string | undefined {
  return readKept(path, MAX_METADATA_BYTES, new Map<string, string>(), workDirsOf).get(key);
}
