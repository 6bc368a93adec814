/**
 * The TUI part of the 2.x module (`tui` of dist/v2.js's and dist/v2/index.js's default export
 * `{ id, setup, tui }`): `/guard` in the TUI, answered there from the session the TUI shows,
 * with no model request and nothing written to the session.
 *
 * Written from the published TUI plugin interfaces, not run in a 2.x TUI (none could be
 * installed here): `packages/plugin/src/tui/context.ts` of `anomalyco/opencode` (the 2.x TUI
 * context: `keymap.layer(() => ({ commands }))` with a command's `slash: { name, arguments }`
 * and `run(input)`, `ui.router.current()`, `ui.dialog.alert`, `ui.toast.show`,
 * `data.session.message.list/sync`), and 1.18.33's `@opencode-ai/plugin/tui` (`TuiPluginApi`:
 * `command.register(() => [{ title, value, slash, onSelect }])`, `route.current`, `ui.toast`,
 * `state.session.messages`, `state.part`). Whichever the host hands is used; a host that hands
 * neither gets no `/guard` and one warn line. Nothing here throws into the host.
 */
import { loadSettingsFiles } from "../../config/file.js";
import { opencodeInputs } from "../../hosts/opencode/facts.js";
import { v2InOrder } from "../../hosts/opencode/v2.js";
import { replayTimeline } from "../../guard/replay.js";
import { describeSettings, resolveSettings, type ResolvedSettings } from "../../config/settings.js";
import type { Timeline } from "../../model/timeline.js";
import { terminalSafe } from "../../redact/terminal-safe.js";
import { isRecord } from "../../shared/record.js";
import { reason } from "../../guard/host.js";
import { decisionLines } from "../decisions.js";
import { v1Timeline, v2Timeline } from "../timelines.js";

/** The slash command's name, as in the 1.x TUI. */
export const TUI_GUARD_COMMAND = "guard";
/** The command's id in the 2.x keymap. */
export const TUI_GUARD_ID = "compaction-guard.guard";

/** What the TUI part is: called once by the TUI host with its context (2.x) or its `TuiPluginApi` (1.x) and the plugin's options. */
export type V2TuiPart = (ctx: unknown, options?: unknown) => Promise<void>;

type Rec = Record<string, unknown>;
/** `owner[name]` is a function (then callable with any arguments: the host's own signature is not known here). */
const fn = <K extends string>(owner: unknown, name: K): owner is Rec & { [P in K]: (...args: unknown[]) => unknown } =>
  isRecord(owner) && typeof owner[name] === "function";

/**
 * The report `/guard` shows in a TUI: the mode, one line per automatic compaction (./decisions.ts),
 * the settings in force. `v2`: the timeline is of opencode's V2 runner (no continue turn).
 */
export function tuiGuardReport(timeline: Timeline, resolved: Pick<ResolvedSettings, "settings" | "sources">, v2: boolean): string {
  const rows = replayTimeline(timeline, resolved.settings, opencodeInputs(undefined), v2 ? "interrupt" : "continue-turn");
  const lines = [
    `compaction-guard in this session: mode ${resolved.settings.mode}${resolved.settings.enabled ? "" : " (enabled: false: it does nothing)"}.`,
    rows.length === 0
      ? "Automatic compactions: none yet."
      : `Automatic compactions: ${rows.length}, ${rows.filter((r) => r.decision === "deny").length} with a rule that fired.`,
    ...decisionLines(timeline, rows, v2).map((line) => `  ${line}`),
    `Settings: ${describeSettings(resolved)}.`,
    "(Shown by the compaction-guard plugin in the TUI only: not sent to the model.)",
  ];
  return lines.map(terminalSafe).join("\n");
}

/** The session the TUI shows, or undefined (home screen). */
function currentSession(ctx: Rec): string | undefined {
  const ui = isRecord(ctx.ui) ? ctx.ui : undefined;
  const router = isRecord(ui?.router) ? ui.router : undefined;
  const route: unknown = fn(router, "current") ? router.current() : isRecord(ctx.route) ? ctx.route.current : undefined;
  if (!isRecord(route)) return undefined;
  if (route.type === "session" && typeof route.sessionID === "string") return route.sessionID;
  const params = isRecord(route.params) ? route.params : undefined;
  return route.name === "session" && typeof params?.sessionID === "string" ? params.sessionID : undefined;
}

