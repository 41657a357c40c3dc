/** CSV quoting, on its own so the CLI's cost renderer loads it without the export's scan and registry. */

/** Quote a CSV field when it needs it (RFC 4180). */
export function csvField(v: string | number | boolean | null | undefined): string {
  if (v === undefined || v === null) return '';
  const s = String(v);
  return /[",\r\n]/.test(s) ? `"${s.replace(/"/g, '""')}"` : s;
}
