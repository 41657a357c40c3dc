/**
 * Prepared statements made on first use. A store over the cache (src/cache/store.ts) names two dozen
 * statements, and most runs use a few: a warm report after an append reads the rows, applies one file and
 * stores its fold; the retained-spend pass (src/cost/retained.ts) opens a second store on the same connection
 * for one query. Preparing all of them with each store was work the run never used.
 */
type Statements<T extends Record<string, () => object>> = { readonly [K in keyof T]: ReturnType<T[K]> };

/**
 * An object whose property `k` is `make[k]()`, prepared when first read and kept. (The makers are typed as
 * returning any object: typed as returning a `Statement`, that return type would be taken for the bind
 * parameters `prepare` infers.)
 */
export function lazyStatements<T extends Record<string, () => object>>(make: T): Statements<T> {
  const out = {} as Record<string, object>;
  for (const key of Object.keys(make)) {
    Object.defineProperty(out, key, {
      configurable: true,
      enumerable: true,
      get(): object {
        const statement = (make[key] as () => object)();
        Object.defineProperty(out, key, { value: statement, enumerable: true, writable: false, configurable: false });
        return statement;
      },
    });
  }
  return out as Statements<T>;
}
