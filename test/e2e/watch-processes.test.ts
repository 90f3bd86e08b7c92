// #29 end to end: `armature start` on a temp data folder (the dashboard attached to the Node system
// it boots), and real CLI processes on the same folder — `armature agent` against the scripted
// OpenAI-compatible server (a Python run, then a Python tool made: pending), `armature approve` in
// a third process, an agent whose pending tool a person approves on the page (in Chromium) while
// the agent waits for it, an agent killed mid-run, `armature mcp --http` serving an MCP client's
// Python runs, an MCP server of the dashboard's own system asking the person on the page (elicitation).
// A remote view (the page's own code, here in Node) receives all of it live, each
// record tagged with its process; one Chromium page shows it as a person sees it.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Browser, Page } from 'puppeteer-core';
import type { AnyEventRecord } from '../../src/kernel/event-bus.ts';
import type { ChangeRecord } from '../../src/contracts/change-contract.ts';
import type { RunSummary, TranscriptEntry } from '../../src/contracts/agent-contract.ts';
import type { AgentSnapshot } from '../../upgrades/agent/snapshot.ts';
import type { WorkspaceSnapshot } from '../../upgrades/workspace/snapshot.ts';
import { remoteView, type RemoteSystemView } from '../../src/view/remote-view.ts';
import { artifacts } from '../helpers/dashboard-stack.ts';
import { DashboardDriver, launchChromium } from '../helpers/dashboard-driver.ts';
import { SLUGIFY, WORD_COUNT } from '../helpers/made-tool-fixtures.ts';
import { SERVER_BINS } from '../helpers/mcp-servers.ts';
import { NOTES_INDEX_BLUEPRINT, notesIndexUpgrade } from '../helpers/made-upgrade-fixtures.ts';
import { bin, runCli } from '../helpers/run-cli.ts';
import { startScriptedModelServer, type ScriptedModelServer } from '../helpers/scripted-model-server.ts';
import { tempDir } from '../helpers/temp-dir.ts';
import { until } from '../helpers/until.ts';

const data = tempDir('watch-processes');
/** `armature start` (attached), and the URL it printed (with its token). */
let dashboard: ChildProcess;
let url: URL;
let view: RemoteSystemView;
let browser: Browser;
let page: Page;
let model: ScriptedModelServer;
let hanging: Server;
const seen: AnyEventRecord[] = [];
const children: ChildProcess[] = [];

const cli = (...args: string[]) => runCli([...args, '--data', data], data);
/** Text of the dashboard's first `tag`, shadow roots included. Plain source: the TypeScript loader's helpers do not exist in the page. */
const deepText = (tag: string) =>
  page.evaluate(`(() => {
    const deep = (n) => (n.nodeType === 3 ? n.textContent || '' : [...(n.shadowRoot || n).childNodes].map(deep).join(' '));
    const dash = document.querySelector('armature-dashboard');
    const el = dash && dash.shadowRoot && dash.shadowRoot.querySelector(${JSON.stringify(tag)});
    return el ? deep(el).replace(/\\s+/g, ' ') : '';
  })()`) as Promise<string>;

/** Records of `type` from `process` (any other process when omitted). */
const from = (type: string, process?: string) => seen.filter((r) => r.type === type && (process ? r.process === process : r.process !== undefined));

before(async () => {
  // From the checkout, armature start builds the dashboard first; the URL comes once it serves.
  // Its system has an MCP server that asks the person for input (elicitation) when told to.
  const mcpConfig = join(data, 'mcp.json');
  writeFileSync(mcpConfig, JSON.stringify({ mcpServers: { everything: { command: process.execPath, args: [SERVER_BINS.everything] } } }));
  dashboard = spawn(process.execPath, [bin, 'start', '--port', '0', '--data', data, '--mcp-config', mcpConfig], { cwd: data, env: { ...process.env, OPENAI_API_KEY: '', ARMATURE_API_KEY: '' }, stdio: ['ignore', 'pipe', 'pipe'] });
  children.push(dashboard);
  url = new URL(
    await new Promise<string>((resolve, reject) => {
      let out = '';
      const timer = setTimeout(() => reject(new Error(`armature start printed no URL in 120 s: ${out}`)), 120_000);
      dashboard.stderr!.on('data', (d: Buffer) => (out += d));
      dashboard.once('exit', (code) => reject(new Error(`armature start exited with ${code}: ${out}`)));
      dashboard.stdout!.on('data', (d: Buffer) => {
        out += d;
        const m = /Armature dashboard: (http:\/\/\S+)/.exec(out);
        if (m) {
          clearTimeout(timer);
          resolve(m[1]!);
        }
      });
    }),
  );
  view = await remoteView({ baseUrl: url.origin, token: url.searchParams.get('token')! });
  view.events.onAny((r) => void seen.push(r));
  model = await startScriptedModelServer();
  hanging = createServer(() => undefined);
  await new Promise<void>((r) => hanging.listen(0, '127.0.0.1', r));
});

