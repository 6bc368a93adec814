/**
 * previewCall shows only what is known to be harmless: a bash command's program and plain
 * arguments, a file tool's path and numbers, any other tool's key names with their number,
 * boolean and path values. The secret forms below are asserted exactly and must never show
 * the secret.
 */
import { homedir } from "node:os";
import { join } from "node:path";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { isTokenLike, previewCall } from "../../src/redact/preview.js";
import { PREVIEW_MAX } from "../../src/redact/secrets.js";

const bash = (command: unknown) => previewCall("bash", { command, description: "run it" });

/** [command, expected preview, secret that must not appear]. */
type Form = [command: string, preview: string, secret: string];

describe("bash: the command forms a preview must keep secret", () => {
  it.each<Form>([
    ["sshpass -p 'Hunter2!x' ssh deploy@web-1 uptime", "sshpass … ssh …", "Hunter2!x"],
    ["docker login -u me -p S3cretPass9 registry.example.com", "docker login …", "S3cretPass9"],
    ["redis-cli -a s3cr3tPw -h cache ping", "redis-cli -a … -h … ping", "s3cr3tPw"],
    ["gpg --batch --passphrase hunterpass -d secrets.gpg", "gpg …", "hunterpass"],
    ["vault login s.Xa81kQ9mPz2", "vault login …", "Xa81kQ9mPz2"],
    ["http --auth admin:Pa55word GET https://api.example.com/me", "http …", "Pa55word"],
    ["htpasswd -b .htpasswd admin Pa55word", "htpasswd …", "Pa55word"],
    ["echo 'pw-Hunter2' | sudo -S apt-get install -y nginx", "echo … | …", "Hunter2"],
    ["STRIPE_KEY=rk_live_51Hx9Kq2Lm node server.js", "… node server.js", "51Hx9Kq2Lm"],
    ["DD_APP_KEY=9f8e7d6c5b4a3f2e ./deploy.sh", "… ./deploy.sh", "9f8e7d6c5b4a"],
    ["curl -H 'X-Auth-Key: 1a2b3c4d5e6f' https://api.cloudflare.com/client/v4/zones", "curl …", "1a2b3c4d5e6f"],
  ])("%j → %j", (command, preview, secret) => {
    expect(bash(command)).toBe(preview);
    expect(bash(command)).not.toContain(secret);
  });
});

describe("bash: more forms that carry a secret", () => {
  it.each<Form>([
    ["mysql -uroot -pS3cret app", "mysql …", "S3cret"],
    ["psql postgres://app:Pgpass77@db.internal/app", "psql …", "Pgpass77"],
    ["curl -H 'Authorization: Bearer eyJhbGciOi.x' https://api.example.com", "curl …", "eyJhbGciOi"],
    ["aws configure set aws_secret_access_key wJalrXUtnFEMIK7MDENG", "aws configure set …", "wJalrXUtnFEMI"],
    ["export TOKEN=tok3nValue; ./run", "export …; ./run", "tok3nValue"],
    ["git clone https://user:ghToken42@github.com/acme/app.git", "git clone …", "ghToken42"],
    ["ssh -i ~/.ssh/deploy_key deploy@10.0.0.7", "ssh …", "deploy_key"],
    ["kubectl create secret generic db --from-literal=pw=Kube5ecret", "kubectl create secret …", "Kube5ecret"],
    ["npm config set //registry.npmjs.org/:_authToken npm_AbC123xyz", "npm config set …", "npm_AbC123xyz"],
    ["cat > .env <<EOF\nAPI_KEY=heredoc9secret\nhunterhunter\nEOF\nnpm test", "cat …; npm test", "hunterhunter"],
    ["cat <<-'END' | psql\n\tALTER USER app PASSWORD 'Sql9secret';\n\tEND", "cat … | psql", "Sql9secret"],
    ["base64 -d <<< c2VjcmV0cGFzcw==", "base64 -d …", "c2VjcmV0"],
    ["openssl enc -aes-256-cbc -k Pa55phrase -in a.txt -out a.enc", "openssl enc … -k … -in … -out …", "Pa55phrase"],
    ["PGPASSWORD=pgSecret1 psql -h db -U app", "… psql …", "pgSecret1"],
    ["mongosh 'mongodb+srv://u:M0ngoPw@cluster0.example.net'", "mongosh …", "M0ngoPw"],
    ["echo hunterpass | docker login -u ci --password-stdin", "echo … | docker login …", "hunterpass"],
    ["redis-cli auth foobaredpw", "redis-cli auth …", "foobaredpw"],
    ["docker run -e DB_PASSWORD=dbSecret9 postgres", "docker run …", "dbSecret9"],
    ["wget --password=W9etpass https://example.com/f", "wget …", "W9etpass"],
    ["npm publish --otp=123456", "npm publish …", "123456"],
    ["git -c http.extraheader='AUTHORIZATION: basic Z2l0OnB3' push", "git …", "Z2l0OnB3"],
    ["echo $(printf '%s' Sub5ecret | base64) && make", "echo … && make", "Sub5ecret"],
    ["sudo -u deploy -p 'Prompt9x' systemctl restart nginx", "sudo … systemctl restart nginx", "Prompt9x"],
    ["printf 'Pw9secret\\n' | sudo --stdin -k reboot", "printf … | …", "Pw9secret"],
    ["env -u HOME API_TOKEN=Env9token npx vitest run", "env … npx vitest run", "Env9token"],
    ["ARR=(Arr9secret other) && ./run.sh", "… && ./run.sh", "Arr9secret"],
    ["ghp_8kT3mQ1vX7bN4cR9wZ2yL6hF0dS5aJ3eP1uG", "…", "ghp_8kT3"],
    ["xargs -I{} curl -u admin:Xa9pass {} < urls.txt", "xargs … curl …", "Xa9pass"],
    ["# token: Comment9secret\nnpm test", "npm test", "Comment9secret"],
    ["az login -u me@example.com -p 'Az9pass' && az account show", "az login … && az …", "Az9pass"],
  ])("%j → %j", (command, preview, secret) => {
    expect(bash(command)).toBe(preview);
    expect(bash(command)).not.toContain(secret);
  });
});

