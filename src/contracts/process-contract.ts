/**
 * The processes on one data folder, as a dashboard attached to a Node system sees them: each
 * `armature agent`, `armature mcp`, library `boot()` ... that writes there. A shared contract
 * (`src/contracts/`): the dashboard's server emits these events into the view, and the widgets
 * render them; declared here by augmentation of the event map, as an upgrade declares its own.
 */

/** One process on the data folder. */
export interface ProcessInfo {
  /** Its id on the data folder: what event records (`EventRecord.process`) and `stop_run` name. */
  id: string;
  pid: number;
  /** What it runs: `agent`, `mcp`, `boot`, `start`, `library`. */
  command: string;
  /** The persona it booted. */
  persona: string;
  /** ms since the epoch. */
  startedAt: number;
  /** When it ended, once it did. */
  endedAt?: number;
}

/** Why a process ended: it exited, crashed, or was lost (no heartbeat). */
export type ProcessEndReason = 'exited' | 'crashed' | 'lost';

declare module '../kernel/events.ts' {
  interface ArmatureEvents {
    /** A process on the data folder started (or was found running when the view attached). */
    'process:started': { process: ProcessInfo };
    /** A process on the data folder ended. */
    'process:ended': { process: ProcessInfo; reason: ProcessEndReason };
  }
}
