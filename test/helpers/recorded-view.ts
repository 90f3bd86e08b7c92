// A SystemView fed by the test: event records (tagged with a process or not) delivered as a view
// attached to another system receives them, status snapshots the test sets, and tool calls
// answered by the test (and recorded). For rendering tests of widgets against what a system
// reports, with no system behind it; the real systems drive the same widgets in the dashboard,
// agent-panel and end-to-end suites.
import type { AnyEventRecord } from '../../src/kernel/event-bus.ts';
import type { ArmatureEvents, ArmatureEventType } from '../../src/kernel/events.ts';
import type { ModuleReport } from '../../src/kernel/boot/loader.ts';
import type { ToolDeclaration } from '../../src/kernel/manifest-schemas.ts';
import type { ToolResult } from '../../src/kernel/tool-contract.ts';
import { createRecordFeed, type RecordFeed } from '../../src/view/record-feed.ts';
import type { ProcessInfo, SystemView, ViewCallOptions } from '../../src/view/system-view.ts';

/** One tool call a widget made. */
export interface RecordedCall {
  name: string;
  args: Record<string, unknown>;
  options: ViewCallOptions;
}

/** What answers a widget's call: a value (ok), a failure, or a ToolResult. */
export type Answer = (call: RecordedCall) => unknown | Promise<unknown>;

export interface RecordedView extends SystemView {
  readonly feed: RecordFeed;
  /** Every call the widgets made, in order. */
  readonly calls: RecordedCall[];
  /** Delivers an event as the system emitted it; `process` tags it as another process's. */
  emit<K extends ArmatureEventType>(type: K, payload: ArmatureEvents[K], process?: string): void;
  /** Delivers records as recorded (their `at`, `seq`, `process` kept). */
  replay(records: readonly AnyEventRecord[]): void;
  /** Sets a module's snapshot and delivers its `module:status`. */
  setStatus(id: string, status: object): void;
  /** Answers the next calls of `name` (a thrown error becomes a failure; a `{ ok }` object is the result as is). */
  answer(name: string, answer: Answer): void;
  /** Adds a process (as `process:started` does) and delivers its event. */
  startProcess(p: ProcessInfo): void;
  endProcess(id: string, reason: 'exited' | 'crashed' | 'lost'): void;
}

let seq = 0;

export function recordedView(o: { modules?: ModuleReport[]; persona?: SystemView['persona']; mode?: SystemView['mode']; tools?: ToolDeclaration[] } = {}): RecordedView {
  const feed = createRecordFeed({ historySize: 5000 });
  const statuses = new Map<string, object>();
  const answers = new Map<string, Answer>();
  const calls: RecordedCall[] = [];
  const processes: ProcessInfo[] = [];
  const deliver = (type: string, payload: unknown, process?: string) =>
    feed.deliver({ type, payload, at: Date.now(), seq: ++seq, ...(process ? { process } : {}) } as AnyEventRecord);
  const view: RecordedView = {
    feed,
    calls,
    persona: o.persona ?? { id: 'default', name: 'Default agent', safe: false },
    events: feed,
    mode: o.mode ?? 'attached',
    modules: () => o.modules ?? [],
    status: <T>(id: string) => statuses.get(id) as T | undefined,
    tools: () => o.tools ?? [],
    processes: () => processes,
    async callTool<T>(name: string, args: Record<string, unknown> = {}, options: ViewCallOptions = {}): Promise<ToolResult<T>> {
      const call = { name, args, options };
      calls.push(call);
      const a = answers.get(name);
      if (!a) return { ok: false, error: { code: 'UNKNOWN_TOOL', message: `[recorded view] no answer for ${name}` }, durationMs: 0 };
      try {
        const v = await a(call);
        if (v && typeof v === 'object' && 'ok' in v && 'durationMs' in v) return v as ToolResult<T>;
        return { ok: true, value: v as T, durationMs: 1 };
      } catch (e) {
        const err = e as { code?: string; message: string; hint?: string };
        return { ok: false, error: { code: err.code ?? 'TOOL_FAILED', message: err.message }, ...(err.hint ? { hint: err.hint } : {}), durationMs: 1 };
      }
    },
    emitLocal: (type, payload) => deliver(type, payload),
    emit: (type, payload, process) => deliver(type, payload, process),
    replay: (records) => records.forEach((r) => feed.deliver(r)),
    setStatus(id, status) {
      statuses.set(id, status);
      deliver('module:status', { id, status });
    },
    answer: (name, a) => void answers.set(name, a),
    startProcess(p) {
      processes.push(p);
      deliver('process:started', { process: p });
    },
    endProcess(id, reason) {
      const p = processes.find((x) => x.id === id)!;
      p.endedAt = Date.now();
      deliver('process:ended', { process: { ...p }, reason });
    },
  };
  return view;
}
