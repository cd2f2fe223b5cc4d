// "Did you mean …?": the closest known name by edit distance.

function editDistance(a: string, b: string): number {
  const row = Array.from({ length: b.length + 1 }, (_v, i) => i);
  for (let i = 1; i <= a.length; i++) {
    let diagonal = row[0] as number;
    row[0] = i;
    for (let j = 1; j <= b.length; j++) {
      const above = row[j] as number;
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      row[j] = Math.min(above + 1, (row[j - 1] as number) + 1, diagonal + cost);
      diagonal = above;
    }
  }
  return row[b.length] as number;
}

/** The closest candidate, or undefined when nothing is close enough to be a plausible typo. */
export function closestName(input: string, candidates: readonly string[]): string | undefined {
  let best: { name: string; score: number } | undefined;
  for (const name of candidates) {
    const prefix = name.startsWith(input) || input.startsWith(name);
    const score = prefix ? Math.min(1, editDistance(input, name)) : editDistance(input, name);
    if (!best || score < best.score) best = { name, score };
  }
  if (!best) return undefined;
  return best.score <= Math.max(2, Math.floor(input.length / 3)) ? best.name : undefined;
}
