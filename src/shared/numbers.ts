/**
 * A number with thousands separators, as `toLocaleString("en-US")` writes it (`44,100`,
 * `-1,234,567`). Whole numbers are grouped by hand: `toLocaleString` builds a number format
 * on every call, which a replay of thousands of compactions paid thousands of times.
 */
export const grouped = (n: number): string =>
  Number.isSafeInteger(n) && !Object.is(n, -0) ? String(n).replace(/\B(?=(\d{3})+$)/g, ",") : n.toLocaleString("en-US");
