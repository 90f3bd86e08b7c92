// armature/ai-sdk against the AI SDK's own mock model: generateText and streamText drive real tool
// calls into a booted `python` persona (real ToolRunner, workspace, Pyodide).
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { generateText, stepCountIs, streamText } from 'ai';
import { MockLanguageModelV3 } from 'ai/test';
import type { LanguageModelV3CallOptions, LanguageModelV3Content, LanguageModelV3GenerateResult } from '@ai-sdk/provider';
import { tempDir } from '../../test/helpers/temp-dir.ts';
import { boot } from '../kernel/boot/boot.ts';
import { createArmatureTools, type ArmatureTools } from './armature-tools.ts';

const USAGE = { inputTokens: { total: 10, noCache: 10, cacheRead: undefined, cacheWrite: undefined }, outputTokens: { total: 5, text: 5, reasoning: undefined } };

/** One model answer: tool calls (name and arguments) or text. */
function answer(content: ({ tool: string; args: unknown; id?: string } | { text: string })[]): LanguageModelV3GenerateResult {
  const parts: LanguageModelV3Content[] = content.map((c, i) =>
    'text' in c ? { type: 'text', text: c.text } : { type: 'tool-call', toolCallId: c.id ?? `call-${i}`, toolName: c.tool, input: JSON.stringify(c.args) },
  );
  const calls = parts.some((p) => p.type === 'tool-call');
  return { content: parts, finishReason: { unified: calls ? 'tool-calls' : 'stop', raw: calls ? 'tool_calls' : 'stop' }, usage: USAGE, warnings: [] };
}

/** A mock model that plays `answers` in order, to generateText (doGenerate) and streamText (doStream). */
function scripted(answers: LanguageModelV3GenerateResult[]): MockLanguageModelV3 {
  let n = 0;
  const next = () => answers[n++] ?? answer([{ text: '(script over)' }]);
  return new MockLanguageModelV3({
    doGenerate: async () => next(),
    doStream: async () => {
      const a = next();
      return {
        stream: new ReadableStream({
          start(c) {
            c.enqueue({ type: 'stream-start', warnings: [] });
            for (const p of a.content) {
              if (p.type === 'text') {
                c.enqueue({ type: 'text-start', id: 't' });
                c.enqueue({ type: 'text-delta', id: 't', delta: p.text });
                c.enqueue({ type: 'text-end', id: 't' });
              } else c.enqueue(p as never);
            }
            c.enqueue({ type: 'finish', finishReason: a.finishReason, usage: a.usage });
            c.close();
          },
        }),
      };
    },
  });
}

/** The tool results the model was sent in a call's prompt. */
function toolResultsSent(call: LanguageModelV3CallOptions): unknown[] {
  return call.prompt.flatMap((m) => (m.role === 'tool' ? m.content.filter((p) => p.type === 'tool-result').map((p) => p.output) : []));
}

let armature: ArmatureTools;

before(async () => {
  armature = await createArmatureTools({ dataDir: tempDir('ai-sdk') });
});
after(() => armature.dispose());

test('a ToolSet of the python persona in code mode, with the fragment that teaches call_tool', () => {
  assert.deepEqual(Object.keys(armature.tools).sort(), ['execute_python', 'install_python_package', 'list_skills', 'read_skill']);
  assert.equal(armature.system.persona.id, 'python');
  assert.match(armature.instructions, /call `execute_python` with code/);
  assert.match(armature.instructions, /call_tool\("name", \{"arg": value\}\)/);
  assert.match(armature.instructions, /from tools\.workspace import/);
});

test('generateText runs execute_python, whose code calls tools with call_tool, and the model gets the result', async () => {
  const code = [
    'call_tool("write_file", {"path": "notes/ai.txt", "content": "from the AI SDK"})',
    'text = call_tool("read_file", {"path": "notes/ai.txt"})["content"]',
    'print(text.upper())',
    'len(text)',
  ].join('\n');
  const model = scripted([answer([{ tool: 'execute_python', args: { code }, id: 'c1' }]), answer([{ text: 'It says FROM THE AI SDK.' }])]);
  const result = await generateText({ model, system: armature.instructions, tools: armature.tools, prompt: 'Write a note and read it back.', stopWhen: stepCountIs(4) });
  assert.equal(result.text, 'It says FROM THE AI SDK.');
  const [toolResult] = result.steps[0]!.toolResults;
  assert.equal(toolResult!.toolName, 'execute_python');
  const output = toolResult!.output as { ok: boolean; value: { value: unknown; stdout: string } };
  assert.equal(output.ok, true, JSON.stringify(output));
  assert.deepEqual([output.value.value, output.value.stdout], [15, 'FROM THE AI SDK\n']);
  // The model's second request carries that result, and the system prompt.
  const second = model.doGenerateCalls[1]!;
  assert.deepEqual(toolResultsSent(second), [{ type: 'json', value: output }]);
  assert.equal(second.prompt[0]!.role, 'system');
  // The calls went through the ToolRunner: Python's own call_tool calls included.
  const read = await armature.system.tools.executeTool<{ content: string }>('read_file', { path: 'notes/ai.txt' });
  assert.deepEqual(read.ok && read.value.content, 'from the AI SDK');
  const stats = armature.system.tools.getStats();
  assert.ok(stats.find((s) => s.name === 'write_file')!.calls >= 1);
});

