/**
 * A LineSplitter's callbacks as a log for comparing two splits (the WebAssembly pass against the JavaScript
 * one). Filtered lines may be told one by one or as a count, so runs of `['filtered', n]` records are summed:
 * two splits agree when they filter the same number of lines between the same other records.
 */
export function mergeFiltered(log: readonly unknown[]): unknown[] {
  const merged: unknown[] = [];
  for (const e of log) {
    const last = merged[merged.length - 1] as unknown[] | undefined;
    if ((e as unknown[])[0] === 'filtered' && last?.[0] === 'filtered') last[1] = (last[1] as number) + ((e as unknown[])[1] as number);
    else merged.push(Array.isArray(e) ? [...(e as unknown[])] : e);
  }
  return merged;
}
