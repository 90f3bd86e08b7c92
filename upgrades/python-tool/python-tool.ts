import { quote, timeoutProblem } from '../../src/kernel/bounded.ts';
import { ArmatureError } from '../../src/kernel/errors.ts';
import type { Persona, ToolDeclaration } from '../../src/kernel/manifest-schemas.ts';
import type { ToolResult } from '../../src/kernel/tool-contract.ts';
import type { ToolCallContext } from '../../src/kernel/upgrade.ts';
import type { BridgeCall, ExecuteResult } from '../pyodide-runtime/contract.ts';
import { toDisposable } from '../../src/kernel/lifecycle.ts';
import { personaAllows } from '../../src/kernel/allow-list.ts';
import { generatePythonModule, generateSkillDoc, generateSkillIndex, groupByNamespace, namespaceOfTool } from './codegen.ts';
import { planPrompt } from './prompt.ts';
import { describeExecutePythonResult } from './result-shape.ts';
import { withSyncNotice } from './sync-notice.ts';
import type { ExecutePythonArgs, ExecutePythonErrorDetails, ExecutePythonValue, PythonExtension, PythonToolApi, PythonToolOptions, PythonToolStats } from './python-tool-types.ts';

/** `{ session }` for calls and runs of a session, `{}` for the shared runtime's. */
const inSession = (session: string | undefined): { session?: string } => (session === undefined ? {} : { session });

const INIT_SOURCE = '"""Armature tools by namespace: from tools.workspace import read_file."""\n';

/**
 * The PythonTool: `execute_python`, `install_python_package`, `list_python_packages`,
 * `list_skills`, `read_skill`, and the `call_tool` bridge from Python to every other tool.
 */