after(async () => {
  await browser?.close();
  view?.close();
  for (const c of children) if (c.exitCode === null) c.kill('SIGKILL');
  await model?.close();
  hanging?.closeAllConnections();
  await new Promise((r) => hanging?.close(r));
});

test('an agent in another process shows live: its streamed text, the execute_python call, its stdout and the pending tool it made', async () => {
  model.model.setScript([
    { text: 'I will check Python first.', toolCalls: [{ id: 'py', name: 'execute_python', args: { code: 'print("stdout from the agent process")\n6 * 7' } }] },
    { text: 'Now the tool.', toolCalls: [{ id: 'make', name: 'create_tool', args: WORD_COUNT }] },
    { text: 'Made; it waits for approval.' },
  ]);
  const r = await cli('agent', '--model', 'openai-compatible:scripted', '--base-url', model.baseURL, '--json', 'Make a word counter');
  assert.equal(r.code, 0, r.err);
  const started = from('agent:run-started')[0]!;
  assert.ok(started, 'the run started on the view');
  const agent = started.process!;
  assert.equal(view.processes().find((p) => p.id === agent)?.command, 'agent');
  const { runId } = started.payload as { runId: string };
  await until('the run to finish on the view', () => from('agent:run-finished', agent).length === 1);
  assert.equal(from('agent:text-delta', agent).map((e) => (e.payload as { delta: string }).delta).join(''), 'I will check Python first.Now the tool.Made; it waits for approval.');
  assert.deepEqual(from('agent:tool-called', agent).map((e) => (e.payload as { name: string }).name), ['execute_python', 'create_tool']);
  const stdout = from('python:stdout', agent).map((e) => (e.payload as { chunk: string }).chunk).join('');
  assert.match(stdout, /stdout from the agent process/);
  const pending = from('change:pending', agent).map((e) => (e.payload as { change: ChangeRecord }).change);
  assert.deepEqual(pending.map((c) => [c.kind, c.target, c.status, c.caller.run]), [['tool', 'made.word_count', 'pending', runId]]);
  // The process said goodbye when the command ended.
  await until('the agent process to end', () => seen.some((e) => e.type === 'process:ended' && (e.payload as { process: { id: string } }).process.id === agent));
  const ended = seen.find((e) => e.type === 'process:ended' && (e.payload as { process: { id: string } }).process.id === agent)!.payload as { reason: string };
  assert.equal(ended.reason, 'exited');
});

test('the server\'s system reads what another process wrote to the store: its finished run (list_runs, read_run, the Agent\'s snapshot) and its files (the Workspace\'s)', async () => {
  const started = from('agent:run-started')[0]!;
  const agent = started.process!;
  const { runId } = started.payload as { runId: string };
  // The server may read the transcript while the run is under way (then it reads as unfinished): wait for its end.
  await until('the finished run in the Agent snapshot (Past runs)', () => (view.status<AgentSnapshot>('Agent')?.runs ?? []).some((r) => r.runId === runId && r.reason === 'answered'), 10_000);
  const listed = await view.callTool<{ runs: RunSummary[] }>('list_runs', { process: agent });
  assert.ok(listed.ok, JSON.stringify(listed));
  assert.deepEqual(listed.value.runs.map((r) => [r.runId, r.reason, r.goal]), [[runId, 'answered', 'Make a word counter']]);
  const read = await view.callTool<{ entries: TranscriptEntry[] }>('read_run', { runId });
  assert.ok(read.ok, JSON.stringify(read));
  assert.match(JSON.stringify(read.value.entries), /Made; it waits for approval\./);
  const path = 'notes/from-another-process.txt';
  const write = await cli('call', 'write_file', JSON.stringify({ path, content: 'written elsewhere' }));
  assert.equal(write.code, 0, write.err);
  await until('the file on the Workspace snapshot', () => !!view.status<WorkspaceSnapshot>('Workspace')?.files.some((f) => f.path === path), 10_000);
  const file = await view.callTool<{ content: string }>('read_file', { path });
  assert.ok(file.ok, JSON.stringify(file));
  assert.equal(file.value.content, 'written elsewhere');
});

