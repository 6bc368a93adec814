/**
 * Secrets never leave the guard: tool inputs and outputs holding `sk-…`, `ghp_…`,
 * `Authorization: Bearer …`, `api_key=…`, and the provider's `options.apiKey` in the hook
 * input. Logs (message and `extra`), toasts and the replay CLI (table and --json) may show
 * only the short redacted preview of an input, and never a tool output.
 */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import fc from "fast-check";
import { afterAll, describe, expect, it } from "vitest";
import { main } from "../src/cli/main.js";
import { createGuard } from "../src/plugin/opencode-v1/guard.js";
import { previewCall } from "../src/redact/preview.js";
import { PREVIEW_MAX } from "../src/redact/secrets.js";
import { fakeClient, newestMessages } from "./support/client.js";
import { SessionBuilder, type Message, type ToolSpec } from "./support/session.js";

const OPENAI = "sk-proj-Q7x2Lm9Vb4Nc8Rt1Yw6Zs3Kd5Hf0Jg";
const GITHUB = "ghp_8kT3mQ1vX7bN4cR9wZ2yL6hF0dS5aJ3eP1uG";
const BEARER = "Zx81vQ-9yT3_uL7wK2mN6bR4cV0dF5hJ";
const API_KEY = "a81f9c2e7b4d06f3e5c9a1b8d2f7e4c3";
const PROVIDER_KEY = "sk-live-Pv9Xc2Bn7Mq4Lw1Ks8Jd3Hf6Gz0Ty5R";
/** Marks raw tool output: it must never be shown. */
const RAW = "RAW-TOOL-OUTPUT-7f3a";

const SECRETS = [OPENAI, GITHUB, BEARER, API_KEY, PROVIDER_KEY];

/** The tool calls of the loop: every field of the input holds a secret. */
const CALLS: Record<string, ToolSpec> = {
  bash: {
    tool: "bash",
    input: {
      command: `curl -H "Authorization: Bearer ${BEARER}" "https://api.example.com/v1?api_key=${API_KEY}"`,
      description: "call the API",
    },
    output: `${RAW}\nOPENAI_API_KEY=${OPENAI}\nGITHUB_TOKEN=${GITHUB}\n`,
  },
  env: {
    tool: "bash",
    input: { command: `OPENAI_API_KEY=${OPENAI} GITHUB_TOKEN=${GITHUB} npm test` },
    output: `${RAW} Authorization: Bearer ${BEARER}`,
  },
  nested: {
    tool: "mcp__github__create_issue",
    input: { repo: "acme/app", auth: { token: GITHUB, headers: [`Authorization: Bearer ${BEARER}`] }, body: `api_key=${API_KEY}` },
    output: { raw: RAW, echo: OPENAI },
  },
  leading: {
    tool: "bash",
    input: { command: `${OPENAI} ${GITHUB} ${API_KEY}` },
    output: RAW,
  },
};

/**
 * The same call re-emitted after each of three automatic compactions. Replay denies the
 * second by no-new-work (its cycle only redid the call) and the third by
 * repeated-tool-call (the third identical run): both rules' evidence shows the input.
 * Ends with the compaction message and its summary (the hook decides the third).
 */
function loop(call: ToolSpec, sessionID = "ses_secret", cycles = 3): Message[] {
  const session = new SessionBuilder(sessionID).user(`use key ${OPENAI}`);
  for (let i = 0; i < cycles; i++) session.step(call, null).compact({ continueTurn: i < cycles - 1 });
  return session.messages;
}

const hookInput = (messages: Message[], sessionID = "ses_secret") =>
  ({
    sessionID,
    agent: "build",
    model: { id: "gpt", providerID: "openai", limit: { context: 200_000, output: 32_000 } },
    provider: {
      source: "config",
      info: { id: "openai" },
      options: { apiKey: PROVIDER_KEY, headers: { Authorization: `Bearer ${BEARER}` } },
    },
    message: messages.at(-2)!.info,
    overflow: false,
  }) as never;

/** The first piece of `secret`, `size` characters long, that `text` shows; undefined when none. */
function pieceShown(text: string, secret: string, size: number): string | undefined {
  for (let i = 0; i + size <= secret.length; i++) if (text.includes(secret.slice(i, i + size))) return secret.slice(i, i + size);
  return undefined;
}

/** Fails when `text` holds any secret, a 10-character piece of one, or raw tool output. */
function expectClean(text: string): void {
  expect(SECRETS.map((secret) => pieceShown(text, secret, 10))).toEqual(SECRETS.map(() => undefined));
  expect(text).not.toContain(RAW);
}

