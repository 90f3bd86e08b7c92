// Makes later runtimes of this test process start from a restored interpreter, so the suites
// that use them exercise Python after a snapshot restore (what most starts are).
import { createPyodideRuntime } from '../../upgrades/pyodide-runtime/runtime.ts';

/**
 * Starts and stops one runtime, which starts Python anew and keeps its start-up snapshot in this
 * process's memory; every runtime of that `isolation` created afterwards restores it (a confined
 * child's snapshot is only restored in children, a thread's only in threads). Rejects if it was not so.
 */
export async function primeSnapshot(isolation: 'process' | 'thread' = 'process'): Promise<void> {
  const primer = createPyodideRuntime({ snapshot: 'memory', isolation }, { emit: () => undefined });
  try {
    await primer.init();
    if (primer.getState().fromSnapshot !== false) throw new Error('the primer should have started Python anew (is another snapshot already in memory?)');
  } finally {
    await primer.dispose();
  }
}
