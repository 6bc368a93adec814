import { toolCall } from "../support/calls.js";
import { describe, expect, it } from "vitest";
import { callKind } from "../../src/judge/tool-kinds.js";

const call = (tool: string, input: unknown = {}) => toolCall(tool, input);
const bash = (command: string) => call("bash", { command });

describe("callKind", () => {
  it.each([
    ["edit", "change"],
    ["write", "change"],
    ["patch", "change"],
    ["todowrite", "plan"],
    ["websearch", "asking"],
    ["webfetch", "asking"],
    ["task", "effect"],
    ["exa_web_search_exa", "asking"],
    ["fetch_fetch", "asking"],
    ["read", "question"],
    ["grep", "question"],
    ["postgres_query", "question"],
  ])("%s is %s", (tool, kind) => {
    expect(callKind(call(tool))).toBe(kind);
  });

  it.each([
    "sleep 30 && gh pr checks 42",
    "sleep 10; curl -s localhost/job",
    "kubectl rollout status deploy/api --timeout=10m",
    "aws ecs wait services-stable --cluster prod --services api",
    "az deployment group wait --created -g rg -n dep",
    "docker compose up -d --wait",
    "helm upgrade api ./chart --wait",
    "npx wait-on http://localhost:3000",
    "sleep 2m",
    "gh run watch 12",
    "gh pr checks 42 --watch",
    "kubectl wait --for=condition=ready pod/x",
    "watch -n 5 kubectl get pods",
  ])("a deliberate wait is a wait: %s", (command) => expect(callKind(bash(command))).toBe("wait"));

  it.each([
    "npm start & sleep 2 && curl localhost:3000",
    "npm run start > server.log 2>&1 & sleep 15 && curl -s localhost:3000; cat server.log",
    "sleep 5 && curl -s localhost:3000",
    "sleep 0.5 && ls",
    "npm test",
    "echo sleep 30",
    "npm run watch:css",
  ])("not a wait: %s", (command) => {
    expect(callKind(bash(command))).not.toBe("wait");
  });
});