describe("the inputs of secrets.test.ts", () => {
  const OPENAI = "sk-proj-Q7x2Lm9Vb4Nc8Rt1Yw6Zs3Kd5Hf0Jg";
  const GITHUB = "ghp_8kT3mQ1vX7bN4cR9wZ2yL6hF0dS5aJ3eP1uG";
  const BEARER = "Zx81vQ-9yT3_uL7wK2mN6bR4cV0dF5hJ";
  const API_KEY = "a81f9c2e7b4d06f3e5c9a1b8d2f7e4c3";
  it.each([
    [
      "bash",
      { command: `curl -H "Authorization: Bearer ${BEARER}" "https://api.example.com/v1?api_key=${API_KEY}"`, description: "call the API" },
      "curl …",
    ],
    ["bash", { command: `OPENAI_API_KEY=${OPENAI} GITHUB_TOKEN=${GITHUB} npm test` }, "… npm test"],
    [
      "mcp__github__create_issue",
      { repo: "acme/app", auth: { token: GITHUB, headers: [`Authorization: Bearer ${BEARER}`] }, body: `api_key=${API_KEY}` },
      "{auth, body, repo}",
    ],
    ["bash", { command: `${OPENAI} ${GITHUB} ${API_KEY}` }, "…"],
  ])("%s %j → %s", (tool, input, preview) => {
    expect(previewCall(tool, input)).toBe(preview);
  });
});

