/** Removes every .js/.d.ts file of `dist` that `entries` (paths inside `dist`) never load; returns them. */
export function pruneDist(dist: string, entries: readonly string[]): string[];
