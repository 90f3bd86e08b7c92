// The agent loop: overhead per step without model time (the mock model answers at once), next to
// the SDK's own streamText request alone; and the context a task costs in code mode vs direct mode
// (the same three-step task, request bodies as the real provider sends them to a scripted server).
import { streamText } from 'ai';
import { boot } from '../src/kernel/boot/boot.ts';
import { createEventBus } from '../src/kernel/event-bus.ts';
import type { Persona, ToolDeclaration } from '../src/kernel/manifest-schemas.ts';
import { createToolRunner } from '../upgrades/tool-runner/tool-runner.ts';
import { createWorkspace } from '../upgrades/workspace/workspace.ts';
import type { AgentApi } from '../src/contracts/agent-contract.ts';
import { createAgent } from '../upgrades/agent/agent.ts';
import { environmentKeys } from '../upgrades/agent/keys.ts';
import { memorySettings } from '../upgrades/agent/settings.ts';
import { TranscriptStore } from '../upgrades/agent/transcript.ts';
import { memoryStore } from '../test/helpers/memory-platform.ts';
import { scriptedMockModel } from '../test/helpers/mock-model.ts';
import { NUMBERS_FILE, SUM_CODE } from '../test/helpers/agent-task.ts';
import type { ScriptTurn } from '../test/helpers/model-script.ts';
import { startScriptedModelServer } from '../test/helpers/scripted-model-server.ts';
import { tempDir } from '../test/helpers/temp-dir.ts';
import { percentile, type BenchRow } from './types.ts';

/** Steps per run: the default maxSteps. */
const STEPS = 8;
/** Runs measured (after warm-up ones). */
const RUNS = 100;
/** A long run, to show how the step cost grows with the conversation. */
const LONG = 100;

/** Per-step wall time of the agent loop over a no-op tool, in ms. */
async function loopSteps(): Promise<{ agent: number[]; long: number[]; sdk: number[] }> {
  const bus = createEventBus({ historySize: 100 });
  const persona: Persona = { id: 'bench', name: 'Bench', description: 'b', upgrades: [], tools: ['*'], skills: [], toolMode: 'direct', model: { provider: 'openai-compatible', model: 'mock', baseURL: 'http://127.0.0.1:9/v1' } };
  const runner = createToolRunner({ bus, persona });
  const noop: ToolDeclaration = { name: 'noop', description: 'Does nothing.', module: 'Bench', pythonCallable: true, inputSchema: { type: 'object', properties: { n: { type: 'integer' } }, required: ['n'], additionalProperties: false } };
  runner.registerTools([noop], (_name, args) => ({ n: args.n }));
  const workspace = await createWorkspace({ store: memoryStore(), bus });
  const turns: ScriptTurn[] = Array.from({ length: LONG }, (_, i) => ({ text: 'Next.', toolCalls: [{ name: 'noop', args: { n: i } }], usage: { input: 10, output: 2 } }));
  let model = scriptedMockModel(turns);
  const agent = createAgent({ runner, bus, persona, transcripts: new TranscriptStore(workspace.area('runs')), keys: environmentKeys({}), settings: memorySettings(), modelFactory: async () => model, maxRetries: 0 });
  const stamps: number[] = [];
  bus.on('agent:step-finished', () => stamps.push(performance.now()));
  const measure = async (steps: number) => {
    stamps.length = 0;
    model = scriptedMockModel(turns);
    const t0 = performance.now();
    const r = await agent.run({ goal: 'step', maxSteps: steps });
    if (r.steps !== steps) throw new Error(`expected ${steps} steps, got ${r.steps}: ${r.error?.message}`);
    return stamps.map((t, i) => t - (i ? stamps[i - 1]! : t0));
  };
  for (let i = 0; i < 20; i++) await measure(STEPS); // warm-up
  const agentSteps: number[] = [];
  for (let i = 0; i < RUNS; i++) agentSteps.push(...(await measure(STEPS)));
  const long = await measure(LONG);
  // The SDK alone: one streamText request over the same stream, consumed to the end.
  const sdkModel = scriptedMockModel(Array.from({ length: 250 }, () => ({ text: 'Next.', toolCalls: [{ name: 'noop', args: { n: 1 } }] })));
  const sdk: number[] = [];
  for (let i = 0; i < 250; i++) {
    const t0 = performance.now();
    const r = streamText({ model: sdkModel, prompt: 'step', onError: () => {} });
    for await (const _part of r.fullStream) void _part;
    await r.response;
    if (i >= 50) sdk.push(performance.now() - t0);
  }
  return { agent: agentSteps, long, sdk };
}

