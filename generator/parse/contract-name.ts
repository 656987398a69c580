/** Contract names: the root file's basename without `.yaml/.yml/.json`, kebab-cased. */
import path from 'node:path';

export function contractName(file: string): string {
  const base = path.basename(file).replace(/\.(ya?ml|json)$/i, '');
  const kebab = base
    .replace(/([a-z0-9])([A-Z])/g, '$1-$2')
    .replace(/([A-Z]+)([A-Z][a-z])/g, '$1-$2')
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '');
  return kebab === '' ? 'contract' : kebab;
}
