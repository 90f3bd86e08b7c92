/** `armature run FILE.py | -c CODE [--timeout MS] [--json]`: Python headless, its output streamed. */
import { quote } from '../kernel/bounded.ts';
import type { ArmatureSystem } from '../kernel/boot/boot.ts';
import type { CliIo } from './cli-io.ts';
import { UsageError } from './usage-error.ts';

/** `armature run`: execute_python through the ToolRunner, streaming output as it arrives. */
export async function runPython(sys: ArmatureSystem, rest: string[], values: { code?: string; timeout?: string; json: boolean }, io: CliIo): Promise<number> {
  const [file, ...extra] = rest;
  if (extra.length) throw new UsageError(`run takes one file, got ${rest.map((r) => quote(r)).join(' ')}`);
  if (!file === (values.code === undefined)) throw new UsageError('run needs either a FILE.py or -c CODE (not both)');
  let code = values.code;
  if (file !== undefined) {
    const { readFile } = await import('node:fs/promises');
    try {
      code = await readFile(file, 'utf8');
    } catch (e) {
      const missing = (e as NodeJS.ErrnoException).code === 'ENOENT';
      // Not a .py path: most likely code meant for -c.
      const tip = missing && !/\.py$/i.test(file) ? `; to run Python given here instead, pass it with -c: armature run -c ${JSON.stringify(file.slice(0, 200))}` : '';
      throw new UsageError(`cannot read ${file}: ${missing ? 'no such file' : (e as Error).message}${tip}`);
    }
  }
  const timeout = values.timeout === undefined ? undefined : Number(values.timeout);
  if (timeout !== undefined && !(Number.isInteger(timeout) && timeout > 0)) throw new UsageError(`--timeout takes a whole number of milliseconds, got ${JSON.stringify(values.timeout)}`);
  const subs = [
    sys.bus.on('python:progress', (p) => {
      if (!io.isTTY || values.json) return;
      const width = 30;
      const filled = Math.round((p.percent / 100) * width);
      (io.control ?? io.write)('stderr', `\r${'█'.repeat(filled)}${'░'.repeat(width - filled)} ${String(Math.round(p.percent)).padStart(3)}% ${p.stage.padEnd(8)}${p.stage === 'ready' ? '\n' : ''}`);
    }),
  ];
  if (!values.json) {
    subs.push(sys.bus.on('python:stdout', (p) => io.write('stdout', p.chunk)));
    subs.push(sys.bus.on('python:stderr', (p) => io.write('stderr', p.chunk)));
  }
  try {
    const args: Record<string, unknown> = { code };
    if (timeout !== undefined) args.timeout_ms = timeout;
    const result = await sys.tools.executeTool<{ value: unknown }>('execute_python', args, { caller: 'cli' });
    if (values.json) {
      io.out(JSON.stringify(result, null, 2));
    } else if (result.ok) {
      if (result.value.value !== null && result.value.value !== undefined) io.out(`=> ${JSON.stringify(result.value.value)}`);
    } else {
      const details = result.error.details as { traceback?: string } | undefined;
      if (details?.traceback) io.write('stderr', details.traceback);
      else io.err(result.error.message);
      if (result.hint) io.err(`hint: ${result.hint}`);
    }
    return result.ok ? 0 : 1;
  } finally {
    for (const s of subs) s.dispose();
  }
}

