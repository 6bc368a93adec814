import { describe, expect, it } from "vitest";
import { REPLAY_OUTPUTS, REPORTS } from "../../src/report/index.js";
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

describe("the outputs of replay are one list (report/index.ts)", () => {
  const FILE = "fixtures/e2e-fixed-point-unguarded.json";

  it("has one default output and unique flags", () => {
    expect(REPLAY_OUTPUTS.filter((o) => o.place === "default").map((o) => o.flag)).toEqual([null]);
    const flags = REPLAY_OUTPUTS.flatMap((o) => (o.flag === null ? [] : [o.flag]));
    expect(flags).toEqual(["json", "chart"]);
  });

  it("replay --help lists every output's flag with its help, from the list", async () => {
    const { code, stdout } = await cli(["replay", "--help"]);
    expect(code).toBe(0);
    // The help wraps at the terminal's width: its first words follow the flag.
    for (const o of REPLAY_OUTPUTS) if (o.flag !== null) expect(stdout).toContain(`  ${`--${o.flag}`.padEnd(23)}${o.help.slice(0, 30)}`);
  });

  it("prints the default output, an `instead` output in its place, an `under` output after a blank line", async () => {
    const table = await cli(["replay", FILE]);
    const json = await cli(["replay", FILE, "--json"]);
    const chart = await cli(["replay", FILE, "--chart"]);
    expect([table.code, json.code, chart.code]).toEqual([0, 0, 0]);
    expect(table.stdout).toMatch(/^session ses_\w+: 8 automatic compactions; /);
    expect(JSON.parse(json.stdout).compactions).toHaveLength(8);
    expect(chart.stdout.startsWith(`${table.stdout}\n`)).toBe(true);
    expect(chart.stdout.length).toBeGreaterThan(table.stdout.length + 200);
  });

  it("an `under` output does not go with an `instead` output", async () => {
    const { code, stderr } = await cli(["replay", FILE, "--chart", "--json"]);
    expect(code).toBe(2);
    expect(stderr).toContain("--chart draws under the table; it does not go with --json");
  });
});
