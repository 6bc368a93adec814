/**
 * Bad input to the replay command, beyond the cases in cli.test.ts: files that cannot be
 * read, exports whose `messages` is not a list of messages, invalid UTF-8, byte order marks,
 * UTF-16, absurdly deep tool inputs, and a reader that goes away. None may print a stack
 * trace, and none may exit 0 with a wrong answer.
 */
import { execFile } from "node:child_process";
import { mkdtempSync, openSync, readSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, describe, expect, it, vi } from "vitest";
import { main } from "../../src/cli/main.js";
import { readExport } from "../../src/sources/export.js";
import { bash, SessionBuilder } from "../support/session.js";

// openSync and readSync (what readExport reads a file with) stay the real ones unless a test
// makes them fail (root reads any file, so a permission error cannot be staged with chmod).
vi.mock("node:fs", async (importOriginal) => {
  const actual = await importOriginal<typeof import("node:fs")>();
  return { ...actual, openSync: vi.fn(actual.openSync), readSync: vi.fn(actual.readSync) };
});

const dir = mkdtempSync(join(tmpdir(), "ocg-input-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const file = (name: string, content: string | Buffer) => {
  const path = join(dir, name);
  writeFileSync(path, content);
  return path;
};

async function cli(...args: string[]) {
  let stdout = "";
  let stderr = "";
  const code = await main(
    ["replay", ...args],
    (t) => (stdout += t),
    (t) => (stderr += t),
    {},
  );
  return { code, stdout, stderr };
}

/**
 * A loop that replays to [allow, deny no-new-work, deny repeated-tool-call]: the cycle
 * after compaction 1 only redid the test run, and the third identical run follows
 * compaction 2. The input's content (noise, deep nesting, bad bytes) must not change that.
 */
function loopExport(output = "1 failed\n") {
  const session = new SessionBuilder("ses_input").user("run the tests");
  for (let i = 0; i < 3; i++) session.step(bash("npm test", output), null).compact();
  return session.export();
}
const EXPECTED = [
  [1, "allow", null],
  [2, "deny", "no-new-work"],
  [3, "deny", "repeated-tool-call"],
];
const decisions = (stdout: string) =>
  (JSON.parse(stdout).compactions as Array<{ index: number; decision: string; rule: string | null }>).map((c) => [
    c.index,
    c.decision,
    c.rule,
  ]);

describe("files that cannot be read: exit 2, one line", () => {
  it.each([
    [
      "permission denied",
      () => {
        vi.mocked(openSync).mockImplementationOnce(() => {
          throw Object.assign(new Error("EACCES: permission denied, open"), { code: "EACCES" });
        });
        return file("locked.json", JSON.stringify(loopExport()));
      },
      /locked\.json: permission denied$/,
    ],
    ["a path through a regular file", () => join(file("plain.json", "{}"), "x.json"), /plain\.json\/x\.json: cannot be read \(ENOTDIR\)$/],
    [
      "a symbolic link loop",
      () => {
        symlinkSync(join(dir, "loop-b"), join(dir, "loop-a"));
        symlinkSync(join(dir, "loop-a"), join(dir, "loop-b"));
        return join(dir, "loop-a");
      },
      /loop-a: cannot be read \(ELOOP\)$/,
    ],
    [
      "a read that fails midway",
      () => {
        vi.mocked(readSync).mockImplementationOnce(() => {
          throw Object.assign(new Error("EIO: i/o error, read"), { code: "EIO" });
        });
        return file("eio.json", "{}");
      },
      /eio\.json: cannot be read \(EIO\)$/,
    ],
  ])("%s", async (_, path, message) => {
    const { code, stdout, stderr } = await cli(path());
    expect([code, stdout]).toEqual([2, ""]);
    expect(stderr.split("\n").filter(Boolean)).toHaveLength(1);
    expect(stderr.trim()).toMatch(/^opencode-compaction-guard: /);
    expect(stderr.trim()).toMatch(message);
  });
});

describe("exports of the wrong shape: exit 2, one line naming the field", () => {
  it.each([
    ["messages is an object", { info: { id: "ses_1" }, messages: { 0: {} } }, "`messages` is not a list: it is an object"],
    ["messages is a string", { info: { id: "ses_1" }, messages: "[]" }, "`messages` is not a list: it is a string"],
    ["messages holds null", { info: { id: "ses_1" }, messages: [null] }, "`messages[0]` is not an object: it is null"],
    ["a message without parts", { info: { id: "ses_1" }, messages: [{ info: { id: "m", role: "user" } }] }, "no `messages[0].parts` list"],
    [
      "a message with an empty id",
      { info: { id: "ses_1" }, messages: [{ info: { id: "", role: "user" }, parts: [] }] },
      "`messages[0].info.id` is empty",
    ],
    ["no session info", { messages: loopExport().messages }, "no `info` object"],
    ["a bare message list", loopExport().messages, "the JSON is a list, not an object with `info` and `messages`"],
  ])("%s", async (name, content, message) => {
    const path = file(`${name.replace(/\W+/g, "-")}.json`, JSON.stringify(content));
    const { code, stdout, stderr } = await cli(path);
    expect([code, stdout]).toEqual([2, ""]);
    expect(stderr).toBe(`opencode-compaction-guard: ${path}: not an opencode session export (${message})\n`);
  });
});

describe("encodings", () => {
  it("invalid UTF-8 inside strings: replays, with the answer of the clean export", async () => {
    const clean = JSON.stringify(loopExport("1 failed \u00ff\n"));
    // The same export with the two bytes of "ÿ" replaced by bytes no UTF-8 decoder accepts.
    const bytes = Buffer.from(clean.replaceAll("\u00ff", "\u0001"), "utf8");
    const broken = Buffer.from(bytes.map((b) => (b === 0x01 ? 0xff : b)));
    expect(broken.toString("utf8")).toContain("\ufffd");
    const replayed = await cli(file("invalid-utf8.json", broken), "--json");
    expect([replayed.code, replayed.stderr]).toEqual([0, ""]);
    expect(decisions(replayed.stdout)).toEqual(EXPECTED);
    expect(decisions((await cli(file("clean.json", clean), "--json")).stdout)).toEqual(EXPECTED);
  });

  it("a UTF-8 byte order mark is skipped", async () => {
    const { code, stdout } = await cli(file("bom.json", `\ufeff${JSON.stringify(loopExport())}`), "--json");
    expect(code).toBe(0);
    expect(decisions(stdout)).toEqual(EXPECTED);
  });

  it("UTF-16 (Windows PowerShell's `>`): exit 2, saying so", async () => {
    const utf16 = Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from(JSON.stringify(loopExport()), "utf16le")]);
    const { code, stdout, stderr } = await cli(file("utf16.json", utf16));
    expect([code, stdout]).toEqual([2, ""]);
    expect(stderr).toMatch(/^opencode-compaction-guard: .*utf16\.json: is UTF-16 text \(PowerShell's > writes it\); save it as UTF-8\n$/);
  });
});

describe("absurd but parseable content", () => {
  it("a tool input nested 50,000 levels deep: replays like any other input", async () => {
    const deep = `${'{"a":'.repeat(50_000)}1${"}".repeat(50_000)}`;
    const text = JSON.stringify(loopExport()).replaceAll('"command":"npm test"', `"command":"npm test","deep":${deep}`);
    const { code, stdout, stderr } = await cli(file("deep.json", text), "--json");
    expect([code, stderr]).toEqual([0, ""]);
    expect(decisions(stdout)).toEqual(EXPECTED);
  });
});

describe("the executable", () => {
  const bin = fileURLToPath(new URL("../../src/bin.ts", import.meta.url));

  it("exits quietly when the reader of its output goes away (replay … | head)", async () => {
    const path = file("loop.json", JSON.stringify(loopExport()));
    const { code, stderr } = await new Promise<{ code: number | null; stderr: string }>((resolve) => {
      const child = execFile(process.execPath, ["--import", "tsx", bin, "replay", path], (error, _stdout, stderr) =>
        resolve({ code: error ? (error.code as number) : 0, stderr }),
      );
      child.stdout!.destroy();
    });
    expect(stderr).toBe("");
    expect(code).toBe(0);
  });
});

describe("what opencode export puts in a file by mistake: the hint says how to export", () => {
  // opencode 1.18.33 writes "Exporting session: <id>" to standard error, then the JSON
  // (JSON.stringify(…, null, 2)) to standard output. Into a pipe, the output stopped at 64 KiB
  // or 128 KiB in most of 12 runs (measured: 65536 ×3, 131072 ×6, whole ×3).
  const PROGRESS = "Exporting session: ses_input\n";
  /** The loop export as opencode prints it, over 300 KB (long outputs). */
  const printed = () => `${JSON.stringify(loopExport(`${"1 failed\n".repeat(12_000)}`), null, 2)}\n`;
  const cutAt = (text: string, bytes: number) => Buffer.from(text).subarray(0, bytes);
  const FIX = "opencode export truncates its output when written to a pipe; write it to a file: opencode export ses_input > session.json";

  async function rejected(path: string) {
    const { code, stdout, stderr } = await cli(path);
    expect([code, stdout]).toEqual([2, ""]);
    expect(stderr.split("\n").filter(Boolean)).toHaveLength(1);
    return stderr;
  }

  it.each([
    [64 * 1024, "64 KiB"],
    [128 * 1024, "128 KiB"],
  ])("an export cut at %i bytes by a pipe", async (bytes, size) => {
    const path = file(`cut-${bytes}.json`, cutAt(printed(), bytes));
    expect(await rejected(path)).toMatch(
      new RegExp(
        `cut-${bytes}\\.json: is not valid JSON \\(.*\\); it stops mid-export at ${size}: ${FIX.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}\n$`,
      ),
    );
  });

  it("an export that stops mid-JSON at any other size", async () => {
    const stderr = await rejected(file("cut-odd.json", cutAt(printed(), 5_000)));
    expect(stderr).toContain(`; it stops mid-export: ${FIX}\n`);
  });

  it("a compact export cut short, whose id is not known: <id>", async () => {
    const stderr = await rejected(
      file("cut-compact.json", '{"info":{"title":"t"},"messages":[{"info":{"id":"m1","role":"user"},"parts":[{"text":"a'),
    );
    expect(stderr).toContain(
      "; it stops mid-export: opencode export truncates its output when written to a pipe; write it to a file: opencode export <id> > session.json\n",
    );
  });

  it("read from a pipe (replay -): the same hint", async () => {
    const chunk = cutAt(printed(), 128 * 1024);
    const stdin = (async function* () {
      yield chunk.subarray(0, 50_000);
      yield chunk.subarray(50_000);
    })();
    await expect(readExport("-", { stdin })).rejects.toThrow(
      `<stdin>: is not valid JSON (Unterminated string in JSON at position 131072); it stops mid-export at 128 KiB: ${FIX}`,
    );
  });

  it("a whole export after opencode's progress line (2>&1 into a file): the line is skipped and it replays", async () => {
    const { code, stdout, stderr } = await cli(file("with-progress.json", PROGRESS + printed()), "--json");
    expect([code, stderr]).toEqual([0, ""]);
    expect(decisions(stdout)).toEqual(EXPECTED);
  });

  it("the progress line and a cut export (2>&1 into a pipe): both said", async () => {
    const stderr = await rejected(file("progress-cut.json", Buffer.concat([Buffer.from(PROGRESS), cutAt(printed(), 128 * 1024)])));
    expect(stderr).toContain(
      `; the file starts with opencode's "Exporting session…" line (2>&1?) and stops mid-export at 128 KiB: opencode export truncates its output when written to a pipe; export with: opencode export ses_input > session.json\n`,
    );
  });

  it("the progress line and something else: said, with the id from the line", async () => {
    const stderr = await rejected(file("progress-junk.json", `${PROGRESS}warning: something\n${JSON.stringify(loopExport())}`));
    expect(stderr).toMatch(
      /progress-junk\.json: is not valid JSON \(.*\); the file starts with opencode's "Exporting session…" line \(2>&1\?\); export with: opencode export ses_input > session\.json\n$/,
    );
  });

  it("opencode export without an id (2>&1): its prompt is in the file too; no id to suggest", async () => {
    const stderr = await rejected(
      file("progress-latest.json", `Exporting session: latest\n\u001b[90m┌\u001b[39m  Export session\n│\n◆  Select session to export\n`),
    );
    expect(stderr).toMatch(
      /; the file starts with opencode's "Exporting session…" line \(2>&1\?\); export with: opencode export <id> > session\.json\n$/,
    );
    expect(stderr).not.toContain("\u001b");
  });

  it("opencode's error instead of an export (an unknown session id, 2>&1)", async () => {
    // Byte for byte what opencode 1.18.33 wrote for `opencode export ses_nope > f 2>&1`.
    const stderr = await rejected(
      file("not-found.json", "Exporting session: ses_nope\n\u001b[91m\u001b[1mError: \u001b[0mSession not found: ses_nope\n"),
    );
    expect(stderr).toMatch(/not-found\.json: holds opencode's error output, not an export \(Error: Session not found: ses_nope\)\n$/);
  });

  it.each([
    ["a 128 KiB file that does not start like an export", "x".repeat(128 * 1024)],
    ["an export-like start, whole but broken inside", '{"info": {"id": "ses_1"}, "messages": [} ]}'],
    ["a line that only looks like the progress line", "Exporting sessions is fun\n{}"],
  ])("%s: no pipe hint", async (name, content) => {
    const stderr = await rejected(file(`${name.replace(/\W+/g, "-")}.json`, content));
    expect(stderr).not.toContain("written to a pipe");
    expect(stderr).toMatch(/; truncated or not an export\?\n$/);
  });
});
