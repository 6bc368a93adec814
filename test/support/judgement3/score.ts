/**
 * Scores the guard on sessions of the judgement3 generator (./gen.mjs): each session is
 * replayed as the replay command does (its own flags for the model's limits) and its first
 * denial compared with the generator's right answers.
 */
import { replaySession } from "../../../src/guard/replay.js";
import { sessionInputs } from "../../../src/sources/sources.js";
import { exportedSession } from "../../../src/hosts/opencode/session.js";

/** A session export as the generator writes it: `{ info, messages }`. */
export type Exported = Parameters<typeof exportedSession>[0];
import { DEFAULT_SETTINGS } from "../../../src/config/settings.js";
// @ts-expect-error: a plain JavaScript module without types
import { generate, HEALTHY, LOOP_KINDS } from "./gen.mjs";

/** The right answers of one generated session, as the generator writes them in expect.json. */
export interface Expected {
  readonly firstDeny: number | null;
  readonly accept?: readonly (number | null)[];
  readonly flags?: readonly string[];
  readonly kind: string;
}

/** One session whose first denial is not among its right answers. */
export interface Wrong {
  readonly name: string;
  readonly kind: string;
  readonly want: readonly (number | null)[];
  readonly got: number | null;
}

/** Every kind the generator knows: the loops L1–L7, then the healthy H1–H8. */
export const KINDS: readonly string[] = [...(LOOP_KINDS as string[]), ...Object.keys(HEALTHY as object)];

/** The model's limits a case's replay flags name (`--context-limit N`, `--output-limit N`). */
export function limitsOf(flags: readonly string[]): { context?: number; output?: number } | undefined {
  const limits: Record<string, number> = {};
  for (let i = 0; i < flags.length; i += 2) {
    const name = /^--(context|output)-limit$/.exec(flags[i]!)?.[1];
    if (!name) throw new Error(`a generated case names a flag the scorer does not read: ${flags[i]}`);
    limits[name] = Number(flags[i + 1]);
  }
  return flags.length > 0 ? limits : undefined;
}

/** The first denial's compaction index of a session, replayed as the replay command does, or null. */
export function firstDenyOf(exported: Exported, flags: readonly string[] = []): number | null {
  const session = exportedSession(exported);
  const { rows } = replaySession(session, sessionInputs(session, { settings: DEFAULT_SETTINGS, limits: limitsOf(flags) }), {
    toolLoop: false,
  });
  return rows.find((row) => row.decision === "deny")?.compaction.index ?? null;
}

/**
 * Generates `perKind` sessions of each kind for `seed` (as `gen.mjs --seed N --per-kind K`
 * does) and replays them.
 * @returns per kind, how many were decided right of how many; and the wrong ones.
 * @throws when the generator refuses the seed (a label it cannot make hold by construction).
 */
export function scoreSeed(seed: number, perKind = 1): { byKind: Map<string, { right: number; total: number }>; wrong: Wrong[] } {
  const { cases, expect } = generate(seed, perKind, KINDS) as {
    cases: Record<string, Exported>;
    expect: Record<string, Expected>;
  };
  const byKind = new Map<string, { right: number; total: number }>();
  const wrong: Wrong[] = [];
  for (const [name, want] of Object.entries(expect)) {
    const got = firstDenyOf(cases[name]!, want.flags ?? []);
    const accept = want.accept ?? [want.firstDeny];
    const ok = accept.includes(got);
    const tally = byKind.get(want.kind) ?? { right: 0, total: 0 };
    byKind.set(want.kind, { right: tally.right + (ok ? 1 : 0), total: tally.total + 1 });
    if (!ok) wrong.push({ name, kind: want.kind, want: accept, got });
  }
  return { byKind, wrong };
}
