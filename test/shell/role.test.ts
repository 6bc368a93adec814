/** What a shell command does (src/shell/role.ts): reads, checks the code, or may change something; which file it shows. */
import { describe, expect, it } from "vitest";
import { commandRole, pathSegments, shownFile, type CommandKind } from "../../src/shell/role.js";

describe("commandRole: the verb decides, not the noun", () => {
  it.each<[string, CommandKind]>([
    ["gh pr view 42 --json state", "read"],
    ["gh pr checks 42", "read"],
    ["gh -R acme/api run list", "read"],
    ["gh api repos/acme/api/pulls", "read"],
    ["gh api -X POST repos/acme/api/issues", "effect"],
    ["gh api repos/acme/api/issues -f title=x", "effect"],
    ["gh pr checkout 101", "effect"],
    ["kubectl -n staging get pods", "read"],
    ["kubectl rollout status deploy/web", "read"],
    ["kubectl rollout restart deploy/web", "effect"],
    ["git -C lib log --oneline -5", "read"],
    ["git branch", "read"],
    ["git branch -a", "read"],
    ["git branch -D old", "effect"],
    ["git remote -v", "read"],
    ["git commit -am wip", "effect"],
    ["docker compose -f dev.yml ps", "read"],
    ["cargo clippy -- -D warnings", "check"],
    ["cargo nextest run --test quota", "check"],
    ["cargo fmt", "effect"],
    ["go test ./...", "check"],
    ["go generate ./...", "effect"],
    ["npm test", "check"],
    ["npm run lint:fix", "effect"],
    ["npm run deploy", "effect"],
    ["yarn test", "check"],
    ["make check", "check"],
    ["make install", "effect"],
    ["npx vitest run -u", "effect"],
    ["npx prettier --check .", "check"],
    ["prettier --write .", "effect"],
    ["black --check .", "check"],
    ["black .", "effect"],
    ["ruff format .", "effect"],
    ["ruff check .", "check"],
    ["uv run pytest -q", "check"],
    ["python -m build", "check"],
    ["python scripts/build_index.py", "effect"],
    ["env CI=1 npm test", "check"],
    ["env NODE_ENV=production npm run deploy", "effect"],
    ["sort -u names.txt", "read"],
    ["tail -f logs/app.log", "read"],
    ["curl -s https://example.com/health", "read"],
    ["curl -d @payload.json https://example.com/api", "effect"],
    ["psql -c 'select count(*) from jobs'", "read"],
    ["psql -c 'delete from jobs'", "effect"],
    ["wget https://example.com/file.tar.gz", "effect"],
    // Programs named like Object.prototype's members are programs like any other.
    ["valueOf x", "effect"],
    ["__proto__ status", "effect"],
    ["constructor log --oneline", "effect"],
    ["toString", "effect"],
  ])("%s: %s", (command, kind) => {
    expect(commandRole(command)).toBe(kind);
  });
});

describe("shownFile: the file a reading command shows, however spelled", () => {
  it.each<[string, string | undefined]>([
    ["sed -n '1,120p' src/a.ts", "src/a.ts"],
    ["head -n 120 src/a.ts", "src/a.ts"],
    ["awk 'NR<=120' src/a.ts", "src/a.ts"],
    ["perl -ne 'print if 1..38' /p/src/a.ts", "/p/src/a.ts"],
    ["cd src && head -38 a.ts", "src/a.ts"],
    ["git show HEAD:src/a.ts | head -n 30", "src/a.ts"],
    ["cat a.ts b.ts", undefined],
    ["cat a.ts && cat b.ts", undefined],
    ["wc -l src/a.ts", undefined],
  ])("%s: %s", (command, file) => {
    expect(shownFile(command)).toBe(file);
  });

  it("pathSegments resolves . and ..", () => {
    expect(pathSegments("./src/../lib/a.ts")).toEqual(["lib", "a.ts"]);
  });
});
