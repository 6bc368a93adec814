/**
 * guard-log.ts reads both log formats of `opencode run --print-logs`: logfmt (1.17.0 on,
 * covered in harness.test.ts) and the older `LEVEL time +Nms key=value … message` lines of
 * opencode up to 1.15.x, as 1.14.34 printed them for the guard.
 */
import { describe, expect, it } from "vitest";
import { guardLogLines, liveDecisions, parseLogLine } from "./guard-log.js";

const OLD = [
  'INFO  2026-11-30T16:37:50 +21ms service=compaction-guard compaction-guard 0.2.0 loaded: threshold 3 (default), ignore [] (default), notify "toast" (default)',
  "INFO  2026-11-30T16:37:50 +6ms service=session id=ses_a slug=eager-island version=1.14.34 created",
  "INFO  2026-11-30T16:38:02 +5ms service=compaction-guard sessionID=ses_a compaction=1 messageID=msg_1 decision=allow elapsedMs=13.85 compaction-guard allowed auto-continue in session ses_a after compaction 1 (msg_1): longest repeat 1 run",
  "WARN  2026-11-30T16:38:03 +1ms service=compaction-guard sessionID=ses_a compaction=2 messageID=msg_2 decision=deny rule=no-progress elapsedMs=14.34 compaction-guard stopped auto-continue in session ses_a after compaction 2 (msg_2): no-progress: the previous compaction left 7,000 tokens",
  "some other stderr text",
].join("\n");

describe("the older log format (opencode up to 1.15.x)", () => {
  it("reads level, fields and the trailing message", () => {
    const line = parseLogLine(OLD.split("\n")[3]!)!;
    expect(line.level).toBe("WARN");
    expect(line.message).toBe(
      "compaction-guard stopped auto-continue in session ses_a after compaction 2 (msg_2): no-progress: the previous compaction left 7,000 tokens",
    );
    expect(line.fields).toMatchObject({
      service: "compaction-guard",
      sessionID: "ses_a",
      compaction: 2,
      rule: "no-progress",
      elapsedMs: 14.34,
      timestamp: "2026-11-30T16:38:03",
      deltaMs: 1,
    });
    expect(parseLogLine("some other stderr text")).toBeNull();
  });

  it("a message with '=' after its first word stays whole; fields stop at the first word that is not key=value", () => {
    const line = parseLogLine("INFO  2026-11-30T16:37:50 +0ms service=compaction-guard compaction-guard: setting ignored: a=b c")!;
    expect(line.message).toBe("compaction-guard: setting ignored: a=b c");
    expect(line.fields.service).toBe("compaction-guard");
  });

  it("keeps the guard's lines and reads one decision per line (a null rule is left out: read as null)", () => {
    const lines = guardLogLines(OLD);
    expect(lines).toHaveLength(3);
    expect(liveDecisions(lines).map((d) => [d.index, d.messageID, d.decision, d.rule, d.elapsedMs, d.level])).toEqual([
      [1, "msg_1", "allow", null, 13.85, "INFO"],
      [2, "msg_2", "deny", "no-progress", 14.34, "WARN"],
    ]);
  });
});
