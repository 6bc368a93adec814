/** replay's tool-loop line shows a tool's name as the ledger does: secrets masked, at most 40 characters. */
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { cli } from "../support/cli.js";

const LOOP = new URL("../../fixtures/breaker/loop-search-results-reordered.json", import.meta.url).pathname;

/** The tool-loop line of a replay of LOOP (whose loop reads a file) with the `read` tool renamed `name`. */
async function toolLoopLine(name: string): Promise<string> {
  const session = JSON.parse(readFileSync(LOOP, "utf8")) as { messages: { parts: { type: string; tool?: string }[] }[] };
  for (const message of session.messages)
    for (const part of message.parts) if (part.type === "tool" && part.tool === "read") part.tool = name;
  const file = join(mkdtempSync(join(tmpdir(), "tool-names-")), "renamed.json");
  writeFileSync(file, JSON.stringify(session));
  const { code, stdout } = await cli(["replay", file]);
  expect(code).toBe(0);
  return stdout.split("\n").find((line) => line.startsWith("tool loop:"))!;
}

describe("replay's tool-loop line", () => {
  it("names the tool as before when its name is short and plain", async () => {
    expect(await toolLoopLine("read")).toContain("step 10 warn (read filePath=…/vite.config.ts, run 3)");
  });

  it("cuts a long name to 40 characters", async () => {
    const line = await toolLoopLine(`mcp_${"x".repeat(100_000)}`);
    expect(line).toContain(`step 10 warn (mcp_${"x".repeat(36)} {filePath=…/vite.config.ts}, run 3)`);
    expect(line.length).toBeLessThan(400);
  });

  it("--json's toolLoop names it the same way", async () => {
    const session = JSON.parse(readFileSync(LOOP, "utf8")) as { messages: { parts: { type: string; tool?: string }[] }[] };
    for (const message of session.messages)
      for (const part of message.parts)
        if (part.type === "tool" && part.tool === "read") part.tool = "mcp_ghp_ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789";
    const file = join(mkdtempSync(join(tmpdir(), "tool-names-")), "renamed.json");
    writeFileSync(file, JSON.stringify(session));
    const { code, stdout } = await cli(["replay", file, "--json"]);
    expect(code).toBe(0);
    expect((JSON.parse(stdout) as { toolLoop: { tool: string }[] }).toolLoop.map((e) => e.tool)).toEqual(["bash", "[redacted]", "bash"]);
  });

  it("masks a secret in the name", async () => {
    const line = await toolLoopLine("mcp_ghp_ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789");
    expect(line).toContain("step 10 warn ([redacted] {filePath=…/vite.config.ts}, run 3)");
    expect(line).not.toContain("ABCDEFGH");
  });
});
