/**
 * A protobuf wire-format reader with no schema: a message's fields as (number, value) in the order written,
 * enough to take a few known fields out of an agent's blob (Antigravity's `gen_metadata`) without generated
 * code or a dependency. Varints (wire type 0) come as numbers (a value above 2^53 loses precision: token
 * counts never get there), length-delimited fields (2) as byte slices of the input (no copy), fixed-width
 * fields (1, 5) are skipped over. A truncated field, a group (3, 4), an unknown wire type, a field number 0 or
 * a varint longer than 10 bytes throws `ProtobufError`: the caller skips that blob and counts it.
 */

/** The blob is not a well-formed protobuf message. */
export class ProtobufError extends Error {
  override readonly name = 'ProtobufError';
}

/** One field as written: a varint's value, or a length-delimited field's bytes. */
export interface ProtoField {
  n: number;
  v: number | Uint8Array;
}

/** Reads a varint at `at`; returns its value and the offset after it. */
function varint(b: Uint8Array, at: number): [number, number] {
  let value = 0;
  let scale = 1;
  for (let i = 0; i < 10; i++) {
    const byte = b[at + i];
    if (byte === undefined) throw new ProtobufError('truncated varint');
    value += (byte & 0x7f) * scale;
    if ((byte & 0x80) === 0) return [value, at + i + 1];
    scale *= 128;
  }
  throw new ProtobufError('varint longer than 10 bytes');
}

/** Every field of the message `b`, in order. Throws `ProtobufError` on malformed input. */
export function protoFields(b: Uint8Array): ProtoField[] {
  const out: ProtoField[] = [];
  let at = 0;
  while (at < b.length) {
    const [tag, next] = varint(b, at);
    const n = Math.floor(tag / 8);
    if (n === 0) throw new ProtobufError('field number 0');
    const wire = tag % 8;
    at = next;
    if (wire === 0) {
      const [v, after] = varint(b, at);
      out.push({ n, v });
      at = after;
    } else if (wire === 2) {
      const [len, after] = varint(b, at);
      if (after + len > b.length) throw new ProtobufError('length-delimited field past the end');
      out.push({ n, v: b.subarray(after, after + len) });
      at = after + len;
    } else if (wire === 1 || wire === 5) {
      at += wire === 1 ? 8 : 4;
      if (at > b.length) throw new ProtobufError('fixed-width field past the end');
    } else {
      throw new ProtobufError(`wire type ${wire}`);
    }
  }
  return out;
}

/** The last varint of field `n` (protobuf's rule for a repeated scalar), or undefined. */
export function protoVarint(fields: readonly ProtoField[], n: number): number | undefined {
  for (let i = fields.length - 1; i >= 0; i--) {
    const f = fields[i] as ProtoField;
    if (f.n === n && typeof f.v === 'number') return f.v;
  }
  return undefined;
}

/** Every length-delimited value of field `n`, in order (a repeated message). */
export function protoBytesAll(fields: readonly ProtoField[], n: number): Uint8Array[] {
  const out: Uint8Array[] = [];
  for (const f of fields) if (f.n === n && typeof f.v !== 'number') out.push(f.v);
  return out;
}

/** The first length-delimited value of field `n` (a message), or undefined. */
export function protoBytes(fields: readonly ProtoField[], n: number): Uint8Array | undefined {
  for (const f of fields) if (f.n === n && typeof f.v !== 'number') return f.v;
  return undefined;
}

const utf8 = new TextDecoder('utf-8', { fatal: true });

/** Field `n` as trimmed UTF-8 text (its last value), or undefined when absent, blank or not UTF-8. */
export function protoText(fields: readonly ProtoField[], n: number): string | undefined {
  const all = protoBytesAll(fields, n);
  const b = all[all.length - 1];
  if (b === undefined) return undefined;
  try {
    return utf8.decode(b).trim() || undefined;
  } catch {
    return undefined;
  }
}
