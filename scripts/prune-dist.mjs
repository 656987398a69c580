// Removes from a build folder every .js and .d.ts file its entry points never load (statically or by
// a literal dynamic import): the package's export map makes them unreachable, so they only weigh on
// the tarball (e.g. the CLI's declarations, which no API type refers to).
import { existsSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import path from 'node:path';

const IMPORT = /(?:from\s+|import\s*\(\s*)["'](\.[^"']+)["']/g;

function walk(dir, out = []) {
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const file = path.join(dir, entry.name);
    if (entry.isDirectory()) walk(file, out);
    else if (file.endsWith('.js') || file.endsWith('.d.ts')) out.push(file);
  }
  return out;
}

/** `entries`: files inside `dist` (both `x.js` and `x.d.ts` are kept for each). Returns the removed files. */
export function pruneDist(dist, entries) {
  const keep = new Set();
  const queue = entries.flatMap((entry) => [
    path.join(dist, entry),
    path.join(dist, entry.replace(/\.js$/, '.d.ts')),
  ]);
  for (let file = queue.shift(); file !== undefined; file = queue.shift()) {
    if (keep.has(file) || !existsSync(file)) continue;
    keep.add(file);
    for (const match of readFileSync(file, 'utf8').matchAll(IMPORT)) {
      const target = path.join(path.dirname(file), match[1]);
      queue.push(file.endsWith('.d.ts') ? target.replace(/\.js$/, '.d.ts') : target);
    }
  }
  const removed = walk(dist).filter((file) => !keep.has(file));
  for (const file of removed) rmSync(file);
  return removed;
}

/** The `.js` files (paths inside `dist`) that a package.json's `exports` map points at, every condition included. */
export function exportedEntries(packageJson) {
  const found = new Set();
  const visit = (value) => {
    if (typeof value === 'string') {
      if (value.startsWith('./dist/') && value.endsWith('.js')) found.add(value.slice('./dist/'.length));
    } else if (value !== null && typeof value === 'object') {
      for (const inner of Object.values(value)) visit(inner);
    }
  };
  visit(packageJson.exports);
  return [...found].sort();
}
