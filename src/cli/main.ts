import { parseArgs } from 'node:util';
import { boot, type ArmatureSystem } from '../kernel/boot/boot.ts';
import { clip, oneLine, quote, shortName } from '../kernel/bounded.ts';
import { changeOutcomeOf } from '../contracts/change-answer.ts';
import { closest } from '../kernel/suggest.ts';
import { ArmatureError, describeError } from '../kernel/errors.ts';
import { MissingPeerError } from '../kernel/optional-peer.ts';
import type { ModuleReport } from '../kernel/boot/loader.ts';
import { defaultPlatform } from '../platform/default/default-platform.ts';
import type { McpServers } from '../kernel/mcp-servers.ts';
import { MCP_OPTIONS, MCP_OPTIONS_USAGE, MCP_USAGE, mcpOptionsFrom, readMcpConfig, runMcpCommand } from './mcp-command.ts';
import { printFormattedTools } from './tools-format.ts';
import { UsageError } from './usage-error.ts';
import { AGENT_OPTIONS_USAGE, AGENT_USAGE, AgentUsageError, parseAgentArgs } from './agent-args.ts';
import { runAgentCommand } from './agent-command.ts';
import { CHANGES_COMMANDS, CHANGES_USAGE, runChangesCommand } from './changes-command.ts';
import { RUNS_USAGE, runRunsCommand } from './runs-command.ts';
import { recordedPersona } from './replay-command.ts';
import { agentChangeLines } from './safe-mode.ts';
import { checkOptionScope, initTimeoutOption } from './option-scope.ts';
import { runPython } from './run-command.ts';
import { missingUpgrade } from './needed-upgrade.ts';
import { runInitCommand } from './init-command.ts';
import { rootOption } from './root-option.ts';
import { processIo, table, terminalIo, type CliIo } from './cli-io.ts';
import { guardConsole } from './terminal/terminal-text.ts';
import { runStartCommand } from './start-command.ts';

const USAGE = `armature — runtime for tool-using LLM agents

Usage:
  armature boot  [--persona ID] [--json] [--safe] boot a persona headless; list its modules
  armature tools [--persona ID] [--json]          the tool declarations the persona allows
  armature tools --format openai|openai-responses|anthropic|gemini|mcp [--strict]
                                                  the same tools as one model provider declares them
  armature call TOOL 'JSON-ARGS' [--persona ID] [--no-snapshot]
                                                  run one tool; prints its result as JSON
  armature run FILE.py | -c CODE [--timeout MS] [--json] [--no-snapshot]
                                                  run Python headless, streaming its output
  armature prompt [--persona ID] [--stats]        the system-prompt fragment for the persona
${MCP_USAGE}
  armature start [--persona ID] [--port N] [--no-snapshot] [--safe] [--in-browser]
                                                  the main job: serve the dashboard (a view of this
                                                  data folder's system and of every process on it;
                                                  --in-browser: the page boots a system of its own)
  armature init [DIR]                             write a starter root (a persona, an upgrade with
                                                  tools, a widget, a blueprint and a test) to DIR
${AGENT_USAGE}
${RUNS_USAGE}
${CHANGES_USAGE}

Options:
  --persona ID   persona from modules/personas/ (default: default)
  --data DIR     where Node persistence lives (default: .armature in the current directory)
  --root DIR     a folder of your own read beside the package's: its modules/, blueprints/
                 and upgrades/ (default: ARMATURE_ROOT from the environment, else none)
  --mcp-config FILE  MCP servers whose tools to add: { "mcpServers": { "<name>": { "command",
                 "args"?, "env"? } | { "url", "headers"? } } } (any command)
  --port N       dashboard port for start (default: PORT from the environment, else 8080)
  --host H, --allow-remote  start: listen on H; a non-loopback host needs --allow-remote (the
                 printed URL's access token is still required)
  -c CODE        Python code for run, instead of a file
  --timeout MS   run: stop Python after MS milliseconds (default 30000)
  --safe         boot only what the persona file in modules/ names: no agent-made tool, upgrade
                 or persona overlay is loaded (any command); boot lists them for review
  --init-timeout MS  how long each upgrade's init may take at boot before it is marked failed and
                 the boot goes on (default 2000; any command but start and init)
  --no-snapshot  start Python anew, without reading or writing the start-up snapshot
                 (kept in DIR/cache/pyodide-snapshot/; in the browser, in Cache Storage)
  --stats        prompt: compare its size with the full JSON schemas of the same tools
  --format F     tools: declarations for provider F; --strict: OpenAI/Anthropic strict mode
${MCP_OPTIONS_USAGE}
${AGENT_OPTIONS_USAGE}
  --json         machine-readable output
  -h, --help     this help

Exit codes: 0 on success; 1 when a tool call returns ok: false or a change that was rejected, a
module failed, or the agent stopped without an answer (model/provider error, --max-steps); 2 on
bad usage, or a persona without the upgrade the command needs.`;

