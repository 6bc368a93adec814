/**
 * Plain-text tables and number formats for the demo and the bench.
 */

/**
 * Lay out rows under a header, columns padded to their widest cell; columns whose every
 * body cell looks numeric are right-aligned.
 * @returns the table as lines joined with "\n" (no trailing newline).
 */
export function formatTable(header: string[], rows: string[][]): string {
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] ?? "").length)));
  const numeric = header.map((_, i) => rows.length > 0 && rows.every((r) => /^[-\d.,\s]+(ms|s)?$/.test(r[i] ?? "")));
  const line = (cells: string[]) =>
    cells
      .map((c, i) => (numeric[i] ? c.padStart(widths[i]!) : c.padEnd(widths[i]!)))
      .join("  ")
      .trimEnd();
  return [line(header), widths.map((w) => "-".repeat(w)).join("  "), ...rows.map(line)].join("\n");
}

/** An integer with thousands separators, e.g. 14,650. */
export const formatInt = (n: number): string => Math.round(n).toLocaleString("en-US");

/** Milliseconds as seconds with one decimal, e.g. "5.6 s". */
export const formatSeconds = (ms: number): string => `${(ms / 1000).toFixed(1)} s`;

/** Milliseconds with two decimals, e.g. "4.91 ms"; "-" for null. */
export const formatMs = (ms: number | null): string => (ms === null ? "-" : `${ms.toFixed(2)} ms`);

/** The median of a list of numbers, or null when it is empty. */
export function median(values: number[]): number | null {
  if (values.length === 0) return null;
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
}

/** The `q`-quantile (0 to 1) of a list of numbers, the nearest rank (1: the largest), or null when it is empty. */
export function quantile(values: readonly number[], q: number): number | null {
  if (values.length === 0) return null;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1))]!;
}
