/**
 * The settings that more than one part of the judge reads: how many repeats deny (the rules
 * that count repeats and the tool-loop check), how much a compaction must cut (no-progress and
 * cannot-make-room), what makes two calls the same (the view every rule reads) and what a tool
 * loop does. A setting that one rule alone reads is declared in that rule's file
 * (rules/rule.ts `settings`); config/settings.ts assembles both with the runtime's own.
 */
import { boolean, BOOL_TEXT, decimal, spec, type SettingValues } from "../shared/setting.js";
import { lazily, zod } from "../shared/zod.js";

/**
 * What the guard does about a tool loop with no compaction (./tool-loop.ts): `warn` adds
 * a notice to the result that completes a chain, `stop` also refuses the call that goes on
 * with it and stops the session, `off` does nothing.
 */
export type ToolLoopMode = "warn" | "stop" | "off";

/** The judge's shared settings. threshold 3 mirrors opencode's DOOM_LOOP_THRESHOLD (session/processor.ts). */
export const SHARED_SETTINGS = {
  threshold: spec({
    schema: lazily(() => zod().number().int().min(2).max(1000)),
    default: 3,
    expected: "an integer from 2 to 1000",
    env: "OPENCODE_COMPACTION_GUARD_THRESHOLD",
    flag: "threshold",
    help: "runs of one call, with nothing new between, across a compaction, that deny (repeated-tool-call)",
    fromText: decimal,
  }),
  minReduction: spec({
    schema: lazily(() => zod().number().min(0).lt(1)),
    default: 0.1,
    expected: "a number from 0 to below 1",
    env: "OPENCODE_COMPACTION_GUARD_MIN_REDUCTION",
    flag: "min-reduction",
    help: "fraction of the context a compaction must cut, at least (no-progress)",
    fromText: decimal,
  }),
  matchOutput: spec({
    schema: lazily(() => zod().boolean()),
    default: true,
    expected: "true or false",
    expectedText: BOOL_TEXT,
    env: "OPENCODE_COMPACTION_GUARD_MATCH_OUTPUT",
    flag: "match-output",
    help: "a repeat must have the same output too",
    fromText: boolean,
  }),
  ignore: spec<readonly string[]>({
    schema: lazily(() => zod().array(zod().string().trim().min(1).max(200)).max(100).readonly()),
    default: Object.freeze([]) as readonly string[],
    expected: "a list of up to 100 tool names or command starts",
    env: "OPENCODE_COMPACTION_GUARD_IGNORE",
    flag: "ignore",
    help: "tools or bash command starts never counted (a list; comma-separated in a flag or the env)",
    // A comma-separated list: "gh run watch, todowrite".
    fromText: (text) =>
      text
        .split(",")
        .map((item) => item.trim())
        .filter((item) => item !== ""),
  }),
  toolLoop: spec<ToolLoopMode>({
    schema: lazily(() => zod().enum(["warn", "stop", "off"])),
    default: "warn",
    expected: "warn, stop or off",
    env: "OPENCODE_COMPACTION_GUARD_TOOL_LOOP",
    flag: "tool-loop",
    help: "the same call with the same result threshold times, no compaction needed: warn the model, stop the session, or off",
    fromText: (text) => text.trim().toLowerCase(),
  }),
} as const;

/** The values of {@link SHARED_SETTINGS}: what every rule's check may read besides its own settings. */
export type SharedSettings = SettingValues<typeof SHARED_SETTINGS>;
