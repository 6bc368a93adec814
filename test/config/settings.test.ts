import { describe, expect, it } from "vitest";
import { DEFAULT_SETTINGS, ENV_NAMES, resolveSettings, SETTINGS } from "../../src/config/settings.js";
import { RULES } from "../../src/judge/rules/index.js";
import { SHARED_SETTINGS } from "../../src/judge/settings.js";

describe("resolveSettings", () => {
  it("defaults: threshold 3, window 8, minReduction 0.1, predict true, matchOutput true, notify toast, enabled, nothing ignored", () => {
    expect(resolveSettings(undefined, {})).toEqual({
      settings: {
        threshold: 3,
        window: 8,
        minReduction: 0.1,
        predict: true,
        matchOutput: true,
        ignore: [],
        toolLoop: "warn",
        notify: "toast",
        mode: "enforce",
        prevent: true,
        statusFile: "",
        enabled: true,
      },
      sources: {
        threshold: "default",
        window: "default",
        minReduction: "default",
        predict: "default",
        matchOutput: "default",
        ignore: "default",
        toolLoop: "default",
        notify: "default",
        mode: "default",
        prevent: "default",
        statusFile: "default",
        enabled: "default",
      },
      problems: [],
    });
  });

  it("options override defaults; environment overrides options", () => {
    const { settings, problems } = resolveSettings(
      { threshold: 4, window: 12, minReduction: 0.2, matchOutput: false, notify: "log", ignore: ["todowrite"] },
      {
        OPENCODE_COMPACTION_GUARD_WINDOW: "5",
        OPENCODE_COMPACTION_GUARD_MATCH_OUTPUT: "yes",
        OPENCODE_COMPACTION_GUARD_IGNORE: "gh run watch",
      },
    );
    expect(problems).toEqual([]);
    expect(settings).toEqual({
      threshold: 4,
      window: 5,
      minReduction: 0.2,
      predict: true,
      matchOutput: true,
      notify: "log",
      mode: "enforce",
      prevent: true,
      statusFile: "",
      enabled: true,
      ignore: ["gh run watch"],
      toolLoop: "warn",
    });
  });

  it.each([
    ["OPENCODE_COMPACTION_GUARD_THRESHOLD", "5", { threshold: 5 }],
    ["OPENCODE_COMPACTION_GUARD_WINDOW", " 20 ", { window: 20 }],
    ["OPENCODE_COMPACTION_GUARD_MIN_REDUCTION", "0.25", { minReduction: 0.25 }],
    ["OPENCODE_COMPACTION_GUARD_MATCH_OUTPUT", "FALSE", { matchOutput: false }],
    ["OPENCODE_COMPACTION_GUARD_PREDICT", "on", { predict: true }],
    ["OPENCODE_COMPACTION_GUARD_PREDICT", "0", { predict: false }],
    ["OPENCODE_COMPACTION_GUARD_NOTIFY", "Off", { notify: "off" }],
    ["OPENCODE_COMPACTION_GUARD_PREVENT", "no", { prevent: false }],
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
      "OPENCODE_COMPACTION_GUARD_PREDICT",
      "OPENCODE_COMPACTION_GUARD_MATCH_OUTPUT",
      "OPENCODE_COMPACTION_GUARD_IGNORE",
      "OPENCODE_COMPACTION_GUARD_TOOL_LOOP",
      "OPENCODE_COMPACTION_GUARD_NOTIFY",
      "OPENCODE_COMPACTION_GUARD_MODE",
      "OPENCODE_COMPACTION_GUARD_PREVENT",
      "OPENCODE_COMPACTION_GUARD_STATUS_FILE",
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
      "plugin option typo: unknown setting (known: threshold, window, minReduction, predict, matchOutput, ignore, toolLoop, notify, mode, prevent, statusFile, enabled); ignored",
      "OPENCODE_COMPACTION_GUARD_MIN_REDUCTION: minReduction must be a number from 0 to below 1, got 1; using 0.1",
      'OPENCODE_COMPACTION_GUARD_DISABLED: must be true or false (or 1/0, yes/no, on/off), got "maybe"; the guard stays enabled',
    ]);
  });

  it.each(["0x10", "1e1", "Infinity", "3 apples"])("only plain decimals are numbers: %j is rejected", (text) => {
    const { settings, problems } = resolveSettings(undefined, { OPENCODE_COMPACTION_GUARD_THRESHOLD: text });
    expect(settings.threshold).toBe(3);
    expect(problems).toEqual([
      `OPENCODE_COMPACTION_GUARD_THRESHOLD: threshold must be an integer from 2 to 1000, got ${JSON.stringify(text)}; using 3`,
    ]);
  });

  it("an invalid environment value leaves the opencode.json value in place", () => {
    const { settings, problems } = resolveSettings({ threshold: 5 }, { OPENCODE_COMPACTION_GUARD_THRESHOLD: "lots" });
    expect(settings.threshold).toBe(5);
    expect(problems[0]).toMatch(/; using 5$/);
  });

  describe("ignore", () => {
    const IGNORE = "OPENCODE_COMPACTION_GUARD_IGNORE";
    const PROBLEM = "ignore must be a list of up to 100 tool names or command starts";

    it("takes a list of tool names and command starts from opencode.json, each trimmed", () => {
      const { settings, problems } = resolveSettings({ ignore: ["todowrite", "  gh run watch  "] }, {});
      expect(problems).toEqual([]);
      expect(settings.ignore).toEqual(["todowrite", "gh run watch"]);
    });

    it.each([
      ["gh run watch", ["gh run watch"]],
      ["gh run watch, todowrite", ["gh run watch", "todowrite"]],
      [" a , b ", ["a", "b"]],
      ["a,,b,", ["a", "b"]],
    ])("reads %j from the environment, comma-separated, as %j", (text, expected) => {
      const { settings, problems } = resolveSettings(undefined, { [IGNORE]: text });
      expect(problems).toEqual([]);
      expect(settings.ignore).toEqual(expected);
    });

    it("an environment value wins over the option; one of separators only clears the list, an empty one is unset", () => {
      expect(resolveSettings({ ignore: ["todowrite"] }, { [IGNORE]: "a, b" }).settings.ignore).toEqual(["a", "b"]);
      expect(resolveSettings({ ignore: ["todowrite"] }, { [IGNORE]: " , " }).settings.ignore).toEqual([]);
      expect(resolveSettings({ ignore: ["todowrite"] }, { [IGNORE]: "" }).settings.ignore).toEqual(["todowrite"]);
    });

    it.each([
      ["a string, not a list", "todowrite", '"todowrite"'],
      ["an empty entry", ["", "x"], '["","x"]'],
      ["an entry of spaces", ["   "], '["   "]'],
      ["an entry that is not a string", [1], "[1]"],
      ["an entry over 200 characters", ["x".repeat(201)], `["${"x".repeat(35)}...`],
      ["more than 100 entries", Array.from({ length: 101 }, (_, i) => `t${i}`), '["t0","t1","t2","t3","t4","t5","t6","...'],
      ["an object", { tool: "bash" }, "[object Object]"],
    ])("rejects %s in opencode.json: reported, and nothing is ignored", (_, value, shown) => {
      const { settings, problems } = resolveSettings({ ignore: value }, {});
      expect(settings.ignore).toEqual([]);
      expect(problems).toEqual([`plugin option ignore: ${PROBLEM}, got ${shown}; using []`]);
    });

    it("accepts exactly 100 entries of 200 characters", () => {
      const list = Array.from({ length: 100 }, (_, i) => `${i}`.padEnd(200, "x"));
      const { settings, problems } = resolveSettings({ ignore: list }, {});
      expect(problems).toEqual([]);
      expect(settings.ignore).toEqual(list);
    });

    it("an invalid environment value leaves the opencode.json list in place", () => {
      const { settings, problems } = resolveSettings({ ignore: ["todowrite"] }, { [IGNORE]: `ok, ${"x".repeat(201)}` });
      expect(settings.ignore).toEqual(["todowrite"]);
      expect(problems).toEqual([`${IGNORE}: ${PROBLEM}, got ["ok","${"x".repeat(30)}...; using ["todowrite"]`]);
    });
  });

  it("options that are not an object are reported", () => {
    expect(resolveSettings("threshold=4", {}).problems).toEqual(['plugin options: expected an object, got "threshold=4"; using defaults']);
  });
});

