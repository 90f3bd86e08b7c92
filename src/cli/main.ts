import { parseArgs } from 'node:util';
import { boot, type ArmatureSystem } from '../kernel/boot.ts';
import { ArmatureError, describeError } from '../kernel/errors.ts';
import type { ModuleReport } from '../kernel/loader.ts';

const USAGE = `armature — runtime for tool-using LLM agents

Usage:
  armature boot  [--persona ID] [--json]          boot a persona headless; list its modules
  armature tools [--persona ID] [--json]          the tool declarations the persona allows
  armature call TOOL 'JSON-ARGS' [--persona ID]   run one tool; prints its result as JSON
  armature start [--persona ID] [--port N]        the main job: build and serve the dashboard

Options:
  --persona ID   persona from modules/personas/ (default: default)
  --data DIR     where Node persistence lives (default: .armature in the current directory)
  --port N       dashboard port for start (default: PORT from the environment, else 8080)
  --json         machine-readable output
  -h, --help     this help

Exit codes: 0 on success; 1 when a tool call returns ok: false or a module failed; 2 on bad usage.`;

/** Output sinks, replaceable in tests. */
export interface CliIo {
  out(text: string): void;
  err(text: string): void;
}

const processIo: CliIo = {
  out: (t) => process.stdout.write(t + '\n'),
  err: (t) => process.stderr.write(t + '\n'),
};

class UsageError extends Error {}

/** Runs the CLI with `argv` (without `node` and the script); resolves to the exit code. */
export async function main(argv: readonly string[], io: CliIo = processIo): Promise<number> {
  let parsed;
  try {
    parsed = parseArgs({
      args: [...argv],
      allowPositionals: true,
      options: {
        persona: { type: 'string', default: 'default' },
        data: { type: 'string', default: '.armature' },
        json: { type: 'boolean', default: false },
        port: { type: 'string' },
        help: { type: 'boolean', short: 'h', default: false },
      },
    });
  } catch (e) {
    io.err(`armature: ${(e as Error).message}\n\n${USAGE}`);
    return 2;
  }
  const { values, positionals } = parsed;
  const [command, ...rest] = positionals;
  if (values.help || !command) {
    (values.help ? io.out : io.err)(USAGE);
    return values.help ? 0 : 2;
  }
  if (command === 'start') return start(values.persona, values.port, io);
  const commands: Record<string, (sys: ArmatureSystem) => Promise<number>> = {
    boot: async (sys) => printBoot(sys, values.json, io),
    tools: async (sys) => printTools(sys, values.json, io),
    call: (sys) => callTool(sys, rest, io),
  };
  const run = commands[command];
  if (!run) {
    io.err(`armature: unknown command ${JSON.stringify(command)}\n\n${USAGE}`);
    return 2;
  }
  if (command !== 'call' && rest.length) {
    io.err(`armature: ${command} takes no arguments, got ${rest.map((r) => JSON.stringify(r)).join(' ')}`);
    return 2;
  }
  let sys: ArmatureSystem;
  try {
    // Python starts on first use here, not in the background: most commands never need it.
    sys = await boot({ persona: values.persona, dataDir: values.data, config: { PyodideRuntime: { autoStart: false } } });
  } catch (e) {
    io.err(`armature: ${describeError(e)}`);
    return e instanceof ArmatureError ? 1 : 2;
  }
  try {
    return await run(sys);
  } catch (e) {
    if (e instanceof UsageError) {
      io.err(`armature: ${e.message}`);
      return 2;
    }
    throw e;
  } finally {
    await sys.dispose();
  }
}

