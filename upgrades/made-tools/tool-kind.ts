/**
 * The `tool` kind of change: how an agent-made tool is gated (static checks, then its tests in the
 * confinement it will run in), brought into force (registered with the ToolRunner, hot, replacing
 * the version before), taken out, and watched by its canary. JavaScript versions run in confined
 * workers, Python versions in sessions of the Pyodide runtime's pool (see `python-code.ts`): a
 * candidate's tests in an interpreter of their own, stopped right after its gate, and each version
 * in force in an interpreter of its own, so code made by another change never reaches its functions.
 */
import { EVERY_TOOL, personaAllows } from '../../src/kernel/allow-list.ts';
import { quote } from '../../src/kernel/bounded.ts';
import type { ChangeKindHandler, ChangesApi, VersionInfo } from '../../src/contracts/change-contract.ts';
import { ArmatureError, toErrorInfo } from '../../src/kernel/errors.ts';
import type { EventSource } from '../../src/kernel/event-bus.ts';
import type { Disposable } from '../../src/kernel/lifecycle.ts';
import type { Persona } from '../../src/kernel/manifest-schemas.ts';
import type { ToolExecutor, ToolRunnerApi } from '../../src/kernel/tool-contract.ts';
import { compileInputSchema } from '../../src/kernel/json-schema/tool-schema.ts';
import type { ModuleParts, ToolCallContext } from '../../src/kernel/upgrade.ts';
import type { PyodideRuntimeApi } from '../pyodide-runtime/contract.ts';
import type { PythonToolApi } from '../python-tool/python-tool-types.ts';
import { Canary, type CanaryOptions, type CanaryState } from './canary.ts';
import { JsTool } from './js-tool.ts';
import { gateSession, invokeCode, versionFiles, versionSession } from './python-code.ts';
import { judge, runToolTests } from './tool-tests.ts';
import { checkNotShadowing, declarationOf, fullToolName, localToolName, staticProblems, type MadeToolContent, type ToolLanguage } from './tool-spec.ts';

/** Options of {@link createToolKind}. */
export interface ToolKindOptions {
  runner: ToolRunnerApi;
  changes: ChangesApi;
  bus: Pick<EventSource, 'emit'>;
  persona: Persona;
  parts: ModuleParts;
  /**
   * PythonTool and the runtime, when the persona loads them: Python tools run in sessions of the
   * runtime, with PythonTool's generated `tools.*` modules (so they call other tools as any Python does).
   */
  python?: { tool: PythonToolApi; runtime: PyodideRuntimeApi };
  /** Origins JavaScript tools may fetch, or `none`. */
  network: 'none' | string[];
  /** Time limit of one test, in ms. */
  testTimeoutMs: number;
  /** Time limit of one real call, in ms. */
  callTimeoutMs: number;
  canary: CanaryOptions;
  /** Where worker logs and background failures go. */
  log(text: string): void;
}

/** A version in force. */
interface LiveTool {
  content: MadeToolContent;
  info: VersionInfo;
  executor: ToolExecutor;
  registration: Disposable;
  js?: JsTool;
  /** The pool session whose interpreter runs a Python version, and nothing else. */
  session?: string;
  /** This process asked for the canary's rollback already. */
  tripped?: boolean;
}

/** What `list_tools_made` and the widget see of a tool in force. */
export interface LiveToolInfo {
  name: string;
  language: ToolLanguage;
  version: number;
  hash: string;
  change: string;
  description: string;
  canary: CanaryState;
}

/**
 * Most time a Python gate waits for its interpreter (a warm spare, or one started from the
 * snapshot, after the pool had room), in ms: the tests' own limits start after it.
 */
const GATE_START_MS = 120_000;

/** The part id a tool in force is reported under (`armature boot`, the dashboard). */
export const partId = (name: string) => `tool:${name}`;

