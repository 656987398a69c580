/** Removes every .js/.d.ts file of `dist` that `entries` (paths inside `dist`) never load; returns them. */
export function pruneDist(dist: string, entries: readonly string[]): string[];
/** The `.js` files (paths inside `dist`) that a package.json's `exports` map points at, every condition included. */
export function exportedEntries(packageJson: { readonly exports?: unknown }): string[];
