// ToolRunner overhead per call: argument validation through zod's JSON Schema conversion versus
// an unvalidated direct call, side by side.
import { createEventBus } from '../src/kernel/event-bus.ts';
import type { ToolDeclaration } from '../src/kernel/manifest-schemas.ts';
import { createToolRunner } from '../upgrades/tool-runner/tool-runner.ts';
import { percentile, type BenchRow } from './types.ts';

export async function run(): Promise<BenchRow[]> {
  const runner = createToolRunner({ bus: createEventBus(), persona: { id: 'b', name: 'b', description: 'b', upgrades: [], tools: ['*'], skills: [] } });
  const decl: ToolDeclaration = {
    name: 'write_file',
    description: 'w',
    module: 'Bench',
    pythonCallable: true,
    inputSchema: { type: 'object', properties: { path: { type: 'string', minLength: 1 }, content: { type: 'string' } }, required: ['path', 'content'], additionalProperties: false },
  };
  const handler = (_n: string, a: Record<string, unknown>) => a.path;
  runner.registerTools([decl], handler);
  const args = { path: 'notes/a.txt', content: 'x'.repeat(100) };
  const time = async (fn: () => unknown, n: number) => {
    const out: number[] = [];
    for (let i = 0; i < n; i++) {
      const t0 = performance.now();
      await fn();
      out.push((performance.now() - t0) * 1000);
    }
    return out;
  };
  await time(() => runner.executeTool('write_file', args), 500); // warm-up
  const full = await time(() => runner.executeTool('write_file', args), 5000);
  const direct = await time(() => handler('write_file', args), 5000);
  return [
    { suite: 'tool-runner', name: 'executeTool p50 (validated, events, stats)', value: percentile(full, 50), unit: 'µs' },
    { suite: 'tool-runner', name: 'executeTool p99 (validated, events, stats)', value: percentile(full, 99), unit: 'µs' },
    { suite: 'tool-runner', name: 'direct handler call p50 (baseline)', value: percentile(direct, 50), unit: 'µs' },
  ];
}