test('armature approve in a third process: the approval reaches the view within about a second, and the tool is active for the next process', async () => {
  const change = (from('change:pending')[0]!.payload as { change: ChangeRecord }).change;
  const before = seen.length;
  const t0 = Date.now();
  const approve = await cli('approve', change.id);
  assert.equal(approve.code, 0, approve.err);
  // Two records say it: the approving process's own, and the server's system following the store (no process).
  const approval = () => seen.slice(before).find((e) => e.type === 'change:activated' && e.process !== undefined && (e.payload as { change: ChangeRecord }).change.id === change.id);
  await until('the approval on the view', () => approval() !== undefined, 5000);
  const approver = approval()!.process!;
  assert.equal(view.processes().find((p) => p.id === approver)?.command, 'approve');
  // Within ~1 s of the command's end (its process start is most of the time).
  assert.ok(Date.now() - t0 < 60_000);
  const listed = JSON.parse((await cli('changes', '--json')).out) as ChangeRecord[];
  assert.equal(listed.find((c) => c.id === change.id)?.status, 'active');
  const call = await cli('call', 'made.word_count', '{"text": "approved in another process"}');
  assert.equal(JSON.parse(call.out).value, 4);
});

test('on the page in Chromium: another process\'s run shows live with its process; Approve there reaches the agent still waiting for its tool', async () => {
  // The agent makes a tool (pending), then polls for it from Python until a person approves it.
  const poll = ['import time', 'for i in range(600):', '    try:', '        slug = call_tool("made.slugify", {"title": "Approved On The Page"})', '        break', '    except Exception:', '        time.sleep(0.2)', 'print("slug:", slug)', 'slug'].join('\n');
  model.model.setScript([
    { text: 'I will make a slug tool.', toolCalls: [{ id: 'make', name: 'create_tool', args: SLUGIFY }] },
    { text: 'Waiting for a person to approve it.', toolCalls: [{ id: 'wait', name: 'execute_python', args: { code: poll } }] },
    { text: 'Approved and used.' },
  ]);
  browser = await launchChromium();
  page = await browser.newPage();
  await page.setViewport({ width: 1400, height: 1000 });
  const d = new DashboardDriver(page, () => deepText('agent-widget'));
  await page.goto(url.href, { waitUntil: 'load' });
  await page.waitForFunction(() => !!(window as unknown as { armatureView?: unknown }).armatureView, { timeout: 60_000 });
  assert.equal(await page.evaluate(() => document.querySelector('meta[name="armature-mode"]')?.getAttribute('content')), 'attached');
  // The processes before this one are on the Processes card already (the CLI commands of the tests above, ended).
  await d.waitFor('the Processes card', async () => /approve/.test(await deepText('processes-card')));
  // The dashboard's own process is listed too, marked as the system this page shows.
  assert.match(await deepText('processes-card'), new RegExp(`${view.process!.id} \\(this dashboard's system\\) start`));
  // Another process's finished run is in Past runs, named by its process; its file on the Workspace card.
  const firstRun = from('agent:run-started')[0]!;
  const pastRun = () =>
    page.evaluate(`(() => {
      const dash = document.querySelector('armature-dashboard');
      const panel = dash && dash.shadowRoot && dash.shadowRoot.querySelector('agent-widget');
      const li = panel && panel.shadowRoot && panel.shadowRoot.querySelector('li[data-run=${JSON.stringify((firstRun.payload as { runId: string }).runId)}]');
      return li ? li.textContent.replace(/\\s+/g, ' ') : '';
    })()`) as Promise<string>;
  await d.waitFor('the other process\'s run in Past runs', async () => (await pastRun()).includes('Make a word counter'));
  assert.match(await pastRun(), new RegExp(`${firstRun.process} \\(agent, pid \\d+, ended\\)`));
  await d.waitFor('the other process\'s file on the Workspace card', async () => (await deepText('workspace-widget')).includes('from-another-process.txt'));

  const goal = 'Make a slug tool and use it once it is approved';
  const agent = runCli(['agent', '--model', 'openai-compatible:scripted', '--base-url', model.baseURL, '--json', goal, '--data', data], data);
  await d.waitFor('the run live in the agent panel, with its process', async () => {
    const panel = await deepText('agent-widget');
    return panel.includes(goal) && /in process \S+ \(agent, pid \d+\)/.test(panel) && panel.includes('Waiting for a person to approve it.');
  });
  const pending = from('change:pending').map((e) => (e.payload as { change: ChangeRecord }).change).find((c) => c.target === 'made.slugify')!;
  assert.ok(pending, 'the pending change reached the view');
  await d.waitFor('the pending change on the Changes card', async () => (await d.statusOf(pending.id)) === 'pending');
  // Its run is in Past runs as it goes (the server read its transcript), running while its process lives.
  await d.waitFor('the live run in Past runs, running', async () => /Make a slug tool and use it once it is approved running · /.test(await deepText('agent-widget')));
  mkdirSync(artifacts, { recursive: true });
  await page.screenshot({ path: join(artifacts, 'watch-attached.png'), fullPage: true });
  await d.press(pending.id, 'approve');
  // The agent process, still running, finds the tool in force and finishes.
  const r = await agent;
  assert.equal(r.code, 0, r.err);
  const result = JSON.parse(r.out) as { answer?: string; toolCalls: { name: string; ok: boolean }[] };
  assert.equal(result.answer, 'Approved and used.');
  await d.waitFor('the card to show it in force', async () => (await d.statusOf(pending.id)) === 'active');
  const stdout = from('python:stdout').map((e) => (e.payload as { chunk: string }).chunk).join('');
  assert.match(stdout, /slug: approved-on-the-page/);
  // Approved as the person at the page.
  const activated = seen.find((e) => e.type === 'change:activated' && (e.payload as { change: ChangeRecord }).change.id === pending.id)!;
  assert.equal((activated.payload as { change: ChangeRecord }).change.approver, 'ui');
  await d.waitFor('the run answered on the page', async () => (await deepText('agent-widget')).includes('Approved and used.'));
  const panel = await deepText('agent-widget');
  assert.equal(panel.split('I will make a slug tool.').length, 2, `the run shows once: ${panel}`);
  // The run itself (Past runs below it offers "interrupted" as a filter).
  assert.doesNotMatch(panel.split('Past runs')[0]!, /interrupted/);
});