describe("bash: readable previews of ordinary commands", () => {
  it.each([
    ["npm test", "npm test"],
    ["git push origin main", "git push origin main"],
    ["cd app && npm test", "cd app && npm test"],
    ["npm run build", "npm run build"],
    ["npm run test:unit", "npm run …"],
    ["./deploy.sh", "./deploy.sh"],
    ["sh ./test.sh", "sh ./test.sh"],
    ["sh ./poll.sh 42", "sh ./poll.sh 42"],
    ["python manage.py migrate", "python manage.py migrate"],
    ["python3 -m pytest -x tests", "python3 -m pytest -x …"],
    ["/usr/local/bin/python3 manage.py migrate", "…/python3 manage.py migrate"],
    ["docker compose up -d", "docker compose up -d"],
    ["gh run watch 42", "gh run watch 42"],
    ["kubectl get pods -n prod", "kubectl get pods -n …"],
    ["sudo systemctl restart nginx", "sudo systemctl restart nginx"],
    ["time npm test", "time npm test"],
    ["nice -n 10 make build", "nice … make build"],
    ["timeout 30 npx vitest run test/a.test.ts", "timeout … npx vitest run test/a.test.ts"],
    ["find . -name '*.ts' | xargs -0 -n1 wc -l", "find . … | xargs … wc -l"],
    ["npm test 2>&1 | tail -n 20", "npm test … | tail -n 20"],
    ["(cd web && make build) || exit 1", "cd web && make build || exit 1"],
    ["for f in *.ts; do echo $f; done", "for f in *.ts; do echo …; done"],
    ["if [ -f x ]; then npm test; fi", "if [ -f …; then npm test; fi"],
    ["npm ci &\nwait", "npm ci & wait"],
    ["seq 1 3000", "seq 1 3000"],
    ["", "…"],
  ])("%j → %j", (command, preview) => {
    expect(bash(command)).toBe(preview);
  });

  it("is one line of at most PREVIEW_MAX characters, ending in … when cut", () => {
    const preview = bash(Array.from({ length: 30 }, () => "npm run build").join(" && "));
    expect(preview.length).toBeLessThanOrEqual(PREVIEW_MAX);
    expect(preview).toMatch(/^npm run build && npm run build && .* …$/);
  });

  it("shows no word longer than 24 characters and no token-like program", () => {
    expect(bash("abcdefghijklmnopqrstuvwxyz --help")).toBe("…");
    expect(bash("./S3cretPass9 run")).toBe("…");
    expect(bash("./a-rather-long-directory-name/run.sh")).toBe("…/run.sh");
    expect(bash("sha256sum -c sums.txt")).toBe("sha256sum -c …");
  });

  it("isTokenLike: programs pass, tokens do not", () => {
    for (const word of ["python3.11", "sha256sum", "e2e.sh", "s3cmd", "x509", "node20"])
      expect([word, isTokenLike(word)]).toEqual([word, false]);
    for (const word of ["S3cretPass9", "abc12345", "a1b2c3", "Hunter2x"]) expect([word, isTokenLike(word)]).toEqual([word, true]);
  });
});

describe("bash: arguments that tell two calls apart are shown", () => {
  it.each([
    ["kubectl delete pod web-1", "kubectl delete pod web-1"],
    ["kubectl delete pod web-2", "kubectl delete pod web-2"],
    ["echo step-1", "echo step-1"],
    ["echo step-6", "echo step-6"],
    ["sed -n 200,300p big.txt", "sed -n 200,300p big.txt"],
    ["head -n 200 big.txt", "head -n 200 big.txt"],
    ["git log --oneline -n 20 main", "git log --oneline -n 20 main"],
    ["npx tsc --noEmit", "npx tsc --noEmit"],
    ["gh pr view 4521", "gh pr view 4521"],
    ["cp a.txt b.txt", "cp a.txt b.txt"],
    ["ls ~/projects", "ls ~/projects"],
    ["npm i @types/node", "npm i @types/node"],
    ["curl https://api.example.com/v1/users/42", "curl https://api.example.com/v1/users/42"],
    ["cat /etc/hosts", "cat …/hosts"],
  ])("%j → %j", (command, preview) => {
    expect(bash(command)).toBe(preview);
  });
});

describe("bash: what an argument never shows", () => {
  it.each([
    ["an option's value other than a short number", "kubectl delete pod web-2 --dry-run=client -n prod", "kubectl delete pod web-2 … -n …"],
    ["a value after -p, -a, -k, -u, -w or -K, even a number", "redis-cli -a 4821 ping", "redis-cli -a … ping"],
    ["a quoted string", 'git commit -m "fix the bug"', "git commit -m …"],
    ["six digits or more (a one-time code)", "gh pr view 123456", "gh pr view …"],
    ["a URL with a query", "curl https://example.com/x?sig=abc", "curl …"],
    ["user@host", "ssh deploy@web-1 uptime", "ssh … uptime"],
    ["host:port pairs and a version after @", "docker run -p 8080:80 nginx && npm i lodash@4", "docker run -p … nginx && npm i …"],
    ["echo's words when they are piped", "echo hi | tee out.log", "echo … | tee out.log"],
    ["echo's words when they are redirected", "echo step-1 > out.txt", "echo …"],
    ["a heredoc's body", "python - <<EOF\nprint(1)\nEOF", "python …"],
    ["anything but programs in a line that names a credential", "./deploy.sh prod && vault token lookup", "./deploy.sh … && vault token …"],
    ["anything but programs in a line that runs sudo -S", "cat pw.txt | sudo -S ./deploy.sh prod", "cat … | …"],
  ])("%s: %j → %j", (_, command, preview) => {
    expect(bash(command)).toBe(preview);
  });
});