/** The session's timeline from the TUI's own data: 2.x `data.session.message` (V2 messages), else 1.x `state` (V1 messages and parts). */
async function sessionTimeline(ctx: Rec, sessionID: string): Promise<{ timeline: Timeline; v2: boolean }> {
  const data = isRecord(ctx.data) && isRecord(ctx.data.session) ? ctx.data.session : undefined;
  const message = isRecord(data?.message) ? data.message : undefined;
  if (fn(message, "list")) {
    if (fn(message, "sync")) await message.sync(sessionID);
    const list = message.list(sessionID);
    return { timeline: v2Timeline(v2InOrder(Array.isArray(list) ? list : [])), v2: true };
  }
  const state = isRecord(ctx.state) ? ctx.state : undefined;
  const session = isRecord(state?.session) ? state.session : undefined;
  if (fn(session, "messages") && fn(state, "part")) {
    const infos = session.messages(sessionID);
    const messages = (Array.isArray(infos) ? infos : []).map((info: unknown) => ({
      info,
      parts: isRecord(info) && typeof info.id === "string" ? (state.part(info.id) as unknown) : [],
    }));
    return { timeline: v1Timeline(messages), v2: false };
  }
  throw new Error("this TUI hands plugins no session messages");
}

/** Shows `text`: a 2.x alert dialog, else a toast (2.x `ui.toast.show`, 1.x `ui.toast`). */
async function show(ctx: Rec, text: string, variant: "info" | "error" = "info"): Promise<void> {
  const ui = isRecord(ctx.ui) ? ctx.ui : undefined;
  const dialog = isRecord(ui?.dialog) ? ui.dialog : undefined;
  const toast = ui?.toast;
  if (variant === "info" && fn(dialog, "alert")) await dialog.alert({ title: "compaction-guard", message: text });
  else if (fn(toast, "show")) toast.show({ title: "compaction-guard", message: text, variant });
  else if (typeof toast === "function") (toast as (input: unknown) => void)({ title: "compaction-guard", message: text, variant });
}

/**
 * Builds the TUI part.
 * @param deps test seams: the environment (default `process.env`), the folder the project's
 *   settings file is found from (default the working directory), where warn lines go (default
 *   standard error: a TUI plugin has no log domain either).
 */
export function createV2Tui(
  deps: { env?: Readonly<Record<string, string | undefined>>; cwd?: string; warn?: (line: string) => void } = {},
): V2TuiPart {
  const warn = (message: string) => {
    try {
      (deps.warn ?? ((line: string) => process.stderr.write(`${line}\n`)))(`WARN ${terminalSafe(message)}`);
    } catch {
      // Nowhere left to report to.
    }
  };
  return async (context, options) => {
    try {
      const ctx: Rec = isRecord(context) ? context : {};
      const env = deps.env ?? process.env;
      const given = options ?? ctx.options;
      const resolved = resolveSettings(given, env, { files: loadSettingsFiles(env, deps.cwd ?? process.cwd()) });
      const run = async () => {
        try {
          const sessionID = currentSession(ctx);
          if (sessionID === undefined)
            return await show(ctx, "compaction-guard: open a session first; /guard reports on the session shown.");
          const { timeline, v2 } = await sessionTimeline(ctx, sessionID);
          await show(ctx, tuiGuardReport(timeline, resolved, v2));
        } catch (error) {
          warn(`compaction-guard could not answer /guard in the TUI: ${reason(error)}`);
          try {
            await show(ctx, `/guard failed: ${reason(error)}`, "error");
          } catch {
            // Nowhere left to report to.
          }
        }
      };
      const description = "compaction-guard: what it decided at each compaction of this session (no model request)";
      const keymap = ctx.keymap;
      if (fn(keymap, "layer")) {
        keymap.layer(() => ({
          commands: [
            {
              id: TUI_GUARD_ID,
              title: "compaction-guard",
              description,
              slash: { name: TUI_GUARD_COMMAND, arguments: true },
              run: () => void run(),
            },
          ],
        }));
        return;
      }
      const command = ctx.command;
      if (fn(command, "register")) {
        command.register(() => [
          { title: "compaction-guard", value: TUI_GUARD_ID, description, slash: { name: TUI_GUARD_COMMAND }, onSelect: () => void run() },
        ]);
        return;
      }
      warn("compaction-guard: this TUI hands plugins neither keymap.layer nor command.register: no /guard here");
    } catch (error) {
      warn(`compaction-guard could not add /guard to the TUI: ${reason(error)}`);
    }
  };
}
