import { describe, expect, it } from "vitest";
import { REPORTS } from "../../src/report/index.js";
import { cli } from "../support/cli.js";

describe("the outputs of audit are one list (report/index.ts)", () => {
  it("has one default output and unique flags; a file output names itself and gives an example", () => {
    expect(REPORTS.filter((r) => r.flag === null)).toHaveLength(1);
    const flags = REPORTS.flatMap((r) => (r.flag === null ? [] : [r.flag]));
    expect(new Set(flags).size).toBe(flags.length);
    for (const r of REPORTS.filter((r) => r.to === "file")) {
      expect(r.name, String(r.flag)).toMatch(/\S/);
      expect(r.example, String(r.flag)).toMatch(/\S/);
    }
  });

  it("audit --help lists every output's flag with its help, from the list", async () => {
    const { code, stdout } = await cli(["audit", "--help"]);
    expect(code).toBe(0);
    for (const r of REPORTS) {
      if (r.flag === null) continue;
      const usage = `--${r.flag}${r.to === "file" ? " FILE" : ""}`;
      expect(stdout).toContain(`  ${usage.padEnd(23)}${r.help}\n`);
    }
  });

  it("a file output's flag without a value gets its example", async () => {
    for (const r of REPORTS.filter((r) => r.to === "file")) {
      const { code, stderr } = await cli(["audit", "fixtures", `--${r.flag}`]);
      expect(code).toBe(2);
      expect(stderr).toContain(`--${r.flag} needs a value (e.g. --${r.flag} ${r.example})`);
    }
  });
});
