// A 10 MB tool name, from every way one can arrive — a direct call, Python's call_tool (both
// isolations), a model's tool call to the agent, an MCP server's tool list — is refused by its
// length before any lookup or suggestion, and never travels whole: no event, console line,
// transcript, result or model message holds more than a bounded piece of it. The same for the
// CLI's arguments, a persona's name and an agent-made tool's name. (The MCP server's own logs,
// prompts and resources: test/e2e/mcp-server.test.ts.)
import { test, describe, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { createEventBus } from '../../src/kernel/event-bus.ts';
import type { Persona, ToolDeclaration } from '../../src/kernel/manifest-schemas.ts';
import { main } from '../../src/cli/main.ts';
import { fullToolName } from '../../upgrades/made-tools/tool-spec.ts';
import { declarationsFromTools } from '../../upgrades/mcp-client/results.ts';
import { createAgent } from '../../upgrades/agent/agent.ts';
import { environmentKeys } from '../../upgrades/agent/keys.ts';
import { memorySettings } from '../../upgrades/agent/settings.ts';
import { TranscriptStore } from '../../upgrades/agent/transcript.ts';
import { createPyodideRuntime } from '../../upgrades/pyodide-runtime/runtime.ts';
import type { PyodideRuntimeApi } from '../../upgrades/pyodide-runtime/contract.ts';
import { createPythonTool } from '../../upgrades/python-tool/python-tool.ts';
import { createToolRunner } from '../../upgrades/tool-runner/tool-runner.ts';
import { createWorkspace } from '../../upgrades/workspace/workspace.ts';
import { memoryStore } from '../helpers/memory-platform.ts';
import { scriptedMockModel } from '../helpers/mock-model.ts';
import { tempDir } from '../helpers/temp-dir.ts';

const HUGE = 'x'.repeat(10 * 1024 * 1024);
/** More of the name than any bounded echo holds. */
const TOO_MUCH = 'x'.repeat(4096);

/** The refusal of a name names its length and the limit. */
const NAMES_LENGTH_AND_LIMIT = /10485760 characters.*at most 128 characters/s;

/** The longest string anywhere inside `value` (keys included). */
function longest(value: unknown, seen = new Set<unknown>()): number {
  if (typeof value === 'string') return value.length;
  if (typeof value !== 'object' || value === null || seen.has(value)) return 0;
  seen.add(value);
  if (value instanceof Uint8Array) return new TextDecoder().decode(value).includes(TOO_MUCH) ? value.length : 0;
  let max = 0;
  for (const [k, v] of Object.entries(value)) max = Math.max(max, k.length, longest(v, seen));
  return max;
}

/** Everything written to the console while `fn` runs. */
async function consoleOf<T>(fn: () => Promise<T>): Promise<{ result: T; lines: string[] }> {
  const lines: string[] = [];
  const saved = { log: console.log, warn: console.warn, error: console.error, info: console.info };
  for (const k of Object.keys(saved) as (keyof typeof saved)[]) console[k] = (...args: unknown[]) => void lines.push(args.map(String).join(' '));
  try {
    return { result: await fn(), lines };
  } finally {
    Object.assign(console, saved);
  }
}

const decl = (name: string): ToolDeclaration => ({ name, module: 'Test', description: `${name} tool.`, inputSchema: { type: 'object', properties: {} }, pythonCallable: true });

for (const isolation of ['process', 'thread'] as const) {
  describe(`a 10 MB tool name through the ToolRunner and Python (${isolation})`, () => {
    const bus = createEventBus({ historySize: 10_000 });
    const persona: Persona = { id: 'names', name: 'Names', description: 'd', upgrades: [], tools: ['*'], skills: [] };
    const runner = createToolRunner({ bus, persona });
    let runtime: PyodideRuntimeApi;
    before(async () => {
      runtime = createPyodideRuntime({ isolation, snapshot: 'memory' }, { emit: (t, p) => bus.emit(t, p) });
      const { tools } = createPythonTool({ runtime, runner, persona, bus });
      runner.registerTools([decl('read_file'), decl('execute_python')], (name, args, call) => (name === 'execute_python' ? tools.execute_python(args, call) : 'read'));
      await runtime.init();
    });
    after(() => runtime.dispose());

    test('a direct call is refused by the name\'s length, with a bounded message and bounded events', async () => {
      const { result, lines } = await consoleOf(() => runner.executeTool(HUGE, {}));
      assert.equal(!result.ok && result.error.code, 'INVALID_TOOL_NAME');
      assert.match(!result.ok ? result.error.message : '', NAMES_LENGTH_AND_LIMIT);
      assert.ok(longest(result) < 1000, `the result holds ${longest(result)} characters`);
      assert.ok(longest(bus.history()) < 1000, 'events hold no long name');
      assert.ok(!lines.some((l) => l.includes(TOO_MUCH)));
    });

    test("Python's call_tool with it, and with a 10 MB instance id, fails in Python; nothing carries it whole", async () => {
      const before = bus.history().length;
      const { result, lines } = await consoleOf(() =>
        runner.executeTool('execute_python', {
          code: [
            'out = []',
            'for name, kw in (("x" * (10 * 1024 * 1024), {}), ("read_file", {"instance_id": "y" * (10 * 1024 * 1024)})):',
            '    try:',
            '        call_tool(name, {}, **kw)',
            '    except Exception as e:',
            '        out.append(type(e).__name__ + ": " + str(e)[:300])',
            'out',
          ].join('\n'),
        }),
      );
      assert.ok(result.ok, JSON.stringify(result).slice(0, 500));
      const messages = (result.value as { value: string[] }).value;
      assert.equal(messages.length, 2);
      for (const m of messages) assert.match(m, /at most 128 characters.* 10485760/);
      assert.ok(longest(result) < 1000);
      assert.ok(longest(bus.history().slice(before)) < 1000, 'events hold no long name');
      assert.ok(!lines.some((l) => l.includes(TOO_MUCH)));
    });
  });
}

test('a model calling a tool with a 10 MB name: the agent refuses it; events, transcript, result and the next request hold no long name', async () => {
  const bus = createEventBus({ historySize: 10_000 });
  const persona: Persona = { id: 'agent', name: 'Agent', description: 'd', upgrades: [], tools: ['*'], skills: [], toolMode: 'direct', model: { provider: 'openai-compatible', model: 'scripted', baseURL: 'http://127.0.0.1:9/v1' } };
  const runner = createToolRunner({ bus, persona });
  runner.registerTools([decl('add')], () => 1);
  const store = memoryStore();
  const workspace = await createWorkspace({ store, bus });
  const model = scriptedMockModel([{ text: 'Calling it.', toolCalls: [{ name: HUGE, args: {} }] }, { text: 'Done.' }]);
  const agent = createAgent({ runner, bus, persona, transcripts: new TranscriptStore(workspace.area('runs')), keys: environmentKeys({}), settings: memorySettings(), modelFactory: async () => model, maxRetries: 0 });
  const { result, lines } = await consoleOf(() => agent.run({ goal: 'go' }));
  assert.equal(result.reason, 'answered');
  assert.equal(result.toolCalls.length, 1);
  assert.equal(result.toolCalls[0]!.ok, false);
  assert.match(JSON.stringify(result.toolCalls[0]!.result), /INVALID_TOOL_NAME/);
  assert.ok(longest(result) < 1000, `the run result holds ${longest(result)} characters`);
  assert.ok(longest(bus.history()) < 1000, 'events hold no long name');
  assert.ok(longest([...store.files.values()]) < 1000, 'the transcript holds no long name');
  assert.ok(longest(model.doStreamCalls[1]!.prompt) < 1000, 'the conversation sent back to the model holds no long name');
  assert.ok(!lines.some((l) => l.includes(TOO_MUCH)));
});

test('an MCP server listing a tool with a 10 MB name: it is skipped, and the reason quotes a bounded piece', () => {
  const { declarations, skipped } = declarationsFromTools(
    [
      { name: HUGE, inputSchema: { type: 'object' } },
      { name: 'fine', inputSchema: { type: 'object' } },
    ],
    { server: 'remote', namespace: 'remote', timeoutMs: 1000 },
  );
  assert.deepEqual(declarations.map((d) => d.name), ['remote.fine']);
  assert.equal(skipped.length, 1);
  assert.ok(longest(skipped) < 1000, `skipped holds ${longest(skipped)} characters`);
});

test('registering a tool with a 10 MB name is refused with a bounded message', () => {
  const runner = createToolRunner({ bus: createEventBus(), persona: { id: 'p', name: 'p', description: 'd', upgrades: [], tools: ['*'], skills: [] } });
  assert.throws(() => runner.registerTools([decl(HUGE)], () => 1), (e: Error & { code?: string }) => e.code === 'INVALID_TOOL_NAME' && e.message.length < 1000 && NAMES_LENGTH_AND_LIMIT.test(e.message));
});

test('an agent-made tool named with 10 MB (of dots: millions of parts if split) is refused by its length', () => {
  for (const name of [HUGE, '.'.repeat(10 * 1024 * 1024)]) {
    assert.throws(() => fullToolName(name), (e: Error & { code?: string }) => e.code === 'INVALID_TOOL_NAME' && e.message.length < 1000 && NAMES_LENGTH_AND_LIMIT.test(e.message));
  }
});

describe('the CLI given a 10 MB name', () => {
  /** Runs `armature ...argv` in this process; everything it prints. */
  async function cli(...argv: string[]): Promise<{ code: number; out: string; err: string }> {
    let out = '';
    let err = '';
    const { result: code, lines } = await consoleOf(() =>
      main([...argv, '--data', tempDir('bad-names-cli')], { out: (t) => void (out += t), err: (t) => void (err += t), write: (k, t) => void (k === 'stdout' ? (out += t) : (err += t)), isTTY: false }),
    );
    assert.ok(!lines.some((l) => l.includes(TOO_MUCH)), 'the console holds no long name');
    return { code, out, err };
  }

  test('armature call <name>: INVALID_TOOL_NAME naming its length and the limit, nothing long printed', async () => {
    const r = await cli('call', HUGE);
    assert.equal(r.code, 1, r.err.slice(0, 500));
    const result = JSON.parse(r.out) as { ok: boolean; error: { code: string; message: string } };
    assert.equal(result.error.code, 'INVALID_TOOL_NAME');
    assert.match(result.error.message, NAMES_LENGTH_AND_LIMIT);
    assert.ok(r.out.length + r.err.length < 2000, `${r.out.length + r.err.length} characters printed`);
  });

  test('as a command, a persona, a tool with bad JSON, or extra arguments: usage errors quote a bounded piece', async () => {
    for (const argv of [[HUGE], ['boot', '--persona', HUGE], ['call', HUGE, `{${HUGE}`], ['call', 'read_file', '{}', HUGE], ['tools', HUGE]]) {
      const r = await cli(...argv);
      assert.notEqual(r.code, 0);
      assert.ok(r.err.length > 0);
      assert.ok(r.out.length + r.err.length < 5000, `${argv.map((a) => a.slice(0, 10)).join(' ')}: ${r.out.length + r.err.length} characters printed`);
      assert.ok(!r.err.includes(TOO_MUCH));
    }
  });
});