describe("file tools: the path, relative when it can be", () => {
  const dir = "/home/dev/proj";
  const home = homedir();
  it.each([
    ["read", { filePath: "/home/dev/proj/src/a.ts", offset: 10 }, "filePath=src/a.ts offset=10"],
    ["edit", { filePath: "/home/dev/proj/src/a.ts", oldString: "S3cret", newString: "x" }, "filePath=src/a.ts"],
    ["write", { filePath: "/home/dev/proj/.env", content: "API_KEY=S3cret" }, "filePath=.env"],
    ["read", { filePath: "/home/dev/proj" }, "filePath=."],
    ["read", { filePath: "/etc/ssl/private/server.key" }, "filePath=…/server.key"],
    ["read", { filePath: "/home/dev/project-other/a.ts" }, "filePath=…/a.ts"],
    ["read", { filePath: join(home, "notes", "todo.md") }, "filePath=~/notes/todo.md"],
    ["read", { filePath: "src/b.ts" }, "filePath=src/b.ts"],
    ["read", { filePath: "../other/b.ts" }, "filePath=…/b.ts"],
    ["list", { path: "/home/dev/proj/src" }, "path=src"],
    ["read", { filePath: `/home/dev/proj/${"deep/".repeat(20)}file.ts` }, "filePath=…/deep/deep/deep/deep/deep/deep/deep/deep/file.ts"],
  ])("%s %j → %s", (tool, input, preview) => {
    expect(previewCall(tool, input, dir)).toBe(preview);
  });

  it("Windows paths, relative to a Windows directory", () => {
    expect(previewCall("read", { filePath: "C:\\Users\\me\\proj\\src\\a.ts" }, "C:\\Users\\me\\proj")).toBe("filePath=src/a.ts");
    expect(previewCall("read", { filePath: "D:\\keys\\prod.pem" }, "C:\\Users\\me\\proj")).toBe("filePath=…/prod.pem");
  });

  it("an empty path", () => {
    expect(previewCall("read", { filePath: "" }, dir)).toBe("filePath=…");
  });

  it("without a directory, a path in the home directory still reads ~/…", () => {
    expect(previewCall("read", { filePath: join(home, "proj", "a.ts") })).toBe("filePath=~/proj/a.ts");
  });

  it("a path too long even as its last segment keeps that segment's end", () => {
    const preview = previewCall("write", { filePath: `/home/dev/proj/${"x".repeat(100)}.ts`, content: "" }, dir);
    expect(preview.length).toBeLessThanOrEqual(PREVIEW_MAX);
    expect(preview).toMatch(/^filePath=…x+\.ts$/);
  });

  it("a file tool whose path is missing shows key names", () => {
    expect(previewCall("read", { offset: 1, limit: 2 }, dir)).toBe("{limit=2, offset=1}");
  });
});

describe("file tools: numbers and flags after the path", () => {
  const dir = "/home/dev/proj";
  it.each([
    ["read", { filePath: "/home/dev/proj/big.txt", offset: 200, limit: 100 }, "filePath=big.txt offset=200 limit=100"],
    ["read", { limit: 100, filePath: "/home/dev/proj/big.txt", offset: 300 }, "filePath=big.txt offset=300 limit=100"],
    ["edit", { filePath: "/home/dev/proj/a.ts", oldString: "x", newString: "y", replaceAll: true }, "filePath=a.ts replaceAll=true"],
    [
      "read",
      { filePath: `/home/dev/proj/${"deep/".repeat(20)}file.ts`, offset: 1000, limit: 2000 },
      "filePath=…/deep/deep/deep/file.ts offset=1000 limit=2000",
    ],
    ["read", { filePath: "/home/dev/proj/a\u001b[31m.ts" }, "filePath=a\\x1b[31m.ts"],
  ])("%s %j → %s", (tool, input, preview) => {
    const shown = previewCall(tool, input, dir);
    expect(shown).toBe(preview);
    expect(shown.length).toBeLessThanOrEqual(PREVIEW_MAX);
  });
});