/** Request bodies of the same task in code mode and direct mode, against the scripted server. */
async function contextPerTask(): Promise<{ code: number[]; direct: number[] }> {
  const server = await startScriptedModelServer();
  const sys = await boot({ dataDir: tempDir('bench-agent'), config: { Agent: { env: {} } } });
  try {
    const agent = await sys.resolve<AgentApi>('Agent');
    await sys.tools.executeTool('write_file', NUMBERS_FILE);
    const model = { provider: 'openai-compatible' as const, model: 'scripted', baseURL: server.baseURL };
    const goal = 'Add up the numbers in data/numbers.txt, write the sum to results/sum.txt, then list the files under results.';
    const sizes = async (toolMode: 'code' | 'direct', script: ScriptTurn[]) => {
      server.model.setScript(script);
      const from = server.requests.length;
      const r = await agent.run({ goal, model, toolMode });
      if (r.reason !== 'answered') throw new Error(`${toolMode}: ${r.reason} ${r.error?.message}`);
      return server.requests.slice(from).map((q) => JSON.stringify(q.body).length);
    };
    const code = await sizes('code', [
      { toolCalls: [{ name: 'execute_python', args: { code: `${SUM_CODE}\nprint(call_tool("list_files", {"prefix": "results"})["count"])` } }] },
      { text: 'The sum is 50, written to results/sum.txt; results holds 1 file.' },
    ]);
    const direct = await sizes('direct', [
      { toolCalls: [{ name: 'read_file', args: { path: 'data/numbers.txt' } }] },
      { toolCalls: [{ name: 'write_file', args: { path: 'results/sum.txt', content: '50\n' } }] },
      { toolCalls: [{ name: 'list_files', args: { prefix: 'results' } }] },
      { text: 'The sum is 50, written to results/sum.txt; results holds 1 file.' },
    ]);
    return { code, direct };
  } finally {
    await sys.dispose();
    await server.close();
  }
}

export async function run(): Promise<BenchRow[]> {
  const { agent, long, sdk } = await loopSteps();
  const { code, direct } = await contextPerTask();
  const p50 = percentile(agent, 50);
  const sum = (xs: number[]) => xs.reduce((a, b) => a + b, 0);
  // No tokenizer ships offline: tokens are estimated as characters / 4 of the JSON request bodies.
  const tokens = (xs: number[]) => Math.round(sum(xs) / 4);
  return [
    { suite: 'agent', name: `loop step p50 (instant mock model, no-op tool; ${RUNS} runs of ${STEPS} steps)`, value: p50, unit: 'ms', target: '<= 2 ms', pass: p50 <= 2 },
    { suite: 'agent', name: 'loop step p95', value: percentile(agent, 95), unit: 'ms' },
    { suite: 'agent', name: 'loop step range (min)', value: Math.min(...agent), unit: 'ms' },
    { suite: 'agent', name: 'loop step range (max)', value: Math.max(...agent), unit: 'ms' },
    { suite: 'agent', name: `loop step ${LONG} of a ${LONG}-step run (history grows)`, value: long.at(-1)!, unit: 'ms' },
    { suite: 'agent', name: 'SDK streamText request alone p50 (baseline)', value: percentile(sdk, 50), unit: 'ms' },
    { suite: 'agent', name: `input per task, code mode (${code.length} requests)`, value: tokens(code), unit: '≈tokens' },
    { suite: 'agent', name: `input per task, direct mode (${direct.length} requests)`, value: tokens(direct), unit: '≈tokens' },
    { suite: 'agent', name: 'input per task, code / direct', value: sum(code) / sum(direct), unit: 'ratio' },
    { suite: 'agent', name: 'first request, code mode (prompt + 3 tools)', value: Math.round(code[0]! / 4), unit: '≈tokens' },
    { suite: 'agent', name: 'first request, direct mode (prompt + every tool)', value: Math.round(direct[0]! / 4), unit: '≈tokens' },
  ];
}
