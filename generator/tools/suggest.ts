/** "Did you mean": the candidates nearest a mistyped name by edit distance (case-insensitive). */

function distance(a: string, b: string): number {
  const row = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    let previous = row[0] as number;
    row[0] = i;
    for (let j = 1; j <= b.length; j++) {
      const current = row[j] as number;
      row[j] = Math.min(
        (row[j] as number) + 1,
        (row[j - 1] as number) + 1,
        previous + (a[i - 1] === b[j - 1] ? 0 : 1),
      );
      previous = current;
    }
  }
  return row[b.length] as number;
}

/**
 * Up to `limit` candidates within an edit distance of a third of the name's length (at least 2),
 * nearest first; a candidate containing the name (or contained in it) also counts.
 */
export function nearest(name: string, candidates: readonly string[], limit = 3): string[] {
  const wanted = name.toLowerCase();
  const budget = Math.max(2, Math.floor(wanted.length / 3));
  return candidates
    .map((candidate) => {
      const lower = candidate.toLowerCase();
      const d = distance(wanted, lower);
      const contains = wanted.length >= 3 && (lower.includes(wanted) || wanted.includes(lower));
      return { candidate, d: contains ? Math.min(d, budget) : d };
    })
    .filter((c) => c.d <= budget)
    .sort((a, b) => a.d - b.d || (a.candidate < b.candidate ? -1 : 1))
    .slice(0, limit)
    .map((c) => c.candidate);
}
