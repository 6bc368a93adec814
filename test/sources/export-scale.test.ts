/**
 * Large exports: the replay command either replays or refuses with one line, never a fatal
 * out-of-memory stack trace. A 300 MB export needs about 1.2 GB of heap (see
 * HEAP_BYTES_PER_EXPORT_BYTE); where Node.js may not use that much, readExport refuses the
 * file before reading it. The tests lower the limits through parameters (and one run lowers
 * Node's real heap limit) instead of writing hundreds of megabytes.
 */
import { execFile } from "node:child_process";
import { mkdtempSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Readable } from "node:stream";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { afterAll, describe, expect, it } from "vitest";
import { ExportError, HEAP_BYTES_PER_EXPORT_BYTE, readExport } from "../../src/sources/export.js";
import { DEFAULT_SETTINGS } from "../../src/config/settings.js";
import { replayTimeline } from "../../src/core.js";
import { exportedSession } from "../../src/hosts/opencode/session.js";
import { syntheticExport, writeSyntheticExport } from "../support/synthetic.js";

const MiB = 2 ** 20;
const dir = mkdtempSync(join(tmpdir(), "ocg-scale-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
/** 2,000 synthetic messages, about 5 MB: 100 automatic compactions. */
const FILE = join(dir, "synthetic-2000.json");
const BYTES = writeSyntheticExport(FILE, 2_000);

describe("the synthetic export written in chunks", () => {
  it("reads back as the export built in memory and replays every compaction", async () => {
    expect(statSync(FILE).size).toBe(BYTES);
    const session = await readExport(FILE);
    expect(session).toEqual(exportedSession(syntheticExport(2_000)));
    const rows = replayTimeline(session.timeline, DEFAULT_SETTINGS);
    expect(rows).toHaveLength(100);
    expect(rows.every((r) => r.decision === "allow")).toBe(true);
  });
});

describe("readExport limits", () => {
  it("refuses a file over the longest JSON text, naming its size", async () => {
    await expect(readExport(FILE, { maxBytes: 1 * MiB })).rejects.toThrow(
      new ExportError(`${FILE}: ${(BYTES / MiB).toFixed(0)} MiB is over the 1 MiB a JSON text can have here`),
    );
  });

  it("refuses a file that would not fit in the heap, and says how to raise it", async () => {
    const error = await readExport(FILE, { heapBytes: 10 * MiB }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ExportError);
    const needed = Math.ceil((BYTES * HEAP_BYTES_PER_EXPORT_BYTE) / MiB);
    expect((error as Error).message).toBe(
      `${FILE}: ${(BYTES / MiB).toFixed(0)} MiB would need about ${needed} MiB of memory to replay, more than the 10 MiB ` +
        `Node.js may use here; retry with NODE_OPTIONS=--max-old-space-size=${Math.ceil((needed + 256) / 256) * 256}`,
    );
  });

  it("reads the file when the heap is just large enough", async () => {
    const session = await readExport(FILE, { heapBytes: BYTES * HEAP_BYTES_PER_EXPORT_BYTE });
    expect(session.timeline.entries).toHaveLength(2_000);
  });

  it("standard input: stops reading once over the limit, with the same kind of message", async () => {
    let chunksRead = 0;
    async function* endless() {
      for (;;) {
        chunksRead += 1;
        yield Buffer.alloc(64 * 1024, 0x20);
      }
    }
    await expect(readExport("-", { stdin: endless(), maxBytes: 1 * MiB })).rejects.toThrow(
      /^<stdin>: more than 1 MiB of input is over the 1 MiB a JSON text can have here$/,
    );
    expect(chunksRead).toBe(17);
    await expect(readExport("-", { stdin: endless(), heapBytes: 4 * MiB })).rejects.toThrow(
      /^<stdin>: more than 1 MiB of input would need about 5 MiB of memory to replay, more than the 4 MiB Node\.js may use here; retry with NODE_OPTIONS=--max-old-space-size=512$/,
    );
  });

  it("standard input within the limits reads whole", async () => {
    const text = JSON.stringify(syntheticExport(40));
    const chunks = Array.from({ length: Math.ceil(text.length / 1000) }, (_, i) => text.slice(i * 1000, (i + 1) * 1000));
    const session = await readExport("-", { stdin: Readable.from(chunks) });
    expect(session.timeline.entries).toHaveLength(40);
  });
});

describe("the executable under a small heap", () => {
  const run = promisify(execFile);
  const bin = fileURLToPath(new URL("../../src/bin.ts", import.meta.url));

  it("refuses a 30 MB export in one line instead of aborting out of memory", async () => {
    const file = join(dir, "synthetic-12000.json");
    const bytes = writeSyntheticExport(file, 12_000);
    expect(bytes).toBeGreaterThan(28 * MiB);
    const result = await run(process.execPath, ["--max-old-space-size=48", "--import", "tsx", bin, "replay", file]).then(
      () => ({ code: 0, stderr: "" }),
      (e: { code: number; stderr: string }) => ({ code: e.code, stderr: e.stderr }),
    );
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(
      new RegExp(
        `^opencode-compaction-guard: ${file.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}: \\d+ MiB would need about \\d+ MiB of memory to replay, more than the \\d+ MiB Node\\.js may use here; retry with NODE_OPTIONS=--max-old-space-size=\\d+\\n$`,
      ),
    );
    expect(result.stderr).not.toContain("FATAL ERROR");
  });
});
