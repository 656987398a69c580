/**
 * Writing SDK package folders. A package folder is also where its author runs `npm install`, keeps
 * a lockfile or adds notes, so it is not swapped as a whole the way a module folder is: src/ and
 * dist/ are ours and swapped atomically (stale files in them go), each other file we generate is
 * replaced atomically on its own, and nothing else in the folder is touched.
 */
import { existsSync, mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { GeneratorError } from '../../errors.js';
import { diffOutput, type FileChange, type FolderDiff, type OutputFolder, writeOutput } from '../../write.js';

/** Sub-folders a package's generation owns entirely. */
const OWNED = ['src', 'dist'] as const;

function split(files: ReadonlyMap<string, string>): { owned: OutputFolder[]; loose: [string, string][] } {
  const owned = OWNED.map((folder) => ({ folder, files: new Map<string, string>() }));
  const loose: [string, string][] = [];
  for (const [rel, text] of files) {
    const slash = rel.indexOf('/');
    const target = slash < 0 ? undefined : owned.find((o) => o.folder === rel.slice(0, slash));
    if (target) target.files.set(rel.slice(slash + 1), text);
    else loose.push([rel, text]);
  }
  return { owned, loose };
}

function read(file: string): string | undefined {
  try {
    return readFileSync(file, 'utf8');
  } catch {
    return undefined;
  }
}

function looseChanges(
  dir: string,
  loose: readonly [string, string][],
): { path: string; change: FileChange }[] {
  const changes: { path: string; change: FileChange }[] = [];
  for (const [rel, text] of loose) {
    const current = read(path.join(dir, ...rel.split('/')));
    if (current !== text) changes.push({ path: rel, change: current === undefined ? 'added' : 'changed' });
  }
  return changes;
}

/** What writing `files` into the package folder `dir` would change (paths relative to `dir`), sorted. */
export function diffPackage(dir: string, files: ReadonlyMap<string, string>): FolderDiff['changes'] {
  const { owned, loose } = split(files);
  const changes = [...diffOutput(dir, owned).flatMap((d) => d.changes), ...looseChanges(dir, loose)];
  return changes.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
}

/** Writes the package folder; returns what changed. */
export function writePackage(dir: string, files: ReadonlyMap<string, string>): FolderDiff['changes'] {
  const changes = diffPackage(dir, files);
  if (changes.length === 0) return changes;
  const { owned, loose } = split(files);
  writeOutput(dir, owned);
  for (const [rel, text] of loose) {
    const file = path.join(dir, ...rel.split('/'));
    if (read(file) === text) continue;
    const temp = `${file}.gen-webhooks-tmp`;
    try {
      mkdirSync(path.dirname(file), { recursive: true });
      writeFileSync(temp, text);
      renameSync(temp, file);
    } catch (error) {
      if (existsSync(temp)) rmSync(temp, { force: true });
      throw new GeneratorError('write_failed', `cannot write ${rel}: ${(error as Error).message}`, {
        file,
        cause: error,
      });
    }
  }
  return changes;
}
