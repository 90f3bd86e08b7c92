/**
 * stdout/stderr inside the worker, and which run they belong to. With shared memory the bytes go
 * into the output ring as Python writes them (the host drains it on its own clock, even while
 * Python computes); otherwise they are decoded incrementally and posted as `stream` messages.
 */
import { OUTPUT_KIND, OutputRingWriter } from '../../../src/bridge/output-ring.ts';
import type { Port } from './port.ts';

/** A request and the run id its output events carry. */
export interface RunOwner {
  id: string;
  runId: string;
}

/** Output outside a run (e.g. during start-up) is attributed to the start-up request. */
const STARTUP: RunOwner = { id: 'init', runId: 'init' };

/** One stream without a ring: posted every `flushMs` or 64 KB, before `time.sleep`, and at the end of a run. */
class PostedStream {
  private readonly decoder = new TextDecoder('utf-8');
  private pending = '';
  private last = 0;
  constructor(
    private readonly name: 'stdout' | 'stderr',
    private readonly output: WorkerOutput,
  ) {}

  write(buf: Uint8Array): void {
    this.pending += this.decoder.decode(buf, { stream: true });
    const now = performance.now();
    if (this.pending.length >= 65536 || now - this.last >= this.output.flushMs) this.flush(now);
  }

  flush(now = performance.now()): void {
    this.last = now;
    if (!this.pending) return;
    const chunk = this.pending;
    this.pending = '';
    const run = this.output.run ?? STARTUP;
    this.output.port.post({ type: 'stream', id: run.id, runId: run.runId, stream: this.name, chunk });
  }
}

/** The worker's stdout and stderr, and the run they belong to. */
export class WorkerOutput {
  /** The run being executed; output outside one belongs to start-up. */
  run: RunOwner | undefined;
  /** Interval between posted batches, in ms (no ring only). */
  flushMs = 16;
  private ring: OutputRingWriter | undefined;
  /** Whom the host attributes ring output to: the last mark written (start-up until the first). */
  private marked: RunOwner = STARTUP;
  private readonly posted = { stdout: new PostedStream('stdout', this), stderr: new PostedStream('stderr', this) };

  constructor(readonly port: Port) {}

  /** Applies the `init` request's settings: the flush interval and, with shared memory, the ring. */
  configure(flushMs: number, ring?: SharedArrayBuffer): void {
    this.flushMs = flushMs;
    if (ring) {
      this.ring = new OutputRingWriter(ring, {
        ring: (full) => this.port.post(full ? { type: 'output-ready', id: 'output', full } : { type: 'output-ready', id: 'output' }),
      });
    }
  }

  /** Writes bytes Python sent to `stream`; returns how many were taken (all). */
  write(stream: 'stdout' | 'stderr', buf: Uint8Array): number {
    if (this.ring) {
      // A run that prints nothing writes no mark: the owner changes in the ring only when needed.
      const owner = this.run ?? STARTUP;
      if (owner !== this.marked) {
        this.ring.write(OUTPUT_KIND.mark, new TextEncoder().encode(JSON.stringify(owner)));
        this.marked = owner;
      }
      // The buffer may be a view of Pyodide's memory: the ring copies it at once.
      this.ring.write(OUTPUT_KIND[stream], buf);
    } else this.posted[stream].write(buf);
    return buf.length;
  }

  /** Posts what waits in the batches now (nothing to do with a ring: the host drains it). */
  flush(): void {
    this.posted.stdout.flush();
    this.posted.stderr.flush();
  }

  /**
   * Output after this belongs to `run` (start-up output when none). With a ring, the switch is
   * marked in it before the first output of the new owner, so it stays in order with the output.
   */
  setRun(run: RunOwner | undefined): void {
    this.run = run;
  }
}
