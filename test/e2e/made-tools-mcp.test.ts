// Agent-made Python tools and pool sessions through real MCP clients (issue 28): the official SDK
// client against `armature mcp --http`, one process on one --data folder. Client A proposes a
// candidate that hijacks the interpreter it is imported in; it is rejected by its own test, and
// client B's call of an approved tool still answers; other candidates' results are their own.
// Clients that vanish without DELETE (the SDK's close sends none) do not starve the next one.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { availableParallelism } from 'node:os';
import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { HIJACK } from '../helpers/made-tool-fixtures.ts';
import { runCli } from '../helpers/run-cli.ts';
import { tempDir } from '../helpers/temp-dir.ts';

const bin = fileURLToPath(new URL('../../bin/armature.js', import.meta.url));
const data = tempDir('made-mcp');
/** A gate starts an interpreter; on a loaded machine that takes a while (the SDK's default limit is 60 s). */
const SLOW = { timeout: 240_000 };
let server: ChildProcess;
let url: string;
const clients: Client[] = [];

/** Starts `armature mcp --http` on the data folder and resolves once it prints its URL. */
function startServer(): Promise<{ child: ChildProcess; url: string }> {
  const child = spawn(process.execPath, [bin, 'mcp', '--http', '--port', '0', '--data', data], { cwd: data, stdio: ['ignore', 'pipe', 'pipe'] });
  return new Promise((resolve, reject) => {
    let out = '';
    child.stderr!.on('data', (d) => (out += d));
    child.once('exit', (code) => reject(new Error(`armature mcp --http exited with ${code}: ${out}`)));
    child.stdout!.on('data', (d) => {
      out += d;
      const found = /(http:\/\/127\.0\.0\.1:\d+\/mcp)/.exec(out)?.[1];
      if (found) resolve({ child, url: found });
    });
  });
}

async function connect(name: string): Promise<Client> {
  const c = new Client({ name, version: '1.0.0' });
  await c.connect(new StreamableHTTPClientTransport(new URL(url)));
  clients.push(c);
  return c;
}

const text = (r: CallToolResult) => r.content.map((c) => (c.type === 'text' ? c.text : '')).join('');
async function call<T>(c: Client, name: string, args: Record<string, unknown>): Promise<T> {
  const r = (await c.callTool({ name, arguments: args }, undefined, SLOW)) as CallToolResult;
  assert.notEqual(r.isError, true, `${name}: ${text(r)}`);
  // An object comes as structured content; any other value as its JSON text.
  return (r.structuredContent ?? JSON.parse(text(r))) as T;
}

before(async () => {
  // A person's tool, made at the command line: in force without approval, restored by the server.
  const made = await runCli(['call', 'create_tool', JSON.stringify(HIJACK.victim), '--data', data], data);
  assert.equal(made.code, 0, made.err);
  assert.equal(JSON.parse(made.out).value.status, 'active');
  ({ child: server, url } = await startServer());
});

after(async () => {
  await Promise.allSettled(clients.map((c) => c.close()));
  server?.kill();
});

type Answer = { status: string; tests: { ok: boolean; value?: unknown; error?: { code: string; message: string } }[] };

test("client A's hijacking candidate is rejected by its own test; client B's call of the approved tool answers 42", async () => {
  const a = await connect('client-a');
  const b = await connect('client-b');
  const hijack = await call<Answer>(a, 'create_tool', HIJACK.hijacker);
  assert.equal(hijack.status, 'rejected', JSON.stringify(hijack));
  assert.deepEqual(hijack.tests.map((t) => t.error?.code), [undefined, 'UNEXPECTED_VALUE']);
  assert.equal(await call<number>(b, 'made.victim', { a: 40, b: 2 }), 42);
  // Neither client's interpreter has seen the candidate.
  for (const c of [a, b]) {
    const r = await call<{ value: unknown }>(c, 'execute_python', { code: 'import sys, json, builtins\n["armature_made" in sys.modules, json.dumps(1), hasattr(builtins, "HIJACKED")]' });
    assert.deepEqual(r.value, [false, '1', false]);
  }
});

test("the candidates that follow get their own results: a correct one passes its test, a raising one fails", async () => {
  const [a, b] = clients;
  // An MCP client is not a person: the default persona keeps a passing change pending.
  const adder = await call<Answer>(a!, 'create_tool', HIJACK.adder);
  assert.equal(adder.status, 'pending', JSON.stringify(adder));
  assert.deepEqual(adder.tests.map((t) => [t.ok, t.value]), [[true, 3]]);
  const raiser = await call<Answer>(b!, 'create_tool', HIJACK.raiser);
  assert.equal(raiser.status, 'rejected', JSON.stringify(raiser));
  assert.match(raiser.tests[0]!.error!.message, /ValueError: always fails/);
});

const cores = availableParallelism();
test(
  'clients that vanish without DELETE, as many as the pool holds, do not starve the next client',
  { skip: cores > 8 ? `one vanishing client per core (${cores} here) would start too many interpreters for a test` : false },
  async () => {
    // The two clients above hold runtimes too; these fill the rest of the pool (poolSize = cores).
    for (let i = 0; i < cores; i++) {
      const c = await connect(`vanishing-${i}`);
      assert.deepEqual((await call<{ value: unknown }>(c, 'execute_python', { code: `kept = ${i}\nkept` })).value, i);
    }
    await Promise.all(clients.map((c) => c.close()));
    const next = await connect('next');
    // Before issue 28 this waited for a runtime until its own timeout and failed with RUNTIME_BUSY.
    const r = await call<{ value: unknown }>(next, 'execute_python', { code: '"next ran"' });
    assert.equal(r.value, 'next ran');
  },
);
