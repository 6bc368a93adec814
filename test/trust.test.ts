/**
 * What the user sees and controls: the start-up line, the disabled line, observe
 * mode, the session named in the toast and the warn line, one decision per compaction when
 * the plugin is loaded twice, messages that never contradict themselves, and the replay
 * command's own flags.
 */
import { describe, expect, it } from "vitest";
import { main } from "../src/cli/main.js";
import { createGuard, DecisionRegistry } from "../src/plugin/opencode-v1/guard.js";
import { describeEvidence } from "../src/judge/explain.js";
import { replayMessages } from "../src/core.js";
import { DEFAULT_SETTINGS, resolveSettings } from "../src/config/settings.js";
import { VERSION } from "../src/shared/version.js";
import { fakeClient, newestMessages } from "./support/client.js";
import { bash, SessionBuilder, type Message } from "./support/session.js";
import { OPENCODE_WORDS } from "../src/hosts/opencode/words.js";

/** Three cycles of one call, no token data: denied at compaction 2 (no-new-work). */
function looping(): Message[] {
  const s = new SessionBuilder("ses_trust").user("deploy");
  for (let i = 0; i < 2; i++) s.step(bash("npm run deploy", "failed\n"), null).compact({ continueTurn: i < 1 });
  return s.messages;
}

const inputFor = (messages: Message[]) =>
  ({
    sessionID: "ses_trust",
    agent: "build",
    model: { limit: { context: 8000, output: 2000 } },
    provider: { source: "config", info: {}, options: {} },
    message: [...messages].reverse().find((m) => m.parts.some((p) => p.type === "compaction"))!.info,
    overflow: false,
  }) as never;

async function run(options: unknown, env: Record<string, string> = {}, title?: string) {
  const fake = fakeClient(newestMessages(looping()), undefined, title);
  const hooks = createGuard({ client: fake.client as never }, options, { env });
  const output = { enabled: true };
  await hooks["experimental.compaction.autocontinue"]?.(inputFor(looping()), output);
  return { ...fake, output };
}

describe("the start-up line", () => {
  it("names the version and every effective setting with its source", async () => {
    const { startup } = await run({ window: 12 }, { OPENCODE_COMPACTION_GUARD_IGNORE: "gh run watch" });
    expect(VERSION).toMatch(/^\d+\.\d+\.\d+$/);
    expect(startup).toHaveLength(1);
    expect(startup[0]).toMatchObject({ level: "info" });
    expect(startup[0]!.message).toBe(
      `compaction-guard ${VERSION} loaded: threshold 3 (default), window 12 (option), minReduction 0.1 (default), ` +
        'predict true (default), matchOutput true (default), ignore ["gh run watch"] (env), toolLoop "warn" (default), notify "toast" (default), mode "enforce" (default), prevent true (default)',
    );
  });

  it.each([
    [{ enabled: false }, {}, "the plugin option enabled: false"],
    [undefined, { OPENCODE_COMPACTION_GUARD_DISABLED: "1" }, "OPENCODE_COMPACTION_GUARD_DISABLED=1"],
  ])("the disabled line names what disabled it (%j %j)", async (options, env, by) => {
    const { logs, startup, output } = await run(options, env);
    expect(output.enabled).toBe(true);
    expect(startup).toEqual([]);
    expect(logs.map((l) => l.message)).toEqual([`compaction-guard ${VERSION} is disabled by ${by}; opencode behaves as without it`]);
  });

  it("reports an environment variable that is none of ours, with the nearest right name", () => {
    const { problems } = resolveSettings(undefined, {
      OPENCODE_COMPACTION_GUARD_ENABLED: "false",
      OPENCODE_COMPACTION_GUARD_TRESHOLD: "4",
      OPENCODE_COMPACTION_GUARD_WINDOWS: "4",
    });
    expect(problems).toEqual([
      "OPENCODE_COMPACTION_GUARD_ENABLED: not a setting; did you mean OPENCODE_COMPACTION_GUARD_DISABLED=1 (to turn the guard off)?",
      "OPENCODE_COMPACTION_GUARD_TRESHOLD: not a setting; did you mean OPENCODE_COMPACTION_GUARD_THRESHOLD?",
      "OPENCODE_COMPACTION_GUARD_WINDOWS: not a setting; did you mean OPENCODE_COMPACTION_GUARD_WINDOW?",
    ]);
  });
});