describe("opencode.json.example", () => {
  it("names every setting, each with its default, and resolves without a problem", async () => {
    const { readFileSync } = await import("node:fs");
    const example = JSON.parse(readFileSync(new URL("../../opencode.json.example", import.meta.url), "utf8")) as {
      plugin: [[string, Record<string, unknown>]];
    };
    const [[name, options]] = example.plugin;
    expect(name).toMatch(/^opencode-compaction-guard@\d+\.\d+\.\d+$/);
    expect(Object.keys(options).sort()).toEqual(Object.keys(DEFAULT_SETTINGS).sort());
    expect(resolveSettings(options, {})).toMatchObject({ settings: DEFAULT_SETTINGS, problems: [] });
  });
});

describe("the settings table, assembled from the judge's, the rules' and the runtime's", () => {
  it("holds each declared spec as it was declared, none twice: a rule's setting is its own", () => {
    const declared = [
      ...Object.entries(SHARED_SETTINGS),
      ...RULES.flatMap((rule) => Object.entries(rule.settings as Record<string, unknown>)),
    ];
    const keys = declared.map(([key]) => key);
    expect(keys.filter((key, i) => keys.indexOf(key) !== i)).toEqual([]);
    for (const [key, spec] of declared) expect(SETTINGS[key as keyof typeof SETTINGS], key).toBe(spec);
    expect(Object.keys(SETTINGS).filter((key) => !keys.includes(key))).toEqual(["notify", "mode", "prevent", "statusFile", "enabled"]);
  });

  it("the rules own window (repeated-tool-call) and predict (cannot-make-room)", () => {
    const owners = RULES.flatMap((rule) => Object.keys(rule.settings).map((key) => `${key}: ${rule.name}`));
    expect(owners).toEqual(["predict: cannot-make-room", "window: repeated-tool-call"]);
  });
});
