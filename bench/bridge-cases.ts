// call_tool measurements shared by the Node bench and the Chromium bench page. No platform imports.
import type { ExecuteResult, ToolCallHandler } from '../upgrades/pyodide-runtime/contract.ts';
import { percentile, type BenchRow } from './types.ts';

/** JSON-like rows of about `bytes` bytes of JSON: typical tool output (ids, names, text, numbers). */
export function makeRows(bytes: number): Record<string, unknown>[] {
  const rows: Record<string, unknown>[] = [];
  let size = 2;
  for (let i = 0; size < bytes; i++) {
    const row = {
      id: i,
      name: `customer ${i}`,
      email: `user${i}@example.com`,
      city: ['Springfield', 'Shelbyville', 'Ogdenville', 'North Haverbrook'][i % 4],
      score: (i % 1000) / 8,
      active: i % 3 !== 0,
      note: `order ${i * 7} shipped on time; follow up in ${i % 30} days`,
    };
    rows.push(row);
    size += JSON.stringify(row).length + 1;
  }
  return rows;
}

const MB = 1024 * 1024;
const cache = new Map<string, unknown>();
const cached = <T>(key: string, make: () => T): T => {
  if (!cache.has(key)) cache.set(key, make());
  return cache.get(key) as T;
};

/** Tools answered directly (no ToolRunner), so the numbers are the transport's. */
export const benchToolHandler: ToolCallHandler = async (name, args) => {
  const a = (args ?? {}) as { mb?: number };
  switch (name) {
    case 'tiny':
      return { ok: true, value: 1 };
    case 'text':
      return { ok: true, value: cached(`text${a.mb}`, () => 'x'.repeat(a.mb! * MB)) };
    case 'rows':
      return { ok: true, value: cached(`rows${a.mb}`, () => makeRows(a.mb! * MB)) };
    case 'rows_json':
      return { ok: true, value: cached(`json${a.mb}`, () => JSON.stringify(makeRows(a.mb! * MB))) };
    default:
      return { ok: false, error: { code: 'UNKNOWN', message: name } };
  }
};

type Exec = (code: string) => Promise<ExecuteResult>;

async function py<T>(exec: Exec, code: string): Promise<T> {
  const r = await exec(code);
  if (!r.ok) throw new Error(`bench Python failed: ${r.error.type}: ${r.error.message}\n${r.error.traceback}`);
  return r.value as T;
}

/**
 * Python that times `expr` `n` times and returns the samples in seconds. The value is kept until
 * the clock is read: freeing 10 MB of rows (tens of ms in wasm) is the caller's cost when it is
 * done with the data, not the transfer's.
 */
const timing = (expr: string, n: number) => `
import time
_ts = []
for _ in range(${n}):
    _t = time.perf_counter()
    _v = ${expr}
    _ts.append(time.perf_counter() - _t)
    del _v
_ts`;

/**
 * Round trips and throughput for one transport. `fn` is `call_tool` or `call_tool_async`.
 * Sizes: 1 and 10 MB, as one text value and as rows; rows also as JSON text + json.loads (the naive way).
 */
export async function measureTransport(
  exec: Exec,
  label: string,
  options: { isAsync?: boolean; tinyCalls?: number; bulkRepeats?: number; tinyOnly?: boolean } = {},
): Promise<BenchRow[]> {
  const call = options.isAsync ? 'await call_tool_async' : 'call_tool';
  const suite = 'call_tool';
  const rows: BenchRow[] = [];
  // Warm-up first (JIT on both threads, and whatever start-up work is still settling), then measure.
  await py(exec, timing(`${call}("tiny")`, 1000));
  const tiny = await py<number[]>(exec, timing(`${call}("tiny")`, options.tinyCalls ?? 3000));
  const us = tiny.map((s) => s * 1e6);
  rows.push({ suite, name: `${label}: tiny round trip p50`, value: percentile(us, 50), unit: 'µs' });
  rows.push({ suite, name: `${label}: tiny round trip p99`, value: percentile(us, 99), unit: 'µs' });
  if (options.tinyOnly) return rows;
  const repeats = options.bulkRepeats ?? 3;
  for (const mb of [1, 10]) {
    for (const kind of ['text', 'rows', 'rows_json'] as const) {
      const expr = kind === 'rows_json' ? `__import__("json").loads(${call}("rows_json", {"mb": ${mb}}))` : `${call}("${kind}", {"mb": ${mb}})`;
      // Warm-up builds the cached payload and the code paths.
      await py(exec, timing(expr, 1));
      const s = await py<number[]>(exec, timing(expr, repeats));
      const best = Math.min(...s);
      const what = kind === 'text' ? 'one text value' : kind === 'rows' ? 'rows (marshal)' : 'rows as JSON text + json.loads';
      rows.push({ suite, name: `${label}: ${mb} MB as ${what}`, value: mb / 1.048576 / best, unit: 'MB/s' });
    }
  }
  return rows;
}