describe("other tools: key names, with number, boolean and path values; never free text", () => {
  it.each([
    ["grep", { pattern: "password=S3cret", path: "/home/dev/proj" }, "{path=…/proj, pattern}"],
    ["glob", { pattern: "**/*.env" }, "{pattern}"],
    ["webfetch", { url: "https://u:Web9pass@example.com", format: "text" }, "{format, url}"],
    ["task", { description: "d", prompt: "use key sk-abc", subagent_type: "general" }, "{description, prompt, subagent_type}"],
    ["github_create_issue", { repo: "acme/app", body: "token ghp_x", auth: { token: "T0kenValue9" } }, "{auth, body, repo}"],
    ["mcp__weird__tool", { "sk-proj-Q7x2Lm9Vb4Nc8Rt1Yw6Zs3Kd5Hf0Jg": 1, S3cretPass9: 2, ok: 3 }, "{ok=3, …}"],
    ["bash", { command: 42, description: "not a string" }, "{command=42, description}"],
    ["unknown", {}, "{}"],
    ["unknown", null, "{}"],
    ["unknown", undefined, "{}"],
    ["unknown", ["S3cret", 1], "[…]"],
    ["unknown", "S3cretString", "…"],
    ["unknown", 123456, "…"],
    ["grep", { pattern: "TODO", path: "/home/dev/proj/src", include: "*.ts" }, "{include, path=…/src, pattern}"],
    ["mcp_tool", { count: 5, verbose: true, pin: 4821, otpCode: 123456, note: "hunter2" }, "{count=5, note, otpCode, pin, verbose=true}"],
  ])("%s %j → %s", (tool, input, preview) => {
    expect(previewCall(tool, input)).toBe(preview);
  });

  it("many keys: cut with …, within PREVIEW_MAX", () => {
    const input = Object.fromEntries(Array.from({ length: 50 }, (_, i) => [`field_${String.fromCharCode(97 + (i % 26))}${i}`, i]));
    const preview = previewCall("mcp_tool", input);
    expect(preview.length).toBeLessThanOrEqual(PREVIEW_MAX);
    expect(preview.endsWith(", …}")).toBe(true);
  });
});

describe("never throws", () => {
  const cycle: Record<string, unknown> = { a: 1 };
  cycle.self = cycle;
  const throwing = new Proxy(
    {},
    {
      ownKeys: () => {
        throw new Error("no keys");
      },
      get: () => {
        throw new Error("no get");
      },
    },
  );
  const getter = Object.defineProperty({}, "command", {
    enumerable: true,
    get: () => {
      throw new Error("boom");
    },
  });
  it.each([
    ["null", "bash", null],
    ["an array", "bash", [1, 2]],
    ["a cycle", "mcp_tool", cycle],
    ["a cycle in a bash input", "bash", { command: "npm test", cycle }],
    ["a huge command", "bash", { command: `npm test ${"x".repeat(5_000_000)}` }],
    ["a huge quoted command", "bash", { command: `echo "${"$(".repeat(20_000)}` }],
    ["deep command substitutions", "bash", { command: `${"$(echo ".repeat(10_000)}` }],
    ["a non-string command", "bash", { command: { nested: true } }],
    ["a proxy that throws", "mcp_tool", throwing],
    ["a getter that throws", "bash", getter],
    ["a non-string path", "read", { filePath: 7 }],
    ["a huge path", "read", { filePath: `/${"a/".repeat(1_000_000)}` }],
  ])("%s", (_, tool, input) => {
    const preview = previewCall(tool, input as unknown, "/home/dev/proj");
    expect(typeof preview).toBe("string");
    expect(preview.length).toBeLessThanOrEqual(PREVIEW_MAX);
  });

  it("a cut huge command does not show its cut word", () => {
    expect(bash(`npm test && ${"a".repeat(20_000)}`)).toBe("npm test && …");
  });

  it("any string as a command: one line, at most PREVIEW_MAX characters", () => {
    fc.assert(
      fc.property(fc.string({ unit: fc.constantFrom(..."ab -='\"$()`{}|&;<>\n\\#:@/.0"), maxLength: 80 }), (command) => {
        const preview = bash(command);
        expect(preview.length).toBeLessThanOrEqual(PREVIEW_MAX);
        expect(preview).not.toContain("\n");
      }),
      { numRuns: 2000 },
    );
  });
});

