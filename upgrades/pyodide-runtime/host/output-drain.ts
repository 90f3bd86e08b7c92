/**
 * Output of one worker, host side: what each run in flight printed (the tail a result keeps) and
 * the draining of the shared output ring into `python:stdout` / `python:stderr` events.
 */
import type { ArmatureEvents } from '../../../src/kernel/events.ts';
import { OUTPUT_KIND, OutputRingReader } from '../../../src/bridge/output-ring.ts';

/** stdout/stderr of one run in flight: the chunks (a bounded tail) and their total characters. */
export interface RunOutput {
  stdout: string[];
  stderr: string[];
  chars: [number, number];
}

/** Whom output belongs to: the request id and the run id its events carry. */
interface Owner {
  id: string;
  runId: string;
}

/** What an {@link OutputDrain} needs from the runtime. */
export interface OutputDrainOptions {
  emit(type: 'python:stdout' | 'python:stderr', payload: ArmatureEvents['python:stdout']): void;
  /** Most characters of each stream a run keeps. */
  maxChars: number;
  /** Drain the ring at most this often while output keeps coming, in ms. */
  flushMs: number;
  /** The shared output ring, when shared memory is available. */
  ring?: SharedArrayBuffer;
  /** Whether the worker is still alive (timers of a dead worker do nothing). */
  alive(): boolean;
}

/** Output of one worker: runs in flight and, with shared memory, the ring's reader. */
export class OutputDrain {
  private readonly runs = new Map<string, RunOutput>();
  private readonly ring?: {
    reader: OutputRingReader;
    decoders: { stdout: TextDecoder; stderr: TextDecoder };
    /** Whom the output belongs to, as the worker's marks say. */
    owner: Owner;
    last: number;
    timer?: ReturnType<typeof setTimeout>;
    /** Where a drain gathers the bytes it decodes. */
    scratch: Uint8Array;
  };

  constructor(private readonly o: OutputDrainOptions) {
    if (o.ring) {
      this.ring = {
        reader: new OutputRingReader(o.ring),
        decoders: { stdout: new TextDecoder(), stderr: new TextDecoder() },
        owner: { id: 'init', runId: 'init' },
        last: 0,
        scratch: new Uint8Array(64 * 1024),
      };
    }
  }

  /** Run ids of the requests being tracked: the only ones output events may carry (besides start-up's). */
  private readonly runIds = new Map<string, string>();

  /** Starts keeping the output of request `id` (run `runId`); the returned record fills as output arrives. */
  track(id: string, runId: string): RunOutput {
    const out: RunOutput = { stdout: [], stderr: [], chars: [0, 0] };
    this.runs.set(id, out);
    this.runIds.set(id, runId);
    return out;
  }

  /** Stops keeping the output of request `id`. */
  untrack(id: string): void {
    this.runs.delete(id);
    this.runIds.delete(id);
  }

  /**
   * Records output of request `id` and emits it as `python:stdout` / `python:stderr`, with the run
   * id the host gave that request: the worker's word for it is not taken, so output can never be
   * attributed to another run. Output of no tracked request counts as start-up output.
   */
  deliver(id: string, _claimedRunId: string, stream: 'stdout' | 'stderr', chunk: string): void {
    const runId = this.runIds.get(id) ?? 'init';
    const out = this.runs.get(id);
    if (out) {
      const i = stream === 'stdout' ? 0 : 1;
      const list = i === 0 ? out.stdout : out.stderr;
      list.push(chunk);
      out.chars[i] += chunk.length;
      // Keep only the tail in memory; the events carry everything.
      while (out.chars[i] - list[0]!.length > this.o.maxChars && list.length > 1) out.chars[i] -= list.shift()!.length;
    }
    this.o.emit(stream === 'stdout' ? 'python:stdout' : 'python:stderr', { runId, chunk });
  }

  /**
   * Moves what waits in the output ring to `deliver`, one event per run and stream per drain
   * (consecutive records are joined, so a flood of prints is a few events, not one per line).
   * Unless `all`, a drain takes about 256 KB and leaves the rest to a drain in the next task, so
   * the page stays responsive while a flood is rendered.
   */
  drain(all = false): void {
    const d = this.ring;
    if (!d) return;
    clearTimeout(d.timer);
    d.timer = undefined;
    d.last = performance.now();
    const parts: { owner: Owner; stream: 'stdout' | 'stderr'; start: number; end: number }[] = [];
    let used = 0;
    const more = d.reader.drain((kind, payload) => {
      if (kind === OUTPUT_KIND.mark) {
        d.owner = JSON.parse(new TextDecoder().decode(payload.slice())) as Owner;
        return;
      }
      const stream = kind === OUTPUT_KIND.stdout ? 'stdout' : 'stderr';
      // Payloads are views of shared memory, valid during the call only: copied into one buffer
      // (a drain holds at most the ring's size), so each part is decoded once.
      if (used + payload.length > d.scratch.length) {
        const bigger = new Uint8Array(Math.max(d.scratch.length * 2, used + payload.length));
        bigger.set(d.scratch.subarray(0, used));
        d.scratch = bigger;
      }
      d.scratch.set(payload, used);
      const tail = parts[parts.length - 1];
      if (tail && tail.owner === d.owner && tail.stream === stream) tail.end = used + payload.length;
      else parts.push({ owner: d.owner, stream, start: used, end: used + payload.length });
      used += payload.length;
    }, all ? Infinity : 256 * 1024);
    if (more) d.timer = setTimeout(() => this.o.alive() && this.drain(), 0);
    for (const p of parts) {
      const text = d.decoders[p.stream].decode(d.scratch.subarray(p.start, p.end), { stream: true });
      if (text) this.deliver(p.owner.id, p.owner.runId, p.stream, text);
    }
  }

  /** Drains now, or at most every `flushMs` (a timer: it fires while Python computes). */
  schedule(urgent: boolean): void {
    const d = this.ring;
    if (!d || d.timer) {
      if (d && urgent) this.drain();
      return;
    }
    const wait = d.last + this.o.flushMs - performance.now();
    if (urgent || wait <= 0) this.drain();
    else d.timer = setTimeout(() => this.o.alive() && this.drain(), wait);
  }

  /** Stops the drain timer (the worker is gone). */
  stop(): void {
    clearTimeout(this.ring?.timer);
  }
}

/** The text a result keeps of a stream: everything, or the last `max` characters with a note. */
export function joinOutput(chunks: string[] | undefined, max: number): string {
  if (!chunks?.length) return '';
  const all = chunks.join('');
  return all.length <= max ? all : `[… ${all.length - max} earlier characters omitted; the python:stdout/stderr events carry everything]\n${all.slice(-max)}`;
}
