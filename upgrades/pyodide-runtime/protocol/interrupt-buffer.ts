/**
 * The interrupt buffer's layout: two 32-bit words the host and the worker share (shared-memory
 * hosts only).
 * - {@link INTERRUPT_SIGNAL}: Pyodide's own (`setInterruptBuffer`). The host writes 2 (SIGINT);
 *   Python reads and clears it at its next check between bytecodes and raises KeyboardInterrupt.
 *   A `call_tool` waiting for its answer looks at it too.
 * - {@link INTERRUPT_RUNNING}: 1 from when the host sends a run, 0 from the moment the worker is
 *   done with it (before its answer is posted). The host's `InterruptWatch` (`host/interrupt-watch.ts`)
 *   reads both to tell a Python that cannot stop from one that is slow to get a turn.
 */

/** Index of Pyodide's signal word. */
export const INTERRUPT_SIGNAL = 0;
/** Index of the worker's "user code is running" word. */
export const INTERRUPT_RUNNING = 1;
/** Bytes of the buffer. */
export const INTERRUPT_BUFFER_BYTES = 8;