describe("property: a secret token in a place that carries one is never shown", () => {
  const token = fc
    .string({ unit: fc.constantFrom(..."ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz0123456789"), minLength: 8, maxLength: 40 })
    .filter((t) => /[A-Za-z]/.test(t) && /\d/.test(t));
  const program = fc.constantFrom(
    "curl",
    "docker login",
    "mysql",
    "psql",
    "git clone",
    "npm publish",
    "./deploy.sh",
    "vault login",
    "redis-cli",
    "sudo",
    "sshpass",
    "env",
    "timeout 5",
    "npx",
    "xargs",
    "python3 app.py",
    "gh auth login",
  );
  const flag = fc.constantFrom("-p", "-a", "-k", "-u", "--password", "--token", "--passphrase", "-H", "--auth", "-e");
  const name = fc.constantFrom("TOKEN", "API_KEY", "STRIPE_KEY", "DD_APP_KEY", "pw", "x");
  /**
   * A program and a flag that takes a value there: sudo's -k, -e and -H take none, so in
   * `sudo -k X run` the word X is the command sudo runs (a program's name, shown), not a value.
   */
  const valued = fc.tuple(program, flag).filter(([p, f]) => !(p === "sudo" && ["-k", "-e", "-H"].includes(f)));
  /** The places a secret is given on a command line. */
  const place = (t: string) =>
    fc.oneof(
      valued.map(([p, f]) => `${p} ${f} ${t} run`),
      fc.tuple(program, flag).map(([p, f]) => `${p} ${f}${t} run`),
      fc.tuple(program, flag).map(([p, f]) => `${p} ${f}=${t} test`),
      fc.tuple(name, program).map(([n, p]) => `${n}=${t} ${p} test`),
      fc.tuple(name, program).map(([n, p]) => `export ${n}=${t}; ${p} build`),
      fc.tuple(name, program).map(([n, p]) => `env ${n}=${t} ${p}`),
      program.map((p) => `${p} '${t}'`),
      program.map((p) => `${p} "x ${t} y"`),
      program.map((p) => `${p} $'${t}'`),
      program.map((p) => `${p} https://user:${t}@example.com/repo`),
      program.map((p) => `${p} postgres://app:${t}@db/app`),
      program.map((p) => `${p} -H 'Authorization: Bearer ${t}'`),
      program.map((p) => `${p} -H X-Api-Key:${t}`),
      program.map((p) => `${p} --header "X-Auth-Key: ${t}" https://x`),
      program.map((p) => `echo ${t} | sudo -S ${p} test`),
      program.map((p) => `printf x | sudo -S ${p} ${t}`),
      program.map((p) => `cat <<EOF | ${p}\n${t}\nEOF`),
    );
  const filler = fc.constantFrom(
    "npm test",
    "cd app",
    "git push origin main",
    "make build",
    "ls -la",
    "kubectl get pods",
    "echo done",
    "true",
  );
  const op = fc.constantFrom(" && ", " || ", "; ", " | ", "\n", " & ");
  const command = token.chain((t) =>
    fc
      .tuple(fc.array(filler, { maxLength: 2 }), place(t), fc.array(filler, { maxLength: 2 }), op, op)
      .map(([before, secret, after, op1, op2]) => ({
        t,
        command: [...before.map((b) => b + op1), secret, ...after.map((a) => op2 + a)].join(""),
      })),
  );

  it("in bash commands", () => {
    fc.assert(
      fc.property(command, ({ t, command }) => {
        const preview = bash(command);
        expect(preview).not.toContain(t);
        expect(preview.length).toBeLessThanOrEqual(PREVIEW_MAX);
      }),
      { numRuns: 3000 },
    );
  });

  it("in any value of any other tool's input", () => {
    fc.assert(
      fc.property(
        token,
        fc.constantFrom("grep", "webfetch", "github_create_issue", "read", "list", "bash"),
        fc.constantFrom("pattern", "url", "body", "token", "content"),
        (t, tool, key) => {
          expect(previewCall(tool, { [key]: t, nested: { deeper: [t] } }, "/home/dev/proj")).not.toContain(t);
        },
      ),
      { numRuns: 500 },
    );
  });
});
