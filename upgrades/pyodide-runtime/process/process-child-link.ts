/**
 * One started confined child as the host holds it: what the connection (`process-connection.ts`)
 * keeps about it and the call answerers (`process-calls.ts`) act on. Its own file so that those
 * two depend on it and not on each other.
 */
import type { ConfinedChild } from '../../../src/sandbox/confined-child.ts';
import type { PythonErrorInfo } from '../protocol/protocol.ts';

/** An answer of the child to one call. */
export type Answer = { ok: true; value: unknown } | { ok: false; error: PythonErrorInfo };

/** One started child. */
export interface ChildLink {
  child: ConfinedChild;
  indexURL: string;
  pending: Map<string, (answer: Answer) => void>;
  dead: boolean;
  /** Run ids of `execute` calls sent and not answered, with their timeouts: the only runs the child may report on. */
  queued: Map<string, number>;
  /** The run the child reported started and not yet finished. */
  current?: string;
  /** Warnings the child sent (only the first few are printed). */
  warnings: number;
  /** Ends the current run's `call_tool`s at its timeout (the child interrupts Python then too). */
  runTimer?: ReturnType<typeof setTimeout>;
  /** When the child said hello (its channel is up). */
  hello: Promise<void>;
  sayHello(): void;
  /** `call_tool` requests from the worker's pipe being answered, by call id. */
  calls: Set<number>;
  /** Calls whose worker went to sleep waiting for the answer: it needs a wake-up. */
  sleepers: Set<number>;
  /** Writes a frame on the worker's pipe. */
  writeFrame(frame: Uint8Array): void;
  /** The Python modules its start message carried (a later identical set is not sent again). */
  startedWith?: readonly { path: string; source: string }[];
}