describe("observe mode", () => {
  it("never denies; it says where it would have, in a warn line and a quieter toast", async () => {
    const { output, logs, toasts } = await run({ mode: "observe" }, {}, "Ship the release");
    expect(output.enabled).toBe(true);
    expect(logs).toHaveLength(1);
    expect(logs[0]).toMatchObject({ level: "warn", extra: { decision: "deny", rule: "no-new-work", mode: "observe" } });
    expect(logs[0]!.message).toMatch(
      /^compaction-guard would have stopped auto-continue in session "Ship the release" \(ses_trust\) after compaction 2 \(msg_\d+\) \(observe mode: the continue turn was added\): no-new-work: /,
    );
    expect(toasts).toEqual([
      {
        title: "Compaction guard (observe mode)",
        message: '"Ship the release": it redid the work from before the compaction. It would have stopped here; it goes on.',
        variant: "info",
      },
    ]);
  });

  it("from the environment, and with notify log: no toast", async () => {
    const { output, toasts, logs } = await run({ notify: "log" }, { OPENCODE_COMPACTION_GUARD_MODE: "Observe" });
    expect(output.enabled).toBe(true);
    expect(toasts).toEqual([]);
    expect(logs[0]!.message).toMatch(/^compaction-guard would have stopped/);
  });
});

describe("the session is named", () => {
  it("by its title and id in the toast and the warn line", async () => {
    const { output, logs, toasts } = await run(undefined, {}, "Fix the flaky deploy");
    expect(output.enabled).toBe(false);
    expect(logs[0]!.message).toMatch(
      /^compaction-guard stopped auto-continue in session "Fix the flaky deploy" \(ses_trust\) after compaction 2/,
    );
    expect(toasts[0]!.message).toBe(
      '"Fix the flaky deploy" stopped: it redid the work from before the compaction. Reply to go on; the note in the session says why.',
    );
  });

  it("by its id when the title cannot be read", async () => {
    const fake = fakeClient(newestMessages(looping()));
    fake.client.session.get.mockImplementation(() => Promise.reject(new Error("gone")));
    const hooks = createGuard({ client: fake.client as never }, undefined, { env: {} });
    const output = { enabled: true };
    await hooks["experimental.compaction.autocontinue"]!(inputFor(looping()), output);
    expect(output.enabled).toBe(false);
    expect(fake.logs[0]!.message).toMatch(/^compaction-guard stopped auto-continue in session ses_trust after/);
  });
});

describe("loaded twice", () => {
  it("decides and announces each compaction once", async () => {
    const registry = new DecisionRegistry();
    const fake = fakeClient(newestMessages(looping()));
    const first = createGuard({ client: fake.client as never }, undefined, { env: {}, registry });
    const second = createGuard({ client: fake.client as never }, { mode: "observe" }, { env: {}, registry });
    const output = { enabled: true };
    for (const hooks of [first, second]) await hooks["experimental.compaction.autocontinue"]!(inputFor(looping()), output);
    expect(output.enabled).toBe(false);
    expect(fake.logs.filter((l) => l.extra?.decision !== undefined)).toHaveLength(1);
    expect(fake.toasts).toHaveLength(1);
    expect(
      fake.startup.map((l) => l.message.endsWith("(copy 2 in this opencode: each compaction is decided once, each notice written once)")),
    ).toEqual([false, true]);
    // Also when the first copy allowed: the second does not decide again.
    const allowed = { enabled: true };
    const other = new DecisionRegistry();
    const a = createGuard({ client: fake.client as never }, { minReduction: 0 }, { env: {}, registry: other });
    const b = createGuard({ client: fake.client as never }, undefined, { env: {}, registry: other });
    await a["experimental.compaction.autocontinue"]!(inputFor(looping()), allowed);
    await b["experimental.compaction.autocontinue"]!(inputFor(looping()), allowed);
    expect(fake.client.session.messages).toHaveBeenCalledTimes(2);
  });
});

