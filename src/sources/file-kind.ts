/**
 * What kind of file a path is, from its stat: a module of its own, without node:fs/promises,
 * so that reading one export (sources/export.ts) does not load what listing folders needs.
 */
import type { Dirent, Stats } from "node:fs";

/**
 * What a path that is neither a regular file nor a folder is, in words (`a named pipe (FIFO)`,
 * `a character device`, `a block device`, `a socket`), or null for a regular file or a
 * folder. Only regular files are read: opening a FIFO waits for a writer (a thread that no
 * signal frees), and a device such as /dev/zero never ends (its size reads as 0).
 */
export function specialKind(info: Stats | Dirent): string | null {
  if (info.isFile() || info.isDirectory()) return null;
  if (info.isFIFO()) return "a named pipe (FIFO)";
  if (info.isCharacterDevice()) return "a character device";
  if (info.isBlockDevice()) return "a block device";
  if (info.isSocket()) return "a socket";
  return "not a regular file";
}
