// A seeded fuzz of every tool's arguments, through the ToolRunner of the default persona booted
// for real, and of call_tool values from Python: no call throws, none hangs, every result has the
// promised shape, and files written before are intact afterwards. `npm run soak` runs it longer.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { boot, type ArmatureSystem } from '../../src/index.ts';
import { tempDir } from '../helpers/temp-dir.ts';
import { random, randomArgs, SEED, SOAK } from './seeded.ts';

const TOOL_CALLS = SOAK ? 100_000 : 8_000;
const PYTHON_CALLS = SOAK ? 20_000 : 2_500;
/** A call that has not answered after this long counts as hung. */
const HANG_MS = 60_000;

const SENTINELS: Record<string, string> = {
  'sentinel/a.txt': 'written before the fuzz ✓',
  'sentinel/deep/b.bin': 'AAECAwQF',
};

let sys: ArmatureSystem;
const dataDir = tempDir('fuzz');

before(async () => {
  sys = await boot({ dataDir, config: { PyodideRuntime: { defaultTimeoutMs: 10_000 } } });
  assert.deepEqual(sys.modules.filter((m) => m.state !== 'loaded').map((m) => m.id), []);
  for (const [path, content] of Object.entries(SENTINELS)) {
    const w = await sys.tools.executeTool('write_file', { path, content, ...(path.endsWith('.bin') ? { encoding: 'base64' } : {}) });
    assert.equal(w.ok, true, JSON.stringify(w));
  }
});
after(() => sys.dispose());

/** Why `result` is not a well-formed tool result, or undefined when it is. */
function malformed(result: unknown): string | undefined {
  if (!result || typeof result !== 'object') return `not an object: ${typeof result}`;
  const r = result as { ok?: unknown; value?: unknown; error?: { code?: unknown; message?: unknown }; durationMs?: unknown };
  if (typeof r.durationMs !== 'number' || !Number.isFinite(r.durationMs)) return 'no durationMs';
  if (r.ok === true) return 'value' in r ? undefined : 'ok without value';
  if (r.ok !== false) return `ok is ${String(r.ok)}`;
  if (typeof r.error?.code !== 'string' || !r.error.code) return 'error without code';
  if (typeof r.error.message !== 'string') return 'error without message';
  return undefined;
}

async function assertSentinelsIntact(): Promise<void> {
  for (const [path, content] of Object.entries(SENTINELS)) {
    const binary = path.endsWith('.bin');
    const r = await sys.tools.executeTool<{ content: string }>('read_file', binary ? { path, encoding: 'base64' } : { path });
    assert.equal(r.ok && r.value.content, content, `${path} changed`);
    const onDisk = readFileSync(join(dataDir, 'workspace', ...path.split('/')));
    assert.equal(binary ? onDisk.toString('base64') : onDisk.toString('utf8'), content, `${path} changed on disk`);
  }
}

test(`${TOOL_CALLS} seeded calls with odd arguments to every tool: no throw, no hang, well-formed results`, { timeout: SOAK ? 3_600_000 : 240_000 }, async () => {
  const r = random(SEED);
  const tools = sys.tools.getToolDeclarations().filter((t) => t.name !== 'install_python_package');
  assert.ok(tools.length >= 10, tools.map((t) => t.name).join(', '));
  const counts = { calls: 0, ok: 0, failed: 0, throws: 0, hangs: 0, malformed: [] as string[] };
  const codes = new Map<string, number>();
  for (let i = 0; i < TOOL_CALLS; i++) {
    // Installs try the network for names the index lacks: a few of them, not thousands.
    const tool = r.chance(0.003) ? { name: 'install_python_package', inputSchema: { type: 'object', properties: { package: { type: 'string' } } } } : r.pick(tools);
    let args = randomArgs(r, tool.inputSchema as Record<string, unknown>);
    // What was written before must survive: no fuzzed call may name it.
    if (JSON.stringify(args ?? null, (_k, v) => (typeof v === 'bigint' ? String(v) : v))?.includes('sentinel')) args = {};
    if (tool.name === 'execute_python' && args && typeof args === 'object' && r.chance(0.5)) (args as Record<string, unknown>).code = r.pick(['1+1', 'print("x" * 10)', 'x = [1] * 1000\nlen(x)', 'raise ValueError("fuzz")', 'import sys; sys.version']);
    counts.calls++;
    let timer: ReturnType<typeof setTimeout> | undefined;
    try {
      const result = await Promise.race([
        sys.tools.executeTool(tool.name, args),
        new Promise<'hang'>((resolve) => (timer = setTimeout(() => resolve('hang'), HANG_MS))),
      ]);
      if (result === 'hang') {
        counts.hangs++;
        continue;
      }
      const why = malformed(result);
      if (why) counts.malformed.push(`${tool.name}: ${why}`);
      else if (result.ok) counts.ok++;
      else {
        counts.failed++;
        codes.set(result.error.code, (codes.get(result.error.code) ?? 0) + 1);
      }
    } catch (e) {
      counts.throws++;
      counts.malformed.push(`${tool.name} threw ${(e as Error).message}`);
    } finally {
      clearTimeout(timer);
    }
  }
  const summary = `${JSON.stringify({ ...counts, malformed: counts.malformed.slice(0, 5) })} codes ${JSON.stringify(Object.fromEntries(codes))}`;
  assert.equal(counts.throws, 0, summary);
  assert.equal(counts.hangs, 0, summary);
  assert.deepEqual(counts.malformed, [], summary);
  assert.ok(counts.ok > TOOL_CALLS / 20 && counts.failed > TOOL_CALLS / 5, `both outcomes are exercised: ${summary}`);
  await assertSentinelsIntact();
});

