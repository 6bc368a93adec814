import { describe, expect, it } from "vitest";
import { toolKind } from "../../src/decide/tool-kinds.js";

const call = (tool: string, input: unknown = {}) => ({ tool, input, output: "", status: "completed" as const });
const bash = (command: string) => call("bash", { command });

describe("toolKind", () => {
  it.each([
    ["edit", "effect"],
    ["write", "effect"],
    ["patch", "effect"],
    ["todowrite", "planning"],
    ["websearch", "asking"],
    ["webfetch", "asking"],
    ["task", "asking"],
    ["exa_web_search_exa", "asking"],
    ["fetch_fetch", "asking"],
    ["read", "other"],
    ["grep", "other"],
    ["postgres_query", "other"],
  ])("%s is %s", (tool, kind) => {
    expect(toolKind(call(tool))).toBe(kind);
  });

  it.each([
    "sleep 30 && gh pr checks 42",
    "sleep 5; curl -s localhost/job",
    "sleep 2m",
    "gh run watch 12",
    "gh pr checks 42 --watch",
    "kubectl wait --for=condition=ready pod/x",
    "watch -n 5 kubectl get pods",
  ])("a deliberate wait is waiting: %s", (command) => expect(toolKind(bash(command))).toBe("waiting"));

  it.each(["npm start & sleep 2 && curl localhost:3000", "sleep 0.5 && ls", "npm test", "echo sleep 30", "npm run watch:css"])(
    "not a wait: %s",
    (command) => {
      expect(toolKind(bash(command))).toBe("other");
    },
  );
});
