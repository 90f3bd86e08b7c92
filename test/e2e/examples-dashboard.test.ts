// "Replay an example" on the served dashboard in Chromium, as a newcomer meets it: the builder
// persona on an empty workspace, no model configured. The build-an-upgrade example plays its first
// turn, then waits — a replay never approves — until the person presses Approve on the Changes
// card for the upgrade and the persona change; "Continue the replay" plays the second turn, and
// the upgrade's own card, "Notes index", is on the dashboard.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import type { Page } from 'puppeteer-core';
import type { DashboardDriver } from '../helpers/dashboard-driver.ts';
import { artifacts, startDashboardStack, type DashboardStack } from '../helpers/dashboard-stack.ts';

let stack: DashboardStack;
let page: Page;
let d: DashboardDriver;

const panel = 'agent-widget';
const click = async (selector: string) => {
  const el = await page.$(`armature-dashboard >>> ${selector}`);
  assert.ok(el, `no ${selector}`);
  await el.scrollIntoView();
  await el.click();
};

before(async () => {
  stack = await startDashboardStack('examples', 1600);
  ({ page, d } = stack);
  await d.openEmpty(`${stack.server.url}?persona=builder`);
});
after(() => stack?.close());

test('build-an-upgrade replays in the agent panel: it waits for the Approve buttons, continues, and the new card appears', async () => {
  // The list of examples arrives after the panel renders: wait for it, not for a clock.
  await d.waitFor('the examples list', async () => /Replay an example \(no model, no key\)/.test(await d.textOf(`${panel} >>> details.examples`).catch(() => '')));
  await click(`${panel} >>> [data-example="examples/build-an-upgrade"] [data-control=replay-example]`);
  await d.waitFor('the replay to wait for a person', async () => !!(await page.$(`armature-dashboard >>> ${panel} >>> [data-replay=waiting]`)), 120_000);
  const waiting = await d.textOf(`${panel} >>> [data-replay=waiting]`);
  assert.match(waiting, /Turn 1 of 2 replayed\. The replay waits for you, as the recorded run waited for its person: approve upgrade notes-index \(c[0-9a-f]{8}\), persona builder \(c[0-9a-f]{8}\) on the Changes card\. A replay never approves by itself\./);
  assert.ok(await page.$(`armature-dashboard >>> ${panel} >>> [data-control=continue-replay][disabled]`), 'Continue waits for the approvals');
  const [upgrade, persona] = [...waiting.matchAll(/\((c[0-9a-f]{8})\)/g)].map((m) => m[1]!);
  assert.match(await d.textOf(`${panel} >>> agent-transcript >>> section`), /create_upgrade · ◌ pending approval/);

  await d.press(upgrade!, 'approve');
  await d.waitFor('the upgrade in force', async () => (await d.statusOf(upgrade!)) === 'active');
  await d.press(persona!, 'approve');
  await d.waitFor('the persona change in force', async () => (await d.statusOf(persona!)) === 'active');
  await d.waitFor('Continue enabled', async () => !(await page.$(`armature-dashboard >>> ${panel} >>> [data-control=continue-replay][disabled]`)));
  await click(`${panel} >>> [data-control=continue-replay]`);
  await d.waitFor('the replay to finish', async () => !!(await page.$(`armature-dashboard >>> ${panel} >>> [data-replay=done]`)), 120_000);
  assert.match(await d.textOf(`${panel} >>> agent-transcript >>> section`), /The notes index counts 4 files: 3 under notes\/ and 1 under data\//);
  await d.waitFor('the upgrade\'s own card', async () => /Notes index/.test(await d.textOf('made-upgrade-widget >>> section.card')));
  assert.match(await d.textOf('made-upgrade-widget >>> section.card'), /4 files/);
  await page.screenshot({ path: join(artifacts, 'examples-dashboard.png'), fullPage: true });
});