/** The command line's options (every command's: `option-scope.ts` refuses those given to the wrong one). */
const OPTIONS = {
  // No default here: a replay takes the persona its recording names unless one is given.
  persona: { type: 'string' },
  data: { type: 'string', default: '.armature' },
  root: { type: 'string' },
  json: { type: 'boolean', default: false },
  port: { type: 'string' },
  code: { type: 'string', short: 'c' },
  timeout: { type: 'string' },
  stats: { type: 'boolean', default: false },
  'mcp-config': { type: 'string' },
  format: { type: 'string' },
  strict: { type: 'boolean', default: false },
  ...MCP_OPTIONS,
  'in-browser': { type: 'boolean', default: false },
  model: { type: 'string' },
  'base-url': { type: 'string' },
  'max-steps': { type: 'string' },
  continue: { type: 'string' },
  record: { type: 'string' },
  replay: { type: 'string' },
  approve: { type: 'boolean', default: false },
  'no-snapshot': { type: 'boolean', default: false },
  safe: { type: 'boolean', default: false },
  'init-timeout': { type: 'string' },
  help: { type: 'boolean', short: 'h', default: false },
} as const;

/** Where a usage error sends people for the whole story (the usage itself is long). */
const HELP_LINE = 'armature --help shows every command and option';

/** Every option as typed: `--persona`, `-c`, ... */
function optionNames(): string[] {
  return Object.entries(OPTIONS).flatMap(([name, o]) => ['short' in o ? `-${o.short}` : [], `--${name}`].flat());
}

/** `; did you mean "x"?` when something near `value` is among `names`, else nothing. */
function didYouMean(value: string, names: readonly string[]): string {
  // Every one-letter option is "near" any other: no guess for those.
  const near = value.replace(/^-+/, '').length > 1 ? closest(value, names, 2) : [];
  return near.length ? `; did you mean ${near.map((n) => quote(n)).join(' or ')}?` : '';
}

/**
 * Runs the CLI with `argv` (without `node` and the script); resolves to the exit code. What it
 * prints — its own text, an agent's, a model's or Python's, and what upgrades log with `console`
 * meanwhile — reaches `io` with control characters shown, not obeyed (`terminal/terminal-text.ts`).
 */
export async function main(argv: readonly string[], io: CliIo = processIo): Promise<number> {
  const safe = terminalIo(io);
  const restoreConsole = guardConsole(safe);
  try {
    return await command(argv, safe);
  } finally {
    restoreConsole();
  }
}

