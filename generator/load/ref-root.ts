/**
 * Where local `$ref`s may read from. Without a bound, `$ref: ../../secret/creds.json` or
 * `/etc/passwd` in a contract someone else wrote is read and its content printed into types.ts.
 * Local refs are confined to one directory: by default the one holding the contract's root file
 * (a directory input is that directory), or the wider one the user names (`refRoot`,
 * `--ref-root`). The check is lexical first, so nothing outside is even looked at, then with
 * symlinks resolved, so a link inside that points out counts as outside.
 */
import { realpath } from 'node:fs/promises';
import path from 'node:path';

export interface RefRoot {
  /** Absolute, as written. */
  readonly dir: string;
  /** With symlinks resolved (equal to `dir` when it cannot be resolved). */
  readonly real: string;
  /** How messages name it. */
  readonly display: string;
}

async function real(file: string): Promise<string | undefined> {
  try {
    return await realpath(file);
  } catch {
    return undefined;
  }
}

/** True when `file` is `dir` or below it. */
export function isInside(dir: string, file: string): boolean {
  const rel = path.relative(dir, file);
  return rel === '' || (rel !== '..' && !rel.startsWith(`..${path.sep}`) && !path.isAbsolute(rel));
}

/**
 * The root for a contract whose root document is `rootId` (absolute path or URL), shown as
 * `rootDisplay`. A remote root without `option` gets none: its local refs are all refused.
 */
export async function refRoot(
  rootId: string,
  rootDisplay: string,
  remote: boolean,
  option?: string,
): Promise<RefRoot | undefined> {
  if (option === undefined && remote) return undefined;
  const dir = option === undefined ? path.dirname(rootId) : path.resolve(option);
  const display = option === undefined ? path.dirname(rootDisplay) : option;
  return { dir, real: (await real(dir)) ?? dir, display };
}

/** True when the local file `id` is outside `root` (lexically, or once symlinks are resolved). */
export async function outsideRoot(root: RefRoot | undefined, id: string): Promise<boolean> {
  if (root === undefined || !isInside(root.dir, id)) return true;
  const resolved = await real(id);
  // A missing file is inside as far as can be told; reading it reports file_not_found.
  return resolved !== undefined && !isInside(root.real, resolved);
}