/** Builds the dashboard and serves it until the process is stopped. */
async function start(persona: string, portArg: string | undefined, io: CliIo): Promise<number> {
  const { buildDashboard, startServer } = await import('../server/serve.ts');
  const { projectRoot } = await import('../platform/node.ts');
  const port = portArg === undefined ? undefined : Number(portArg);
  if (portArg !== undefined && (!/^\d+$/.test(portArg) || port! > 65535)) {
    io.err(`armature: --port takes a whole number from 0 to 65535, got ${JSON.stringify(portArg)}`);
    return 2;
  }
  io.out('Building the dashboard with esbuild…');
  const build = await buildDashboard({ root: projectRoot });
  io.out(`Built ${(build.bytes / 1024).toFixed(0)} KB in ${build.ms.toFixed(0)} ms.`);
  let server;
  try {
    server = await startServer({ root: projectRoot, port });
  } catch (e) {
    io.err(`armature: ${describeError(e)}`);
    return 1;
  }
  const url = persona === 'default' ? server.url : `${server.url}?persona=${encodeURIComponent(persona)}`;
  io.out(`Armature dashboard: ${url}`);
  io.out('Open it in Chromium or Chrome; press Ctrl+C to stop.');
  await new Promise<void>((resolve) => {
    const stop = () => resolve();
    process.once('SIGINT', stop);
    process.once('SIGTERM', stop);
  });
  await server.close();
  return 0;
}

function printBoot(sys: ArmatureSystem, json: boolean, io: CliIo): number {
  const failed = sys.modules.filter((m) => m.state === 'failed');
  if (json) {
    io.out(JSON.stringify({ persona: sys.persona.id, modules: sys.modules, tools: sys.tools.getToolDeclarations().map((t) => t.name) }, null, 2));
    return failed.length ? 1 : 0;
  }
  io.out(`Persona ${sys.persona.id} (${sys.persona.name}): ${sys.modules.length - failed.length} of ${sys.modules.length} modules loaded`);
  io.out(table(['module', 'state', 'version', 'load ms'], sys.modules.map((m) => [m.id, label(m), m.version ?? '-', m.durationMs.toFixed(1)])));
  for (const m of failed) io.out(`\n${m.id} failed: ${m.error?.message}`);
  return failed.length ? 1 : 0;
}

function label(m: ModuleReport): string {
  return m.state === 'loaded' ? 'loaded' : m.rootCause ? `FAILED (because ${m.rootCause} failed)` : 'FAILED';
}

function printTools(sys: ArmatureSystem, json: boolean, io: CliIo): number {
  const tools = sys.tools.getToolDeclarations();
  if (json) {
    io.out(JSON.stringify(tools, null, 2));
    return 0;
  }
  io.out(`\n${tools.length} tools allowed for persona ${sys.persona.id}:`);
  io.out(table(['tool', 'module', 'description'], tools.map((t) => [t.name, t.module, t.description])));
  return 0;
}

async function callTool(sys: ArmatureSystem, rest: string[], io: CliIo): Promise<number> {
  const [name, rawArgs, ...extra] = rest;
  if (!name) throw new UsageError(`call needs a tool name: armature call TOOL '{"arg": "value"}'`);
  if (extra.length) throw new UsageError(`call takes TOOL and one JSON argument; quote the JSON, got extra ${extra.map((e) => JSON.stringify(e)).join(' ')}`);
  let args: unknown = {};
  if (rawArgs !== undefined) {
    try {
      args = JSON.parse(rawArgs);
    } catch (e) {
      throw new UsageError(`the arguments for ${name} are not valid JSON (${(e as Error).message}): ${rawArgs}`);
    }
  }
  const result = await sys.tools.executeTool(name, args, { caller: 'cli' });
  io.out(JSON.stringify(result, null, 2));
  return result.ok ? 0 : 1;
}

function table(head: string[], rows: string[][]): string {
  const widths = head.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] ?? '').length)));
  const line = (cells: string[]) => cells.map((c, i) => (i === cells.length - 1 ? c : c.padEnd(widths[i]!))).join('  ');
  return [line(head), line(widths.map((w) => '-'.repeat(w))), ...rows.map(line)].join('\n');
}
