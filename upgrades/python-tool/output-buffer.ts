/**
 * Output of one console: everything is kept for download, but only the last `windowLines` lines
 * are kept ready to render, grouped into runs of the same stream. Appending is O(chunk), never
 * O(total), so 100,000 lines cost no more per chunk than 10.
 */

/** A run of consecutive lines from one stream. */
export interface Segment {
  stream: 'stdout' | 'stderr';
  text: string;
}

export class OutputBuffer {
  /** Every chunk, for the full log. */
  private readonly all: Segment[] = [];
  /** Lines in the window, oldest first. */
  private lines: { stream: 'stdout' | 'stderr'; text: string }[] = [];
  /** A partial last line per stream (no newline yet). */
  private partial: Record<'stdout' | 'stderr', string> = { stdout: '', stderr: '' };
  private totalLines = 0;
  private totalChars = 0;

  /** @param windowLines How many recent lines to keep for rendering. Default: 2000. */
  constructor(readonly windowLines = 2000) {}

  append(stream: 'stdout' | 'stderr', chunk: string): void {
    if (!chunk) return;
    this.all.push({ stream, text: chunk });
    this.totalChars += chunk.length;
    const parts = (this.partial[stream] + chunk).split('\n');
    this.partial[stream] = parts.pop()!;
    for (const text of parts) this.lines.push({ stream, text });
    this.totalLines += parts.length;
    // Trim in bulk now and then rather than shifting on every line.
    if (this.lines.length > this.windowLines * 2) this.lines = this.lines.slice(-this.windowLines);
  }

  /** Lines not shown because they scrolled out of the window. */
  get hiddenLines(): number {
    return Math.max(0, this.totalLines - Math.min(this.lines.length, this.windowLines));
  }

  get lineCount(): number {
    return this.totalLines + (this.partial.stdout ? 1 : 0) + (this.partial.stderr ? 1 : 0);
  }

  get charCount(): number {
    return this.totalChars;
  }

  /** The window as segments of consecutive same-stream lines (partial lines last). */
  segments(): Segment[] {
    const view = this.lines.length > this.windowLines ? this.lines.slice(-this.windowLines) : this.lines;
    const out: Segment[] = [];
    const push = (stream: 'stdout' | 'stderr', text: string) => {
      const last = out[out.length - 1];
      if (last && last.stream === stream) last.text += text;
      else out.push({ stream, text });
    };
    for (const l of view) push(l.stream, `${l.text}\n`);
    if (this.partial.stdout) push('stdout', this.partial.stdout);
    if (this.partial.stderr) push('stderr', this.partial.stderr);
    return out;
  }

  /** Everything, with stderr lines marked, for the download. */
  fullLog(): string {
    return this.all.map((s) => (s.stream === 'stderr' ? s.text.replace(/^(?=.)/gm, '[stderr] ') : s.text)).join('');
  }

  clear(): void {
    this.all.length = 0;
    this.lines = [];
    this.partial = { stdout: '', stderr: '' };
    this.totalLines = 0;
    this.totalChars = 0;
  }
}
