/**
 * The one small adapter a confined worker's host needs from the platform: a Node child process
 * (`node-host.ts`) or a module Web Worker (`browser-host.ts`).
 */
import type { HostMessage } from './protocol.ts';

/** Why a worker stopped without being asked to. */
export interface TransportExit {
  /** `memory`: over its memory limit; `oversize`: it sent a message over the size limit; `exit`: it exited or crashed; `error`: it failed to start or run. */
  reason: 'memory' | 'oversize' | 'exit' | 'error';
  /** What the platform said (exit code, signal, the end of stderr, the error). */
  detail: string;
}

/** A started worker, as the host drives it. */
export interface SandboxTransport {
  /** Sends a message. Throws `MESSAGE_TOO_LARGE` (a {@link SandboxError}) past `maxMessageBytes`. */
  post(msg: HostMessage): void;
  /** Every message the worker sends, not yet validated. */
  onMessage(handler: (raw: unknown) => void): void;
  /** The worker stopped on its own (called at most once; never after `terminate`). */
  onExit(handler: (exit: TransportExit) => void): void;
  /** Stops the worker at once. */
  terminate(): Promise<void>;
  /** Node: the child's process id (for diagnostics and tests). */
  readonly pid?: number;
}

/** What starting a transport needs. */
export interface TransportOptions {
  /** The worker's name, for errors. */
  name: string;
  /** Heap cap in MiB where the platform can enforce one. */
  memoryMb: number;
  /** Largest message either side may send, in bytes. */
  maxMessageBytes: number;
  /** Browser: the worker script's URL. */
  workerUrl?: string | URL;
}
