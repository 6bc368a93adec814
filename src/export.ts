/**
 * Reading a session export written by `opencode export <sessionID>`: `{ info, messages }`,
 * `messages` = `Array<{ info, parts }>`, oldest first.
 */
import { readFile, stat } from "node:fs/promises";
import { z } from "zod";

/** A problem with an export file; `message` is one line that names the file. */
export class ExportError extends Error {
  override readonly name = "ExportError";
}

/** The fields of an export the guard relies on; everything else passes through untouched. */
const ExportSchema = z.looseObject({
  info: z.looseObject({ id: z.string().min(1) }),
  messages: z
    .array(
      z.looseObject({
        info: z.looseObject({ id: z.string().min(1), role: z.enum(["user", "assistant"]) }),
        parts: z.array(z.unknown()),
      }),
    )
    .min(1, "the export has no messages"),
});

/** A validated export. */
export type SessionExport = z.infer<typeof ExportSchema>;

/** V8's longest string (~512 MiB of UTF-16 units): larger files cannot be parsed as one JSON text. */
const MAX_JSON_BYTES = 0x1fffffe8;

function firstIssue(error: z.ZodError): string {
  const issue = error.issues[0];
  if (!issue) return "not an opencode export";
  const path = issue.path
    .map((key, i) => (typeof key === "number" ? `[${key}]` : `${i === 0 ? "" : "."}${String(key)}`))
    .join("");
  return path ? `${path}: ${issue.message}` : issue.message;
}

/**
 * Validates parsed JSON as an export.
 * @throws ExportError "`<name>`: <what is wrong>", naming the first offending field.
 */
export function parseExport(json: unknown, name: string): SessionExport {
  const result = ExportSchema.safeParse(json);
  if (!result.success) throw new ExportError(`${name}: not an opencode session export (${firstIssue(result.error)})`);
  return result.data;
}

async function readStdin(): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString("utf8");
}

/**
 * Reads and validates an export file, or standard input when `path` is "-".
 * @throws ExportError one line naming the file and the problem: missing path, a directory,
 *   empty, too large, not JSON (truncated, binary), or JSON of another shape.
 */
export async function readExport(path: string): Promise<SessionExport> {
  const name = path === "-" ? "<stdin>" : path;
  let text: string;
  try {
    if (path !== "-") {
      const info = await stat(path);
      if (info.isDirectory()) throw new ExportError(`${name}: is a directory, expected an opencode export file`);
      if (info.size > MAX_JSON_BYTES) {
        throw new ExportError(`${name}: ${(info.size / 2 ** 20).toFixed(0)} MiB is over the 512 MiB a JSON text can have here`);
      }
    }
    text = path === "-" ? await readStdin() : await readFile(path, "utf8");
  } catch (error) {
    if (error instanceof ExportError) throw error;
    const code = (error as NodeJS.ErrnoException).code;
    if (code === "ENOENT") throw new ExportError(`${name}: no such file`);
    if (code === "EACCES") throw new ExportError(`${name}: permission denied`);
    throw new ExportError(`${name}: cannot be read (${code ?? (error as Error).message})`);
  }
  if (text.trim() === "") throw new ExportError(`${name}: is empty, expected an opencode export`);
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (error) {
    throw new ExportError(`${name}: is not valid JSON (${(error as Error).message.split("\n")[0]}); truncated or not an export?`);
  }
  return parseExport(json, name);
}
