/**
 * Control requests between processes on one data folder: a dashboard leaves a request in a
 * process's `control/` folder (written whole: a temporary name, then a rename), the process
 * notices it (fs.watch, with a poll as the fallback where watching does not work), answers in
 * `<id>.answer.json` and removes the request. Within ~1 s, whether or not anything else happens.
 */
import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, watch, writeFileSync, type FSWatcher } from 'node:fs';
import { join } from 'node:path';
import { randomUUID } from 'node:crypto';
import type { ToolResult } from '../tool-contract.ts';
import type { Disposable } from '../lifecycle.ts';
import { CONTROL_FOLDER, SAFE_ID, type ControlRequest } from './journal-layout.ts';

/** Answers one request (a tool call as the person at the dashboard); never rejects. */
export type ControlHandler = (request: ControlRequest) => Promise<ToolResult>;

const REQUEST = /^([A-Za-z0-9_-]{1,80})\.json$/;

/** Watches a process's control folder and answers what arrives. */
export class ControlWatcher implements Disposable {
  private readonly dir: string;
  private readonly seen = new Set<string>();
  private watcher: FSWatcher | undefined;
  private readonly poll: ReturnType<typeof setInterval>;
  private disposed = false;

  constructor(folder: string, private readonly handle: ControlHandler, pollMs: number) {
    this.dir = join(folder, CONTROL_FOLDER);
    mkdirSync(this.dir, { recursive: true });
    try {
      // Not persistent: a process is never kept alive by its control folder.
      this.watcher = watch(this.dir, { persistent: false }, () => this.scan());
      this.watcher.on('error', () => undefined);
    } catch {
      this.watcher = undefined;
    }
    this.poll = setInterval(() => this.scan(), pollMs);
    this.poll.unref();
  }

  dispose(): void {
    this.disposed = true;
    this.watcher?.close();
    clearInterval(this.poll);
  }

  private scan(): void {
    if (this.disposed) return;
    let names: string[];
    try {
      names = readdirSync(this.dir);
    } catch {
      return;
    }
    for (const name of names) {
      const id = REQUEST.exec(name)?.[1];
      if (!id || name.endsWith('.answer.json') || this.seen.has(id)) continue;
      this.seen.add(id);
      void this.answer(id, join(this.dir, name));
    }
  }

  private async answer(id: string, file: string): Promise<void> {
    let result: ToolResult;
    try {
      const request = JSON.parse(readFileSync(file, 'utf8')) as ControlRequest;
      rmSync(file, { force: true });
      result = await this.handle({ ...request, id });
    } catch (e) {
      result = { ok: false, error: { code: 'CONTROL_FAILED', message: `[control] request ${id} could not be read: ${(e as Error).message}` }, durationMs: 0 };
    }
    if (this.disposed) return;
    try {
      const tmp = join(this.dir, `${id}.answer.tmp`);
      writeFileSync(tmp, JSON.stringify(result));
      renameSync(tmp, join(this.dir, `${id}.answer.json`));
    } catch {
      // The folder went away with the process.
    }
  }
}

/**
 * Sends `tool(args)` to the process whose folder is `folder` and waits for its answer, at most
 * `timeoutMs`; resolves to the tool's result, or `PROCESS_UNRESPONSIVE` when none came.
 */
export async function sendControl(folder: string, tool: string, args: Record<string, unknown>, timeoutMs = 5000): Promise<ToolResult> {
  const dir = join(folder, CONTROL_FOLDER);
  const id = randomUUID();
  if (!SAFE_ID.test(id) || !existsSync(dir)) {
    return { ok: false, error: { code: 'PROCESS_UNREACHABLE', message: `[control] the process has no control folder (${dir}): it may have ended` }, durationMs: 0 };
  }
  const request: ControlRequest = { id, tool, args, at: Date.now() };
  const tmp = join(dir, `${id}.tmp`);
  writeFileSync(tmp, JSON.stringify(request));
  renameSync(tmp, join(dir, `${id}.json`));
  const answerFile = join(dir, `${id}.answer.json`);
  const t0 = Date.now();
  const arrived = await new Promise<boolean>((resolve) => {
    let watcher: FSWatcher | undefined;
    let settled = false;
    const finish = (value: boolean) => {
      if (settled) return;
      settled = true;
      clearInterval(timer);
      clearTimeout(deadline);
      watcher?.close();
      resolve(value);
    };
    const check = () => {
      if (existsSync(answerFile)) finish(true);
    };
    try {
      watcher = watch(dir, { persistent: false }, check);
      watcher.on('error', () => undefined);
    } catch {
      watcher = undefined;
    }
    // The poll is the fallback where watching does not work (some network file systems).
    const timer = setInterval(check, 50);
    const deadline = setTimeout(() => finish(existsSync(answerFile)), timeoutMs);
    check();
  });
  if (!arrived) {
    rmSync(join(dir, `${id}.json`), { force: true });
    return { ok: false, error: { code: 'PROCESS_UNRESPONSIVE', message: `[control] the process did not answer ${tool} within ${timeoutMs} ms: it may be busy or gone` }, hint: 'Look at its state on the Processes card; try again.', durationMs: Date.now() - t0 };
  }
  const answer = JSON.parse(readFileSync(answerFile, 'utf8')) as ToolResult;
  rmSync(answerFile, { force: true });
  return answer;
}
