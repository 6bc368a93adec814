/**
 * The rules, in the order `decide` checks them: the first that fires is the verdict's rule.
 * Loop rules come first, the most telling cause first (a compaction that cannot make room
 * explains the repeats that follow it); housekeeping comes last.
 */
import { backToBackCompactions } from "./back-to-back-compactions.js";
import { cannotMakeRoom } from "./cannot-make-room.js";
import { noNewWork } from "./no-new-work.js";
import { noProgress } from "./no-progress.js";
import { repeatedToolCall } from "./repeated-tool-call.js";
import { turnFinished } from "./turn-finished.js";

export const RULES = [noProgress, cannotMakeRoom, backToBackCompactions, repeatedToolCall, noNewWork, turnFinished] as const;

type AnyRule = (typeof RULES)[number];

/** The name of every rule that can deny. */
export type RuleName = AnyRule["name"];

/** Each rule's evidence, by rule name. */
export type Evidence = { readonly [R in AnyRule as R["name"]]: ReturnType<R["check"]>["evidence"] };

export type { Finding, RuleContext, Severity } from "./rule.js";
