import type * as z from 'zod';
import { nameProblem, quote, shortName, timerMs } from '../../src/kernel/bounded.ts';
import { ArmatureError, toErrorInfo, type ErrorInfo } from '../../src/kernel/errors.ts';
import type { EventSource } from '../../src/kernel/event-bus.ts';
import { formatJsonPath, isValidToolName, type Persona, type ToolDeclaration } from '../../src/kernel/manifest-schemas.ts';
import { toDisposable } from '../../src/kernel/lifecycle.ts';
import { personaAllows } from '../../src/kernel/allow-list.ts';
import { closest } from '../../src/kernel/suggest.ts';
import { compileInputSchema } from '../../src/kernel/json-schema/tool-schema.ts';
import { isPersonCaller, PERSON_ONLY_HINT, type ExecuteOptions, type ToolExecutor, type ToolResult, type ToolRunnerApi, type ToolStats } from '../../src/kernel/tool-contract.ts';

/** Options of {@link createToolRunner}. */
export interface ToolRunnerOptions {
  /** Where `tool:started` / `tool:finished` go. */
  bus: Pick<EventSource, 'emit'>;
  /** The booted persona; its `tools` list is the allow-list. */
  persona: Persona;
  /** Timeout of a call when neither the call nor the tool sets one, in ms. Default: 30000. */
  defaultTimeoutMs?: number;
  /** How many recent durations per tool feed the mean and p95. Default: 256. */
  statsWindow?: number;
  /** Why a tool that is not registered is missing, when its module failed to load (see `index.ts`). */
  missingTool?: (name: string) => { module: string; reason: string } | undefined;
}

/** A result before its duration is known. */
type Outcome = { ok: true; value: unknown } | { ok: false; error: ErrorInfo; hint?: string };

interface Registered {
  declaration: ToolDeclaration;
  validator: z.ZodType;
  executor: ToolExecutor;
}

interface StatsEntry {
  calls: number;
  errors: number;
  durations: number[];
  next: number;
  lastCallAt?: number;
}

export { personaAllows };

let callCounter = 0;

/**
 * How an `UNKNOWN_TOOL` with no near name says to look, in the caller's own terms: a person at the
 * command line or an MCP client cannot call `getToolDeclarations()` (the hint for code).
 */
const UNKNOWN_TOOL_HINTS = new Map<string | undefined, string>([
  ['python', 'See the tools with call_tool("list_skills") and a namespace\'s functions with call_tool("read_skill", {"namespace": ...}).'],
  ['cli', 'List the available tools with armature tools (the same --persona and --mcp-config as this command).'],
  ['mcp', 'List the available tools with tools/list.'],
  ['agent', 'Call one of the tools you were offered.'],
]);

/**
 * The ToolRunner: validates arguments against each tool's JSON Schema (through zod's JSON Schema
 * conversion), enforces the persona's allow-list and a per-call timeout, keeps per-tool statistics
 * and emits `tool:started` / `tool:finished`. `executeTool` never throws.
 */
