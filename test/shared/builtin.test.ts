/** Built-in modules loaded on first use (src/shared/builtin.ts), with and without `process.getBuiltinModule`. */
import { afterEach, describe, expect, it } from "vitest";
import { builtin } from "../../src/shared/builtin.js";

type Crypto = typeof import("node:crypto");
const process_ = process as { getBuiltinModule?: unknown };
const original = process_.getBuiltinModule;

afterEach(() => {
  process_.getBuiltinModule = original;
});

describe("builtin", () => {
  const sha256 = (crypto: Crypto) => crypto.createHash("sha256").update("a").digest("hex");
  const SHA256_OF_A = "ca978112ca1bbdcafac231b39a23dc4da786eff8147c4e72b9807785afee48bb";

  it("loads a built-in module through process.getBuiltinModule", () => {
    let asked: unknown;
    process_.getBuiltinModule = (id: string) => ((asked = id), (original as (id: string) => unknown)(id));
    expect(sha256(builtin<Crypto>("node:crypto"))).toBe(SHA256_OF_A);
    expect(asked).toBe("node:crypto");
  });

  it("requires it where process.getBuiltinModule is missing (Node.js before 20.16)", () => {
    process_.getBuiltinModule = undefined;
    expect(sha256(builtin<Crypto>("node:crypto"))).toBe(SHA256_OF_A);
    expect(builtin<typeof import("node:v8")>("node:v8").getHeapStatistics().heap_size_limit).toBeGreaterThan(0);
  });

  it("throws for a module that is not built in, either way", () => {
    expect(() => builtin("node:no-such-module")).toThrow(/no-such-module/);
    process_.getBuiltinModule = undefined;
    expect(() => builtin("node:no-such-module")).toThrow(/no-such-module/);
  });
});
