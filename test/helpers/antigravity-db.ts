/**
 * Antigravity conversation databases for tests, with the tables the readers in codecs/antigravity/README.md
 * query (`gen_metadata (idx INTEGER PRIMARY KEY, data BLOB NOT NULL)`, `trajectory_metadata_blob (data BLOB)`,
 * `steps (idx INTEGER PRIMARY KEY, metadata BLOB)`) and protobuf blobs encoded field by field. No real
 * database is public; the field numbers are the README's.
 */
import Database from 'better-sqlite3';

function varint(n: number): Buffer {
  const out: number[] = [];
  let x = n;
  while (x >= 0x80) {
    out.push((x % 0x80) | 0x80);
    x = Math.floor(x / 0x80);
  }
  out.push(x);
  return Buffer.from(out);
}

/** A varint field. */
export const pbInt = (field: number, value: number): Buffer => Buffer.concat([varint(field * 8), varint(value)]);
/** A length-delimited field (a string or a message). */
export function pbBytes(field: number, value: Buffer | string): Buffer {
  const b = typeof value === 'string' ? Buffer.from(value) : value;
  return Buffer.concat([varint(field * 8 + 2), varint(b.length), b]);
}
const ts = (seconds: number): Buffer => Buffer.concat([pbInt(1, seconds), pbInt(2, 0)]);

/** `ModelUsageStats` fields by number: 1 model enum, 2 input, 3 output, 4 cache write, 5 cache read, 9 thinking, 10 response, 11 id. */
export function usageBlob(fields: Record<number, number | string>): Buffer {
  return Buffer.concat(Object.entries(fields).map(([k, v]) => (typeof v === 'string' ? pbBytes(Number(k), v) : pbInt(Number(k), v))));
}

export interface GenRowSpec {
  name?: string;
  label?: string;
  modelEnum?: number;
  seconds?: number;
  usage?: Buffer;
  retries?: Buffer[];
}

/** A `gen_metadata.data` blob: `{#1 chat model {#3 enum, #4 usage, #9 {#4 time}, #17 retries {#2 usage}, #19 name, #21 label}}`. */
export function genBlob(r: GenRowSpec): Buffer {
  const chat = Buffer.concat([
    r.modelEnum === undefined ? Buffer.alloc(0) : pbInt(3, r.modelEnum),
    r.usage === undefined ? Buffer.alloc(0) : pbBytes(4, r.usage),
    r.seconds === undefined ? Buffer.alloc(0) : pbBytes(9, pbBytes(4, ts(r.seconds))),
    ...(r.retries ?? []).map((u) => pbBytes(17, pbBytes(2, u))),
    r.name === undefined ? Buffer.alloc(0) : pbBytes(19, r.name),
    r.label === undefined ? Buffer.alloc(0) : pbBytes(21, r.label),
  ]);
  return pbBytes(1, chat);
}

/** A `trajectory_metadata_blob.data`: `{#1 {#1 workspace URI}, #2 created at}`. */
export const trajectoryBlob = (seconds: number, workspace: string): Buffer => Buffer.concat([pbBytes(1, pbBytes(1, workspace)), pbBytes(2, ts(seconds))]);

/** Create the database at `path` with `rows` (blobs in idx order from 1); WAL mode when asked, closed either way. */
export function buildAntigravityDb(path: string, rows: Buffer[], trajectory?: Buffer, wal = false): void {
  const db = new Database(path);
  if (wal) db.pragma('journal_mode = WAL');
  db.exec('CREATE TABLE gen_metadata (idx INTEGER PRIMARY KEY, data BLOB NOT NULL); CREATE TABLE trajectory_metadata_blob (data BLOB); CREATE TABLE steps (idx INTEGER PRIMARY KEY, metadata BLOB);');
  const ins = db.prepare('INSERT INTO gen_metadata (idx, data) VALUES (?, ?)');
  rows.forEach((b, i) => ins.run(i + 1, b));
  if (trajectory !== undefined) db.prepare('INSERT INTO trajectory_metadata_blob (data) VALUES (?)').run(trajectory);
  db.close();
}
