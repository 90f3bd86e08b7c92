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

/** Percentile `p` (0..100) of `values` (nearest rank). */
export function percentile(values: readonly number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))] ?? NaN;
}
