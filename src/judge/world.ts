/**
 * The state of the world a session changes, as far as its effects tell: each file's state
 * has a name, and two names are equal only when the contents are known to be equal, so an
 * effect that brings the world back to a state it had brings nothing (./information.ts).
 * An untouched file is in its base state (one per file and generation); a write names the
 * state by its content; an edit moves along a named transition whose inverse leads back
 * (exact for a completed edit: opencode's tool/edit.ts fails unless `oldString` is found
 * once, or `replaceAll`); a patch is a transition by its whole input, with no inverse; an
 * effect on files not known (a shell command, an MCP tool) starts a new generation.
 */
import type { Edit } from "../model/action.js";
import type { ToolCall } from "../model/entry.js";
import { digestOf } from "./signature.js";

/** A state the world may move to (see {@link World.next}). */
export interface Next {
  /** The state's name: equal names, equal states. */
  readonly name: string;
  /** The world had this state before, since the user's last message. */
  readonly had: boolean;
  readonly generation: number;
  readonly files: ReadonlyMap<string, string>;
}

/**
 * The world's states since the user's last message: the current one, and an id for each state
 * reached, the same id for the same state reached again.
 */
export class World {
  /** Each touched file's state name, by file key; a file in its base state is absent. */
  private files: ReadonlyMap<string, string> = new Map();
  private generation = 0;
  /** The newest generation so far: a new one is always new, also after a move back to an older one. */
  private generations = 0;
  /** State name reached from a state by a transition: `${from}\u0000${transition}` → state. */
  private readonly transitions = new Map<string, string>();
  /** Every world state reached, by its name, with its id. */
  private readonly ids = new Map<string, number>([["0", 0]]);
  /** How many transition states were named so far. */
  private named = 0;
  /** Id of the current world state; 0 is the state at the user's last message. */
  id = 0;
  /** Name of the current world state. */
  name = "0";

  /**
   * The state the world would reach by the effect `call`, which changes the file with key
   * `file` (undefined: the files it changes are not known), and whether the world had that
   * state before since the user's last message. {@link enter} moves there.
   */
  next(call: ToolCall, file: string | undefined): Next {
    const generation = file === undefined ? this.generations + 1 : this.generation;
    const files = file === undefined ? new Map<string, string>() : this.changed(call, file);
    const name = nameOf(generation, files);
    return { name, had: this.ids.has(name), generation, files };
  }

  /** Moves the world to the state `next` (from {@link next}, now or earlier); returns its id. */
  enter(next: Next): number {
    this.generation = next.generation;
    this.generations = Math.max(this.generations, next.generation);
    this.files = next.files;
    this.name = next.name;
    let id = this.ids.get(next.name);
    if (id === undefined) this.ids.set(next.name, (id = this.ids.size));
    this.id = id;
    return id;
  }

  /** The file states after `call` changed the file `file`. */
  private changed(call: ToolCall, file: string): Map<string, string> {
    const base = `base\u0000${this.generation}\u0000${file}`;
    const from = this.files.get(file) ?? base;
    const { action } = call;
    const content = action.kind === "write" ? action.content : undefined;
    let state: string;
    if (content !== undefined) state = `content\u0000${digestOf(content)}`;
    else {
      const edits = action.kind === "edit" ? action.edits : undefined;
      state = from;
      if (edits === undefined) state = this.along(state, `input\u0000${digestOf(action.asked.json)}`, undefined);
      else for (const edit of edits) state = this.along(state, transitionOf(edit), edit.replaceAll ? undefined : inverseOf(edit));
    }
    const files = new Map(this.files);
    if (state === base) files.delete(file);
    else files.set(file, state);
    return files;
  }

  /** The state reached from `from` by `transition`; a new state is named, and `inverse` from it leads back. */
  private along(from: string, transition: string, inverse: string | undefined): string {
    const key = `${from}\u0000${transition}`;
    let to = this.transitions.get(key);
    if (to === undefined) {
      this.transitions.set(key, (to = `edited\u0000${++this.named}`));
      if (inverse !== undefined) this.transitions.set(`${to}\u0000${inverse}`, from);
    }
    return to;
  }
}

/** A world state's name: its generation and each touched file's state, in file order. */
function nameOf(generation: number, files: ReadonlyMap<string, string>): string {
  if (files.size === 0) return String(generation);
  const parts = [...files].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)).map(([file, state]) => `${file}\u0001${state}`);
  return `${generation}\u0002${parts.join("\u0002")}`;
}

const transitionOf = (edit: Edit): string => `edit\u0000${digestOf(`${edit.replaceAll}\u0000${edit.oldString}\u0000${edit.newString}`)}`;
const inverseOf = (edit: Edit): string => transitionOf({ oldString: edit.newString, newString: edit.oldString, replaceAll: false });
