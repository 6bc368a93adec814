/**
 * Replay and audit of a session the live guard stopped say what it did, from its stop note,
 * without flags: test/fixtures/opencode-1.18.33-run-guarded.json is the export of an
 * `opencode run` in `npm run try`'s scratch project (opencode 1.18.33, the fixed-point loop,
 * model limits 8,000 / 2,000; the project's path replaced by /home/dev/app), where the guard
 * stopped at compaction 1 by cannot-make-room; replayed without limits, no rule fires.
 */
import { fileURLToPath } from "node:url";
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { buildTimeline } from "../../src/hosts/opencode/v1.js";
import { guardStops } from "../../src/model/timeline.js";
import { describeLiveStop } from "../../src/report/live-guard.js";
import { cli } from "../support/cli.js";

const RUN = fileURLToPath(new URL("../fixtures/opencode-1.18.33-run-guarded.json", import.meta.url));
const BACK_TO_BACK = fileURLToPath(new URL("../../fixtures/e2e-back-to-back-compactions.json", import.meta.url));
const LOOP = fileURLToPath(new URL("../../fixtures/opencode-1.18.33-loop-bash.json", import.meta.url));
/** The stops opencode's V1 host reads from the notes among `messages`. */
const liveGuardStops = (messages: readonly unknown[]) => guardStops(buildTimeline(messages));
const messagesOf = (file: string): unknown[] => (JSON.parse(readFileSync(file, "utf8")) as { messages: unknown[] }).messages;

describe("the live guard's stops, from its notes", () => {
  it("reads rule, compaction and usable context from the note of a guarded run", () => {
    expect(liveGuardStops(messagesOf(RUN))).toEqual([
      { kind: "compaction", rule: "cannot-make-room", compactionMessageID: "msg_2396203870018MJDMoOGr2Wm6M", usableTokens: 6000 },
    ]);
    // back-to-back-compactions' reason states no usable context.
    expect(liveGuardStops(messagesOf(BACK_TO_BACK))).toEqual([
      { kind: "compaction", rule: "back-to-back-compactions", compactionMessageID: "msg_2328e53de001aRB72itFp5PQda", usableTokens: null },
    ]);
    expect(liveGuardStops(messagesOf(LOOP))).toEqual([]);
    expect(liveGuardStops([null, 3, { info: { role: "user" }, parts: "x" }])).toEqual([]);
  });

  it("prefers the note's own usableTokens over its words, and names a compaction not replayed by its id", () => {
    const note = (metadata: Record<string, unknown>, text: string) => ({
      info: { id: "msg_note", role: "user" },
      parts: [{ type: "text", ignored: true, text, metadata: { compaction_guard: metadata } }],
    });
    const [stop] = liveGuardStops([
      note(
        { note: "loop-stopped", rule: "no-progress", compactionMessageID: "msg_b", usableTokens: 12000 },
        "usable context of 6,000 tokens",
      ),
    ]);
    expect(stop?.usableTokens).toBe(12000);
    expect(describeLiveStop(stop!, [{ index: 1, messageID: "msg_a" }])).toBe(
      "stopped after compaction message msg_b (no-progress, usable context 12,000 tokens)",
    );
    const [tool] = liveGuardStops([note({ note: "tool-loop-stopped" }, "")]);
    expect(describeLiveStop(tool!, [])).toBe("stopped a tool loop (refused a repeated call)");
  });
});

describe("replay and audit without flags", () => {
  it("replay prints the live guard's line under its own verdict", async () => {
    const { code, stdout } = await cli(["replay", RUN]);
    expect(code).toBe(0);
    expect(stdout.trim().split("\n").slice(-3)).toEqual([
      "no deny: the guard would have let every continue turn through",
      "live guard: stopped at compaction 1 (cannot-make-room, usable context 6,000 tokens)",
      "replay differs from the live guard: it knew the model's limits (usable context 6,000 tokens); replay with --context-limit and --output-limit to decide as it did",
    ]);
    // With the limits the guard had, replay decides as it did, and says nothing more.
    const limited = await cli(["replay", RUN, "--context-limit", "8000", "--output-limit", "2000"]);
    expect(limited.stdout.trim().split("\n").slice(-1)).toEqual([
      "live guard: stopped at compaction 1 (cannot-make-room, usable context 6,000 tokens)",
    ]);
    const json = JSON.parse((await cli(["replay", RUN, "--json"])).stdout);
    expect(json.liveGuard).toEqual([
      {
        kind: "compaction",
        rule: "cannot-make-room",
        compactionMessageID: "msg_2396203870018MJDMoOGr2Wm6M",
        usableTokens: 6000,
        compaction: 1,
      },
    ]);
    expect((await cli(["replay", LOOP])).stdout).not.toContain("live guard");
  });

  it("audit marks the session as stopped by the guard, where and by which rule, and counts it", async () => {
    const { code, stdout } = await cli(["audit", RUN, BACK_TO_BACK]);
    expect(code).toBe(0);
    const lines = stdout.trim().split("\n");
    expect(lines.find((l) => l.startsWith("ses_dc69e012"))).toMatch(/ {2}stopped by guard at 1 \(cannot-make-room\) /);
    expect(lines.find((l) => l.startsWith("ses_dcd71d0f"))).toMatch(/ {2}back-to-back-compactions {2}stopped by guard at 3 /);
    expect(lines.at(-1)).toContain("2 loops stopped by the guard, 0 ran on");
    const json = JSON.parse((await cli(["audit", RUN, "--json"])).stdout);
    expect(json.sessions[0].liveStop).toEqual({ compaction: 1, rule: "cannot-make-room" });
    expect(json.totals.stoppedByGuard).toBe(1);
  });
});