async function runHook(messages: Message[], answer?: () => unknown) {
  const fake = fakeClient(answer ?? newestMessages(messages));
  const hook = createGuard({ client: fake.client as never }, undefined, { env: {} })["experimental.compaction.autocontinue"]!;
  const output = { enabled: true };
  await hook(hookInput(messages), output);
  return { ...fake, output, seen: JSON.stringify({ logs: fake.logs, toasts: fake.toasts }) };
}

describe("the hook", () => {
  it.each(Object.entries(CALLS))("%s: denies, and logs, extra and toast carry no secret and no output", async (_, call) => {
    const { output, logs, toasts, seen } = await runHook(loop(call));
    expect(output.enabled).toBe(false);
    expect(logs).toHaveLength(1);
    expect(toasts).toHaveLength(1);
    expectClean(seen);
  });

  it.each(Object.entries(CALLS))(
    "%s: denied at the second compaction by no-new-work, its example carries no secret either",
    async (_, call) => {
      const { output, logs, toasts, seen } = await runHook(loop(call, "ses_secret", 2));
      expect(output.enabled).toBe(false);
      expect(logs.map((l) => l.extra?.rule)).toEqual(["no-new-work"]);
      expect(toasts).toHaveLength(1);
      expect(logs[0]!.message).toContain(`such as ${call.tool} (${previewCall(call.tool, call.input)})`);
      expectClean(seen);
    },
  );

  it("shows the redacted preview of the input, and only that", async () => {
    const { logs, toasts } = await runHook(loop(CALLS.bash!));
    // Only what is known to be harmless: the program, never its flags, headers or URL.
    const preview = "curl …";
    expect(preview.length).toBeLessThanOrEqual(PREVIEW_MAX);
    expect(logs[0]!.message).toContain(`repeated-tool-call: the same bash call (${preview}) ran 3 times with the same result`);
    expect(toasts[0]!.message).toBe(
      "ses_secret stopped: the same bash call ran 3 times. Reply to go on; the note in the session says why.",
    );
    expect(Object.keys(logs[0]!.extra!).sort()).toEqual([
      "compaction",
      "decision",
      "elapsedMs",
      "judgedAheadMs",
      "messageID",
      "messagesFrom",
      "phasesMs",
      "rule",
      "sessionID",
    ]);
  });

  it("an allowed continue turn logs no input at all", async () => {
    const session = new SessionBuilder("ses_secret").user().step(CALLS.env!, 9_000).compact();
    const { output, logs, seen } = await runHook(session.messages);
    expect(output.enabled).toBe(true);
    expect(logs.map((l) => l.level)).toEqual(["info"]);
    expectClean(seen);
  });

  it.each([
    [
      "an error that echoes a key",
      () => Promise.reject(new Error(`401 Unauthorized (Authorization: Bearer ${BEARER}, api_key=${API_KEY})`)),
    ],
    ["an error object holding keys", () => ({ error: { message: "bad auth", token: GITHUB, key: OPENAI } })],
  ])("falling back after %s: the warning carries no secret", async (_, answer) => {
    const { output, logs, seen } = await runHook(loop(CALLS.bash!), answer);
    expect(output.enabled).toBe(true);
    expect(logs).toHaveLength(1);
    expect(logs[0]!.message).toMatch(/^compaction-guard could not decide for session ses_secret; auto-continue left to opencode: /);
    expectClean(seen);
  });
});

describe("the replay CLI", () => {
  const dir = mkdtempSync(join(tmpdir(), "ocg-secrets-"));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  async function replay(messages: Message[], ...flags: string[]) {
    const path = join(dir, `export-${Math.random().toString(36).slice(2)}.json`);
    writeFileSync(path, JSON.stringify({ info: { id: "ses_secret" }, messages }));
    let out = "";
    let err = "";
    const code = await main(
      ["replay", path, ...flags],
      (t) => (out += t),
      (t) => (err += t),
      {},
    );
    return { code, out, err };
  }

  it.each(Object.entries(CALLS))("%s: the table and --json carry no secret and no output", async (_, call) => {
    const table = await replay(loop(call));
    expect([table.code, table.err]).toEqual([0, ""]);
    expect(table.out).toMatch(
      /first deny: compaction 2, no-new-work: all 1 action in the 1 step since the previous compaction repeated work done before it, such as /,
    );
    expectClean(table.out);
    const json = await replay(loop(call), "--json");
    expect(JSON.parse(json.out).compactions.map((c: { rule: string | null }) => c.rule)).toEqual([
      null,
      "no-new-work",
      "repeated-tool-call",
    ]);
    expectClean(json.out);
  });

  it("--json shows the preview as the evidence of the input, in both repeat rules", async () => {
    const { out } = await replay(loop(CALLS.nested!), "--json");
    const [first, second] = JSON.parse(out).compactions;
    // An MCP tool: the names of its input's keys, never a value.
    const preview = "{auth, body, repo}";
    expect(preview.length).toBeLessThanOrEqual(PREVIEW_MAX);
    expect(first.evidence["repeated-tool-call"]).toMatchObject({ tool: "mcp__github__create_issue", preview });
    expect(second.evidence["no-new-work"].example).toEqual({ tool: "mcp__github__create_issue", preview });
  });
});

