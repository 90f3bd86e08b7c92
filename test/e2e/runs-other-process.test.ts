// A run live in another process on the same data folder, as `list_runs` and `read_run` of a
// long-lived system there report it: a library `boot()` in this process, and a real `armature
// agent` child against the scripted model server, whose first model request is held until the
// test lets it go. While the child's run waits on the model it is `running`, in the child's
// process (its pid and command); once the child has answered and exited it is `answered`; a
// child killed mid-run leaves its run `interrupted`, its process `crashed`, never `running`.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { boot, type ArmatureSystem } from '../../src/kernel/boot/boot.ts';
import type { RunSummary, TranscriptEntry } from '../../src/contracts/agent-contract.ts';
import { bin } from '../helpers/run-cli.ts';
import { ScriptedModel } from '../helpers/scripted-model-server.ts';
import { tempDir } from '../helpers/temp-dir.ts';
import { until } from '../helpers/until.ts';

const data = tempDir('runs-other-process');
const runsFolder = join(data, 'workspace', '.armature', 'runs');
let system: ArmatureSystem;
let server: Server;
let baseURL: string;
const model = new ScriptedModel();
/** Model requests held until the test lets them go, oldest first. */
const held: (() => void)[] = [];
let heldNotice: (() => void) | undefined;
const children: ChildProcess[] = [];

type Page = { runs: RunSummary[]; next_cursor?: string };

before(async () => {
  // A model server that holds each chat request until released, then answers it from the script.
  server = createServer((req, res) => {
    const path = new URL(req.url ?? '/', 'http://x').pathname;
    const answer = () => void model.handle(req, res, path).catch(() => res.destroy());
    if (!path.endsWith('/chat/completions')) return answer();
    held.push(answer);
    heldNotice?.();
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  baseURL = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`;
  // The long-lived system that lists the runs: booted before the other process writes anything.
  system = await boot({ dataDir: data, persona: 'default' });
});

after(async () => {
  for (const c of children) if (c.exitCode === null && c.signalCode === null) c.kill('SIGKILL');
  await system?.dispose();
  server?.closeAllConnections();
  await new Promise((r) => server?.close(r));
});

/** Starts `armature agent` on the folder; resolves once its model request is held, with its run's id and process id. */
async function agentHeldOnModel(goal: string): Promise<{ child: ChildProcess; exited: Promise<unknown>; runId: string; process: string }> {
  const before = held.length;
  const requested = new Promise<void>((r) => (heldNotice = () => held.length > before && r()));
  const child = spawn(process.execPath, [bin, 'agent', '--model', 'openai-compatible:scripted', '--base-url', baseURL, '--data', data, goal], {
    cwd: data,
    env: { ...process.env, OPENAI_API_KEY: '', ARMATURE_API_KEY: '' },
    stdio: 'ignore',
  });
  children.push(child);
  const exited = new Promise((r) => child.once('exit', r));
  await Promise.race([requested, exited.then(() => assert.fail('the agent process exited before it asked the model'))]);
  // Its transcript holds the run's start once the append is on disk.
  let started: Extract<TranscriptEntry, { type: 'started' }> | undefined;
  await until('the run\'s start in its transcript', () => {
    const names = existsSync(runsFolder) ? readdirSync(runsFolder).filter((n) => n.endsWith('.jsonl')) : [];
    for (const n of names) {
      const first = readFileSync(join(runsFolder, n), 'utf8').split('\n')[0];
      const entry = first ? (JSON.parse(first) as TranscriptEntry) : undefined;
      if (entry?.type === 'started' && entry.goal === goal) started = entry;
    }
    return !!started;
  });
  assert.ok(started!.process, 'the agent process records its process id');
  return { child, exited, runId: started!.runId, process: started!.process };
}

const listRuns = async (args: Record<string, unknown>) => {
  const r = await system.tools.executeTool<Page>('list_runs', args, { caller: 'agent' });
  assert.ok(r.ok, JSON.stringify(r));
  return r.value;
};

test('list_runs { status: "running" } reports a run live in another process, with that process, while it runs and not after', async () => {
  model.setScript([{ text: 'Done elsewhere.' }]);
  const other = await agentHeldOnModel('count the files elsewhere');
  assert.ok(system.process, 'this system keeps a journal too');
  assert.notEqual(other.process, system.process!.id);

  const running = await listRuns({ status: 'running' });
  assert.deepEqual(running.runs.map((r) => [r.runId, r.reason, r.process]), [[other.runId, 'running', other.process]], 'the other process\'s run is running');
  const info = running.runs[0]!.processInfo;
  assert.equal(info?.id, other.process);
  assert.equal(info?.command, 'agent');
  assert.equal(info?.state, 'live');
  assert.equal(info?.pid, other.child.pid, 'the process that runs it, by its pid');
  const read = await system.tools.executeTool<{ runId: string; entries: TranscriptEntry[]; reason: RunSummary['reason']; processInfo?: RunSummary['processInfo'] }>('read_run', { runId: other.runId }, { caller: 'agent' });
  assert.ok(read.ok, JSON.stringify(read));
  assert.equal(read.value.reason, 'running');
  assert.equal(read.value.processInfo?.id, other.process);
  assert.equal(read.value.entries[0]?.type, 'started');

  held.shift()!();
  await other.exited;
  assert.equal(other.child.exitCode, 0);
  assert.deepEqual((await listRuns({ status: 'running' })).runs, [], 'nothing runs once the other process answered and exited');
  const all = await listRuns({});
  const done = all.runs.find((r) => r.runId === other.runId);
  assert.equal(done?.reason, 'answered');
  assert.equal(done?.processInfo?.state, 'exited');
  const reread = await system.tools.executeTool<{ entries: TranscriptEntry[]; reason: string }>('read_run', { runId: other.runId }, { caller: 'agent' });
  assert.ok(reread.ok && reread.value.reason === 'answered' && reread.value.entries.at(-1)?.type === 'finished');
});

test('a run whose process was killed mid-run is interrupted, its process crashed, never running', async () => {
  model.setScript([{ text: 'never sent' }]);
  const other = await agentHeldOnModel('wait for the model, then die');
  assert.deepEqual((await listRuns({ status: 'running' })).runs.map((r) => r.runId), [other.runId]);
  other.child.kill('SIGKILL');
  await other.exited;
  assert.deepEqual((await listRuns({ status: 'running' })).runs, [], 'a dead process runs nothing');
  const interrupted = await listRuns({ status: 'interrupted', process: other.process });
  assert.deepEqual(interrupted.runs.map((r) => [r.runId, r.reason, r.processInfo?.state]), [[other.runId, 'interrupted', 'crashed']]);
  held.shift()?.();
});
