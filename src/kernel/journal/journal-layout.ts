/**
 * Where a process's journal lives in the data folder and what its files hold. One folder per
 * process under `<dataDir>/processes/<id>/`:
 *
 * - `process.json`: who it is (`ProcessInfo` plus its host), replaced whole by rename; its mtime
 *   is the heartbeat, touched every second while the process lives; `endedAt` once it exits.
 * - `journal-000001.jsonl`, ...: its bus events, one JSON record per line, appended per tick;
 *   a segment is closed at a size bound and the oldest are deleted, so a process's journal stays
 *   bounded. A crash tears at most the last line, which readers skip.
 * - `control/<id>.json`: a request from a dashboard (stop a run), answered in `control/<id>.answer.json`.
 *
 * Node only.
 */
import { join } from 'node:path';

/** What a process runs (a CLI command, or the library): `agent`, `mcp`, `boot`, `start`, `library`, ... */
export type ProcessCommand = 'agent' | 'mcp' | 'boot' | 'start' | 'library' | (string & {});

/** One process on the data folder. */
export interface ProcessInfo {
  /** Unique on the folder: `<start time base36>-<pid>-<random>`; event records from it carry it as `process`. */
  id: string;
  pid: number;
  command: ProcessCommand;
  /** The persona it booted. */
  persona: string;
  /** `Date.now()` at boot. */
  startedAt: number;
  /** When it ended (or was found ended), if it has. */
  endedAt?: number;
}

/** Why a process is shown as ended: it said so (`exited`), its pid is gone without a word (`crashed`), its heartbeat stopped (`lost`). */
export type ProcessEndReason = 'exited' | 'crashed' | 'lost';

/** The folder holding every process's folder. */
export const PROCESSES_FOLDER = 'processes';

/** A process's presence file. */
export const PRESENCE_FILE = 'process.json';

/** A process's control folder. */
export const CONTROL_FOLDER = 'control';

/** Journal segment file names: `journal-` + 6 digits + `.jsonl`. */
export const SEGMENT = /^journal-(\d{6})\.jsonl$/;

/** The name of segment `n`. */
export const segmentName = (n: number): string => `journal-${String(n).padStart(6, '0')}.jsonl`;

/** The processes folder of a data folder. */
export const processesDir = (dataDir: string): string => join(dataDir, PROCESSES_FOLDER);

/** What `process.json` holds. */
export interface Presence extends ProcessInfo {
  /** `os.hostname()`: a pid means something only on its own host. */
  host: string;
}

/** One line of a journal: an event record as the bus made it. */
export interface JournalRecord {
  type: string;
  payload: unknown;
  at: number;
  seq: number;
  /** Set for events declared at run time (an agent-made upgrade's), with their owner. */
  declared?: true;
  owner?: string;
}

/** A request a dashboard leaves in a process's control folder. */
export interface ControlRequest {
  id: string;
  /** The tool to call there, as the person at the dashboard (caller `ui`). Only `stop_run` is relayed. */
  tool: string;
  args: Record<string, unknown>;
  at: number;
}

/** The tools a dashboard may call in another process through its control folder. */
export const RELAYED_TOOLS: readonly string[] = ['stop_run'];

/** Whether `value` looks like a presence file's content. */
export function isPresence(value: unknown): value is Presence {
  const p = value as Partial<Presence> | null;
  return !!p && typeof p.id === 'string' && typeof p.pid === 'number' && typeof p.command === 'string' && typeof p.persona === 'string' && typeof p.startedAt === 'number' && typeof p.host === 'string';
}

/** A request id or process id safe to use as a file name. */
export const SAFE_ID = /^[A-Za-z0-9_-]{1,80}$/;

/** A process on the data folder now: `live`, or how it ended (see {@link ProcessEndReason}). */
export type ProcessState = 'live' | ProcessEndReason;

/**
 * A process as its folder says now. `endedAt` is set once it ended: when it said so, else its
 * last heartbeat (the last sign it lived).
 */
export interface ProcessStatus extends ProcessInfo {
  state: ProcessState;
}

/**
 * The processes on a data folder, read from their folders when asked (Node). What the Node platform
 * tells the kernel and upgrades (`Platform.processes`) so that they can say whether something another
 * process started still goes on there: an agent run without an end in its transcript is running
 * while its process lives, and interrupted once that process died.
 */
export interface ProcessDirectory {
  /** Process `id` now, or undefined when it has no folder (never had a journal, or pruned). */
  status(id: string): ProcessStatus | undefined;
  /** Every process with a folder, oldest first. */
  list(): ProcessStatus[];
}
