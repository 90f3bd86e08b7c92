/** One measured number. Every bench file's `run()` resolves to a list of these. */
export interface BenchRow {
  /** Which benchmark file / area, e.g. `tool-runner`. */
  suite: string;
  /** What was measured, e.g. `executeTool p50 (validated)`. */
  name: string;
  value: number;
  unit: string;
  /** Smallest and largest sample, when `value` is a median of several. */
  range?: [number, number];
  /** The target from the issue, in words, e.g. `<= 1 ms`. */
  target?: string;
  /** Whether `value` meets `target`. */
  pass?: boolean;
}

/** A row for the median of `samples`, with their range. */
export function medianRow(suite: string, name: string, samples: readonly number[], unit: string, target?: { text: string; pass(median: number): boolean }): BenchRow {
  const value = percentile(samples, 50);
  const row: BenchRow = { suite, name, value, unit, range: [Math.min(...samples), Math.max(...samples)] };
  if (target) {
    row.target = target.text;
    row.pass = target.pass(value);
  }
  return row;
}

/** Percentile `p` (0..100) of `values` (nearest rank). */
export function percentile(values: readonly number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))] ?? NaN;
}
