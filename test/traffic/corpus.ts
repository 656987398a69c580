/**
 * Where the shared third-party corpus is: `$GEN_WEBHOOKS_CORPUS` when set, else `../shared/corpus`
 * beside the repository (as CI checks it out). Under `CI=true` a missing corpus is an error, never a
 * skipped test.
 */
import { existsSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

export function findCorpus(): string | undefined {
  const candidates = [process.env.GEN_WEBHOOKS_CORPUS, path.resolve(repoRoot, '../shared/corpus')];
  const found = candidates.find((dir): dir is string => dir !== undefined && dir !== '' && existsSync(dir));
  if (found === undefined && process.env.CI === 'true') {
    throw new Error(`the corpus is missing: set GEN_WEBHOOKS_CORPUS or check it out at ${candidates[1]}`);
  }
  return found;
}

/** Every `*.yaml|*.yml|*.json` under `dir`, as paths relative to it, sorted. */
export function corpusFiles(dir: string, prefix = ''): string[] {
  const out: string[] = [];
  for (const entry of readdirSync(path.join(dir, prefix), { withFileTypes: true })) {
    const rel = prefix === '' ? entry.name : `${prefix}/${entry.name}`;
    if (entry.isDirectory()) out.push(...corpusFiles(dir, rel));
    else if (/\.(ya?ml|json)$/i.test(entry.name)) out.push(rel);
  }
  return out.sort();
}
