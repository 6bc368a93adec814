/** A JSON object (not null, not an array): what every defensive reader of opencode's data checks first. */
export const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === "object" && value !== null && !Array.isArray(value);
