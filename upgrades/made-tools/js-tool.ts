/**
 * One version of an agent-made JavaScript tool in its own confined worker (a permission-model
 * child process in Node, a locked-down Web Worker in browsers): the module's default export is
 * `async (args, { call_tool }) => result`. The worker starts on first use (or at once for a
 * version under test); a stuck call is stopped at its time limit and the worker restarted; calls
 * in flight finish before the worker of a replaced version is stopped.
 */
import { ArmatureError } from '../../src/kernel/errors.ts';
import { AgentCodeError, createConfinedWorker, type ConfinedWorker } from '../../src/sandbox/index.ts';

/** Options of a {@link JsTool}. */
export interface JsToolOptions {
  /** The tool's full name (for errors and the worker's name). */
  name: string;
  /** The version's sha256 (its first 12 digits name the worker). */
  hash: string;
  /** The agent's ES module. */
  source: string;
  /** The tool's only capability: a tool call through the ToolRunner, under the creating persona. */
  callTool: (name: unknown, args: unknown) => Promise<unknown>;
  /** Origins its `fetch` may reach, or `none`. */
  network: 'none' | string[];
  /** Longest call (and module load), in ms. */
  timeoutMs: number;
  /** Hears the agent's console lines and the worker's restarts. Default: dropped. */
  onLog?: (text: string) => void;
}

/** One version of a JavaScript tool and its worker. */
export class JsTool {
  private worker: Promise<ConfinedWorker> | undefined;
  private readonly inFlight = new Set<Promise<unknown>>();
  private stopped = false;

  constructor(private readonly o: JsToolOptions) {}

  /** Starts the worker (loading the module) unless it runs; rejects with `SANDBOX_LOAD_FAILED` and the agent's error. */
  start(): Promise<ConfinedWorker> {
    if (this.stopped) return Promise.reject(new ArmatureError('TOOL_RETIRED', `[made-tools] this version of ${this.o.name} is no longer in force`, { hint: 'Call the tool again: the version in force answers.' }));
    if (!this.worker) {
      const started = createConfinedWorker({
        name: `${this.o.name}@${this.o.hash.slice(0, 12)}`,
        source: this.o.source,
        capabilities: { call_tool: (name, args) => this.o.callTool(name, args) },
        network: this.o.network,
        limits: { callTimeoutMs: this.o.timeoutMs },
        onLog: (e) => this.o.onLog?.(`[${this.o.name} ${e.level}] ${e.text}`),
        onRestart: (e) => this.o.onLog?.(`[${this.o.name}] worker restarted (${e.reason}): ${e.error.message}`),
      });
      this.worker = started;
      // A module that failed to load is tried again by the next call, not remembered as failed.
      started.catch(() => this.worker === started && (this.worker = undefined));
    }
    return this.worker;
  }

  /** Runs the tool once. Rejects with the agent's error (`AGENT_ERROR`), a timeout (`SANDBOX_TIMEOUT`) or an abort. */
  async call(args: Record<string, unknown>, opts: { timeoutMs?: number; signal?: AbortSignal } = {}): Promise<unknown> {
    const run = (async () => {
      const worker = await this.start();
      return worker.call(['default'], [args], { timeoutMs: opts.timeoutMs ?? this.o.timeoutMs, ...(opts.signal ? { signal: opts.signal } : {}) });
    })();
    this.inFlight.add(run);
    try {
      return await run;
    } catch (e) {
      throw e instanceof AgentCodeError ? toolError(e) : e;
    } finally {
      this.inFlight.delete(run);
    }
  }

  /** Stops the worker once the calls in flight have finished (each is bounded by its time limit). */
  async stop(): Promise<void> {
    this.stopped = true;
    await Promise.allSettled([...this.inFlight]);
    const worker = this.worker;
    this.worker = undefined;
    await (await worker?.catch(() => undefined))?.terminate();
  }
}

/**
 * The error a tool call answers when the agent's code threw: its own `code` when it set one (an
 * uncaught `call_tool` failure keeps the inner tool's code, e.g. `FILE_NOT_FOUND`), else its
 * class (`TypeError`), as a Python tool answers with its exception type.
 */
export function toolError(e: AgentCodeError): ArmatureError {
  const code = e.agentCode && /^[A-Za-z][\w.-]{0,63}$/.test(e.agentCode) ? e.agentCode : e.agentName && /^[A-Za-z_$][\w$]{0,63}$/.test(e.agentName) ? e.agentName : 'AGENT_ERROR';
  return new ArmatureError(code, code === e.agentName ? e.message : `${e.agentName || 'Error'}: ${e.message}`, { details: { stack: e.stack, worker: e.worker } });
}
