// The notes index on the served dashboard in Chromium, as a person meets it under the default
// persona (which asks): the agent's scripted model writes the blueprint, builds the upgrade and adds
// it to its persona — three changes, each waiting, each building on the one before; a person
// approves them in order on the changes widget; the upgrade's own card appears and follows workspace
// writes; its tool works as a tool and from Python; it is back after a reload (IndexedDB); ?safe
// leaves it out and lists it; an upgrade that tries to escape its Web Worker touches nothing.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import type { Page } from 'puppeteer-core';
import type { UpgradeChangeAnswer } from '../../upgrades/made-upgrades/index.ts';
import { notesIndexScript } from '../helpers/made-upgrade-fixtures.ts';
import { value, type DashboardDriver } from '../helpers/dashboard-driver.ts';
import { artifacts, startDashboardStack, type DashboardStack } from '../helpers/dashboard-stack.ts';
import type { ProbeServer } from '../helpers/probe-server.ts';
import type { ScriptedModelServer } from '../helpers/scripted-model-server.ts';
import { ESCAPE_DB, escapeAttempts } from '../helpers/escape-attempts.ts';

let stack: DashboardStack;
let page: Page;
let d: DashboardDriver;
let model: ScriptedModelServer;
let probe: ProbeServer;
type Win = { armature: { tools: { executeTool(n: string, a: unknown, o: unknown): Promise<unknown> }; resolve(id: string): Promise<{ run(o: unknown): Promise<unknown> }>; modules: { id: string; state: string }[] } };

const call = <T = unknown>(name: string, args: unknown, caller = 'ui') => d.call<T>(name, args, caller);
const booted = () => d.booted();
const textOf = (selector: string) => d.textOf(selector);
const card = () => textOf('made-upgrade-widget >>> section.card');
const waitFor = (what: string, check: () => Promise<boolean>, timeout?: number) => d.waitFor(what, check, timeout);
const press = (change: string, action: 'approve' | 'reject' | 'rollback') => d.press(change, action);
const statusOf = (change: string) => d.statusOf(change);

before(async () => {
  stack = await startDashboardStack('made-upgrades', 1600);
  ({ page, d, model, probe } = stack);
  for (const [path, content] of [['notes/plan.md', '# Plan'], ['notes/ideas.md', '- more'], ['data/n.txt', '1'], ['todo.md', 'x']]) value(await call('write_file', { path, content }));
});

after(() => stack?.close());

