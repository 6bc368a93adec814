import { describe, expect, it } from "vitest";
import { DEFAULT_SETTINGS, ENV_NAMES, resolveSettings } from "../src/settings.js";

describe("resolveSettings", () => {
  it("defaults: threshold 3, window 8, minReduction 0.1, matchOutput true, notify toast, enabled", () => {
    expect(resolveSettings(undefined, {})).toEqual({
      settings: { threshold: 3, window: 8, minReduction: 0.1, matchOutput: true, notify: "toast", enabled: true },
      problems: [],
    });
  });

  it("options override defaults; environment overrides options", () => {
    const { settings, problems } = resolveSettings(
      { threshold: 4, window: 12, minReduction: 0.2, matchOutput: false, notify: "log" },
      { OPENCODE_COMPACTION_GUARD_WINDOW: "5", OPENCODE_COMPACTION_GUARD_MATCH_OUTPUT: "yes" },
    );
    expect(problems).toEqual([]);
    expect(settings).toEqual({ threshold: 4, window: 5, minReduction: 0.2, matchOutput: true, notify: "log", enabled: true });
  });

  it.each([
    ["OPENCODE_COMPACTION_GUARD_THRESHOLD", "5", { threshold: 5 }],
    ["OPENCODE_COMPACTION_GUARD_WINDOW", " 20 ", { window: 20 }],
    ["OPENCODE_COMPACTION_GUARD_MIN_REDUCTION", "0.25", { minReduction: 0.25 }],
    ["OPENCODE_COMPACTION_GUARD_MATCH_OUTPUT", "FALSE", { matchOutput: false }],
    ["OPENCODE_COMPACTION_GUARD_NOTIFY", "Off", { notify: "off" }],
    ["OPENCODE_COMPACTION_GUARD_DISABLED", "true", { enabled: false }],
    ["OPENCODE_COMPACTION_GUARD_DISABLED", "0", { enabled: true }],
  ])("%s=%j", (name, value, expected) => {
    const { settings, problems } = resolveSettings(undefined, { [name]: value });
    expect(problems).toEqual([]);
    expect(settings).toMatchObject(expected);
  });

  it("every environment name is the documented one", () => {
    expect(Object.values(ENV_NAMES)).toEqual([
      "OPENCODE_COMPACTION_GUARD_THRESHOLD",
      "OPENCODE_COMPACTION_GUARD_WINDOW",
      "OPENCODE_COMPACTION_GUARD_MIN_REDUCTION",
      "OPENCODE_COMPACTION_GUARD_MATCH_OUTPUT",
      "OPENCODE_COMPACTION_GUARD_NOTIFY",
      "OPENCODE_COMPACTION_GUARD_DISABLED",
    ]);
  });

  it("an invalid value is reported with its source, and the value below it stands", () => {
    const { settings, problems } = resolveSettings(
      { threshold: 2.5, window: "8", notify: "popup", typo: 1 },
      { OPENCODE_COMPACTION_GUARD_MIN_REDUCTION: "1", OPENCODE_COMPACTION_GUARD_DISABLED: "maybe" },
    );
    expect(settings).toEqual(DEFAULT_SETTINGS);
    expect(problems).toEqual([
      "plugin option threshold: threshold must be an integer from 2 to 1000, got 2.5; using 3",
      'plugin option window: window must be an integer from 1 to 1000, got "8"; using 8',
      'plugin option notify: notify must be toast, log or off, got "popup"; using "toast"',
      "plugin option typo: unknown setting (known: threshold, window, minReduction, matchOutput, notify, enabled); ignored",
      "OPENCODE_COMPACTION_GUARD_MIN_REDUCTION: minReduction must be a number from 0 to below 1, got 1; using 0.1",
      'OPENCODE_COMPACTION_GUARD_DISABLED: must be true or false (1/0, yes/no, on/off), got "maybe"; the guard stays enabled',
    ]);
  });

  it.each(["0x10", "1e1", "Infinity", "3 apples"])("only plain decimals are numbers: %j is rejected", (text) => {
    const { settings, problems } = resolveSettings(undefined, { OPENCODE_COMPACTION_GUARD_THRESHOLD: text });
    expect(settings.threshold).toBe(3);
    expect(problems).toEqual([`OPENCODE_COMPACTION_GUARD_THRESHOLD: threshold must be an integer from 2 to 1000, got ${JSON.stringify(text)}; using 3`]);
  });

  it("an invalid environment value leaves the opencode.json value in place", () => {
    const { settings, problems } = resolveSettings({ threshold: 5 }, { OPENCODE_COMPACTION_GUARD_THRESHOLD: "lots" });
    expect(settings.threshold).toBe(5);
    expect(problems[0]).toMatch(/; using 5$/);
  });

  it("options that are not an object are reported", () => {
    expect(resolveSettings("threshold=4", {}).problems).toEqual([
      'plugin options: expected an object, got "threshold=4"; using defaults',
    ]);
  });
});
