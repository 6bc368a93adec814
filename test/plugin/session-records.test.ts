/**
 * The bounded per-session store of the 2.x entry (src/plugin/session-records.ts): one record
 * per session, the newest used kept, the least recently used dropped first, a deleted session
 * forgotten.
 */
import { describe, expect, it } from "vitest";
import { createSessionRecords } from "../../src/plugin/session-records.js";

const store = (max: number) => createSessionRecords(max, () => ({ events: [] as string[] }));

describe("createSessionRecords", () => {
  it("makes a session's record at its first use and hands back the same one after", () => {
    const records = store(2);
    expect(records.find("ses_a")).toBeUndefined();
    records.use("ses_a").events.push("one");
    expect(records.use("ses_a").events).toEqual(["one"]);
    expect(records.find("ses_a")).toBe(records.use("ses_a"));
  });

  it("keeps the newest `max` used; the least recently used goes first, and find is not a use", () => {
    const records = store(2);
    records.use("ses_a").events.push("a");
    records.use("ses_b").events.push("b");
    records.find("ses_a");
    records.use("ses_c");
    expect(records.find("ses_a")).toBeUndefined();
    // ses_b used again: ses_c is now the least recently used.
    records.use("ses_b");
    records.use("ses_d");
    expect(records.find("ses_c")).toBeUndefined();
    expect(records.find("ses_b")?.events).toEqual(["b"]);
    expect(records.find("ses_d")?.events).toEqual([]);
    // A dropped session starts again empty.
    expect(records.use("ses_a").events).toEqual([]);
  });

  it("forgets a deleted session, and only it", () => {
    const records = store(2);
    records.use("ses_a").events.push("a");
    records.use("ses_b").events.push("b");
    records.forget("ses_a");
    expect(records.find("ses_a")).toBeUndefined();
    expect(records.find("ses_b")?.events).toEqual(["b"]);
    expect(records.use("ses_a").events).toEqual([]);
  });
});
