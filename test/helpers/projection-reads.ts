/**
 * For tests that hold a field projection (cursors/scan-fields.ts) to the code that reads its answer: a record
 * behind proxies that note every key read, and whether a projection takes a path so noted.
 */
import type { FieldProjection } from '../../cursors/scan-fields.js';

type Obj = Record<string, unknown>;

/** `value` behind proxies that add to `reads` each path read under it (`a.b`; `a.*` for a listing of keys). */
export function recording(value: Obj, reads: Set<string>, at = ''): Obj {
  return new Proxy(value, {
    get(target, key, receiver) {
      const v: unknown = Reflect.get(target, key, receiver);
      if (typeof key !== 'string') return v;
      const path = at + key;
      reads.add(path);
      return typeof v === 'object' && v !== null && !Array.isArray(v) ? recording(v as Obj, reads, `${path}.`) : v;
    },
    has(target, key) {
      if (typeof key === 'string') reads.add(at + key);
      return Reflect.has(target, key);
    },
    ownKeys(target) {
      reads.add(`${at}*`);
      return Reflect.ownKeys(target);
    },
  });
}

/** Whether the projection takes `path` (a dotted path): a field listed, or under one taken whole. */
export function projected(projection: FieldProjection, path: string): boolean {
  let node: FieldProjection | true | undefined = projection;
  for (const key of path.split('.')) {
    if (node === true) return true;
    if (key === '*' || node === undefined) return false;
    node = (node as Record<string, FieldProjection | true | undefined>)[key];
  }
  return node !== undefined;
}

/** The dotted paths of a projection's fields (an object's own fields, not the object). */
export function listedFields(node: FieldProjection, at = ''): string[] {
  return Object.entries(node).flatMap(([k, v]) => (v === true ? [at + k] : listedFields(v as FieldProjection, `${at}${k}.`)));
}
