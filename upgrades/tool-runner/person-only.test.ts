// Tools declared `audience: "person"`: a person's powers exist only for the dashboard and the
// command line, and are never offered to anyone else.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createEventBus } from '../../src/kernel/event-bus.ts';
import type { Persona, ToolDeclaration } from '../../src/kernel/manifest-schemas.ts';
import { ToolDeclarationSchema } from '../../src/kernel/manifest-schemas.ts';
import { EVERY_TOOL } from '../../src/kernel/allow-list.ts';
import { createToolRunner } from './tool-runner.ts';

const persona = (tools: string[], denyTools?: string[]): Persona => ({ id: 'p', name: 'P', description: 'p', upgrades: [], tools, skills: [], ...(denyTools ? { denyTools } : {}) });
const decl = (name: string, extra: Partial<ToolDeclaration> = {}): ToolDeclaration => ({ name, description: name, module: 'Test', inputSchema: { type: 'object' }, pythonCallable: true, ...extra });

function setup(p: Persona = persona(['*'])) {
  const runner = createToolRunner({ bus: createEventBus(), persona: p });
  const ran: string[] = [];
  runner.registerTools([decl('approve_thing', { audience: 'person' }), decl('read_thing')], (name, _a, call) => {
    ran.push(`${name}:${call.caller}`);
    return 'done';
  });
  return { runner, ran };
}

test('a person-only tool runs for ui and cli, and is refused to every other caller with PERSON_ONLY', async () => {
  const { runner, ran } = setup();
  for (const caller of ['ui', 'cli']) {
    const r = await runner.executeTool('approve_thing', {}, { caller });
    assert.equal(r.ok, true, `${caller} may`);
  }
  for (const caller of [undefined, 'agent', 'python', 'mcp', 'test', 'tool:made.x', 'upgrade:counter', 'system']) {
    const r = await runner.executeTool('approve_thing', {}, caller === undefined ? {} : { caller });
    assert.equal(r.ok, false, `${caller} may not`);
    if (r.ok) continue;
    assert.equal(r.error.code, 'PERSON_ONLY');
    assert.match(r.error.message, new RegExp(`approve_thing is a person's decision: only the dashboard or the command line may call it, not "${caller ?? 'agent'}"`));
    assert.match(r.hint!, /approve it on the dashboard or with armature approve/);
  }
  assert.deepEqual(ran, ['approve_thing:ui', 'approve_thing:cli'], 'the handler never ran for anyone else');
});

test('person-only tools are left out of the declarations agents, MCP and Python get; a person\'s list has them', () => {
  const { runner } = setup();
  assert.deepEqual(runner.getToolDeclarations().map((d) => d.name), ['read_thing']);
  assert.deepEqual(runner.getToolDeclarations({ persona: EVERY_TOOL }).map((d) => d.name), ['read_thing']);
  assert.deepEqual(runner.getToolDeclarations({ audience: 'person' }).map((d) => d.name).sort(), ['approve_thing', 'read_thing']);
  assert.equal(runner.hasTool('approve_thing'), true);
});

test('the persona\'s allow-list does not bind a person: a persona that denies the tool cannot lock a person out', async () => {
  const { runner } = setup(persona(['read_thing'], ['approve_thing']));
  assert.equal((await runner.executeTool('approve_thing', {}, { caller: 'ui' })).ok, true);
  assert.deepEqual(runner.getToolDeclarations({ audience: 'person' }).map((d) => d.name).sort(), ['approve_thing', 'read_thing']);
  const r = await runner.executeTool('approve_thing', {}, { caller: 'agent' });
  assert.equal(!r.ok && r.error.code, 'PERSON_ONLY');
});

test('an agent that misspells a tool is never pointed at a person-only one; a person is', async () => {
  const { runner } = setup();
  const agent = await runner.executeTool('approve_thin', {}, { caller: 'agent' });
  assert.equal(!agent.ok && agent.error.code, 'UNKNOWN_TOOL');
  assert.doesNotMatch(!agent.ok ? agent.error.message : '', /approve_thing/);
  const person = await runner.executeTool('approve_thin', {}, { caller: 'cli' });
  assert.match(!person.ok ? person.error.message : '', /did you mean "approve_thing"/);
});

test('a manifest may say audience "person" and nothing else', () => {
  assert.equal(ToolDeclarationSchema.safeParse({ ...decl('x'), audience: 'person' }).success, true);
  const bad = ToolDeclarationSchema.safeParse({ ...decl('x'), audience: 'agent' });
  assert.equal(bad.success, false);
  assert.match(JSON.stringify(bad.error?.issues), /\\"person\\", or leave it out/);
});
