/**
 * What the guard does to the model's prompt, in the real opencode 1.18.33: the healthy
 * scenario run twice, without and with the guard, and every request body the scripted model
 * server receives compared (bytes of the body as JSON). The guard's stop note is never sent
 * (an ignored part); what it changes is the continue turn (its note replaces opencode's
 * continue text) and the summary request (its ledger is appended). The figures are printed
 * for docs/performance.md; the tests check what a provider's prefix cache needs: within a
 * cycle each request begins with the whole of the previous one, with the guard as without.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runScenario } from "./harness.js";
import type { RequestKind } from "./scenarios.js";

interface Sent {
  kind: RequestKind;
  /** The body's messages as JSON: what a prefix cache keys on, after the system prompt and tools. */
  text: string;
  bytes: number;
}

const runs: Record<"plain" | "guarded", Sent[]> = { plain: [], guarded: [] };

/** Characters two texts share from their start. */
function commonPrefix(a: string, b: string): number {
  let i = 0;
  while (i < a.length && i < b.length && a.charCodeAt(i) === b.charCodeAt(i)) i++;
  return i;
}

beforeAll(async () => {
  await Promise.all(
    (["plain", "guarded"] as const).map((name) =>
      runScenario({
        scenario: "healthy",
        guard: name === "guarded",
        replay: false,
        onRequest: (kind, body) => {
          // Each run has its own sandbox folder: named alike, so that only what the guard changes differs.
          const text = JSON.stringify(body).replace(/\/tmp\/ocg-e2e-[A-Za-z0-9]+/g, "/tmp/sandbox");
          runs[name].push({ kind, text, bytes: Buffer.byteLength(text, "utf8") });
        },
      }),
    ),
  );
});

afterAll(() => {
  // The figures for the docs.
  const chat = (name: "plain" | "guarded") => runs[name].filter((r) => r.kind !== "title");
  const plain = chat("plain");
  const guarded = chat("guarded");
  const rows = plain.map((p, i) => {
    const g = guarded[i];
    return g === undefined
      ? `${i + 1} ${p.kind}: plain ${p.bytes} B, guarded —`
      : `${i + 1} ${p.kind}/${g.kind}: plain ${p.bytes} B, guarded ${g.bytes} B (${g.bytes - p.bytes >= 0 ? "+" : ""}${g.bytes - p.bytes}), first difference at byte ${commonPrefix(p.text, g.text)}`;
  });
  console.log(`prompt-cache figures (healthy scenario, request bodies as JSON):\n${rows.join("\n")}`);
});

/** For each request of a kind in `kinds` that follows one such request: the share of the earlier one it begins with. */
function prefixKept(sent: Sent[]): number[] {
  const steps = sent.filter((r) => r.kind === "chat" || r.kind === "continue");
  const shares: number[] = [];
  for (let i = 1; i < steps.length; i++) {
    const before = steps[i - 1]!;
    const after = steps[i]!;
    if (after.kind === "continue") continue; // a new cycle: the summary replaced the history
    // The earlier request less its closing brackets and request options after the messages.
    const messagesEnd = before.text.lastIndexOf("}]");
    shares.push(commonPrefix(before.text, after.text) / Math.max(1, messagesEnd));
  }
  return shares;
}

describe("the guard's effect on what the model is sent (healthy work)", () => {
  it("the same requests in the same order, with and without the guard", () => {
    expect(runs.guarded.map((r) => r.kind)).toEqual(runs.plain.map((r) => r.kind));
    expect(runs.plain.filter((r) => r.kind === "continue").length).toBeGreaterThan(0);
  });

  it("requests before the first compaction are byte for byte the same", () => {
    const first = runs.plain.findIndex((r) => r.kind === "compaction");
    for (let i = 0; i < first; i++)
      if (runs.plain[i]!.kind !== "title")
        expect(commonPrefix(runs.guarded[i]!.text, runs.plain[i]!.text)).toBe(runs.plain[i]!.text.length);
  });

  it("within a cycle, each request begins with all of the previous one's messages, guarded as unguarded", () => {
    const plain = prefixKept(runs.plain);
    const guarded = prefixKept(runs.guarded);
    expect(guarded.length).toBe(plain.length);
    expect(Math.min(...guarded)).toBeGreaterThanOrEqual(Math.min(...plain));
  });

  it("a continue request differs from opencode's from the continue turn on, not before it", () => {
    const plain = runs.plain.filter((r) => r.kind === "continue");
    const guarded = runs.guarded.filter((r) => r.kind === "continue");
    for (let i = 0; i < plain.length; i++) {
      const at = commonPrefix(plain[i]!.text, guarded[i]!.text);
      const continueAt = plain[i]!.text.indexOf("Continue if you have next steps");
      expect(continueAt).toBeGreaterThan(0);
      expect(at).toBeGreaterThanOrEqual(continueAt - 200);
    }
  });
});
