import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { createSwitchFile, switchFilePath } from "../../src/plugin/opencode-v1/switches.js";

const fileIn = () => join(mkdtempSync(join(tmpdir(), "switches-")), "opencode", "compaction-guard", "switches.json");

describe("switchFilePath", () => {
  it("is in opencode's data folder: XDG_DATA_HOME first, else the home's .local/share, else none", () => {
    expect(switchFilePath({ XDG_DATA_HOME: "/x/data", HOME: "/home/u" })).toBe("/x/data/opencode/compaction-guard/switches.json");
    expect(switchFilePath({ HOME: "/home/u" })).toBe("/home/u/.local/share/opencode/compaction-guard/switches.json");
    expect(switchFilePath({})).toBeUndefined();
  });
});

describe("the switch file", () => {
  it("keeps each session's newest switch; a session never switched has none", async () => {
    const file = fileIn();
    const switches = createSwitchFile(file);
    expect(await switches.read("ses_a")).toBeNull();
    await switches.write("ses_a", "off");
    await switches.write("ses_b", "observe");
    await switches.write("ses_a", "on");
    expect([await switches.read("ses_a"), await switches.read("ses_b"), await switches.read("ses_c")]).toEqual(["on", "observe", null]);
    expect(JSON.parse(readFileSync(file, "utf8"))).toEqual({ ses_b: "observe", ses_a: "on" });
  });

  it("loses no switch when writes overlap, and keeps the newest 1,000 sessions", async () => {
    const file = fileIn();
    const switches = createSwitchFile(file);
    await Promise.all(Array.from({ length: 1_005 }, (_, i) => switches.write(`ses_${i}`, "off")));
    const kept = Object.keys(JSON.parse(readFileSync(file, "utf8")) as object);
    expect(kept).toHaveLength(1_000);
    expect([kept[0], kept.at(-1)]).toEqual(["ses_5", "ses_1004"]);
  });

  it("a file that is no JSON object is an error to read; a write replaces it; values that are no switch are dropped", async () => {
    const file = fileIn();
    const switches = createSwitchFile(file);
    await switches.write("ses_a", "off");
    writeFileSync(file, "[1, 2]");
    await expect(switches.read("ses_a")).rejects.toThrow("not a JSON object");
    writeFileSync(file, '{"ses_a": "maybe", "ses_b": "off"}');
    expect([await switches.read("ses_a"), await switches.read("ses_b")]).toEqual([null, "off"]);
    writeFileSync(file, "{ not json");
    await switches.write("ses_c", "observe");
    expect(JSON.parse(readFileSync(file, "utf8"))).toEqual({ ses_c: "observe" });
  });

  it("with no file, nothing is kept and nothing is written", async () => {
    const switches = createSwitchFile(undefined);
    await switches.write("ses_a", "off");
    expect(await switches.read("ses_a")).toBeNull();
  });
});