test('the agent builds the notes index; a person approves its three changes in order; its card appears and follows the workspace', async () => {
  model.model.setScript(notesIndexScript());
  const run = (await page.evaluate(
    (baseURL) => (window as unknown as Win).armature.resolve('Agent').then((a) => a.run({ goal: 'Keep my notes counted by folder', model: { provider: 'openai-compatible', model: 'scripted', baseURL } })),
    model.baseURL,
  )) as { reason: string; toolCalls: { name: string; result: { value: { value?: { change: string; status: string } } } }[] };
  assert.equal(run.reason, 'answered', JSON.stringify(run));
  const blueprint = run.toolCalls[0]!.result.value.value!;
  const upgrade = run.toolCalls[1]!.result.value as unknown as UpgradeChangeAnswer;
  const persona = run.toolCalls[2]!.result.value as { change: string; status: string };
  assert.deepEqual([blueprint.status, upgrade.status, persona.status], ['pending', 'pending', 'pending'], JSON.stringify(run.toolCalls.map((c) => c.result)));
  assert.deepEqual(upgrade.tests.map((t) => t.ok), [true, true, true, true], 'its tests ran in a Web Worker of the page');

  // The persona change builds on the upgrade, which builds on the blueprint: approving it first says so.
  await press(persona.change, 'approve');
  await waitFor('the widget to say what to approve first', async () => /approve it first/.test(await textOf('changes-widget >>> p.message[role=alert]')));
  await press(blueprint.change, 'approve');
  await waitFor('the blueprint in force', async () => (await statusOf(blueprint.change)) === 'active');
  await press(upgrade.change, 'approve');
  await waitFor('the upgrade in force', async () => (await statusOf(upgrade.change)) === 'active');
  await press(persona.change, 'approve');
  await waitFor('the notes index\'s card', async () => /4 files/.test(await card()));
  assert.match(await card(), /Notes index/);
  assert.match(await card(), /folder\s*files\s*notes\s*2/);

  value(await call('write_file', { path: 'notes/new.md', content: 'fresh' }));
  await waitFor('the card to follow the write', async () => /5 files/.test(await card()));
  assert.match(await card(), /\+ notes\/new\.md/);
  assert.deepEqual(value(await call('notes_index.notes_summary', { folder: 'notes' })), { folder: 'notes', files: 3 });
  const py = value(await call<{ value: unknown }>('execute_python', { code: 'from tools.notes_index import notes_summary\nnotes_summary()["total"]' }));
  assert.equal(py.value, 5);
  // Its button calls its tool.
  await (await page.$('armature-dashboard >>> made-upgrade-widget >>> button[data-control="button-0"]'))!.click();
  await waitFor('the button\'s answer', async () => /Summary: \{"total":5/.test(await card()));
  const el = (await page.$('armature-dashboard >>> [data-module="upgrade:notes-index"]'))!;
  await el.scrollIntoView();
  await el.screenshot({ path: join(artifacts, 'made-upgrade-widget.png') });
});

test('after a page reload the notes index runs again, from IndexedDB', async () => {
  await page.reload({ waitUntil: 'load' });
  await booted();
  await waitFor('the card after the reload', async () => /5 files/.test(await card()));
  const parts = await page.evaluate(() => (window as unknown as Win).armature.modules.filter((m) => m.id.startsWith('upgrade:')).map((m) => `${m.id} ${m.state}`));
  assert.deepEqual(parts, ['upgrade:notes-index loaded']);
  await page.screenshot({ path: join(artifacts, 'dashboard-made-upgrade.png'), fullPage: true });
});

test('?safe boots only what the persona file names and lists the agent-made changes for review', async () => {
  await page.goto(`${stack.server.origin}/?safe`, { waitUntil: 'load' });
  await booted();
  await waitFor('the safe-mode note', async () => /Safe mode:/.test(await textOf('section.safe')));
  const note = await textOf('section.safe');
  for (const line of [/blueprint 0xA00001 v1/, /upgrade notes-index v1/, /persona default v1/]) assert.match(note, line);
  assert.equal(await page.$('armature-dashboard >>> made-upgrade-widget'), null);
  assert.equal((await call('notes_index.notes_summary', {})).ok, false);
  await page.goto(`${stack.server.origin}/`, { waitUntil: 'load' });
  await booted();
  await waitFor('the card again', async () => /5 files/.test(await card()));
});

test('an upgrade that tries the DOM, IndexedDB, the network or Node built-ins gets errors; the page is untouched', async () => {
  const { origin } = probe;
  const attempts: Record<string, [string, string]> = {
    ...escapeAttempts('browser', origin),
    outside_folder: ["return ctx.storage_write('../changes/x', 'x');", 'INVALID_PATH'],
  };
  const body = `## Objective\nProbe.\n## Design\nTools.\n## Verification\n${Object.keys(attempts).map((n) => `- [ ] ${n} fails (test: ${n})`).join('\n')}\n`;
  const bp = value(await call<{ id: string }>('create_blueprint', { title: 'Escape artist', target: 'escape-artist', body }));
  const code = `export default {\n  init(ctx) {},\n  tools: {\n${Object.entries(attempts).map(([n, [b]]) => `    async ${n}(args, ctx) { ${b} },`).join('\n')}\n  },\n};\n`;
  const made = value(await call<UpgradeChangeAnswer>('create_upgrade', {
    id: 'escape-artist',
    blueprint: bp.id,
    code,
    tools: Object.keys(attempts).map((name) => ({ name, description: `Tries ${name}.`, inputSchema: { type: 'object' } })),
    tests: Object.entries(attempts).map(([name, [, error]]) => ({ name, tool: name, args: {}, expect_error: error })),
  }));
  assert.equal(made.status, 'active', JSON.stringify(made.tests));
  value(await call('update_persona', { add_upgrades: ['escape-artist'] }));
  const title = await page.title();
  for (const [name, [, error]] of Object.entries(attempts)) {
    const r = await call(`escape_artist.${name}`, {});
    assert.ok(!r.ok && `${r.error.code} ${r.error.message}`.includes(error), `${name}: ${JSON.stringify(r)}`);
  }
  assert.equal(await page.title(), title);
  const dbs = await page.evaluate(async () => (await indexedDB.databases()).map((d) => d.name));
  assert.ok(!dbs.includes(ESCAPE_DB), `databases: ${dbs}`);
  assert.deepEqual(probe.hits, [], 'no request reached the server');
});
