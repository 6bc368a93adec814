/** Pieces the rules' words are made of: token counts, percentages, and the usual next step. */
import { grouped } from "../shared/numbers.js";

/** `44,100 tokens`, or `?` when unknown. */
export const tokens = (n: number | null): string => (n === null ? "?" : `${grouped(n)} tokens`);

/** `29%`, or `?` when unknown. */
export const percent = (fraction: number | null): string => (fraction === null ? "?" : `${Math.round(fraction * 100)}%`);

/** The start of most next steps: the user can always go on, or start over. */
export const REPLY = "Reply to continue, or start a new session";
