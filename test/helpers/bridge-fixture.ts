// A ToolRunner with a few test tools, a real runtime, and the PythonTool bridge between them.
import { createEventBus } from '../../src/kernel/event-bus.ts';
import type { Persona, ToolDeclaration } from '../../src/kernel/manifest-schemas.ts';
import { createToolRunner } from '../../upgrades/tool-runner/tool-runner.ts';
import { createPyodideRuntime, type PyodideRuntimeOptions } from '../../upgrades/pyodide-runtime/runtime.ts';
import { createPythonTool } from '../../upgrades/python-tool/python-tool.ts';

const decl = (name: string, properties: Record<string, unknown> = {}): ToolDeclaration => ({
  name,
  description: `${name}.`,
  module: 'TestKit',
  pythonCallable: true,
  inputSchema: { type: 'object', properties },
});

/** Test tools: echo, big_text (mb), big_rows (n), fail. */
export function bridgeFixture(options: PyodideRuntimeOptions = {}) {
  const bus = createEventBus({ historySize: 2000 });
  const persona: Persona = { id: 't', name: 'T', description: 't', upgrades: [], tools: ['*'], skills: [] };
  const runner = createToolRunner({ bus, persona });
  runner.registerTools([decl('echo', { value: {} }), decl('big_text', { mb: { type: 'number' } }), decl('big_rows', { n: { type: 'integer' } }), decl('fail')], (name, args) => {
    if (name === 'echo') return args.value;
    if (name === 'big_text') return 'x'.repeat(Math.round((args.mb as number) * 1024 * 1024));
    if (name === 'big_rows') return Array.from({ length: args.n as number }, (_, i) => ({ id: i, name: `row ${i}`, score: i / 2 }));
    throw new Error('asked to fail');
  });
  const runtime = createPyodideRuntime(options, { emit: (t, p) => bus.emit(t, p) });
  const { api } = createPythonTool({ runtime, runner, persona, bus });
  return { bus, runner, runtime, python: api };
}
