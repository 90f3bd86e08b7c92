// How `armature mcp` ends, as the official SDK client sees it: the client closing stdin mid-run, or
// the first SIGTERM (stdio and HTTP), cancels the run — a `time.sleep` Python cannot interrupt
// included — and the process exits by itself with 0, promptly (the SDK's own client escalates to
// SIGTERM after 2 s and SIGKILL after 4 s). What the run wrote before stays whole on disk, and
// stdout carries only complete messages.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { LoggingMessageNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import { startMcpChild } from '../helpers/child-stdio.ts';
import { startMcpHttpChild } from '../helpers/mcp-http-child.ts';
import { tempDir } from '../helpers/temp-dir.ts';
import { until } from '../helpers/until.ts';

/**
 * Writes a file through a tool and says so (the output leaves while Python spins), then blocks in C
 * where no interrupt reaches it.
 */
const RUN = [
  'import time',
  'call_tool("write_file", {"path": "before.txt", "content": "x" * 100000})',
  'print("written", flush=True)',
  't = time.time()',
  'while time.time() - t < 2: pass',
  'time.sleep(600)',
].join('\n');
/** Far below the run's own 10-minute timeout, which is how long the process used to stay. */
const EXIT_BOUND_MS = 10_000;
/** One data folder for every test: the Python snapshot the first one makes starts the next ones sooner. */
const data = join(tempDir('mcp-shutdown'), 'data');

/** Starts RUN on `client` and resolves once Python said it wrote the file (the run is then mid-way). */
async function startRun(client: Client): Promise<{ settled: Promise<unknown> }> {
  let said = false;
  client.setNotificationHandler(LoggingMessageNotificationSchema, (n) => void (said ||= String(n.params.data).includes('written')));
  const pending = client.callTool({ name: 'execute_python', arguments: { code: RUN } }).catch((e: Error) => e);
  await until('the run to write its file', () => said, 60_000);
  return { settled: pending };
}

for (const how of ['stdin closed', 'SIGTERM'] as const) {
  test(`stdio: ${how} mid-run cancels it and the process exits by itself with 0; the file written before is whole`, async () => {
    const mcp = startMcpChild(['--data', data], tempDir('mcp-shutdown-cwd'));
    const client = new Client({ name: 'armature-test', version: '1.0.0' });
    await client.connect(mcp.transport);
    const pending = await startRun(client);
    const t0 = performance.now();
    if (how === 'SIGTERM') mcp.child.kill('SIGTERM');
    else mcp.child.stdin!.end();
    const exit = await Promise.race([mcp.exited, new Promise<'alive'>((r) => setTimeout(() => r('alive'), EXIT_BOUND_MS).unref())]);
    if (exit === 'alive') mcp.child.kill('SIGKILL');
    assert.deepEqual(exit, { code: 0, signal: null }, `still running ${EXIT_BOUND_MS} ms after ${how}; stderr: ${mcp.stderr().slice(-500)}`);
    process.stderr.write(`# stdio ${how}: exited ${Math.round(performance.now() - t0)} ms after it\n`);
    const settled = await pending.settled;
    assert.ok(settled instanceof Error, `the run did not finish: the session closed under it (${JSON.stringify(settled).slice(0, 300)})`);
    assert.deepEqual(mcp.garbled, [], 'every stdout line was a whole message');
    assert.equal(readFileSync(join(data, 'workspace', 'before.txt'), 'utf8'), 'x'.repeat(100000));
  });
}

test('HTTP: the first SIGTERM mid-run closes the sessions and the process exits by itself with 0', async () => {
  const server = await startMcpHttpChild([], { data });
  const client = new Client({ name: 'armature-test', version: '1.0.0' });
  await client.connect(new StreamableHTTPClientTransport(new URL(server.url)));
  const pending = await startRun(client);
  const t0 = performance.now();
  server.child.kill('SIGTERM');
  const exit = await Promise.race([server.exited, new Promise<'alive'>((r) => setTimeout(() => r('alive'), EXIT_BOUND_MS).unref())]);
  if (exit === 'alive') server.child.kill('SIGKILL');
  assert.deepEqual(exit, { code: 0, signal: null }, `still running ${EXIT_BOUND_MS} ms after SIGTERM: ${server.output().slice(-500)}`);
  process.stderr.write(`# http SIGTERM: exited ${Math.round(performance.now() - t0)} ms after it\n`);
  assert.equal(readFileSync(join(data, 'workspace', 'before.txt'), 'utf8'), 'x'.repeat(100000));
  // The SDK's HTTP client would wait out its own request timeout for the stream that ended; closing ends the wait.
  await client.close().catch(() => undefined);
  assert.ok((await pending.settled) instanceof Error);
});
