import type { EventRecord } from '../../src/kernel/event-bus.ts';
import type { AgentStopReason, AgentUsage, RunError, TranscriptEntry } from '../../src/contracts/agent-contract.ts';

/** One tool call as the panel shows it. */
export interface ToolCallView {
  toolCallId: string;
  name: string;
  args: unknown;
  pythonRunId?: string;
  /** Python output of an `execute_python` call, live (bounded to its last {@link OUTPUT_LIMIT} characters). */
  output: { stream: 'stdout' | 'stderr'; text: string }[];
  outputChars: number;
  /** Characters dropped from the front of `output`. */
  outputDropped: number;
  running: boolean;
  ok?: boolean;
  durationMs?: number;
  result?: unknown;
}

/** One model step: its text and its tool calls. */
export interface StepView {
  step: number;
  text: string;
  calls: ToolCallView[];
}

/** One goal and what followed it. */
export interface TurnView {
  goal: string;
  steps: StepView[];
  /** Failed requests announced while the turn ran ("HTTP 429; retrying"). */
  notices: string[];
  finished?: { reason: AgentStopReason; steps: number; usage: AgentUsage; error?: RunError };
}

/** A run as the panel shows it. */
export interface RunView {
  runId: string;
  turns: TurnView[];
  running: boolean;
  /** Tokens over every finished turn. */
  usage: AgentUsage;
}

/** Python output kept per call on screen, in characters. */
export const OUTPUT_LIMIT = 20_000;

/** The events {@link applyEvent} reads. */
export const VIEW_EVENTS = ['agent:run-started', 'agent:text-delta', 'agent:tool-called', 'agent:tool-finished', 'agent:request-failed', 'agent:run-finished', 'python:stdout', 'python:stderr'] as const;

/** An empty view of `runId`. */
export const emptyView = (runId: string): RunView => ({ runId, turns: [], running: false, usage: { inputTokens: 0, outputTokens: 0 } });

const stepOf = (turn: TurnView, step: number): StepView => {
  let s = turn.steps.find((x) => x.step === step);
  if (!s) turn.steps.push((s = { step, text: '', calls: [] }));
  return s;
};

const newCall = (toolCallId: string, name: string, args: unknown, pythonRunId?: string): ToolCallView => ({
  toolCallId,
  name,
  args,
  ...(pythonRunId ? { pythonRunId } : {}),
  output: [],
  outputChars: 0,
  outputDropped: 0,
  running: true,
});

function appendOutput(call: ToolCallView, stream: 'stdout' | 'stderr', chunk: string): void {
  const last = call.output.at(-1);
  if (last?.stream === stream) last.text += chunk;
  else call.output.push({ stream, text: chunk });
  call.outputChars += chunk.length;
  // Keep the tail: a loop printing a million lines must not grow the page without bound.
  while (call.outputChars > OUTPUT_LIMIT && call.output.length) {
    const first = call.output[0]!;
    const excess = call.outputChars - OUTPUT_LIMIT;
    if (first.text.length <= excess) {
      call.output.shift();
      call.outputChars -= first.text.length;
      call.outputDropped += first.text.length;
    } else {
      first.text = first.text.slice(excess);
      call.outputChars -= excess;
      call.outputDropped += excess;
    }
  }
}

/**
 * Updates `view` with one event of its run (events of other runs are ignored; Python output
 * counts when it belongs to one of the view's `execute_python` calls). Returns whether it changed.
 */
