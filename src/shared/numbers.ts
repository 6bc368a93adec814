/**
 * A number with thousands separators, as `toLocaleString("en-US")` writes it (`44,100`,
 * `-1,234,567`). Whole numbers are grouped by hand: `toLocaleString` builds a number format
 * on every call, and a replay of thousands of compactions writes thousands of sizes.
 */
export function grouped(n: number): string {
  if (!Number.isSafeInteger(n) || Object.is(n, -0)) return n.toLocaleString("en-US");
  const digits = String(n < 0 ? -n : n);
  if (digits.length <= 3) return n < 0 ? `-${digits}` : digits;
  const head = digits.length % 3 || 3;
  let text = n < 0 ? `-${digits.slice(0, head)}` : digits.slice(0, head);
  for (let i = head; i < digits.length; i += 3) text += `,${digits.slice(i, i + 3)}`;
  return text;
}

/** `value` when it is a finite number, else null. */
export const finiteOrNull = (value: unknown): number | null => (typeof value === "number" && Number.isFinite(value) ? value : null);