async function command(argv: readonly string[], io: CliIo): Promise<number> {
  let parsed;
  try {
    parsed = parseArgs({
      args: [...argv],
      allowPositionals: true,
      options: OPTIONS,
    });
  } catch (e) {
    // Node's own text for an unknown option advises `-- "--flag"`, which is never the fix here.
    const unknown = (e as { code?: string }).code === 'ERR_PARSE_ARGS_UNKNOWN_OPTION' && /'([^']*)'/.exec((e as Error).message)?.[1];
    const message = unknown ? `unknown option ${quote(unknown)}${didYouMean(unknown, optionNames())}` : (e as Error).message;
    io.err(`armature: ${message}\n${HELP_LINE}`);
    return 2;
  }
  const { values, positionals } = parsed;
  const [command, ...rest] = positionals;
  if (values.help || !command) {
    (values.help ? io.out : io.err)(USAGE);
    return values.help ? 0 : 2;
  }
  // Parsed below, once the options are known to be usable.
  let agentArgs: ReturnType<typeof parseAgentArgs> | undefined;
  const commands: Record<string, (sys: ArmatureSystem) => Promise<number>> = {
    boot: (sys) => printBoot(sys, values.json, io),
    tools: async (sys) => (values.format === undefined ? printTools(sys, values.json, io) : printFormattedTools(sys, values.format, values.strict, io)),
    call: (sys) => callTool(sys, rest, io),
    run: (sys) => runPython(sys, rest, values, io),
    prompt: (sys) => printPrompt(sys, values.stats, io),
    mcp: (sys) => runMcpCommand(sys, mcpOptionsFrom(values), io),
    agent: (sys) => runAgentCommand(sys, agentArgs!, values.json, io),
    runs: (sys) => runRunsCommand(sys, rest, values.json, io),
    ...Object.fromEntries(CHANGES_COMMANDS.map((c) => [c, (sys: ArmatureSystem) => runChangesCommand(sys, c, rest, values.json, io)])),
  };
  if (!commands[command] && command !== 'start' && command !== 'init') {
    const names = ['start', 'init', ...Object.keys(commands)];
    io.err(`armature: unknown command ${quote(command)}${didYouMean(command, names)}\ncommands: ${names.join(', ')}\n${HELP_LINE}`);
    return 2;
  }
  let mcpServers: McpServers | undefined;
  let initTimeoutMs: number | undefined;
  try {
    checkOptionScope(command, values);
    initTimeoutMs = initTimeoutOption(values['init-timeout']);
    if (values['mcp-config'] !== undefined) mcpServers = await readMcpConfig(values['mcp-config']);
    if (values.strict && values.format === undefined) throw new UsageError('--strict applies to tools --format: add --format NAME');
  } catch (e) {
    if (!(e instanceof UsageError)) throw e;
    io.err(`armature: ${e.message}`);
    return 2;
  }
  const snapshot: 'off' | 'persist' = values['no-snapshot'] ? 'off' : 'persist';
  let root: string | undefined;
  try {
    if (command === 'init') return await runInitCommand(rest, io);
    root = rootOption(values.root);
  } catch (e) {
    if (!(e instanceof UsageError)) throw e;
    io.err(`armature: ${e.message}`);
    return 2;
  }
  /** `armature start`, viewing `sys` (booted here), or with the page booting its own when there is none. */
  const start = async (sys?: ArmatureSystem) => {
    const options = { persona: values.persona ?? 'default', dataDir: values.data, port: values.port, host: values.host, allowRemote: values['allow-remote'], snapshot, safe: values.safe, mcpServers, root };
    try {
      return await runStartCommand({ ...options, inBrowser: !sys, boot: async () => sys! }, io);
    } catch (e) {
      if (!(e instanceof UsageError)) throw e;
      io.err(`armature: ${e.message}`);
      return 2;
    }
  };
  // In the browser, the page boots its own system; attached (the default), it is booted here.
  if (command === 'start' && values['in-browser']) return start();
  const run = command === 'start' ? start : commands[command]!;
  if (command === 'agent') {
    try {
      agentArgs = parseAgentArgs(rest, { model: values.model, baseUrl: values['base-url'], maxSteps: values['max-steps'], continue: values.continue, record: values.record, replay: values.replay, approve: values.approve, json: values.json });
    } catch (e) {
      if (!(e instanceof AgentUsageError)) throw e;
      io.err(`armature: ${e.message}`);
      return 2;
    }
  }
  if (!['call', 'run', 'agent', 'runs', 'approve', 'reject'].includes(command) && rest.length) {
    io.err(`armature: ${command} takes no arguments, got ${rest.map((r) => quote(r)).join(' ')}`);
    return 2;
  }
  const platform = await defaultPlatform({ dataDir: values.data, root });
  // A replay runs as the persona its recording names, unless told otherwise.
  const persona = values.persona ?? (agentArgs?.replay !== undefined ? await recordedPersona(agentArgs.replay, platform.project) : undefined) ?? 'default';
  let sys: ArmatureSystem;
  try {
    // Python starts on first use here, not in the background: most commands never need it. `run`
    // and an MCP server are the exceptions: they are there to run code, so Python starts during
    // boot (its process through the runtime's early start, before the rest is imported; for a
    // server, while clients connect).
    const python = { autoStart: command === 'mcp' || command === 'run', snapshot } as const;
    sys = await boot({
      persona,
      platform,
      safe: values.safe,
      // Every command is a process on the data folder: a dashboard there shows it live.
      journal: { command },
      ...(initTimeoutMs === undefined ? {} : { initTimeoutMs }),
      config: { PyodideRuntime: python, ...(mcpServers ? { McpClient: { servers: mcpServers } } : {}) },
    });
  } catch (e) {
    io.err(`armature: ${describeError(e)}`);
    return e instanceof ArmatureError ? 1 : 2;
  }
  const noClient = mcpServers && missingUpgrade(sys, 'McpClient', 'runs the servers of --mcp-config');
  if (noClient) {
    await sys.dispose();
    io.err(`armature: ${noClient.message}`);
    return noClient.code;
  }
  // boot lists failed modules itself; any other command would otherwise just lack their tools.
  if (command !== 'boot') for (const line of failedModuleLines(sys)) io.err(line);
  // An MCP server that asks the person for input (elicitation) is answered on the terminal, when
  // there is one; otherwise its requests are refused.
  if (['run', 'call', 'agent'].includes(command) && process.stdin.isTTY && io.isTTY) await (await import('./mcp/elicitation-prompt.ts')).answerElicitationsOnTerminal(sys);
  try {
    return await run(sys);
  } catch (e) {
    if (e instanceof UsageError) {
      io.err(`armature: ${e.message}`);
      return 2;
    }
    // A command whose optional package is not installed (armature mcp without the MCP SDK).
    if (e instanceof MissingPeerError) {
      io.err(`armature: ${e.message}`);
      return 1;
    }
    throw e;
  } finally {
    await sys.dispose();
  }
}

