import { describe, expect, it } from "vitest";
import { opencodeRecord, v2SessionData } from "../../src/hosts/opencode/session.js";
import { transcriptRecord } from "../../src/hosts/transcript.js";

describe("a session's record, host-neutral", () => {
  it("reads opencode's Session.Info fields", () => {
    const info = { id: "ses_a", title: "fix it", directory: "/p", parentID: "ses_p", time: { created: 1_000, updated: 2_000 } };
    expect(opencodeRecord(info, false)).toEqual({
      id: "ses_a",
      title: "fix it",
      directory: "/p",
      parent: "ses_p",
      created: 1_000,
      updated: 2_000,
      continueTurn: true,
    });
  });

  it("reads a field of the wrong type as missing, an empty parent as none", () => {
    const info = { id: "ses_b", title: 3, directory: null, parentID: "", time: { created: "soon", updated: Number.NaN } };
    expect(opencodeRecord(info, false)).toEqual({
      id: "ses_b",
      title: "",
      directory: undefined,
      parent: null,
      created: null,
      updated: null,
      continueTurn: true,
    });
  });

  it("has no continue turn for the V2 runner (told by the caller, or by `runner` in the record)", () => {
    expect(opencodeRecord({ id: "ses_c" }, true).continueTurn).toBe(false);
    expect(opencodeRecord({ id: "ses_c", runner: "v2" }, false).continueTurn).toBe(false);
    expect(v2SessionData({ id: "ses_c" }, { messages: [] }).record.continueTurn).toBe(false);
  });

  it("reads a transcript's session: the continue turn as its reader tells it", () => {
    const info = { id: "t1", title: "list files", directory: "/w", parentID: "t0", time: { created: 5, updated: 9 } };
    expect(transcriptRecord({ info, continueTurn: false })).toEqual({
      id: "t1",
      title: "list files",
      directory: "/w",
      parent: "t0",
      created: 5,
      updated: 9,
      continueTurn: false,
    });
    expect(transcriptRecord({ info: { id: "t2", title: "", time: {} }, continueTurn: true })).toEqual({
      id: "t2",
      title: "",
      directory: undefined,
      parent: null,
      created: null,
      updated: null,
      continueTurn: true,
    });
  });
});
