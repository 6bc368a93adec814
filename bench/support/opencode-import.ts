/**
 * A SessionBuilder history (test/support/session.ts) in the shape `opencode import` of
 * opencode 1.18.33 accepts: the session's `info` as an export has it (import decodes it and
 * fails on a missing field), every message and part with an id opencode itself would give it
 * (ascending in time, so a history sorts before what opencode adds to it) and the fields a
 * real export has (times, model, path, tool metadata).
 */
import type { Message } from "../../test/support/session.js";

const BASE62 = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";
/** opencode's model of the e2e sandboxes (sandbox.ts `opencodeConfig`). */
const MODEL = { providerID: "fake", modelID: "fakemodel" };

/**
 * An id as opencode's `Identifier` makes it: prefix, the low 48 bits of `ms · 4096 + 1` in hex
 * (inverted for a descending id), then 14 base62 characters (random in opencode, here a function of `ms`).
 */
function opencodeId(prefix: string, ms: number, descending = false): string {
  let n = BigInt(ms) * 4096n + 1n;
  if (descending) n = ~n;
  const hex = (n & 0xffff_ffff_ffffn).toString(16).padStart(12, "0");
  let tail = "";
  for (let i = 0, x = ms % 2_147_483_647; i < 14; i++, x = (x * 48_271) % 2_147_483_647) tail += BASE62[x % 62];
  return `${prefix}_${hex}${tail}`;
}

/** An `opencode export` document `opencode import` takes. */
export interface ImportFile {
  info: Record<string, unknown>;
  messages: Message[];
}

/**
 * The builder's messages as `opencode import` takes them, in a new session.
 * @param messages the builder's messages, oldest first.
 * @param startMs the time of the first message (ms since the epoch); each id after it is 1 ms later.
 * @param directory the project dir written as each assistant message's `path`.
 * @returns the file's content and the session's id.
 */
export function importFile(messages: readonly Message[], startMs: number, directory: string): ImportFile {
  let clock = startMs;
  const sessionID = opencodeId("ses", startMs, true);
  const ids = new Map<string, string>();
  const idOf = (old: unknown, prefix: string) => {
    const id = opencodeId(prefix, ++clock);
    ids.set(String(old), id);
    return id;
  };
  const out: Message[] = messages.map((m) => {
    const id = idOf(m.info.id, "msg");
    const created = clock;
    const info: Record<string, unknown> = { ...m.info, id, sessionID, time: { created } };
    if (m.info.role === "user") Object.assign(info, { model: MODEL, summary: { diffs: [] } });
    else {
      const parentID = typeof m.info.parentID === "string" ? ids.get(m.info.parentID) : undefined;
      Object.assign(info, { parentID, path: { cwd: directory, root: directory }, cost: 0, ...MODEL });
    }
    const parts = m.parts.map((p) => {
      const part: Record<string, unknown> = { ...p, id: idOf(p.id, "prt"), sessionID, messageID: id };
      const state = p.state as Record<string, unknown> | undefined;
      if (p.type === "tool" && state?.status === "completed") {
        const input = state.input as { command?: string; filePath?: string } | undefined;
        part.state = {
          ...state,
          metadata: { output: state.output, exit: 0, truncated: false },
          title: input?.command ?? input?.filePath ?? String(p.tool),
          time: { start: clock, end: clock },
        };
      }
      if (p.type === "text") part.time = { start: clock, end: clock };
      if (p.type === "step-finish") part.cost = 0;
      return part;
    });
    if (m.info.role === "assistant") info.time = { created, completed: clock };
    return { info, parts };
  });
  const info = {
    id: sessionID,
    slug: "long-session",
    projectID: "global",
    directory,
    path: "",
    title: "A long session",
    agent: "build",
    model: { id: MODEL.modelID, providerID: MODEL.providerID, variant: "default" },
    version: "1.18.33",
    summary: { additions: 0, deletions: 0, files: 0 },
    cost: 0,
    tokens: { input: 0, output: 0, reasoning: 0, cache: { read: 0, write: 0 } },
    time: { created: startMs, updated: clock },
  };
  return { info, messages: out };
}