describe("messages that never contradict themselves", () => {
  const stalled = (trigger: number, after: number, minReduction = 0.1) => {
    const s = new SessionBuilder().user();
    s.step({ tool: "read", input: { filePath: "a" } }, trigger).compact();
    s.step({ tool: "read", input: { filePath: "b" } }, after).compact();
    return replayMessages(s.messages, { ...DEFAULT_SETTINGS, minReduction })[1]!;
  };

  it("an unchanged context says so", () => {
    expect(describeEvidence(stalled(7_020, 7_020), OPENCODE_WORDS)).toBe(
      "the previous compaction left the context unchanged at 7,020 tokens, less than the 10% cut needed to make progress",
    );
  });

  it("a cut just under the minimum never reads as large as it", () => {
    const row = stalled(10_000, 9_004); // 9.96%
    expect(row.rule).toBe("no-progress");
    expect(describeEvidence(row, OPENCODE_WORDS)).toContain("(9% smaller), less than the 10% cut needed");
    expect(describeEvidence(stalled(10_000, 8_760, 0.125), OPENCODE_WORDS)).toContain("(12.4% smaller), less than the 12.5% cut needed");
  });

  it("a cut of exactly the minimum is progress, also at 0", () => {
    expect(stalled(10_000, 9_000).decision).toBe("allow");
    expect(stalled(10_000, 10_000, 0).decision).toBe("allow");
    expect(describeEvidence(stalled(10_000, 10_001, 0), OPENCODE_WORDS)).toContain("up from 10,000 tokens (under 1% larger)");
  });
});

describe("the replay command's own flags", () => {
  const cli = async (...argv: string[]) => {
    let out = "";
    let err = "";
    const code = await main(
      argv,
      (t) => void (out += t),
      (t) => void (err += t),
      {},
    );
    return { code, out, err };
  };

  it.each(["--version", "-v"])("%s prints the version", async (flag) => {
    expect(await cli(flag)).toEqual({ code: 0, out: `${VERSION}\n`, err: "" });
  });

  it.each([
    ["--jsn", "--json"],
    ["--treshold", "--threshold"],
    ["--context", "--context-limit"],
  ])("an unknown flag %s names the nearest, %s", async (flag, nearest) => {
    const { code, err } = await cli("replay", "x.json", flag);
    expect(code).toBe(2);
    expect(err).toBe(`opencode-compaction-guard: unknown option ${flag}; did you mean ${nearest}? (try --help)\n`);
  });
});

describe("model limits that cannot be", () => {
  it.each([
    [
      ["--context-limit", "1000", "--output-limit", "2000"],
      "--output-limit 2000 is not below --context-limit 1000: opencode would have no usable context",
    ],
    [["--context-limit", "8000", "--output-limit", "2000", "--input-limit", "9000"], "--input-limit 9000 is over --context-limit 8000"],
  ])("%j exits 2 with one line", async (flags, message) => {
    let err = "";
    const code = await main(
      ["replay", "fixtures/e2e-healthy.json", ...flags],
      () => {},
      (t) => void (err += t),
      {},
    );
    expect(code).toBe(2);
    expect(err).toBe(`opencode-compaction-guard: ${message}\n`);
  });
});

describe("a subagent's session (it has a parent)", () => {
  it("keeps the continue turn after its final answer: the hook reads the parent from session.get", async () => {
    const s = new SessionBuilder("ses_trust")
      .user("map the codebase")
      .step({ tool: "read", input: { filePath: "a.ts" } }, 30_000)
      .say("Report: 3 modules.", 52_000)
      .compact({ continueTurn: false });
    const decideWith = async (parentID: string | undefined) => {
      const fake = fakeClient(newestMessages(s.messages));
      fake.client.session.get.mockImplementation(async () => ({ data: { id: "ses_trust", title: "explore", parentID } }));
      const hooks = createGuard({ client: fake.client as never }, undefined, { env: {} });
      const output = { enabled: true };
      await hooks["experimental.compaction.autocontinue"]!(inputFor(s.messages), output);
      return { enabled: output.enabled, rule: fake.logs[0]!.extra!.rule };
    };
    expect(await decideWith(undefined)).toEqual({ enabled: false, rule: "turn-finished" });
    expect(await decideWith("ses_parent")).toEqual({ enabled: true, rule: null });
  });
});
