// Runs the call_tool measurements in Chromium for the shared-memory and JSPI transports, side by
// side in one page, and leaves the rows on window.__bench for the Node harness to read.
import { createPyodideRuntime, type PyodideRuntimeOptions } from '../../upgrades/pyodide-runtime/runtime.ts';
import { benchToolHandler, measureTransport } from '../bridge-cases.ts';
import type { BenchRow } from '../types.ts';

const w = window as unknown as { __bench?: BenchRow[]; __benchError?: string };
try {
  const rows: BenchRow[] = [];
  for (const [transport, polling] of [['shared-memory', true], ['shared-memory', false], ['jspi', true]] as const) {
    const options: PyodideRuntimeOptions = {
      transport,
      bridgePollMs: polling ? undefined : 0,
      onToolCall: benchToolHandler,
      workerUrl: new URL('./pyodide-worker.js', import.meta.url).href,
      indexURL: new URL('/pyodide/', location.href).href,
      defaultTimeoutMs: 600_000,
    };
    const rt = createPyodideRuntime(options, { emit: () => undefined });
    await rt.init();
    const label = `Chromium ${transport}${polling ? '' : ' without polling'}`;
    // JSPI is slow for bulk data: fewer repeats keep the run short.
    const how = !polling ? { tinyOnly: true } : transport === 'jspi' ? { bulkRepeats: 1, tinyCalls: 1000 } : {};
    rows.push(...(await measureTransport((code) => rt.execute(code), label, how)));
    await rt.dispose();
  }
  w.__bench = rows;
} catch (e) {
  w.__benchError = String((e as Error).stack ?? e);
}
