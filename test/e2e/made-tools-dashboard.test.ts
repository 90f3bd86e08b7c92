// Agent-made tools on the served dashboard in Chromium, as a person meets them: the default persona
// asks, so an agent's tool waits as pending until the changes widget's Approve button is pressed;
// then it is a tool like any other (as a tool, from Python), and still after a page reload
// (IndexedDB). JavaScript tools run in locked-down Web Workers that reach nothing of the page.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import type { Page } from 'puppeteer-core';
import type { ToolChangeAnswer } from '../../upgrades/made-tools/made-tools.ts';
import { SLUGIFY, WORD_COUNT } from '../helpers/made-tool-fixtures.ts';
import { value, type DashboardDriver } from '../helpers/dashboard-driver.ts';
import { artifacts, startDashboardStack, type DashboardStack } from '../helpers/dashboard-stack.ts';
import type { ProbeServer } from '../helpers/probe-server.ts';
import type { ScriptedModelServer } from '../helpers/scripted-model-server.ts';
import { ESCAPE_DB, escapeAttempts, escapeTool } from '../helpers/escape-attempts.ts';

let stack: DashboardStack;
let page: Page;
let d: DashboardDriver;
let model: ScriptedModelServer;
let probe: ProbeServer;

const call = <T = unknown>(name: string, args: unknown, caller = 'agent') => d.call<T>(name, args, caller);
const widgetText = () => d.textOf('changes-widget >>> section.card');
const waitFor = (what: string, check: () => Promise<boolean>, timeout?: number) => d.waitFor(what, check, timeout);
const booted = () => d.booted();
const press = (change: string, action: 'approve' | 'reject' | 'rollback') => d.press(change, action);
const statusOf = (change: string) => d.statusOf(change);

before(async () => {
  stack = await startDashboardStack('made-tools', 1400);
  ({ page, d, model, probe } = stack);
});

after(() => stack?.close());

test('the agent\'s JavaScript tool waits as pending until the Approve button is pressed; then it is a tool at once', async () => {
  const made = value(await call<ToolChangeAnswer>('create_tool', SLUGIFY));
  assert.equal(made.status, 'pending', JSON.stringify(made));
  assert.equal((await call('made.slugify', { title: 'x' })).ok, false, 'not callable while pending');
  await waitFor('the pending change on the widget', async () => (await statusOf(made.change)) === 'pending');
  assert.match(await widgetText(), /1 change waiting for your approval/);
  await press(made.change, 'approve');
  await waitFor('the change in force', async () => (await statusOf(made.change)) === 'active');
  assert.equal(value(await call('made.slugify', { title: 'Approved In Chromium' })), 'approved-in-chromium');
});

test('through the agent\'s scripted model: a Python tool, approved on the dashboard, callable as a tool and from Python', async () => {
  model.model.setScript([{ toolCalls: [{ id: 'make', name: 'create_tool', args: WORD_COUNT }] }, { text: 'It waits for your approval.' }]);
  const run = (await page.evaluate(
    (goal, baseURL) => (window as unknown as { armature: { resolve(id: string): Promise<{ run(o: unknown): Promise<unknown> }> } }).armature.resolve('Agent').then((a) => a.run({ goal, model: { provider: 'openai-compatible', model: 'scripted', baseURL } })),
    'Make a word counter',
    model.baseURL,
  )) as { reason: string; toolCalls: { result: { value: ToolChangeAnswer } }[] };
  assert.equal(run.reason, 'answered', JSON.stringify(run));
  const made = run.toolCalls[0]!.result.value;
  assert.equal(made.status, 'pending', JSON.stringify(made));
  assert.deepEqual(made.tests.map((t) => t.value), [4, 2, 0], 'its tests ran in the page\'s Pyodide');
  await press(made.change, 'approve');
  await waitFor('the Python tool in force', async () => (await statusOf(made.change)) === 'active');
  assert.equal(value(await call('made.word_count', { text: 'counted in the browser' })), 4);
  const py = value(await call<{ value: unknown }>('execute_python', { code: 'from tools.made import word_count, slugify\n[word_count("a b c"), slugify(title="From Pyodide")]' }));
  assert.deepEqual(py.value, [3, 'from-pyodide']);

  const text = await widgetText();
  assert.match(text, /made\.word_count v1/);
  assert.match(text, /Tests: 3 of 3 passed/);
});

