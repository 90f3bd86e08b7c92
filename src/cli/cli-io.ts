import { terminalText } from './terminal/terminal-text.ts';

/**
 * How the command line writes: its two streams behind one small interface (tests pass their own),
 * and plain-text tables. Every command's module imports it from here.
 */

/** Output sinks, replaceable in tests. */
export interface CliIo {
  out(text: string): void;
  err(text: string): void;
  /** Raw stdout/stderr, for streamed Python output. */
  write(stream: 'stdout' | 'stderr', text: string): void;
  /**
   * The CLI's own control sequences (a progress bar's `\r`), which never carry data: `main` passes
   * every other write through `terminalText`. Default: `write`.
   */
  control?(stream: 'stdout' | 'stderr', text: string): void;
  /** Whether stderr is a terminal (progress bars only there). */
  isTTY: boolean;
}

/** The process's own stdout and stderr. */
export const processIo: CliIo = {
  out: (t) => process.stdout.write(t + '\n'),
  err: (t) => process.stderr.write(t + '\n'),
  write: (stream, t) => (stream === 'stdout' ? process.stdout : process.stderr).write(t),
  isTTY: !!process.stderr.isTTY,
};

/**
 * `io` with everything written through it passed through {@link terminalText} (what an agent, a
 * model or Python produced shows its control characters instead of acting on the terminal),
 * except what the CLI itself writes with `control`.
 */
export function terminalIo(io: CliIo): CliIo {
  return {
    out: (t) => io.out(terminalText(t)),
    err: (t) => io.err(terminalText(t)),
    write: (stream, t) => io.write(stream, terminalText(t)),
    control: (stream, t) => (io.control ?? io.write)(stream, t),
    isTTY: io.isTTY,
  };
}

/**
 * Rows as a plain-text table under a header and a rule, each column as wide as its widest cell.
 * Cells are shown as {@link terminalText} shows them, so a control character cannot skew a column.
 */
export function table(head: string[], cells: string[][]): string {
  const rows = cells.map((r) => r.map(terminalText));
  const widths = head.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] ?? '').length)));
  const line = (cells: string[]) => cells.map((c, i) => (i === cells.length - 1 ? c : c.padEnd(widths[i]!))).join('  ');
  return [line(head), line(widths.map((w) => '-'.repeat(w))), ...rows.map(line)].join('\n');
}
