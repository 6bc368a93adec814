/**
 * World states (src/judge/world.ts) and structured answers by their items
 * (src/judge/items.ts): the two readings that decide when an effect or an answer is the
 * same as one before, whatever its spelling.
 */
import { describe, expect, it } from "vitest";
import { World } from "../../src/judge/world.js";
import { answerItems } from "../../src/judge/items.js";
import type { ToolCall } from "../../src/model/entry.js";
import { askedOf, toolCall } from "../support/calls.js";

const done = (tool: string, input: unknown, output = "ok"): ToolCall => toolCall(tool, input, output);
const edit = (oldString: string, newString: string, replaceAll = false) =>
  done("edit", { filePath: "/p/a.ts", oldString, newString, ...(replaceAll ? { replaceAll } : {}) });
const write = (content: string, filePath = "/p/a.ts") => done("write", { filePath, content });

/** Runs each call through `world` (`file` undefined for an effect on unknown files); the id and `had` after each. */
function walk(world: World, calls: readonly [ToolCall, string | undefined][]): [number, boolean][] {
  return calls.map(([call, file]) => {
    const next = world.next(call, file);
    return [world.enter(next), next.had];
  });
}

describe("World: an effect back to a state the world had is that state", () => {
  it("foo→bar, bar→foo, foo→bar, …: two states, each reached again", () => {
    const world = new World();
    const calls: [ToolCall, string][] = [
      [edit("foo", "bar"), "a"],
      [edit("bar", "foo"), "a"],
      [edit("foo", "bar"), "a"],
      [edit("bar", "foo"), "a"],
    ];
    expect(walk(world, calls)).toEqual([
      [1, false],
      [0, true],
      [1, true],
      [0, true],
    ]);
  });

  it("a write of the same content is the same state, whatever came before it", () => {
    const world = new World();
    expect(
      walk(world, [
        [write("x = 1\n"), "a"],
        [edit("1", "2"), "a"],
        [write("x = 1\n"), "a"],
      ]),
    ).toEqual([
      [1, false],
      [2, false],
      [1, true],
    ]);
  });

  it("an edit with replaceAll has no inverse: taking its text out again is a new state", () => {
    const world = new World();
    expect(
      walk(world, [
        [edit("foo", "bar", true), "a"],
        [edit("bar", "foo"), "a"],
      ]),
    ).toEqual([
      [1, false],
      [2, false],
    ]);
  });

  it("a revert after a failed attempt, then a different attempt: the revert is had, the new attempt is new", () => {
    const world = new World();
    expect(
      walk(world, [
        [edit("limit = 10", "limit = 20"), "a"],
        [edit("limit = 20", "limit = 10"), "a"],
        [edit("limit = 10", "limit = 15"), "a"],
      ]),
    ).toEqual([
      [1, false],
      [0, true],
      [2, false],
    ]);
  });

  it("each file keeps its own state: the same edit of two files is two states", () => {
    const world = new World();
    expect(
      walk(world, [
        [edit("foo", "bar"), "a"],
        [done("edit", { filePath: "/p/b.ts", oldString: "foo", newString: "bar" }), "b"],
        [done("edit", { filePath: "/p/b.ts", oldString: "bar", newString: "foo" }), "b"],
      ]),
    ).toEqual([
      [1, false],
      [2, false],
      [1, true],
    ]);
  });

  it("an effect on unknown files starts a new generation: nothing before it is had again", () => {
    const world = new World();
    expect(
      walk(world, [
        [edit("foo", "bar"), "a"],
        [done("bash", { command: "git checkout -- ." }), undefined],
        [edit("foo", "bar"), "a"],
        [edit("bar", "foo"), "a"],
        [done("bash", { command: "git checkout -- ." }), undefined],
      ]),
    ).toEqual([
      [1, false],
      [2, false],
      [3, false],
      [2, true],
      [4, false],
    ]);
  });

  it("a patch is a transition by its whole input: from the same state it reaches the same state, from another a new one", () => {
    const world = new World();
    const patch = done("apply_patch", { patchText: "*** Begin Patch\n*** Update File: a.ts\n-x\n+y\n*** End Patch" });
    expect(
      walk(world, [
        [write("x\n"), "a"],
        [patch, "a"],
        [write("x\n"), "a"],
        [patch, "a"],
        [write("z\n"), "a"],
        [patch, "a"],
      ]),
    ).toEqual([
      [1, false],
      [2, false],
      [1, true],
      [2, true],
      [3, false],
      [4, false],
    ]);
  });
});

describe("answerItems: a JSON answer is the set of its items, without what echoes the request", () => {
  it("array elements under their path, scalar fields as path and value, echoed fields left out", () => {
    const output = JSON.stringify({ query: "send mail", cursor: "c2", results: [{ name: "gmail_send" }, { name: "smtp_send" }], total: 2 });
    expect(answerItems(output, askedOf({ query: "send mail", cursor: "c2" }))).toBe(
      ['results[] {"name":"gmail_send"}', 'results[] {"name":"smtp_send"}', "total 2"].join("\n"),
    );
  });

  it("two wordings of one search that list the same items answer the same", () => {
    const answer = (query: string) => JSON.stringify({ query, tools: [{ name: "calendar_create" }, { name: "calendar_list" }] });
    expect(answerItems(answer("make an event"), askedOf({ query: "make an event" }))).toBe(
      answerItems(answer("create calendar entry"), askedOf({ query: "create calendar entry" })),
    );
  });

  it("an element is one item, less the fields that echo the request's words, at any depth; an echoed identifier stays", () => {
    expect(answerItems('[{"q": "red shoes", "title": "x", "tags": ["a", "b"]}]', askedOf({ q: "red shoes" }))).toBe(
      '[] {"tags":["a","b"],"title":"x"}',
    );
    expect(answerItems('{"name": "api", "namespace": "prod-us", "replicas": 3}', askedOf({ name: "api", namespace: "prod-us" }))).toBe(
      ['name "api"', 'namespace "prod-us"', "replicas 3"].join("\n"),
    );
  });

  it("text, a JSON scalar and broken JSON are returned as they are", () => {
    expect(answerItems("Found 3 matches\nsrc/a.ts:1", askedOf({}))).toBe("Found 3 matches\nsrc/a.ts:1");
    expect(answerItems("42", askedOf({}))).toBe("42");
    expect(answerItems('{"a": ', askedOf({}))).toBe('{"a": ');
    expect(answerItems(undefined, askedOf({}))).toBeUndefined();
  });
});
