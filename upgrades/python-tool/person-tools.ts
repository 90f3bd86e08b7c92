/**
 * The Python tools a person has on the dashboard: start the shared runtime, interrupt a run,
 * restart a runtime. Declared `audience: "person"` (modules/tools-write.json): the ToolRunner runs
 * them for the dashboard and the command line only, and no agent or Python is offered them.
 */
import { nameProblem, quote } from '../../src/kernel/bounded.ts';
import { ArmatureError } from '../../src/kernel/errors.ts';
import type { ToolHandler } from '../../src/kernel/upgrade.ts';
import type { PyodideRuntimeApi } from '../pyodide-runtime/contract.ts';

/** The session a call names, checked; undefined for the shared runtime. */
function sessionOf(value: unknown): string | undefined {
  if (value === undefined) return undefined;
  const problem = nameProblem(value);
  if (problem) throw new ArmatureError('INVALID_SESSION', `[python] session ${quote(value)}: ${problem}`, { hint: 'Pass the console\'s session name, or leave session out for the shared runtime.' });
  return value as string;
}

/** The handlers of `start_python`, `interrupt_python` and `restart_python`. */
export function pythonPersonTools(runtime: Pick<PyodideRuntimeApi, 'init' | 'interrupt' | 'restart' | 'endSession' | 'getState'>): Record<string, ToolHandler> {
  return {
    async start_python() {
      await runtime.init();
      return { status: runtime.getState().status };
    },
    interrupt_python(args) {
      const session = sessionOf(args.session);
      runtime.interrupt(session);
      return { interrupted: session ?? 'shared' };
    },
    async restart_python(args) {
      const session = sessionOf(args.session);
      // A session's runtime is the pool's: ending the session gives it fresh globals; the shared one restarts.
      if (session !== undefined) await runtime.endSession(session);
      else await runtime.restart();
      return { restarted: session ?? 'shared' };
    },
  };
}