export function createToolRunner(options: ToolRunnerOptions): ToolRunnerApi {
  const { bus, persona } = options;
  const defaultTimeoutMs = options.defaultTimeoutMs ?? 30_000;
  const window = options.statsWindow ?? 256;
  // name -> instance id ('' for a tool registered once, without an instance) -> registration.
  const tools = new Map<string, Map<string, Registered>>();
  /** Bumped by every registration and unregistration (`revision()`). */
  let revision = 0;
  /** A tool's declaration as callers see it: its first registration's (a tool registered once per instance has several). */
  const declarationOf = (instances: Map<string, Registered>) => instances.values().next().value!.declaration;

  /** The registration a call means, or a failure naming the instances to choose from. */
  const pick = (name: string, instance: string | undefined): Registered | Outcome | undefined => {
    const all = tools.get(name);
    if (!all) return undefined;
    const ids = [...all.keys()].filter(Boolean);
    if (instance !== undefined) {
      const r = all.get(instance);
      if (r) return r;
      return fail('UNKNOWN_INSTANCE', `[executeTool] ${name} has no instance ${quote(instance)}${ids.length ? ` (instances: ${ids.join(', ')})` : ' (it has a single, unnamed registration)'}`,
        ids.length ? `Pass instance_id as one of: ${ids.join(', ')}.` : 'Leave instance_id out.', { name, instance, instances: ids });
    }
    if (all.size === 1) return all.values().next().value!;
    return fail('AMBIGUOUS_INSTANCE', `[executeTool] ${name} has ${all.size} instances (${ids.join(', ')}): say which one with instance_id`,
      `Pass instance_id as one of: ${ids.join(', ')}.`, { name, instances: ids });
  };
  const stats = new Map<string, StatsEntry>();

  const statsFor = (name: string) => {
    let s = stats.get(name);
    if (!s) stats.set(name, (s = { calls: 0, errors: 0, durations: [], next: 0 }));
    return s;
  };

  const fail = (code: string, message: string, hint?: string, details?: unknown): Outcome => {
    const error: ErrorInfo = details === undefined ? { code, message } : { code, message, details };
    return hint ? { ok: false, error, hint } : { ok: false, error };
  };

  /** Tells the bus which tools came or went, one event per declaring module. */
  const announce = (type: 'tool:registered' | 'tool:unregistered', declarations: readonly ToolDeclaration[]) => {
    const byModule = new Map<string, string[]>();
    for (const d of declarations) {
      const names = byModule.get(d.module);
      if (names) names.push(d.name);
      else byModule.set(d.module, [d.name]);
    }
    for (const [module, names] of byModule) bus.emit(type, { module, names });
  };

  async function run(name: string, args: unknown, opts: ExecuteOptions, callId: string): Promise<Outcome> {
    // Names are checked before any lookup or suggestion search: an agent can send anything.
    const badName = nameProblem(name);
    if (badName) {
      return fail('INVALID_TOOL_NAME', `[executeTool] invalid tool name ${quote(name)}: ${badName}`, 'Tool names are snake_case words such as "read_file".', {
        length: typeof name === 'string' ? name.length : undefined,
      });
    }
    if (opts.instance !== undefined) {
      const badInstance = nameProblem(opts.instance);
      if (badInstance) return fail('INVALID_INSTANCE', `[executeTool] invalid instance id ${quote(opts.instance)} for ${name}: ${badInstance}`, 'Leave instance_id out, or pass one of the tool\'s instance ids.');
    }
    if (opts.session !== undefined) {
      const badSession = nameProblem(opts.session);
      if (badSession) return fail('INVALID_SESSION', `[executeTool] invalid session ${quote(opts.session)} for ${name}: ${badSession}`, 'Pass a session name of 1 to 128 characters, or leave it out for the shared session.');
    }
    const picked = pick(name, opts.instance);
    if (picked && 'ok' in picked) return picked;
    const tool = picked;
    if (!tool) {
      const missing = options.missingTool?.(name);
      if (missing && personaAllows(persona, name)) {
        return fail(
          'TOOL_UNAVAILABLE',
          `[executeTool] ${name} is unavailable: its module ${missing.module} failed to load (${missing.reason})`,
          `The tool comes back when ${missing.module} loads: the failure is listed by armature boot and on the dashboard; fix its cause and start again, or do without ${name}.`,
          { name, module: missing.module },
        );
      }
      // A person's tools are suggested to people only: an agent is never pointed at one.
      const person = isPersonCaller(opts.caller);
      const near = closest(name, [...tools].filter(([, all]) => person || declarationOf(all).audience !== 'person').map(([n]) => n));
      return fail(
        'UNKNOWN_TOOL',
        `[executeTool] no tool named ${JSON.stringify(name)}${near.length ? `; did you mean ${near.map((n) => JSON.stringify(n)).join(' or ')}?` : ''}`,
        near.length ? `Call ${near[0]} instead.` : (UNKNOWN_TOOL_HINTS.get(opts.caller) ?? 'List the available tools with getToolDeclarations().'),
        { name, suggestions: near },
      );
    }
    const personOnly = tool.declaration.audience === 'person';
    if (personOnly && !isPersonCaller(opts.caller)) {
      return fail(
        'PERSON_ONLY',
        `[executeTool] ${name} is a person's decision: only the dashboard or the command line may call it, not ${quote(opts.caller ?? 'agent')}`,
        `Ask a person to ${PERSON_ONLY_HINT}.`,
        { name, caller: opts.caller ?? 'agent' },
      );
    }
    // The allow-list says what the persona's agents may call; a person's own tools are not theirs.
    if (!personOnly && !personaAllows(persona, name)) {
      const dot = name.indexOf('.');
      return fail(
        'TOOL_NOT_ALLOWED',
        `[executeTool] persona ${persona.id} does not allow tool ${name}`,
        `Add "${name}"${dot > 0 ? ` or "${name.slice(0, dot)}.*"` : ''} to "tools" in modules/personas/${persona.id}.json, or use a persona that allows it.`,
        { name, persona: persona.id },
      );
    }
    const parsed = tool.validator.safeParse(args ?? {});
    if (!parsed.success) {
      const issues = parsed.error.issues.map((i) => ({ path: formatJsonPath(i.path), message: i.message }));
      return fail(
        'INVALID_ARGUMENTS',
        `[executeTool] invalid arguments for ${name}: ${issues.map((i) => `${i.path}: ${i.message}`).join('; ')}`,
        `Fix the listed fields; ${name} takes ${describeSchema(tool.declaration.inputSchema)}.`,
        { issues },
      );
    }
    if (opts.signal?.aborted) return fail('CANCELLED', `[executeTool] ${name} was cancelled before it started`, undefined, { name });
    const timeoutMs = opts.timeoutMs ?? tool.declaration.timeoutMs ?? defaultTimeoutMs;
    // Made when the handler first reads `signal` (most never do; an AbortController per call is a
    // measurable share of a small call). A call that ends first leaves its reason for that moment.
    let controller: AbortController | undefined;
    let abortReason: ArmatureError | undefined;
    const signal = () => {
      if (!controller) {
        controller = new AbortController();
        if (abortReason) controller.abort(abortReason);
      }
      return controller.signal;
    };
    const abort = (reason: ArmatureError) => (controller ? controller.abort(reason) : (abortReason = reason));
    let timer: ReturnType<typeof setTimeout> | undefined;
    let stopListening = () => {};
    const timeout = new Promise<'timeout' | 'cancelled'>((resolve) => {
      timer = setTimeout(() => resolve('timeout'), timerMs(timeoutMs));
      const signal = opts.signal;
      if (!signal) return;
      const onAbort = () => resolve('cancelled');
      if (signal.aborted) onAbort();
      signal.addEventListener('abort', onAbort, { once: true });
      stopListening = () => signal.removeEventListener('abort', onAbort);
    });
    try {
      const outcome = await Promise.race([
        // Started synchronously (an async wrapper still turns a synchronous throw into a
        // rejection): whatever the caller set up for the call's synchronous part reaches the
        // executor, e.g. the Python runtime's re-entry scope in browsers.
        (async () => tool.executor(name, parsed.data as Record<string, unknown>, {
          callId,
          caller: opts.caller ?? 'agent',
          get signal() {
            return signal();
          },
          ...(opts.session === undefined ? {} : { session: opts.session }),
        }))(),
        timeout,
      ]);
      if (outcome === 'cancelled') {
        abort(new ArmatureError('CANCELLED', `${name} was cancelled`));
        return fail('CANCELLED', `[executeTool] ${name} was cancelled by its caller`, undefined, { name });
      }
      if (outcome === 'timeout') {
        abort(new ArmatureError('TIMEOUT', `${name} timed out`));
        return fail('TIMEOUT', `[executeTool] ${name} did not finish within ${timeoutMs} ms`, 'Retry with a larger timeoutMs or smaller input.', {
          timeoutMs,
        });
      }
      return { ok: true, value: outcome };
    } catch (e) {
      const info = toErrorInfo(e, 'TOOL_FAILED');
      const hint = e instanceof ArmatureError ? e.hint : undefined;
      return hint ? { ok: false, error: info, hint } : { ok: false, error: info };
    } finally {
      clearTimeout(timer);
      stopListening();
    }
  }

  return {
    registerTools(declarations, executor, options = {}) {
      const instance = options.instance ?? '';
      // Kept as registered: the caller's array may change afterwards.
      const registered: ToolDeclaration[] = [];
      for (const d of declarations) {
        // The length first: nothing else looks at a name longer than any name may be.
        const tooLong = nameProblem(d.name);
        if (tooLong || !isValidToolName(d.name) || (d.name.includes('.') && !d.namespace) || (d.namespace && d.name.includes('.') && !d.name.startsWith(`${d.namespace}.`))) {
          throw new ArmatureError(
            'INVALID_TOOL_NAME',
            `[registerTools] tool name ${quote(d.name)} is not valid: ${tooLong ? `${tooLong}; ` : ''}use snake_case ("read_file"), or "<namespace>.<tool>" ("memory.read_graph") with namespace set to that namespace`,
          );
        }
        const existing = tools.get(d.name);
        if (existing?.has(instance) || (existing && (instance === '' || existing.has('')))) {
          const by = [...existing.values()][0]!.declaration.module;
          throw new ArmatureError(
            'DUPLICATE_TOOL',
            `[registerTools] tool ${d.name} is already registered (by ${by})${instance ? ` with instance ${JSON.stringify(instance)}` : ''}; several registrations of one tool each need their own instance id`,
          );
        }
      }
      for (const d of declarations) {
        let validator: z.ZodType;
        try {
          validator = compileInputSchema(d.inputSchema);
        } catch (e) {
          throw new ArmatureError('INVALID_TOOL_SCHEMA', `[registerTools] ${d.name}: inputSchema is not a usable JSON Schema (${(e as Error).message})`);
        }
        if (!tools.has(d.name)) tools.set(d.name, new Map());
        tools.get(d.name)!.set(instance, { declaration: d, validator, executor });
        statsFor(d.name);
        registered.push(d);
      }
      revision++;
      announce('tool:registered', registered);
      return toDisposable(() => {
        const removed: ToolDeclaration[] = [];
        for (const d of registered) {
          const all = tools.get(d.name);
          if (all?.get(instance)?.executor !== executor) continue;
          all.delete(instance);
          if (all.size === 0) tools.delete(d.name);
          removed.push(d);
        }
        if (removed.length) revision++;
        announce('tool:unregistered', removed);
      });
    },

    async executeTool<T>(name: string, args?: unknown, opts: ExecuteOptions = {}): Promise<ToolResult<T>> {
      const callId = opts.callId ?? `call-${++callCounter}`;
      const caller = opts.caller ?? 'agent';
      const t0 = performance.now();
      // Events carry the name as asked, but never a huge one whole.
      const shown = typeof name !== 'string' ? String(quote(name)) : shortName(name);
      bus.emit('tool:started', { callId, name: shown, caller });
      let result: Outcome;
      try {
        result = await run(name, args, opts, callId);
      } catch (e) {
        // run() handles every expected failure; this is a last line of defence for the never-throw contract.
        result = { ok: false, error: toErrorInfo(e) };
      }
      const durationMs = performance.now() - t0;
      if (tools.has(name)) {
        const s = statsFor(name);
        s.calls++;
        if (!result.ok) s.errors++;
        s.lastCallAt = Date.now();
        if (s.durations.length < window) s.durations.push(durationMs);
        else s.durations[s.next] = durationMs;
        s.next = (s.next + 1) % window;
      }
      bus.emit(
        'tool:finished',
        result.ok ? { callId, name: shown, caller, ok: true, durationMs } : { callId, name: shown, caller, ok: false, durationMs, error: result.error },
      );
      return { ...result, durationMs } as ToolResult<T>;
    },

    getToolDeclarations(o = {}) {
      const p = o.persona ?? persona;
      const person = o.audience === 'person';
      return [...tools.values()].map(declarationOf).filter((d) => (d.audience === 'person' ? person : personaAllows(p, d.name)));
    },

    hasTool: (name) => tools.has(name),

    revision: () => revision,

    getToolDeclaration: (name) => {
      const instances = tools.get(name);
      return instances && declarationOf(instances);
    },

    getToolInstances: (name) => [...(tools.get(name)?.keys() ?? [])].filter(Boolean),

    getStats() {
      return [...stats.entries()].map(([name, s]): ToolStats => {
        const sorted = [...s.durations].sort((a, b) => a - b);
        const mean = sorted.length ? sorted.reduce((a, b) => a + b, 0) / sorted.length : 0;
        const p95 = sorted.length ? sorted[Math.min(sorted.length - 1, Math.ceil(sorted.length * 0.95) - 1)]! : 0;
        return s.lastCallAt === undefined
          ? { name, calls: s.calls, errors: s.errors, meanMs: mean, p95Ms: p95 }
          : { name, calls: s.calls, errors: s.errors, meanMs: mean, p95Ms: p95, lastCallAt: s.lastCallAt };
      });
    },
  };
}

/** A compact signature of an object JSON Schema: `{ path: string, encoding?: "utf8" | "base64" }`. */
export function describeSchema(schema: Record<string, unknown>): string {
  const props = (schema.properties ?? {}) as Record<string, Record<string, unknown>>;
  const required = new Set((schema.required as string[] | undefined) ?? []);
  const type = (p: Record<string, unknown>): string =>
    Array.isArray(p.enum) ? p.enum.map((v) => JSON.stringify(v)).join(' | ') : p.type === 'array' ? `${type((p.items ?? {}) as Record<string, unknown>)}[]` : String(p.type ?? 'any');
  const fields = Object.entries(props).map(([k, p]) => `${k}${required.has(k) ? '' : '?'}: ${type(p)}`);
  return fields.length ? `{ ${fields.join(', ')} }` : '{}';
}
