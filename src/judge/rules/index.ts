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
import type { SettingValues } from "../../shared/setting.js";
import type { SharedSettings } from "../settings.js";

/** `A | B` → `A & B`. */
type UnionToIntersection<U> = (U extends unknown ? (u: U) => void : never) extends (i: infer I) => void ? I : never;

export const RULES = [noProgress, cannotMakeRoom, backToBackCompactions, repeatedToolCall, noNewWork, turnFinished] as const;

type AnyRule = (typeof RULES)[number];

/** The specs of the settings each rule alone reads, every rule's together (rule.ts `settings`). */
type RuleSpecs = UnionToIntersection<AnyRule["settings"]>;

/**
 * The settings the rules own, every rule's in RULES order: config/settings.ts lists them with
 * the shared ones and the runtime's. No two rules declare one key (test/config/settings.test.ts).
 */
export const RULE_SETTINGS: RuleSpecs = Object.freeze(Object.assign({}, ...RULES.map((rule) => rule.settings)) as RuleSpecs);

/** What the judge's settings are: the shared ones (../settings.ts) and every rule's own. */
export type JudgeSettings = SharedSettings & SettingValues<RuleSpecs>;

/** The name of every rule that can deny. */
export type RuleName = AnyRule["name"];

/** Each rule's evidence, by rule name. */
export type Evidence = { readonly [R in AnyRule as R["name"]]: ReturnType<R["check"]>["evidence"] };

export type { DecideOptions, Finding, RuleContext, Severity } from "./rule.js";
