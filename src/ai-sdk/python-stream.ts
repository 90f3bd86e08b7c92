/**
 * `execute_python` for the AI SDK as an async iterable: while the code runs, each batch of output
 * becomes a preliminary tool result (streamText's `tool-result` parts with `preliminary: true`,
 * what AI SDK UI shows as the tool's progress); the last value is the result the model gets.
 */
import type { ArmatureSystem } from '../kernel/boot/boot.ts';
import type { ExecuteOptions } from '../kernel/tool-contract.ts';
import { toModelResult } from '../contracts/offered-tools.ts';

/** A preliminary result of `execute_python`: the output so far (its last `maxChars` characters each). */
export interface PythonProgress {
  status: 'running';
  stdout: string;
  stderr: string;
}

/** The last `max` characters of `text`. */
function tail(text: string, max: number): string {
  return text.length <= max ? text : text.slice(text.length - max);
}

/**
 * Runs `execute_python` with `input` through the ToolRunner under `options.callId` (which becomes
 * the run's id in `python:stdout` / `python:stderr`), yielding a {@link PythonProgress} after each
 * batch of output that arrives while it runs, then the model's result. Nothing is yielded for a
 * run that prints nothing but the result. Never throws for a failed run: that is `{ ok: false }`.
 */
export async function* streamPythonRun(
  system: Pick<ArmatureSystem, 'bus' | 'tools'>,
  input: unknown,
  options: ExecuteOptions & { callId: string },
  maxChars: number,
): AsyncGenerator<PythonProgress | Record<string, unknown>, void> {
  const output = { stdout: '', stderr: '' };
  let changed = false;
  let settled = false;
  let wake: (() => void) | undefined;
  const onChunk = (stream: 'stdout' | 'stderr') => (p: { runId: string; chunk: string }) => {
    if (p.runId !== options.callId) return;
    // Only the tail is ever shown: keep no more of a long run's output than that.
    output[stream] = tail(output[stream] + p.chunk, maxChars);
    changed = true;
    wake?.();
  };
  const subscriptions = [system.bus.on('python:stdout', onChunk('stdout')), system.bus.on('python:stderr', onChunk('stderr'))];
  try {
    const call = system.tools.executeTool('execute_python', input, options).finally(() => {
      settled = true;
      wake?.();
    });
    while (!settled) {
      await new Promise<void>((resolve) => {
        wake = resolve;
        if (changed || settled) resolve();
      });
      wake = undefined;
      if (changed && !settled) {
        changed = false;
        yield { status: 'running', stdout: output.stdout, stderr: output.stderr };
      }
    }
    yield toModelResult('execute_python', await call, maxChars);
  } finally {
    for (const s of subscriptions) s.dispose();
  }
}