test('a failed run is { ok: false } with the Python error type and a hint, not a thrown tool error', async () => {
  const model = scripted([answer([{ tool: 'execute_python', args: { code: 'call_tool("read_file", {"path": "../secret"})' } }]), answer([{ text: 'done' }])]);
  const result = await generateText({ model, tools: armature.tools, prompt: 'x', stopWhen: stepCountIs(3) });
  const output = result.steps[0]!.toolResults[0]!.output as { ok: boolean; error: { code: string; details: { traceback: string } } };
  assert.equal(output.ok, false);
  assert.equal(output.error.code, 'ToolError');
  assert.match(output.error.details.traceback, /INVALID_PATH/);
});

test('streamText shows execute_python\'s output as preliminary results while it runs, then the final result', async () => {
  const code = 'import asyncio\nfor i in range(3):\n    print("line", i, flush=True)\n    await asyncio.sleep(0.05)\n"done"';
  const model = scripted([answer([{ tool: 'execute_python', args: { code } }]), answer([{ text: 'ok' }])]);
  const stream = streamText({ model, tools: armature.tools, prompt: 'x', stopWhen: stepCountIs(3) });
  const results: { preliminary?: boolean; output: unknown }[] = [];
  for await (const part of stream.fullStream) if (part.type === 'tool-result') results.push({ preliminary: part.preliminary, output: part.output });
  const preliminary = results.filter((r) => r.preliminary);
  const final = results.filter((r) => !r.preliminary);
  assert.ok(preliminary.length >= 1, JSON.stringify(results));
  assert.deepEqual(preliminary[0]!.output, { status: 'running', stdout: (preliminary[0]!.output as { stdout: string }).stdout, stderr: '' });
  assert.match((preliminary[0]!.output as { stdout: string }).stdout, /^line 0\n/);
  assert.equal(final.length, 1);
  assert.deepEqual((final[0]!.output as { value: { value: unknown; stdout: string } }).value.stdout, 'line 0\nline 1\nline 2\n');
  assert.equal((final[0]!.output as { value: { value: unknown } }).value.value, 'done');
  assert.equal(await stream.text, 'ok');
});

test('an aborted call interrupts the Python code; the next run works and globals survive', async () => {
  const execute = armature.tools.execute_python!.execute!;
  await drain(execute({ code: 'kept = 7' }, { toolCallId: 'a0', messages: [] }));
  const controller = new AbortController();
  const started = new Promise<void>((resolve) => {
    const sub = armature.system.bus.on('python:stdout', () => {
      sub.dispose();
      resolve();
    });
  });
  const running = drain(execute({ code: 'print("looping", flush=True)\nwhile True: pass' }, { toolCallId: 'a1', messages: [], abortSignal: controller.signal }));
  await started;
  controller.abort();
  const aborted = (await running) as { ok: boolean; error: { code: string } };
  assert.deepEqual([aborted.ok, aborted.error.code], [false, 'CANCELLED']);
  const next = (await drain(execute({ code: 'kept * 6' }, { toolCallId: 'a2', messages: [] }))) as { ok: boolean; value: { value: unknown } };
  assert.equal(next.ok, true, JSON.stringify(next));
  assert.equal(next.value.value, 42);
});

test('direct mode offers every allowed tool; code mode refuses a persona without execute_python, naming the fix', async () => {
  const reader = await boot({ persona: 'reader', dataDir: tempDir('ai-sdk-reader') });
  try {
    const direct = await createArmatureTools({ system: reader, toolMode: 'direct' });
    assert.deepEqual(Object.keys(direct.tools).sort(), ['list_blueprints', 'list_files', 'read_blueprint', 'read_file']);
    assert.match(direct.instructions, /Tools: .*read_file/);
    await direct.dispose();
    await assert.rejects(createArmatureTools({ system: reader }), (e: Error & { code?: string; hint?: string }) => {
      assert.equal(e.code, 'CODE_MODE_NEEDS_PYTHON');
      assert.match(e.hint!, /toolMode.*direct/);
      return true;
    });
    // Given a system, dispose() leaves it running.
    const listed = await reader.tools.executeTool('list_files', {});
    assert.equal(listed.ok, true);
  } finally {
    await reader.dispose();
  }
});

test('dispose() shuts down the system it booted, once; await using does the same', async () => {
  const own = await createArmatureTools({ persona: 'reader', toolMode: 'direct', dataDir: tempDir('ai-sdk-own') });
  const disposed: string[] = [];
  own.system.bus.on('module:disposed', (e) => disposed.push(e.id));
  await Promise.all([own.dispose(), own.dispose()]);
  assert.deepEqual(disposed.sort(), ['Blueprints', 'ToolRunner', 'Workspace']);
  const after: string[] = [];
  {
    await using scoped = await createArmatureTools({ persona: 'reader', toolMode: 'direct', dataDir: tempDir('ai-sdk-using') });
    scoped.system.bus.on('module:disposed', (e) => after.push(e.id));
  }
  assert.deepEqual(after.sort(), ['Blueprints', 'ToolRunner', 'Workspace']);
});

/** Every value an execute yields (or its one result); resolves to the last. */
async function drain(result: unknown): Promise<unknown> {
  if (result && typeof result === 'object' && Symbol.asyncIterator in result) {
    let last: unknown;
    for await (const v of result as AsyncIterable<unknown>) last = v;
    return last;
  }
  return result;
}


