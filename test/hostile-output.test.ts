/**
 * Session-derived text with terminal escapes in it (ESC sequences, a C1 CSI, DEL, bidi
 * controls: U+202E, U+200F, U+061C, U+2066) reaches no output raw: replay's table, its
 * --chart and its --json; audit's table, --json and HTML page; the plugin's toast, log lines
 * and note. Each field gets the escapes (session id, message ids, title, tool name, file
 * path) and each output is searched for any of them; the escaped form shows it was there.
 */
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { createGuard } from "../src/plugin/opencode-v1/guard.js";
import { cli } from "./support/cli.js";
import { fakeClient } from "./support/client.js";
import { SessionBuilder, type Message } from "./support/session.js";

/** The hostile text: a colour, a one-byte CSI clearing the screen, DEL, and bidi controls. */
const HOSTILE = "\u001b[31m\u009b2J\u007f\u202e\u200f\u061c\u2066";
/** What must not be in any output: every control but the newline between lines, C1, bidi controls. */
const RAW = /[\u0000-\u0009\u000b-\u001f\u007f-\u009f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/;
/** The visible escapes of HOSTILE (terminalSafe's). */
const SHOWN = "\\x1b[31m\\x9b2J\\x7f\\u202e\\u200f\\u061c\\u2066";

/**
 * A session that repeats one tool call across 3 compactions (denied at 2 by no-new-work,
 * whose evidence names the call); HOSTILE in its id, title and message ids, and in the tool
 * name or the file path.
 */
function hostileSession(where: "tool" | "path"): { info: Record<string, unknown>; messages: Message[] } {
  const session = new SessionBuilder(`ses_${HOSTILE}`).user("go");
  const call =
    where === "tool"
      ? { tool: `read${HOSTILE}`, input: { filePath: "/home/dev/a.ts" }, output: "same" }
      : { tool: "read", input: { filePath: `/home/dev/a${HOSTILE}.ts` }, output: "same" };
  for (let i = 0; i < 3; i++) session.step(call).compact();
  const exported = session.export();
  const text = JSON.stringify({ ...exported, info: { ...exported.info, title: `title ${HOSTILE}` } }).replace(/"(msg_[^"]*)"/g, (_, id) =>
    JSON.stringify(`${id}${HOSTILE}`),
  );
  return JSON.parse(text);
}

const dir = mkdtempSync(join(tmpdir(), "ocg-hostile-"));
const exportFile = (where: "tool" | "path"): string => {
  const path = join(dir, `${where}.json`);
  writeFileSync(path, JSON.stringify(hostileSession(where)));
  return path;
};

describe.each(["tool", "path"] as const)("escapes in the session id, message ids, title and %s", (where) => {
  const file = exportFile(where);

  it("replay's table and --chart: none raw, each shown escaped", async () => {
    for (const extra of [[], ["--chart"]]) {
      const { code, stdout, stderr } = await cli(["replay", file, "--min-reduction", "0", ...extra]);
      expect([code, stderr]).toEqual([0, ""]);
      expect(stdout).not.toMatch(RAW);
      expect(stdout).toContain(`session ses_${SHOWN}: 3 automatic compactions`);
      expect(stdout).toMatch(new RegExp(`^2  msg_\\d+${SHOWN.replace(/[\\[]/g, "\\$&")} +7,020  7,020  deny {6}no-new-work$`, "m"));
      expect(stdout).toContain(where === "tool" ? `such as read${SHOWN} (` : `such as read (filePath=…/a${SHOWN}.ts)`);
    }
  });

  it("replay --json: C1 and bidi controls as \\u escapes, the same values once parsed", async () => {
    const { code, stdout } = await cli(["replay", file, "--json", "--min-reduction", "0"]);
    expect(code).toBe(0);
    expect(stdout).not.toMatch(RAW);
    expect(stdout).toContain('"sessionID":"ses_\\u001b[31m\\u009b2J\\u007f\\u202e\\u200f\\u061c\\u2066"');
    const parsed = JSON.parse(stdout) as {
      sessionID: string;
      compactions: Array<{ messageID: string; evidence: Record<string, unknown> }>;
    };
    expect(parsed.sessionID).toBe(`ses_${HOSTILE}`);
    expect(parsed.compactions.map((c) => c.messageID.endsWith(HOSTILE))).toEqual([true, true, true]);
  });

  it("audit's table, --json and HTML page: none raw", async () => {
    const html = join(dir, `${where}.html`);
    const table = await cli(["audit", file, "--min-reduction", "0", "--html", html]);
    expect(table.code).toBe(0);
    expect(table.stdout + table.stderr).not.toMatch(RAW);
    // The title cell is cut to 40 columns.
    expect(table.stdout).toContain(`ses_${SHOWN}  title \\x1b[31m\\x9b2J`);
    const page = readFileSync(html, "utf8");
    expect(page).not.toMatch(RAW);
    expect(page).toContain(`<bdi>title ${SHOWN}</bdi>`);
    const json = await cli(["audit", file, "--json", "--min-reduction", "0"]);
    expect(json.stdout).not.toMatch(RAW);
    expect((JSON.parse(json.stdout) as { sessions: Array<{ title: string }> }).sessions[0]!.title).toBe(`title ${HOSTILE}`);
  });

  it("the plugin's toast, log lines and note: none raw", async () => {
    const { info, messages } = hostileSession(where);
    // The history as it stood when the summary of compaction 2 finished.
    let summaries = 0;
    const upTo = messages.slice(0, messages.findIndex((m) => m.info.summary === true && ++summaries === 2) + 1);
    const fake = fakeClient(() => ({ data: upTo }), undefined, `title ${HOSTILE}`);
    const hooks = createGuard({ client: fake.client as never }, { minReduction: 0 }, { env: {} });
    const compaction = [...upTo].reverse().find((m) => m.parts.some((p) => p.type === "compaction"))!;
    const output = { enabled: true };
    await hooks["experimental.compaction.autocontinue"]!({ sessionID: info.id, message: compaction.info } as never, output);
    expect(output.enabled).toBe(false);
    await hooks.event!({ event: { type: "session.idle", properties: { sessionID: info.id } } } as never);
    expect(fake.toasts).toHaveLength(1);
    // The note's text (its metadata is data for the guard, never shown).
    const shown = JSON.stringify([fake.toasts, fake.logs.map((l) => [l.message, l.extra]), fake.prompts.map((p) => p.body.parts[0]!.text)]);
    // JSON.stringify leaves C1 and bidi controls raw; C0 ones it escapes, so look for those escapes too.
    expect(shown).not.toMatch(RAW);
    expect(shown).not.toMatch(/\\u00[01][0-9a-f]/);
    expect(fake.toasts[0]!.message).toContain(`"title ${SHOWN}"`);
    expect(fake.logs.at(-1)!.message).toContain(where === "tool" ? `such as read${SHOWN} (` : `such as read (filePath=…/a${SHOWN}.ts)`);
    expect(fake.prompts).toHaveLength(1);
  });
});