test('an agent killed mid-run shows its process crashed, its run never finished', async () => {
  const agent = spawn(process.execPath, [bin, 'agent', '--model', 'openai-compatible:hang', '--base-url', `http://127.0.0.1:${(hanging.address() as AddressInfo).port}/v1`, '--data', data, 'wait forever'], {
    cwd: data,
    env: { ...process.env, OPENAI_API_KEY: '', ARMATURE_API_KEY: '' },
    stdio: 'ignore',
  });
  children.push(agent);
  const runs = from('agent:run-started').length;
  await until('the run on the view', () => from('agent:run-started').length === runs + 1, 60_000);
  const started = from('agent:run-started')[runs]!;
  agent.kill('SIGKILL');
  await until('the process to end', () => seen.some((e) => e.type === 'process:ended' && (e.payload as { process: { id: string } }).process.id === started.process), 10_000);
  const ended = seen.find((e) => e.type === 'process:ended' && (e.payload as { process: { id: string } }).process.id === started.process)!.payload as { reason: string };
  assert.equal(ended.reason, 'crashed');
  assert.equal(from('agent:run-finished', started.process).length, 0, 'the run never said it finished: its process did');
});

test('armature mcp --http on the same folder: its sessions\' Python runs appear live', async () => {
  const mcp = spawn(process.execPath, [bin, 'mcp', '--http', '--port', '0', '--data', data], { cwd: data, stdio: ['ignore', 'pipe', 'pipe'] });
  children.push(mcp);
  const url = await new Promise<string>((resolve, reject) => {
    let out = '';
    mcp.once('exit', (code) => reject(new Error(`armature mcp --http exited with ${code}: ${out}`)));
    mcp.stdout!.on('data', (d: Buffer) => {
      out += d;
      const m = /(http:\/\/127\.0\.0\.1:\d+\/mcp)/.exec(out);
      if (m) resolve(m[1]!);
    });
  });
  const client = new Client({ name: 'watch-test', version: '1.0.0' });
  await client.connect(new StreamableHTTPClientTransport(new URL(url)));
  try {
    const result = await client.callTool({ name: 'execute_python', arguments: { code: 'for i in range(3):\n    print("from an MCP session", i)' } });
    assert.notEqual(result.isError, true, JSON.stringify(result));
    await until('the MCP session\'s output on the view', () => /from an MCP session 2/.test(from('python:stdout').map((e) => (e.payload as { chunk: string }).chunk).join('')), 10_000);
    const line = from('python:stdout').find((e) => /from an MCP session/.test((e.payload as { chunk: string }).chunk))!;
    assert.equal(view.processes().find((p) => p.id === line.process)?.command, 'mcp');
  } finally {
    await client.close();
    mcp.kill('SIGTERM');
  }
  await until('the MCP process to end', () => view.processes().find((p) => p.command === 'mcp')?.endedAt !== undefined, 20_000);
});

