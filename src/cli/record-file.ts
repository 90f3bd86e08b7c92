/**
 * `armature agent --record FILE`: the file a run's recording goes to, line by line as the run goes
 * (a run cut short keeps what it recorded). A new run never overwrites a file; a follow-up
 * (`--continue RUN --record FILE`) adds its turn to the file that recorded RUN.
 */
import { appendFileSync, existsSync, mkdirSync, readFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { quote } from '../kernel/bounded.ts';
import type { RecordingSink } from '../contracts/agent-contract.ts';

/** The sink for `path`, or why the file cannot take this run's recording (bad usage). */
export function openRecordFile(path: string, runId: string | undefined): RecordingSink | string {
  const exists = existsSync(path);
  if (!runId && exists) return `--record ${quote(path)}: the file exists; record a new run into a new file (nothing is overwritten), or add a follow-up to it with --continue RUN`;
  if (runId) {
    if (!exists) return `--record ${quote(path)} with --continue ${runId}: there is no such file; a recording starts with the run's first turn (armature agent --record FILE "GOAL"), and its follow-ups are added to that file`;
    let header: { run?: unknown } | undefined;
    try {
      header = JSON.parse(readFileSync(path, 'utf8').split('\n', 1)[0] ?? '') as { run?: unknown };
    } catch {
      header = undefined;
    }
    if (header?.run !== runId) return `--record ${quote(path)} recorded ${header?.run ? `run ${String(header.run)}` : 'no run'}, not ${runId}: add a follow-up to the file that recorded its run`;
  }
  mkdirSync(dirname(path), { recursive: true });
  return { write: (line) => appendFileSync(path, line) };
}