test('after a page reload both tools are in force again, from IndexedDB', async () => {
  await page.reload({ waitUntil: 'load' });
  await booted();
  assert.equal(value(await call('made.slugify', { title: 'After A Reload' })), 'after-a-reload');
  assert.equal(value(await call('made.word_count', { text: 'after a reload' })), 3);
  const parts = await page.evaluate(() => (window as unknown as { armature: { modules: { id: string; state: string }[] } }).armature.modules.filter((m) => m.id.startsWith('tool:')).map((m) => `${m.id} ${m.state}`));
  assert.deepEqual(parts.sort(), ['tool:made.slugify loaded', 'tool:made.word_count loaded']);
});

test('a JavaScript tool that tries the DOM, IndexedDB, a disallowed origin, process or a Node built-in gets an error; the page is untouched', async () => {
  const { origin } = probe;
  const attempts = escapeAttempts('browser', origin);
  const title = await page.title();
  for (const [what, attempt] of Object.entries(attempts)) {
    const error = attempt[1];
    const made = value(await call<ToolChangeAnswer>('create_tool', escapeTool(what, attempt), 'ui'));
    assert.equal(made.status, 'active', `${what}: ${JSON.stringify(made.tests)}`);
    const r = await call(`made.try_${what}`, {});
    assert.equal(r.ok, false);
    assert.ok(!r.ok && `${r.error.code} ${r.error.message}`.includes(error), `${what}: ${JSON.stringify(r)}`);
  }
  assert.equal(await page.title(), title);
  const dbs = await page.evaluate(async () => (await indexedDB.databases()).map((d) => d.name));
  assert.ok(!dbs.includes(ESCAPE_DB), `databases: ${dbs}`);
  assert.deepEqual(probe.hits, [], 'no request reached the server');
});

test('a person reviews an update on the widget — its code, its diff, its tests — and rejects it with the Reject button', async () => {
  const update = value(await call<ToolChangeAnswer>('update_tool', {
    name: 'slugify',
    code: "export default async ({ title }) => title.trim().toLowerCase().replace(/[^a-z0-9]+/g, '_').replace(/^_|_$/g, '');\n",
    tests: [{ args: { title: 'Hello, World!' }, expect: 'hello_world' }, { args: { title: ' Two  Words ' }, expect: 'two_words' }],
    reason: 'Underscores read better in Python.',
  }));
  assert.equal(update.status, 'pending', JSON.stringify(update));
  await waitFor('the update on the widget', async () => (await statusOf(update.change)) === 'pending');
  const item = `armature-dashboard >>> changes-widget >>> li[data-change="${update.change}"]`;
  for (const d of ['details.code', 'details.diff', 'details.tests']) await (await page.$(`${item} ${d} summary`))!.click();
  const diff = await page.$eval(`${item} pre.diff`, (e) => e.textContent ?? '');
  assert.match(diff, /− export default async \(\{ title \}\) => title\.toLowerCase\(\)/);
  assert.match(diff, /\+ export default async \(\{ title \}\) => title\.trim\(\)/);
  // What a person reviews — the widget's head and this change — saved for the README's readers.
  const card = (await (await page.$('armature-dashboard >>> [data-module="Changes"]'))!.boundingBox())!;
  const change = (await (await page.$(item))!.boundingBox())!;
  await page.screenshot({ path: join(artifacts, 'changes-widget.png'), clip: { x: card.x, y: card.y, width: card.width, height: change.y + change.height + 12 - card.y } });
  await press(update.change, 'reject');
  await waitFor('the update rejected', async () => (await statusOf(update.change)) === 'rejected');
  assert.equal(value(await call('made.slugify', { title: 'Still Dashes' })), 'still-dashes');
});
