/**
 * Replay's table: a header line, one row per automatic compaction, the first deny, the
 * tool-loop line, then what the live guard did and, for another agent's transcript, what a
 * deny means there.
 */
import type { ReplayRow } from "../guard/replay.js";
import { describeEvidence } from "../judge/explain.js";
import { shownToolName } from "../redact/preview.js";
import type { ToolLoopEntry } from "../judge/tool-loop.js";
import { agentNote, hostWords } from "../hosts/read.js";
import type { HostWords } from "../model/host-words.js";
import { guardStops } from "../model/timeline.js";
import { terminalSafe } from "../redact/terminal-safe.js";
import { fmt } from "./format.js";
import { liveDifferenceLine, liveGuardLine } from "./live-guard.js";
import type { ReplayResult } from "./replay-types.js";
import { displayWidth } from "./terminal.js";

/** How many of the tool-loop check's calls the replay table names before "… and N more". */
const TOOL_LOOP_NAMED = 5;

/**
 * The replay table's tool-loop line: where the tool-loop check would have acted
 * (judge/tool-loop.ts), the first few calls by step, action, tool, preview and run; "" when nowhere.
 */
function toolLoopLine(entries: readonly ToolLoopEntry[]): string {
  if (entries.length === 0) return "";
  const named = entries
    .slice(0, TOOL_LOOP_NAMED)
    .map((e) => `step ${e.step} ${e.action} (${shownToolName(e.tool)} ${terminalSafe(e.preview)}, run ${e.runs})`);
  const more = entries.length > TOOL_LOOP_NAMED ? `, … and ${entries.length - TOOL_LOOP_NAMED} more` : "";
  return `tool loop: the guard would have acted at ${entries.length} call${entries.length === 1 ? "" : "s"}: ${named.join(", ")}${more}`;
}

/**
 * The table proper: a header line, one row per automatic compaction, the first deny, then the
 * tool-loop line. Every text from the session (its id, the message ids, the evidence's tool
 * names and path previews) is made terminal-safe, and the columns are padded by display width.
 * The first deny's evidence is told in `host`'s words (the session's agent's).
 */
function table(
  host: HostWords,
  sessionID: string,
  rows: readonly ReplayRow[],
  usable: number | null,
  firstDeny: ReplayRow | undefined,
  toolLoop: readonly ToolLoopEntry[] = [],
): string {
  // A replay of thousands of compactions writes thousands of rows: each column is one array,
  // measured once, and each row is written in one go. Every cell but the message id is ASCII
  // (numbers, decisions, rule names), so its width is its length; the last column (the rule)
  // is never padded, and no cell ends in a space.
  const n = rows.length;
  const index: string[] = new Array(n);
  const message: string[] = new Array(n);
  const messageWidth: number[] = new Array(n);
  const trigger: string[] = new Array(n);
  const after: string[] = new Array(n);
  let w0 = "#".length;
  let w1 = "compaction message".length;
  let w2 = "trigger".length;
  let w3 = "after".length;
  let w4 = "decision".length;
  for (let i = 0; i < n; i++) {
    const r = rows[i]!;
    w0 = Math.max(w0, (index[i] = String(r.compaction.index)).length);
    w1 = Math.max(w1, (messageWidth[i] = displayWidth((message[i] = terminalSafe(r.compaction.messageID)))));
    w2 = Math.max(w2, (trigger[i] = fmt(r.triggerTokens)).length);
    w3 = Math.max(w3, (after[i] = fmt(r.afterTokens)).length);
    w4 = Math.max(w4, r.decision.length);
  }
  const lines = [
    `session ${terminalSafe(sessionID)}: ${rows.length} automatic compaction${rows.length === 1 ? "" : "s"}; ` +
      (usable === null ? "model limits unknown (see --context-limit and --output-limit)" : `usable context ${fmt(usable)} tokens`),
    `${"#".padStart(w0)}  ${"compaction message".padEnd(w1)}  ${"trigger".padStart(w2)}  ${"after".padStart(w3)}  ${"decision".padEnd(w4)}  rule`,
  ];
  for (let i = 0; i < n; i++) {
    const r = rows[i]!;
    lines.push(
      `${index[i]!.padStart(w0)}  ${message[i]}${" ".repeat(w1 - messageWidth[i]!)}  ${trigger[i]!.padStart(w2)}  ` +
        `${after[i]!.padStart(w3)}  ${r.decision.padEnd(w4)}  ${r.rule ?? "-"}`,
    );
  }
  lines.push(
    firstDeny
      ? `first deny: compaction ${firstDeny.compaction.index}, ${firstDeny.rule}: ${terminalSafe(describeEvidence(firstDeny, host))}`
      : "no deny: the guard would have let every continue turn through",
  );
  if (toolLoop.length > 0) lines.push(toolLoopLine(toolLoop));
  return lines.join("\n");
}

/** Replay's default output: the table, the live guard's line when it stopped the session, the agent's note for a transcript. */
export function replayTable({ session, replayed, usable }: ReplayResult): string {
  const { rows, firstDeny } = replayed;
  const stops = guardStops(session.timeline);
  const liveLine = liveGuardLine(
    stops,
    rows.map((r) => r.compaction),
  );
  const lines = [table(hostWords(session.agent), session.record.id, rows, usable, firstDeny, replayed.toolLoop)];
  if (liveLine) lines.push(liveLine);
  const difference = liveDifferenceLine(stops, firstDeny?.compaction.messageID, usable);
  if (difference) lines.push(difference);
  if (session.agent !== undefined) lines.push(agentNote(session.agent));
  return lines.join("\n");
}
