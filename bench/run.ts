// `npm run bench`: runs every bench/*.bench.ts (or those named on the command line), prints one
// table, and writes the rows as JSON to bench/results/latest.json (and stdout with --json).
import { mkdirSync, readdirSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { BenchRow } from './types.ts';

const dir = fileURLToPath(new URL('.', import.meta.url));
const only = process.argv.slice(2).filter((a) => !a.startsWith('--'));
const files = readdirSync(dir)
  .filter((f) => f.endsWith('.bench.ts'))
  .filter((f) => !only.length || only.some((o) => f.includes(o)))
  .sort();

const rows: BenchRow[] = [];
const failures: string[] = [];
for (const f of files) {
  process.stderr.write(`bench: ${f} ...\n`);
  try {
    const mod = (await import(`./${f.slice(0, -'.bench.ts'.length)}.bench.ts`)) as { run(): Promise<BenchRow[]> };
    rows.push(...(await mod.run()));
  } catch (e) {
    failures.push(`${f}: ${(e as Error).stack ?? e}`);
  }
}

const fmt = (v: number) => (Math.abs(v) >= 100 ? v.toFixed(0) : Math.abs(v) >= 1 ? v.toFixed(2) : v.toFixed(3));
const table = [
  ['suite', 'measure', 'value', 'unit', 'range', 'target', 'meets'],
  ...rows.map((r) => [r.suite, r.name, fmt(r.value), r.unit, r.range ? `${fmt(r.range[0])}–${fmt(r.range[1])}` : '', r.target ?? '', r.pass === undefined ? '' : r.pass ? 'yes' : 'NO']),
];
const widths = table[0]!.map((_, i) => Math.max(...table.map((r) => r[i]!.length)));
for (const [i, r] of table.entries()) {
  console.log(r.map((c, j) => (j === 2 ? c.padStart(widths[j]!) : c.padEnd(widths[j]!))).join('  ').trimEnd());
  if (i === 0) console.log(widths.map((w) => '-'.repeat(w)).join('  '));
}
const report = { date: new Date().toISOString(), node: process.version, rows, failures };
mkdirSync(new URL('results/', import.meta.url), { recursive: true });
writeFileSync(new URL('results/latest.json', import.meta.url), JSON.stringify(report, null, 2));
if (process.argv.includes('--json')) console.log(JSON.stringify(report));
else console.log(`\nJSON: bench/results/latest.json`);
for (const f of failures) console.error(`bench failed: ${f}`);
process.exitCode = failures.length ? 1 : 0;