test('an upgrade made and put in force from the CLI gets its own card on the page, live', async () => {
  assert.ok(page, 'the page of the Chromium test above');
  const call = async <T>(tool: string, args: unknown): Promise<T> => {
    const r = await cli('call', tool, JSON.stringify(args));
    assert.equal(r.code, 0, `${tool}: ${r.err}`);
    return (JSON.parse(r.out) as { value: T }).value;
  };
  const bp = await call<{ id: string; status: string }>('create_blueprint', NOTES_INDEX_BLUEPRINT);
  assert.equal(bp.status, 'active');
  const up = await call<{ status: string }>('create_upgrade', notesIndexUpgrade(bp.id));
  assert.equal(up.status, 'active', JSON.stringify(up));
  assert.equal((await call<{ status: string }>('update_persona', { add_upgrades: ['notes-index'] })).status, 'active');
  // The page was open before: the server's system loads the upgrade as the store says, and its card comes.
  const card = async () => {
    const el = await page.$('armature-dashboard >>> made-upgrade-widget >>> section.card');
    return el ? ((await el.evaluate((n) => n.textContent)) ?? '').replace(/\s+/g, ' ') : '';
  };
  const d = new DashboardDriver(page, card);
  await d.waitFor('the upgrade\'s own card on the page', async () => /Notes index/.test(await card()) && /\d+ files/.test(await card()), 60_000);
  assert.ok(await page.$('armature-dashboard >>> made-upgrade-widget >>> button'), 'its Summary button');
});

test('an MCP server of the dashboard\'s Node system asks the person: the form on the page\'s McpClient card answers it', async () => {
  assert.ok(page, 'the page of the Chromium test above');
  await until('the server\'s elicitation tool', () => view.tools().some((t) => t.name === 'everything.trigger-elicitation-request'), 30_000);
  const asked = view.callTool<string>('everything.trigger-elicitation-request', {});
  const form = 'armature-dashboard >>> mcp-client-widget >>> form[data-elicitation]';
  await page.waitForSelector(form, { timeout: 20_000 });
  await (await page.$(`${form} input[name=name]`))!.type('Grace Hopper');
  await (await page.$(`${form} button[data-control=send]`))!.click();
  const r = await asked;
  assert.ok(r.ok, JSON.stringify(r).slice(0, 500));
  assert.match(String(r.value), /Name: Grace Hopper/);
  await page.waitForFunction(() => !document.querySelector('armature-dashboard')?.shadowRoot?.querySelector('mcp-client-widget')?.shadowRoot?.querySelector('form[data-elicitation]'), { timeout: 10_000 });
});