describe("the reported secret forms (tokens, passwords, keys in commands and paths), in every place a preview appears", () => {
  /** Each command and the secret it must never show. */
  const FORMS: Array<[string, string]> = [
    ["sshpass -p 'Hunter2!x' ssh deploy@web-1 uptime", "Hunter2!x"],
    ["docker login -u me -p S3cretPass9 registry.example.com", "S3cretPass9"],
    ["redis-cli -a s3cr3tPw -h cache ping", "s3cr3tPw"],
    ["gpg --batch --passphrase hunterpass -d secrets.gpg", "hunterpass"],
    ["vault login s.Xa81kQ9mPz2", "s.Xa81kQ9mPz2"],
    ["http --auth admin:Pa55word GET https://api.example.com", "Pa55word"],
    ["htpasswd -b .htpasswd admin Pa55word", "Pa55word"],
    ["echo 'pw-Hunter2' | sudo -S apt-get install -y nginx", "pw-Hunter2"],
    ["STRIPE_KEY=rk_live_51Hx9Kq2Lm node server.js", "rk_live_51Hx9Kq2Lm"],
    ["DD_APP_KEY=9f8e7d6c5b4a ./deploy.sh", "9f8e7d6c5b4a"],
    ["curl -H 'X-Auth-Key: 1a2b3c4d5e6f' https://api.cloudflare.com/client/v4", "1a2b3c4d5e6f"],
  ];
  const dir = mkdtempSync(join(tmpdir(), "ocg-forms-"));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it.each(FORMS)("%s", async (command, secret) => {
    const messages = loop({ tool: "bash", input: { command, description: "run it" }, output: `${RAW}\n` });
    // The toast and the warn line of the hook (repeated-tool-call at compaction 3).
    const { output, logs, toasts } = await runHook(messages);
    expect(output.enabled).toBe(false);
    expect(logs[0]!.message).toMatch(/repeated-tool-call: the same bash call \(.+\) ran 3 times/);
    // The replay table (its "first deny" line: no-new-work's example) and --json.
    const path = join(dir, `export-${Math.random().toString(36).slice(2)}.json`);
    writeFileSync(path, JSON.stringify({ info: { id: "ses_secret" }, messages }));
    let table = "";
    let json = "";
    await main(
      ["replay", path],
      (t) => void (table += t),
      () => {},
      {},
    );
    await main(
      ["replay", path, "--json"],
      (t) => void (json += t),
      () => {},
      {},
    );
    expect(table).toMatch(/first deny: compaction 2, no-new-work: .* such as bash \(/);
    for (const place of [JSON.stringify({ logs, toasts }), table, json]) {
      expect(place).not.toContain(secret);
      expect(place).not.toContain(RAW);
    }
  });
});

describe("prevention: the ledger and the continue note", () => {
  it.each(Object.entries(CALLS))(
    "%s: the summary's ledger and the rewritten continue turns carry no secret and no output",
    async (_, call) => {
      const messages = loop(call);
      const fake = fakeClient(newestMessages(messages));
      const guard = createGuard({ client: fake.client as never }, undefined, { env: {} });
      const output = { context: [] as string[] };
      await guard["experimental.session.compacting"]!({ sessionID: "ses_secret" }, output);
      expect(output.context).toHaveLength(1);
      expect(output.context[0]).toContain(`${call.tool} \`${previewCall(call.tool, call.input)}\` (done, 3×)`);
      expectClean(output.context[0]!);
      const sent = { messages: structuredClone(messages) as never[] };
      await guard["experimental.chat.messages.transform"]!({}, sent);
      const notes = (sent.messages as Message[])
        .flatMap((m) => m.parts.map((p) => p.text))
        .filter((t) => String(t).startsWith("[compaction-guard note]"));
      expect(notes).toHaveLength(2);
      for (const note of notes) expectClean(String(note));
      expect(fake.logs).toEqual([]);
    },
  );
});
