/**
 * The model limits and `compaction.reserved` a session is decided with, when `audit` reads
 * sessions through opencode: which model set off a session's compactions, the limits opencode
 * lists for each model. Pure; the requests are in sources/opencode.ts, the precedence of the
 * command line's flags in sources/sources.ts.
 */
import type { ModelLimits } from "./facts.js";
import { isRecord } from "../../shared/record.js";

/** A model as opencode names it: `providerID` and `modelID` of an assistant message (`anthropic` / `claude-sonnet-4-5`). */
export interface ModelRef {
  readonly providerID: string;
  readonly modelID: string;
}

/** Model limits by `"<providerID>/<modelID>"`. */
export type LimitsTable = ReadonlyMap<string, ModelLimits>;

/** What opencode knows about one session's model: its limits (null when opencode does not list the model) and `compaction.reserved`. */
export interface KnownLimits {
  /** The model that set off the session's compactions, or null when none is recorded. */
  readonly model: ModelRef | null;
  readonly limits: ModelLimits | null;
  /** opencode's `compaction.reserved` (tokens), when the user's config sets it. */
  readonly reserved: number | undefined;
}

type Rec = Record<string, unknown>;
const nonEmpty = (value: unknown): value is string => typeof value === "string" && value !== "";
const tokens = (value: unknown): number | undefined =>
  typeof value === "number" && Number.isFinite(value) && value >= 0 ? Math.floor(value) : undefined;

/** The table key of a model. */
export const modelKey = (model: ModelRef): string => `${model.providerID}/${model.modelID}`;

/** An assistant message's model, when it is a step (not a compaction summary) and names one. */
function stepModel(info: Rec): ModelRef | null {
  if (info.role !== "assistant" || info.summary === true || info.mode === "compaction" || info.agent === "compaction") return null;
  return nonEmpty(info.providerID) && nonEmpty(info.modelID) ? { providerID: info.providerID, modelID: info.modelID } : null;
}

const isAutoCompaction = (message: unknown): boolean =>
  isRecord(message) &&
  isRecord(message.info) &&
  message.info.role === "user" &&
  Array.isArray(message.parts) &&
  message.parts.some((part) => isRecord(part) && part.type === "compaction" && part.auto === true);

/**
 * The model whose limits decided a session's compactions: the model of the last step
 * (assistant message that is not a compaction summary, whose model may be another one) before
 * the session's last automatic compaction, i.e. the step that set it off (a later switch to
 * another model does not count); when no step precedes it, the session's last step's.
 * @param messages the session's messages as opencode returns them (`{ info, parts }`, oldest first).
 * @returns null when the session has no automatic compaction (nothing to decide, so nothing
 *   to look up), or no step records `providerID` and `modelID`; never throws.
 */
export function compactionModel(messages: readonly unknown[]): ModelRef | null {
  let last: ModelRef | null = null;
  let atCompaction: ModelRef | null = null;
  let compacted = false;
  for (const message of messages) {
    if (isAutoCompaction(message)) {
      compacted = true;
      atCompaction = last ?? atCompaction;
      continue;
    }
    const model = isRecord(message) && isRecord(message.info) ? stepModel(message.info) : null;
    if (model) last = model;
  }
  return compacted ? (atCompaction ?? last) : null;
}

/**
 * The model limits in a providers answer of opencode 1.18.33: `GET /provider` (`{ all:
 * Provider[], default, connected }`: every provider of the models.dev catalogue and of the
 * config) or `GET /config/providers` (`{ providers: Provider[], default }`: the connected
 * ones), or a bare `Provider[]`. A provider is `{ id, models: { [key]: { id, providerID,
 * limit: { context, output, input? } } } }` (tokens). A model is found under its key and its
 * `id`; a model without a positive `limit.context` is left out (opencode never compacts it).
 * Only the limits are kept: a provider's `key` and `options` can hold API keys.
 * @returns the table; empty for anything else; never throws.
 */
export function limitsTable(answer: unknown): Map<string, ModelLimits> {
  const providers = Array.isArray(answer)
    ? answer
    : isRecord(answer)
      ? Array.isArray(answer.all)
        ? answer.all
        : Array.isArray(answer.providers)
          ? answer.providers
          : []
      : [];
  const table = new Map<string, ModelLimits>();
  for (const provider of providers) {
    if (!isRecord(provider) || !nonEmpty(provider.id) || !isRecord(provider.models)) continue;
    for (const [key, model] of Object.entries(provider.models)) {
      if (!isRecord(model) || !isRecord(model.limit)) continue;
      const context = tokens(model.limit.context);
      if (!context) continue;
      const input = tokens(model.limit.input);
      const limits: ModelLimits = { context, output: tokens(model.limit.output) ?? 0, ...(input ? { input } : {}) };
      const providerID = nonEmpty(model.providerID) ? model.providerID : provider.id;
      for (const modelID of new Set([key, ...(nonEmpty(model.id) ? [model.id] : [])])) {
        const k = modelKey({ providerID, modelID });
        if (!table.has(k)) table.set(k, limits);
      }
    }
  }
  return table;
}

/**
 * `compaction.reserved` of a config as `GET /config` returns it (tokens).
 * @returns a whole number ≥ 0, or undefined when unset or not such a number.
 */
export function configReserved(config: unknown): number | undefined {
  const compaction = isRecord(config) && isRecord(config.compaction) ? config.compaction : undefined;
  return tokens(compaction?.reserved);
}