test(`${PYTHON_CALLS} seeded call_tool calls from Python with odd names and values: every failure a ToolError or TypeError, the host unharmed`, { timeout: SOAK ? 3_600_000 : 240_000 }, async () => {
  const names = sys.tools.getToolDeclarations().map((t) => t.name);
  const code = `
import random
rng = random.Random(${SEED})
names = ${JSON.stringify(names)} + ["", "nope", "x" * 300, "../read_file", "read_file\\n", "memory.*", "*"]
texts = ["", "..", "/etc/passwd", "a\\x00b", "é✓🙂", "x" * 5000, "notes/fuzz.txt", "data/f.csv", "0x000012", "\\ud800"]
class Odd:
    pass
def val(d):
    # Mostly JSON data (it reaches the host); now and then what JSON cannot carry (refused in Python).
    if rng.random() < 0.06:
        return rng.choice([bytes([1, 2, 3]), (1, "two"), {1, 2}, Odd(), float("nan"), float("inf")])
    k = rng.randrange(9 if d > 0 else 6)
    if k == 0: return None
    if k == 1: return rng.random() < 0.5
    if k == 2: return rng.choice([0, -1, 2**53 + 1, 2**70, -(2**64), 1.5])
    if k in (3, 4, 5): return rng.choice(texts)
    if k in (6, 7): return [val(d - 1) for _ in range(rng.randrange(4))]
    return {rng.choice(["path", "content", "encoding", "prefix", "id", "namespace", "code", "x", 3]): val(d - 1) for _ in range(rng.randrange(4))}
outcomes = {}
bad = []
for i in range(${PYTHON_CALLS}):
    name = rng.choice(names) if rng.random() < 0.85 else val(0)
    args = val(2) if rng.random() < 0.3 else {"path": val(1), "content": val(1), "encoding": rng.choice(["utf8", "base64", 7])}
    if "sentinel" in repr(args):
        args = {}
    try:
        call_tool(name, args)
        key = "ok"
    except ToolError as e:
        if not (isinstance(e.code, str) and e.code and isinstance(e.message, str)):
            bad.append(repr(e))
        key = e.code
    except (TypeError, ValueError) as e:
        key = "python " + type(e).__name__
    outcomes[key] = outcomes.get(key, 0) + 1
(outcomes, bad[:5])
`;
  const t0 = performance.now();
  const result = await sys.tools.executeTool<{ value: [Record<string, number>, string[]] }>('execute_python', { code, timeout_ms: SOAK ? 3_000_000 : 200_000 });
  assert.equal(malformed(result), undefined);
  assert.ok(result.ok, JSON.stringify(result).slice(0, 2000));
  const [outcomes, bad] = result.ok ? result.value.value : [{}, []];
  const total = Object.values(outcomes).reduce((a, b) => a + b, 0);
  assert.equal(total, PYTHON_CALLS, JSON.stringify(outcomes));
  assert.deepEqual(bad, [], 'every ToolError has a code and a message');
  assert.ok((outcomes.ok ?? 0) > 0 && Object.keys(outcomes).length > 5, JSON.stringify(outcomes));
  // The host answered all of them and is unharmed: Python and the tools still work.
  const after = await sys.tools.executeTool<{ value: number }>('execute_python', { code: '1 + 1' });
  assert.equal(after.ok && after.value.value, 2);
  await assertSentinelsIntact();
  process.stderr.write(`python call_tool fuzz: ${PYTHON_CALLS} calls in ${((performance.now() - t0) / 1000).toFixed(1)} s: ${JSON.stringify(outcomes)}\n`);
});