export function createPythonTool(options: PythonToolOptions) {
  const { runtime, runner, persona, bus } = options;
  const readyTimeoutMs = options.readyTimeoutMs ?? 120_000;
  const slowCallMs = options.slowCallMs ?? 5000;
  const warn = options.warn ?? ((m: string) => console.warn(m));
  const stats = { executions: 0, successes: 0, failures: 0, totalMs: 0, errors: [] as PythonToolStats['errors'], last: undefined as PythonToolStats['lastExecution'] };
  let modulesKey = '';
  /**
   * A number per declaration object: a registration never changes its declarations, so the key of
   * the generated modules names them by identity instead of serialising every schema per run.
   */
  const declarationIds = new WeakMap<ToolDeclaration, number>();
  let nextDeclarationId = 0;
  const idOf = (d: ToolDeclaration) => {
    let id = declarationIds.get(d);
    if (id === undefined) declarationIds.set(d, (id = nextDeclarationId++));
    return id;
  };
  const extensions = new Set<PythonExtension>();

  const declarations = (p: Persona = persona) => runner.getToolDeclarations({ persona: p });
  const instancesOf = (list: readonly ToolDeclaration[]) => new Map(list.map((d) => [d.name, runner.getToolInstances(d.name)]));
  const pythonDeclarations = () => declarations().filter((d) => d.pythonCallable);
  /**
   * The tools a persona's skill documents cover: its allowed tools in the namespaces it lists in
   * `skills` (all of them when the list is empty), and always those of namespaces registered at
   * run time (MCP servers the persona or the command line asked for). Tools outside stay
   * callable, only unadvertised.
   */
  const skillScope = (list: ToolDeclaration[], p: Persona = persona) =>
    p.skills.length ? list.filter((d) => d.namespace !== undefined || p.skills.includes(namespaceOfTool(d))) : list;

  /**
   * The tools Python gets as of the last sync. With the runner's revision: it and the persona's
   * allow-list (an overlay changes that in place), because every run syncs and reading every
   * declaration and instance list to find nothing changed was a measurable share of a small run.
   * Without it: the declarations by identity with their instances.
   */
  let toolsKey: string | undefined;
  const currentToolsKey = (decls: () => ToolDeclaration[]) => {
    const revision = runner.revision?.();
    if (revision === undefined) return JSON.stringify(decls().map((d) => [idOf(d), runner.getToolInstances(d.name)]));
    return `${revision}\n${persona.tools.join('\n')}\n\n${persona.denyTools?.join('\n') ?? ''}`;
  };

  /** Keeps the generated `tools.*` modules in step with the registered tools. */
  async function syncModules(): Promise<void> {
    let decls: ToolDeclaration[] | undefined;
    const read = () => (decls ??= pythonDeclarations());
    const tools = currentToolsKey(read);
    const extra = extensions.size ? [...extensions].flatMap((x) => x.modules()) : [];
    const key = extra.length ? JSON.stringify(extra.map((f) => [f.path, f.source])) : '';
    if (tools === toolsKey && key === modulesKey) return;
    toolsKey = tools;
    modulesKey = key;
    const files = [{ path: 'tools/__init__.py', source: INIT_SOURCE }, ...extra];
    for (const [ns, list] of groupByNamespace(read())) files.push({ path: `tools/${ns}.py`, source: generatePythonModule(ns, list, instancesOf(list)) });
    try {
      await runtime.setPythonModules(files);
    } catch (e) {
      toolsKey = undefined; // not installed: the next sync tries again
      throw e;
    }
  }

  // call_tool from Python: the same ToolRunner path as any call, marked as coming from Python.
  // Statistics come from the runtime once the answer is on its way, with the sizes that actually
  // crossed the bridge (re-serialising results here cost more than moving them).
  const observe = (call: BridgeCall) => {
    bus.emit('tool-bridge:called', call);
    if (call.durationMs > slowCallMs) {
      bus.emit('tool-bridge:slow', { name: call.name, durationMs: call.durationMs, thresholdMs: slowCallMs });
      warn(`[tool-bridge] call_tool("${call.name}") took ${call.durationMs.toFixed(0)} ms (threshold ${slowCallMs} ms)`);
    }
  };
  runtime.setToolCallHandler(async (name, args, instance, session): Promise<ToolResult> => {
    const decl = runner.getToolDeclaration(name);
    let result: ToolResult;
    if (decl && !decl.pythonCallable) {
      result = {
        ok: false,
        error: {
          code: 'NOT_CALLABLE_FROM_PYTHON',
          message: `${name} cannot be called from Python: it needs the Python runtime, which is busy running the code that called it (execute_python -> call_tool("${name}") -> PyodideRuntime)`,
        },
        hint: name === 'install_python_package' ? 'Pass install_packages to execute_python instead.' : `Call ${name} as a tool, outside Python.`,
        durationMs: 0,
      };
    } else {
      // The call belongs to the session whose runtime made it (its packages, its state), as the run did.
      result = await runner.executeTool(name, args, { caller: 'python', ...(instance === undefined ? {} : { instance }), ...inSession(session) });
    }
    return result;
  }, observe);

  /**
   * Waits, up to `readyTimeoutMs`, for the shared runtime to start, for a call without a session.
   * Nothing else waits here: a started runtime is ready even while it runs (asking it again would
   * queue behind its run), and a session's call is served by a runtime of the pool that the call
   * itself starts, so a session never waits for the shared runtime or what it is running.
   */
  async function waitReady(session: string | undefined): Promise<ArmatureError | undefined> {
    if (session !== undefined || runtime.isReady()) return undefined;
    let timer: ReturnType<typeof setTimeout> | undefined;
    const timeout = new Promise<'timeout'>((r) => (timer = setTimeout(() => r('timeout'), readyTimeoutMs)));
    try {
      const r = await Promise.race([runtime.init().then(() => 'ok' as const), timeout]);
      if (r === 'timeout') {
        return new ArmatureError('RuntimeNotReady', `the Python runtime did not become ready within ${readyTimeoutMs} ms`, {
          hint: 'Python is still starting (or failed to start): check the PyodideRuntime widget, then retry.',
        });
      }
      return undefined;
    } catch (e) {
      return new ArmatureError('RuntimeNotReady', `the Python runtime could not start: ${(e as Error).message}`, {
        hint: 'Restart the runtime (PyodideRuntime widget or restart()) and retry.',
      });
    } finally {
      clearTimeout(timer);
    }
  }

  function record(result: ExecuteResult): void {
    stats.executions++;
    stats.totalMs += result.executionTime;
    stats.last = { at: Date.now(), ok: result.ok, durationMs: result.executionTime };
    if (result.ok) stats.successes++;
    else {
      stats.failures++;
      stats.errors = [{ type: result.error.type, message: result.error.message, at: Date.now() }, ...stats.errors].slice(0, 10);
    }
    bus.emit(
      'python-tool:executed',
      result.ok ? { runId: result.runId, ok: true, durationMs: result.executionTime } : { runId: result.runId, ok: false, durationMs: result.executionTime, errorType: result.error.type },
    );
  }

  const failure = (type: string, message: string, hint?: string): ExecuteResult => ({
    ok: false,
    error: { type, message, traceback: '' },
    ...(hint ? { hint } : {}),
    stdout: '',
    stderr: '',
    executionTime: 0,
    runId: 'none',
  });

  const api: PythonToolApi = {
    addExtension(extension) {
      extensions.add(extension);
      return toDisposable(() => extensions.delete(extension));
    },

    syncModules,

    async executePython(args) {
      const badTimeout = args.timeout_ms === undefined ? undefined : timeoutProblem(args.timeout_ms, 'timeout_ms');
      if (badTimeout) {
        const r = failure('ValueError', `${badTimeout}; nothing ran`, 'Pass timeout_ms from 1 to 2147483647, or leave it out for the default (30000 ms).');
        record(r);
        return r;
      }
      // The tool modules are made while Python starts: a runtime that has not sent its start
      // message yet takes them with it instead of in a call of their own.
      const modulesSynced = syncModules();
      modulesSynced.catch(() => undefined);
      // A session's run, or a started runtime, has nothing to wait for: no await (a tick) for it.
      const notReady = args.session === undefined && !runtime.isReady() ? await waitReady(args.session) : undefined;
      if (notReady) {
        const r = failure(notReady.code, notReady.message, notReady.hint);
        record(r);
        return r;
      }
      const installed: string[] = [];
      const session = inSession(args.session);
      for (const pkg of args.install_packages ?? []) {
        const r = await runtime.installPackage(pkg, session);
        if (!r.ok) {
          const res = failure(r.error.type, `installing ${pkg} failed: ${r.error.message}`, r.hint ?? `Check the name "${pkg}"; the packages before it were installed: ${installed.join(', ') || 'none'}.`);
          record(res);
          return { ...res, installed };
        }
        installed.push(...r.installed);
      }
      const sync: ExecutePythonValue['sync'] = {};
      if (args.sync_workspace) {
        try {
          sync.in = (await runtime.syncWorkspace('in', session)).in;
        } catch (e) {
          const res = failure('SyncError', (e as Error).message);
          record(res);
          return res;
        }
      }
      await modulesSynced;
      const result = await runtime.execute(args.code, {
        ...(args.timeout_ms === undefined ? {} : { timeoutMs: args.timeout_ms }),
        ...(args.runId === undefined ? {} : { runId: args.runId }),
        ...(args.signal === undefined ? {} : { signal: args.signal }),
        ...session,
      });
      if (args.sync_workspace) {
        // Files leave Python only as write_file would write them, deletions as delete_file would.
        const may = { write: personaAllows(persona, 'write_file'), delete: personaAllows(persona, 'delete_file') };
        try {
          const out = (await runtime.syncWorkspace('out', { ...may, ...session })).out;
          if (out) sync.out = withSyncNotice(out, may, persona.id);
        } catch (e) {
          sync.out = { count: 0, bytes: 0, deleted: [], skipped: [`sync failed: ${(e as Error).message}`] };
        }
      }
      record(result);
      return { ...result, ...(installed.length ? { installed } : {}), ...(args.sync_workspace ? { sync } : {}) };
    },

    getStats: () => ({
      executions: stats.executions,
      successes: stats.successes,
      failures: stats.failures,
      successRate: stats.executions ? stats.successes / stats.executions : undefined,
      meanMs: stats.executions ? stats.totalMs / stats.executions : 0,
      errors: stats.errors,
      lastExecution: stats.last,
    }),

    listSkills: () => [...groupByNamespace(skillScope(pythonDeclarations()))].map(([namespace, list]) => ({ namespace, tools: list.map((t) => t.name) })),

    readSkill(namespace) {
      const groups = groupByNamespace(skillScope(declarations()));
      const list = groups.get(namespace);
      if (!list) {
        throw new ArmatureError('SKILL_NOT_FOUND', `[read_skill] no skill ${quote(namespace)}; skills: ${[...groups.keys()].join(', ')}`, {
          hint: 'List the skills with list_skills.',
        });
      }
      return generateSkillDoc(namespace, list, instancesOf(list));
    },

    getSkillIndex: () => generateSkillIndex(skillScope(pythonDeclarations())),

    getSystemPrompt: (p = persona) => api.getPromptPlan(p).text,

    getPromptPlan: (p = persona) => planPrompt({
        tools: skillScope(declarations(p), p),
        personaName: p.name,
        resultContract: describeExecutePythonResult(),
        allowed: declarations(p).map((d) => d.name),
      }),

    getRuntimeState: () => runtime.getState(),

    getCatalog: () => ({
      tools: declarations()
        .filter((d) => d.module === 'PythonTool')
        .map((d) => ({ name: d.name, description: d.description })),
      namespaces: api.listSkills(),
    }),

    interrupt: (session) => runtime.interrupt(session),

    getPromptStats: (p = persona) => api.getPromptPlan(p).stats,
  };

  /** Tool handlers; a Python error becomes `{ ok: false, error: { code: <Python type> }, hint }`. */
  const tools = {
    execute_python: async (args: Record<string, unknown>, call: ToolCallContext) => {
      // Only the call says which session a run belongs to: arguments cannot pick another's globals.
      const { runId: _ignored, session: _notFromArgs, ...fromAgent } = args as unknown as ExecutePythonArgs;
      // The call's id tags the run's output, so a caller that chose it (the MCP server) can
      // stream that run's output; cancelling or timing out the call interrupts the run.
      const r = await api.executePython({ ...fromAgent, runId: call.callId, signal: call.signal, ...inSession(call.session) });
      if (!r.ok) {
        const details: ExecutePythonErrorDetails = { traceback: r.error.traceback, stdout: r.stdout, stderr: r.stderr, executionTime: r.executionTime };
        if (r.error.line !== undefined) details.line = r.error.line;
        if (r.error.column !== undefined) details.column = r.error.column;
        if (r.notice) details.notice = r.notice;
        throw new ArmatureError(r.error.type, `${r.error.type}: ${r.error.message}`, { details, hint: r.hint });
      }
      const value: ExecutePythonValue = { value: r.value, stdout: r.stdout, stderr: r.stderr, executionTime: r.executionTime };
      if (r.installed) value.installed = r.installed;
      if (r.sync) value.sync = r.sync;
      if (r.notice) value.notice = r.notice;
      return value;
    },
    install_python_package: async (args: Record<string, unknown>, call: ToolCallContext) => {
      if (call.caller === 'python') throw new ArmatureError('NOT_CALLABLE_FROM_PYTHON', 'install_python_package cannot run while Python is busy calling it');
      const notReady = await waitReady(call.session);
      if (notReady) throw notReady;
      const r = await runtime.installPackage(String(args.package), inSession(call.session));
      if (!r.ok) throw new ArmatureError(r.error.type, `installing ${String(args.package)} failed: ${r.error.message}`, { hint: r.hint });
      return { installed: r.installed, packages: runtime.getState(inSession(call.session)).packages };
    },
    // The shared runtime's last known list, or the session's own runtime's (the pool answers a
    // running one from its list too), so it is safe to call from Python while it runs.
    list_python_packages: async (_args: Record<string, unknown>, call: ToolCallContext) => {
      const packages = call.session === undefined ? runtime.getState().packages : await runtime.listPackages(inSession(call.session));
      return { packages, status: runtime.getState(inSession(call.session)).status };
    },
    list_skills: async () => ({ skills: api.listSkills(), index: api.getSkillIndex() }),
    read_skill: async (args: Record<string, unknown>) => ({ namespace: String(args.namespace), markdown: api.readSkill(String(args.namespace)) }),
  };

  return { api, tools };
}