/** `armature prompt`: the system-prompt fragment, optionally with its size against the JSON schemas. */
async function printPrompt(sys: ArmatureSystem, stats: boolean, io: CliIo): Promise<number> {
  const missing = missingUpgrade(sys, 'PythonTool', 'writes the prompt');
  if (missing) {
    io.err(`armature: ${missing.message}`);
    return missing.code;
  }
  const python = await sys.resolve<{ getSystemPrompt(): string; getPromptStats(): { promptChars: number; schemaChars: number; ratio: number; tools: number; mode: string } }>('PythonTool');
  io.out(python.getSystemPrompt());
  if (stats) {
    const s = python.getPromptStats();
    const pct = s.ratio * 100;
    io.err(
      `\nprompt: ${s.promptChars} characters; the same tools as full JSON schemas: ${s.schemaChars} characters (${pct < 10 ? pct.toFixed(1) : pct.toFixed(0)}%).` +
        `\n${s.tools} tools, ${s.mode === 'python' ? 'indexed with their signatures' : s.mode === 'python-compact' ? 'indexed by namespace, the larger ones by name or count (read_skill has the rest)' : 'listed to be called directly (few tools: the Python guide would outweigh their schemas)'}.`,
    );
  }
  return 0;
}

async function printBoot(sys: ArmatureSystem, json: boolean, io: CliIo): Promise<number> {
  const failed = sys.modules.filter((m) => m.state === 'failed');
  if (json) {
    io.out(JSON.stringify({ persona: sys.persona.id, safe: sys.safe, modules: sys.modules, tools: sys.tools.getToolDeclarations().map((t) => t.name) }, null, 2));
    return failed.length ? 1 : 0;
  }
  io.out(`Persona ${sys.persona.id} (${sys.persona.name})${sys.safe ? ' in safe mode' : ''}: ${sys.modules.length - failed.length} of ${sys.modules.length} modules loaded`);
  io.out(table(['module', 'state', 'version', 'load ms'], sys.modules.map((m) => [m.parent ? `  ${m.id}` : m.id, label(m), m.version ?? '-', m.durationMs.toFixed(1)])));
  for (const m of failed) io.out(`\n${m.id} failed: ${m.error?.message}`);
  for (const line of await agentChangeLines(sys)) io.out(line);
  return failed.length ? 1 : 0;
}

/**
 * One stderr line per module that failed on its own, naming those that failed because of it, so
 * that a command's missing tools (`UNKNOWN_TOOL`, a shorter `armature tools`) have their reason.
 */
function failedModuleLines(sys: ArmatureSystem): string[] {
  const failed = sys.modules.filter((m) => m.state === 'failed');
  return failed
    .filter((m) => !m.rootCause)
    .map((m) => {
      const because = failed.filter((d) => d.rootCause === m.id).map((d) => d.id);
      return `armature: module ${m.id} failed${because.length ? ` (and with it ${because.join(', ')}), so their` : ', so its'} tools are missing: ${clip(m.error?.message ?? 'no reason given', 1000)}\n(armature boot lists every module)`;
    });
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
  if (extra.length) throw new UsageError(`call takes TOOL and one JSON argument; quote the JSON, got extra ${extra.map((e) => quote(e)).join(' ')}`);
  let args: unknown = {};
  if (rawArgs !== undefined) {
    try {
      args = JSON.parse(rawArgs);
    } catch (e) {
      throw new UsageError(`the arguments for ${shortName(name)} are not valid JSON (${clip((e as Error).message, 300)}): ${clip(rawArgs, 300)}`);
    }
  }
  const result = await sys.tools.executeTool(name, args, { caller: 'cli' });
  io.out(JSON.stringify(result, null, 2));
  // The tool ran, but the change it proposed did not come into force: no success for a script either.
  const change = changeOutcomeOf(result);
  if (change?.status === 'rejected') io.err(`armature: change ${change.change} was rejected${change.report ? `: ${oneLine(change.report, 400)}` : ''}`);
  return change?.status === 'rejected' || !result.ok ? 1 : 0;
}