/** Creates the `tool` kind. */
export function createToolKind(o: ToolKindOptions): ChangeKindHandler<MadeToolContent> & { live(): LiveToolInfo[]; checkCanaries(): Promise<void>; dispose(): Promise<void> } {
  const live = new Map<string, LiveTool>();
  const canary = new Canary(o.canary);
  /** JavaScript versions whose gate started a worker, kept for their activation. */
  const prepared = new Map<string, JsTool>();
  const languages = (): ToolLanguage[] => (o.python ? ['python', 'javascript'] : ['javascript']);
  const everyTool = () => o.runner.getToolDeclarations({ persona: EVERY_TOOL });

  const python = () => {
    if (!o.python) throw new ArmatureError('PYTHON_UNAVAILABLE', `[made-tools] persona ${o.persona.id} does not load PythonTool, which runs Python tools`);
    return o.python;
  };
  const pythonRuntime = (): PyodideRuntimeApi => python().runtime;

  /**
   * One call of `fn` of version `hash` in `session`'s interpreter, which holds that version's code
   * and the current `tools.*` modules (cheap to check when the tools did not change).
   */
  const runPython = async (session: string, hash: string, fn: string, args: Record<string, unknown>, timeoutMs: number, signal?: AbortSignal): Promise<unknown> => {
    await python().tool.syncModules();
    const r = await pythonRuntime().execute(invokeCode(hash, fn, args), { session, timeoutMs, ...(signal ? { signal } : {}) });
    if (r.ok) return r.value;
    throw new ArmatureError(r.error.type, `${r.error.type}: ${r.error.message}`, {
      details: { traceback: r.error.traceback, stdout: r.stdout, stderr: r.stderr },
      ...(r.hint ? { hint: r.hint } : {}),
    });
  };

  /**
   * A Python candidate's gate: its code and tests in an interpreter nothing else uses (a warm
   * spare of the pool), stopped as soon as the tests are done, whatever they did to it.
   */
  async function gatePython(target: string, content: MadeToolContent, hash: string, validator: ReturnType<typeof compileInputSchema>) {
    const runtime = pythonRuntime();
    const session = gateSession(hash);
    try {
      await runtime.setSessionModules(session, versionFiles([{ hash, code: content.code }]));
      // Started first, so each test's time is its own and not the interpreter's start-up.
      const started = await runtime.execute('None', { session, timeoutMs: GATE_START_MS });
      if (!started.ok) return { problems: [`the Python runtime could not take the tool: ${started.error.type}: ${started.error.message}`], tests: [] };
      return { problems: [], tests: await runToolTests(content.tests, validator, (args) => runPython(session, hash, localToolName(target), args, o.testTimeoutMs)) };
    } finally {
      await runtime.endSession(session);
    }
  }

  /** The tool's only capability: a tool call through the ToolRunner, within its creator's allow-list too. */
  const callToolFor = (target: string, creator: MadeToolContent['persona']) => async (name: unknown, args: unknown) => {
    if (typeof name !== 'string') throw new ArmatureError('INVALID_TOOL_NAME', `call_tool needs a tool name (a string), got ${quote(name)}`);
    if (!personaAllows(creator, name)) {
      throw new ArmatureError('TOOL_NOT_ALLOWED', `[executeTool] persona ${creator.id}, which made ${target}, does not allow tool ${quote(name)}`, {
        hint: `A tool can call only what the persona that made it may call.`,
      });
    }
    const r = await o.runner.executeTool(name, args ?? {}, { caller: `tool:${target}` });
    if (!r.ok) throw new ArmatureError(r.error.code, r.error.message, r.hint ? { hint: r.hint } : undefined);
    return r.value;
  };

  const newJsTool = (target: string, content: MadeToolContent, hash: string) =>
    new JsTool({ name: target, hash, source: content.code, callTool: callToolFor(target, content.persona), network: o.network, timeoutMs: o.testTimeoutMs, onLog: o.log });

  /**
   * Rolls `t` back once its canary tripped (the counts are every process's: any may see it first;
   * `revert`'s `onlyIf` makes it happen once). Resolves when the rollback is recorded, so that a
   * process that exits after the call (the CLI) has done it.
   */
  const tripIf = async (t: LiveTool, counts: { calls: number; failures: number }): Promise<void> => {
    const why = canary.tripped(counts);
    if (!why || t.tripped) return;
    t.tripped = true;
    const target = t.content.name;
    o.log(`[made-tools] ${target} version ${t.info.version}: ${why}; rolling back`);
    await o.changes.revert('tool', target, why, t.info.change).catch((e) => o.log(`[made-tools] the canary's rollback of ${target} failed: ${(e as Error).message}`));
  };

  /** Counts one real call of `t` in the store while its canary watches; never fails the call. */
  const watch = async (t: LiveTool, ok: boolean, error?: { code: string; message: string }): Promise<void> => {
    try {
      const seen = o.changes.callCount(t.info.change);
      await tripIf(t, canary.watching(seen) ? await o.changes.countCall(t.info.change, error ? { ok, error } : { ok }, canary.calls) : seen);
    } catch (e) {
      o.log(`[made-tools] the canary could not count a call of ${t.content.name}: ${(e as Error).message}`);
    }
  };

  /** One real call of a version in force; its outcome feeds the canary. */
  async function runTool(t: LiveTool, args: Record<string, unknown>, call: ToolCallContext): Promise<unknown> {
    const name = t.content.name;
    try {
      const value =
        t.content.language === 'python'
          ? await runPython(t.session!, t.info.hash, localToolName(name), args, o.callTimeoutMs, call.signal)
          : await t.js!.call(args, { timeoutMs: o.callTimeoutMs, signal: call.signal });
      await watch(t, true);
      return value;
    } catch (e) {
      // A caller that gave up is not the tool's failure; a timeout is.
      const reason = call.signal.reason as { code?: string } | undefined;
      if (!(call.signal.aborted && reason?.code === 'CANCELLED')) {
        const info = toErrorInfo(e);
        await watch(t, false, { code: info.code, message: info.message });
      }
      throw e;
    }
  }

  return {
    kind: 'tool',

    targetOf(content) {
      const name = fullToolName(content?.name);
      checkNotShadowing(name, everyTool());
      return name;
    },

    async gate(target, content, { hash }) {
      const problems = staticProblems(content, languages());
      if (content.name !== target) problems.push(`name ${quote(content.name)} does not match the tool ${target}.`);
      if (problems.length || !content.tests.length) return { problems, tests: [] };
      const validator = compileInputSchema(content.input_schema);
      if (content.language === 'python') return gatePython(target, content, hash, validator);
      await prepared.get(hash)?.stop();
      const tool = newJsTool(target, content, hash);
      prepared.set(hash, tool);
      try {
        await tool.start();
      } catch (e) {
        const error = toErrorInfo(e, 'SANDBOX_LOAD_FAILED');
        return { problems: [], tests: content.tests.map((t) => judge(t, { ok: false, error }, 0)) };
      }
      return { problems: [], tests: await runToolTests(content.tests, validator, (args) => tool.call(args, { timeoutMs: o.testTimeoutMs })) };
    },

    async release(target, hash) {
      const tool = prepared.get(hash);
      prepared.delete(hash);
      if (tool && live.get(target)?.js !== tool) await tool.stop();
    },

    async activate(target, content, info) {
      const t0 = performance.now();
      if (content.language === 'python' && !o.python) throw new ArmatureError('PYTHON_UNAVAILABLE', `[made-tools] ${target} is written in Python, but persona ${o.persona.id} does not load PythonTool`, { hint: 'Boot a persona that loads PythonTool.' });
      const previous = live.get(target);
      if (!previous && o.runner.hasTool(target)) {
        throw new ArmatureError('DUPLICATE_TOOL', `[made-tools] ${target} is registered by another module now; the agent-made version cannot take its name`, { hint: 'Create the tool again under another name.' });
      }
      const js = content.language === 'javascript' ? (prepared.get(info.hash) ?? newJsTool(target, content, info.hash)) : undefined;
      prepared.delete(info.hash);
      const entry = { content, info, js } as LiveTool;
      if (content.language === 'python') {
        // The version's own interpreter (started at its first call) gets its code, and nothing else does.
        entry.session = versionSession(target, info.hash);
        await pythonRuntime().setSessionModules(entry.session, versionFiles([{ hash: info.hash, code: content.code }]));
      }
      entry.executor = (_name, args, call) => runTool(entry, args, call);
      // Hot swap: the old registration goes and the new one comes in the same turn, so no call
      // ever finds the tool missing; calls in flight finish on the old version.
      previous?.registration.dispose();
      try {
        entry.registration = o.runner.registerTools([declarationOf(content, o.callTimeoutMs)], entry.executor);
      } catch (e) {
        if (previous) previous.registration = o.runner.registerTools([declarationOf(previous.content, o.callTimeoutMs)], previous.executor);
        if (js && js !== previous?.js) void js.stop();
        if (entry.session && entry.session !== previous?.session) void o.python?.runtime.endSession(entry.session);
        throw e;
      }
      live.set(target, entry);
      if (previous?.js && previous.js !== js) void previous.js.stop();
      // Calls in flight on the old version finish in its interpreter, which then stops.
      if (previous?.session && previous.session !== entry.session) void o.python?.runtime.endSession(previous.session);
      o.parts.loaded(partId(target), { version: `v${info.version}`, durationMs: performance.now() - t0 });
    },

    async deactivate(target) {
      const t = live.get(target);
      if (!t) return;
      t.registration.dispose();
      live.delete(target);
      o.parts.disposed(partId(target));
      await t.js?.stop();
      if (t.session) await o.python?.runtime.endSession(t.session);
    },

    present: (c) => ({
      code: c.code,
      language: c.language,
      details: { description: c.description, input_schema: c.input_schema, tests: c.tests, persona: c.persona.id },
    }),

    live: () =>
      [...live.values()].map((t) => ({
        name: t.content.name,
        language: t.content.language,
        version: t.info.version,
        hash: t.info.hash,
        change: t.info.change,
        description: t.content.description,
        canary: canary.state(o.changes.callCount(t.info.change)),
      })),

    /** Rolls back the versions in force whose canary tripped (a process that crossed the threshold died before its rollback). */
    async checkCanaries() {
      for (const t of [...live.values()]) await tripIf(t, o.changes.callCount(t.info.change));
    },

    async dispose() {
      const all = [...live.values()];
      live.clear();
      for (const t of all) t.registration.dispose();
      await Promise.allSettled([
        ...all.map((t) => t.js?.stop()),
        ...all.map((t) => t.session && o.python?.runtime.endSession(t.session)),
        ...[...prepared.values()].map((t) => t.stop()),
      ]);
      prepared.clear();
    },
  };
}
