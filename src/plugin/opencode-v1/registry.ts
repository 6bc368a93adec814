/**
 * What the copies of the guard loaded in one opencode process share: the compactions already
 * decided, and which copy runs each kind of per-step hook.
 */

/**
 * Which copy of the guard runs each kind of per-step hook, when the plugin is loaded more than
 * once in one process (`opencode.json` naming both the clone folder and `dist/index.js`, or a
 * global and a project config). opencode calls every copy's hooks in turn on the same
 * `output`: without this, each copy appends its tool-loop notice and writes its lines. The
 * first copy to join a kind owns it; the others defer to it, and one takes over when the owner
 * leaves (its `dispose`). Kinds: `tool-loop` (both tool hooks: the refusal needs the state the
 * notice hook keeps), `prevention` (the ledger and the continue-note rewrite).
 */
export class HookOwners {
  private readonly owners = new Map<string, object>();

  /** `copy` joins `kind`: it owns it unless another copy does. */
  join(kind: string, copy: object): void {
    if (!this.owners.has(kind)) this.owners.set(kind, copy);
  }

  /** True when `copy` owns `kind`; a kind without an owner (its owner left) is taken by `copy`. */
  owns(kind: string, copy: object): boolean {
    const owner = this.owners.get(kind);
    if (owner === undefined) this.owners.set(kind, copy);
    return owner === undefined || owner === copy;
  }

  /** `copy` leaves every kind it owns. */
  leave(copy: object): void {
    for (const [kind, owner] of [...this.owners]) if (owner === copy) this.owners.delete(kind);
  }
}

/** Compactions already claimed by a copy of the guard, by session and message id; bounded. */
export class DecisionRegistry {
  private readonly claimed = new Set<string>();
  /** How many copies of the guard were made with this registry. */
  copies = 0;
  /** The per-step hooks' owners among the copies made with this registry. */
  readonly owners = new HookOwners();

  /** True the first time a compaction is claimed, false after. Keeps the newest 1,000. */
  claim(sessionID: string, messageID: string): boolean {
    const key = `${sessionID}\u0000${messageID}`;
    if (this.claimed.has(key)) return false;
    this.claimed.add(key);
    if (this.claimed.size > 1_000) this.claimed.delete(this.claimed.values().next().value!);
    return true;
  }
}

/** The registry of this process, shared by every copy `server` makes (a global, so two bundles share it too). */
export const PROCESS_REGISTRY: DecisionRegistry = ((globalThis as Record<symbol, unknown>)[
  Symbol.for("opencode-compaction-guard.registry")
] ??= new DecisionRegistry()) as DecisionRegistry;
/**
 * The hook owners of this process, under their own global key: a registry made by an older
 * bundle, which had none, still shares its claims while the owners are shared here.
 */
export const PROCESS_OWNERS: HookOwners = (() => {
  const globals = globalThis as Record<symbol, unknown>;
  const key = Symbol.for("opencode-compaction-guard.hook-owners");
  const found = globals[key] as Partial<HookOwners> | undefined;
  if (typeof found?.join === "function" && typeof found.owns === "function" && typeof found.leave === "function") {
    return found as HookOwners;
  }
  return (globals[key] = new HookOwners()) as HookOwners;
})();

/**
 * `hook`, run only while `copy` owns `kind` (see {@link HookOwners}); another copy's turn is a
 * no-op. Joins `kind` now, so that the first copy made owns it. Without `owners`, `hook` itself.
 */
export function owned<A extends unknown[]>(
  owners: HookOwners | undefined,
  copy: object,
  kind: string,
  hook: (...args: A) => Promise<void>,
): (...args: A) => Promise<void> {
  if (!owners) return hook;
  owners.join(kind, copy);
  return async (...args: A) => {
    if (owners.owns(kind, copy)) await hook(...args);
  };
}