export function applyEvent(view: RunView, record: EventRecord): boolean {
  const p = record.payload as { runId?: string };
  if (record.type === 'python:stdout' || record.type === 'python:stderr') {
    const { runId, chunk } = record.payload as { runId: string; chunk: string };
    const turn = view.turns.at(-1);
    const call = turn?.steps.flatMap((s) => s.calls).find((c) => c.pythonRunId === runId);
    if (!call) return false;
    appendOutput(call, record.type === 'python:stdout' ? 'stdout' : 'stderr', chunk);
    return true;
  }
  if (p.runId !== view.runId) return false;
  const turn = view.turns.at(-1);
  switch (record.type) {
    case 'agent:run-started': {
      const e = record.payload as { goal: string };
      view.turns.push({ goal: e.goal, steps: [], notices: [] });
      view.running = true;
      return true;
    }
    case 'agent:text-delta': {
      const e = record.payload as { step: number; delta: string };
      if (turn) stepOf(turn, e.step).text += e.delta;
      return !!turn;
    }
    case 'agent:tool-called': {
      const e = record.payload as { step: number; toolCallId: string; name: string; args: unknown; pythonRunId?: string };
      if (turn) stepOf(turn, e.step).calls.push(newCall(e.toolCallId, e.name, e.args, e.pythonRunId));
      return !!turn;
    }
    case 'agent:tool-finished': {
      const e = record.payload as { step: number; toolCallId: string; ok: boolean; durationMs: number; result: unknown };
      const call = turn && stepOf(turn, e.step).calls.find((c) => c.toolCallId === e.toolCallId);
      if (!call) return false;
      Object.assign(call, { running: false, ok: e.ok, durationMs: e.durationMs, result: e.result });
      return true;
    }
    case 'agent:request-failed': {
      const e = record.payload as { message: string; attempt: number; willRetry: boolean };
      turn?.notices.push(`The model request failed (${e.message})${e.willRetry ? `; retrying (attempt ${e.attempt})` : ''}.`);
      return !!turn;
    }
    case 'agent:run-finished': {
      const e = record.payload as { reason: AgentStopReason; steps: number; usage: AgentUsage; error?: RunError };
      if (turn) turn.finished = { reason: e.reason, steps: e.steps, usage: e.usage, ...(e.error ? { error: e.error } : {}) };
      for (const c of turn?.steps.flatMap((s) => s.calls) ?? []) c.running = false;
      view.running = false;
      view.usage = { inputTokens: view.usage.inputTokens + e.usage.inputTokens, outputTokens: view.usage.outputTokens + e.usage.outputTokens };
      return true;
    }
    default:
      return false;
  }
}

/** The view of a run read back from its transcript (a reopened run, or after a reload). */
export function viewFromTranscript(runId: string, entries: readonly TranscriptEntry[]): RunView {
  const view = emptyView(runId);
  for (const e of entries) {
    const turn = view.turns.at(-1);
    if (e.type === 'started') view.turns.push({ goal: e.goal, steps: [], notices: [] });
    else if (e.type === 'assistant' && turn) stepOf(turn, e.step).text = e.text;
    else if (e.type === 'tool' && turn) {
      const call = newCall(e.toolCallId, e.name, e.args, e.pythonRunId);
      // execute_python's output: in value on success, in error.details on failure.
      const r = e.result as { value?: { stdout?: unknown; stderr?: unknown }; error?: { details?: { stdout?: unknown; stderr?: unknown } } } | undefined;
      const out = e.name === 'execute_python' ? (r?.value ?? r?.error?.details) : undefined;
      if (typeof out?.stdout === 'string' && out.stdout) appendOutput(call, 'stdout', out.stdout);
      if (typeof out?.stderr === 'string' && out.stderr) appendOutput(call, 'stderr', out.stderr);
      Object.assign(call, { running: false, ok: e.ok, durationMs: e.durationMs, result: e.result });
      stepOf(turn, e.step).calls.push(call);
    } else if (e.type === 'finished' && turn) {
      turn.finished = { reason: e.reason, steps: e.steps, usage: e.usage, ...(e.error ? { error: e.error } : {}) };
      view.usage = { inputTokens: view.usage.inputTokens + e.usage.inputTokens, outputTokens: view.usage.outputTokens + e.usage.outputTokens };
    }
  }
  return view;
}
