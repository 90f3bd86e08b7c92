/** Levenshtein distance between `a` and `b` (two rows, O(|a|·|b|) time, O(|b|) memory). */
export function editDistance(a: string, b: string): number {
  let prev = Array.from({ length: b.length + 1 }, (_, i) => i);
  for (let i = 1; i <= a.length; i++) {
    const row = [i];
    for (let j = 1; j <= b.length; j++) {
      row[j] = Math.min(prev[j]! + 1, row[j - 1]! + 1, prev[j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1));
    }
    prev = row;
  }
  return prev[b.length]!;
}

/** Longest value {@link closest} looks for suggestions for; nothing is that close to a longer one. */
export const MAX_SUGGEST_CHARS = 256;

/**
 * Up to `max` candidates closest to `value`: within an edit distance of a third of the longer
 * string (at least 2), or sharing a substring of 4+ characters, nearest first. Values longer than
 * {@link MAX_SUGGEST_CHARS} get none at once, and candidates whose length alone rules them out are
 * skipped before the quadratic distance, so the cost stays bounded whatever a caller sends.
 */
export function closest(value: string, candidates: Iterable<string>, max = 3): string[] {
  if (value.length > MAX_SUGGEST_CHARS) return [];
  const v = value.toLowerCase();
  const scored: { c: string; d: number }[] = [];
  for (const c of candidates) {
    if (c.length > MAX_SUGGEST_CHARS) continue;
    const lc = c.toLowerCase();
    const limit = Math.max(2, Math.floor(Math.max(v.length, lc.length) / 3));
    const shares = v.length >= 4 && (lc.includes(v) || v.includes(lc));
    // The edit distance is at least the difference in length: skip the quadratic part when that rules it out.
    if (!shares && Math.abs(v.length - lc.length) > limit) continue;
    const d = editDistance(v, lc);
    if (d <= limit || shares) scored.push({ c, d: shares ? Math.min(d, limit) : d });
  }
  return scored.sort((x, y) => x.d - y.d || x.c.localeCompare(y.c)).slice(0, max).map((s) => s.c);
}
