/**
 * Export files among the paths given on the command line: files as given, folders' files in
 * name order, symbolic links followed once.
 */
import type { Dirent, Stats } from "node:fs";
import { readdir, realpath, stat } from "node:fs/promises";
import { join } from "node:path";
import { specialKind } from "./file-kind.js";

/**
 * One thing found while listing paths: a file to read; a path that was skipped and why (one
 * line); or a folder given on the command line in which no file was found (`empty`).
 */
export type FoundPath =
  | { readonly kind: "file"; readonly path: string }
  /** A file in a folder whose name ends in neither `.json` nor `.jsonl`: not opened (a picture, a log). */
  | { readonly kind: "passed"; readonly path: string }
  | { readonly kind: "skipped"; readonly line: string }
  | { readonly kind: "empty"; readonly folder: string };

/**
 * The files to audit among `paths`, in order: a file path as given (`-`: standard input,
 * once); a folder's `*.json` and `*.jsonl` (agents' transcripts) files in name order (not hidden ones, not sub-folders unless
 * `recursive`, then depth first; its other files are yielded as `passed`, never opened).
 * Symbolic links are followed, but each folder is read once and each file yielded once (by
 * their real path), so a link loop or a file reached twice costs nothing. A folder given
 * in which no file is found is yielded as `empty`. Whether a file is an export is decided
 * when it is read. A missing or unreadable path is yielded as skipped (`<path>: no such
 * file or folder`), never thrown; so is a named pipe, a device or a socket, given or in a
 * folder (`<path>: is a named pipe (FIFO), not an export file`), which is never opened.
 */
export async function* findExports(paths: readonly string[], options: { recursive?: boolean } = {}): AsyncGenerator<FoundPath> {
  const seen = { folders: new Set<string>(), files: new Set<string>() };
  let stdin = false;
  for (const path of paths) {
    if (path === "-") {
      if (!stdin) yield { kind: "file", path };
      stdin = true;
      continue;
    }
    let info: Stats;
    let real: string;
    try {
      info = await stat(path);
      real = await realpath(path);
    } catch (error) {
      yield { kind: "skipped", line: `${path}: ${errorText(error)}` };
      continue;
    }
    const special = specialKind(info);
    if (special !== null) {
      yield { kind: "skipped", line: notAFile(path, special) };
    } else if (info.isDirectory()) {
      const readBefore = seen.folders.has(real);
      let found = 0;
      for await (const item of folderFiles(path, real, options.recursive === true, seen)) {
        if (item.kind === "file") found += 1;
        yield item;
      }
      if (found === 0 && !readBefore) yield { kind: "empty", folder: path };
    } else if (!seen.files.has(real)) {
      seen.files.add(real);
      yield { kind: "file", path };
    }
  }
}

async function* folderFiles(
  folder: string,
  real: string,
  recursive: boolean,
  seen: { folders: Set<string>; files: Set<string> },
): AsyncGenerator<FoundPath> {
  if (seen.folders.has(real)) return;
  seen.folders.add(real);
  let entries;
  try {
    entries = await readdir(folder, { withFileTypes: true });
  } catch (error) {
    yield { kind: "skipped", line: `${folder}: ${errorText(error)}` };
    return;
  }
  entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  for (const entry of entries) {
    if (entry.name.startsWith(".")) continue;
    const path = join(folder, entry.name);
    let info: Stats | Dirent = entry;
    let target = join(real, entry.name);
    if (entry.isSymbolicLink()) {
      try {
        info = await stat(path);
        target = await realpath(path);
      } catch (error) {
        yield { kind: "skipped", line: `${path}: ${errorText(error)}` };
        continue;
      }
    }
    const isDirectory = info.isDirectory();
    const isFile = info.isFile();
    const special = specialKind(info);
    if (special !== null) {
      yield { kind: "skipped", line: notAFile(path, special) };
    } else if (isDirectory) {
      if (recursive) yield* folderFiles(path, target, true, seen);
    } else if (isFile && !seen.files.has(target)) {
      seen.files.add(target);
      yield { kind: /\.jsonl?$/.test(entry.name.toLowerCase()) ? "file" : "passed", path };
    }
  }
}

/** The skipped line of a path that is not a regular file: `<path>: is a named pipe (FIFO), not an export file`. */
const notAFile = (path: string, kind: string): string => `${path}: is ${kind}, not an export file`;

function errorText(error: unknown): string {
  const code = (error as NodeJS.ErrnoException).code;
  if (code === "ENOENT") return "no such file or folder";
  if (code === "EACCES") return "permission denied";
  if (code === "ELOOP") return "a symbolic link loop";
  return `cannot be read (${code ?? (error as Error).message})`;
}
