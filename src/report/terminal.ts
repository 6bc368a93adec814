/** Text measured and cut by the columns it takes in a terminal (made safe first by redact/terminal-safe.ts). */

let segmenterMemo: Intl.Segmenter | undefined;
/** Made on first use: building it loads ICU data (about 15 ms), which a replay of ASCII text never needs. */
const graphemes = (text: string) => (segmenterMemo ??= new Intl.Segmenter("en", { granularity: "grapheme" })).segment(text);

/** East Asian Wide and Fullwidth ranges (UAX #11), and the emoji blocks terminals draw two columns wide. */
const WIDE =
  /^[\u1100-\u115f\u231a\u231b\u2329\u232a\u23e9-\u23ec\u23f0\u23f3\u25fd\u25fe\u2614\u2615\u2648-\u2653\u267f\u2693\u26a1\u26aa\u26ab\u26bd\u26be\u26c4\u26c5\u26ce\u26d4\u26ea\u26f2\u26f3\u26f5\u26fa\u26fd\u2705\u270a\u270b\u2728\u274c\u274e\u2753-\u2755\u2757\u2795-\u2797\u27b0\u27bf\u2b1b\u2b1c\u2b50\u2b55\u2e80-\u303e\u3041-\u33ff\u3400-\u4dbf\u4e00-\u9fff\ua000-\ua4cf\ua960-\ua97f\uac00-\ud7a3\uf900-\ufaff\ufe10-\ufe19\ufe30-\ufe6f\uff00-\uff60\uffe0-\uffe6\u{16fe0}-\u{16fe4}\u{17000}-\u{18cff}\u{1b000}-\u{1b2ff}\u{1f004}\u{1f0cf}\u{1f18e}\u{1f191}-\u{1f19a}\u{1f200}-\u{1f251}\u{1f300}-\u{1f64f}\u{1f680}-\u{1f6ff}\u{1f7e0}-\u{1f7eb}\u{1f90c}-\u{1f9ff}\u{1fa70}-\u{1faff}\u{20000}-\u{2fffd}\u{30000}-\u{3fffd}]/u;
/** Characters that take no column: combining marks, zero-width joiners and spaces, variation selectors. */
const ZERO = /^[\p{Mn}\p{Me}\u200b-\u200f\u2060-\u2064\ufeff]$/u;

/** Columns one grapheme cluster takes in a terminal: 0, 1 or 2 (an emoji sequence or a CJK character: 2). */
function clusterWidth(cluster: string): number {
  if (ZERO.test(cluster)) return 0;
  if (WIDE.test(cluster) || /\p{Extended_Pictographic}\ufe0f|\u200d|[\u{1f1e6}-\u{1f1ff}]{2}/u.test(cluster)) return 2;
  return 1;
}

/** Printable ASCII only: one column a character, no grapheme clusters to find (ids, numbers, rule names). */
const PRINTABLE_ASCII = /^[\x20-\x7e]*$/;

/** Columns `text` takes in a terminal (grapheme clusters, East Asian wide characters and emoji 2 columns); no escapes expected. */
export function displayWidth(text: string): number {
  if (PRINTABLE_ASCII.test(text)) return text.length;
  let width = 0;
  for (const { segment } of graphemes(text)) width += clusterWidth(segment);
  return width;
}

/** `text` cut to at most `max` columns, whole grapheme clusters only (never half a surrogate pair), with `…` when cut. */
export function cutToWidth(text: string, max: number): string {
  if (displayWidth(text) <= max) return text;
  let out = "";
  let width = 0;
  for (const { segment } of graphemes(text)) {
    const w = clusterWidth(segment);
    if (width + w > max - 1) break;
    out += segment;
    width += w;
  }
  return `${out}…`;
}

/** `text` padded with spaces to `width` columns, at the end (`"end"`) or the start. */
export function padToWidth(text: string, width: number, side: "end" | "start" = "end"): string {
  const pad = " ".repeat(Math.max(0, width - displayWidth(text)));
  return side === "end" ? text + pad : pad + text;
}
