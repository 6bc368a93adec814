/** Numbers, plurals, wall times and dates, written one way in every output (table, JSON notes, HTML page, terminal chart). */
import { grouped } from "../shared/numbers.js";

/** A token count with thousands separators, or "-" for null. */
export const fmt = (n: number | null): string => (n === null ? "-" : grouped(n));

/** A count with thousands separators: `44,100`. */
export const num = (n: number): string => grouped(Math.round(n));

/** `1 step`, `7 steps`. */
export const plural = (n: number, word: string): string => `${num(n)} ${word}${n === 1 ? "" : "s"}`;

/**
 * A wall time for the table, the HTML report and the charts alike: `4.2 s` (one decimal
 * under a minute), `3 min 05 s`, `1 h 02 min`; `-` for null (unknown).
 */
export function formatSeconds(seconds: number | null): string {
  if (seconds === null || !Number.isFinite(seconds)) return "-";
  if (seconds < 60) return `${Math.max(0, seconds).toFixed(1)} s`;
  const whole = Math.round(seconds);
  if (whole < 3600) return `${Math.floor(whole / 60)} min ${String(whole % 60).padStart(2, "0")} s`;
  return `${Math.floor(whole / 3600)} h ${String(Math.floor((whole % 3600) / 60)).padStart(2, "0")} min`;
}

/** A time to the minute, UTC: `2026-11-30 18:22`, or `-` without a time. */
export function formatDate(ms: number | null): string {
  if (ms === null || !Number.isFinite(ms)) return "-";
  return new Date(ms).toISOString().slice(0, 16).replace("T", " ");
}
