/**
 * The processes on one data folder, as a dashboard attached to it sees them: every Node process
 * booted there (`armature agent`, `armature mcp`, a library `boot()`, the dashboard's own) keeps a
 * journal of its bus events in the folder (`src/kernel/journal/`), and the dashboard server tails
 * them all. A shared contract: the server emits these events into the views it serves, and the
 * page renders them.
 */

import type { ProcessEndReason, ProcessInfo } from '../kernel/journal/journal-layout.ts';

export type { ProcessCommand, ProcessEndReason, ProcessInfo } from '../kernel/journal/journal-layout.ts';

declare module '../kernel/events.ts' {
  interface ArmatureEvents {
    /** A process on the data folder was found (started before or after the dashboard), or came back after it was lost. */
    'process:started': { process: ProcessInfo };
    /** A process on the data folder ended: it exited, crashed (pid gone) or was lost (no heartbeat). */
    'process:ended': { process: ProcessInfo; reason: ProcessEndReason };
  }
}
