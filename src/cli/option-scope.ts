/**
 * Options that mean something to some commands only. Anywhere else they used to be ignored without
 * a word — `armature call TOOL ARGS --timeout 5` ran with no such limit, `armature boot -c CODE`
 * ran nothing — so they are refused there as bad usage, naming the commands they belong to.
 * (Whether `--strict` comes with `--format`, and the `mcp` options with `--http`, is checked where they are used.)
 */
import { MAX_TIMER_MS } from '../kernel/bounded.ts';
import { UsageError } from './usage-error.ts';

/** The commands a group of options applies to, and how a refusal names them. */
interface Scope {
  commands: readonly string[];
  where: string;
}

/** The options of a server: the dashboard's (`start`) and `mcp --http`'s. */
const SERVERS: Scope = { commands: ['start', 'mcp'], where: 'start and mcp --http' };
/** The options of `mcp --http` alone. */
const MCP_HTTP: Scope = { commands: ['mcp'], where: 'mcp --http' };
/** The options of the agent loop. */
const AGENT: Scope = { commands: ['agent'], where: 'agent' };

/** Each scoped option (as parseArgs names it), how it is spelt, and where it applies. */
const SCOPES: readonly ({ option: string; flag: string } & Scope)[] = [
  { option: 'code', flag: '-c', commands: ['run'], where: 'run' },
  { option: 'timeout', flag: '--timeout', commands: ['run'], where: 'run' },
  { option: 'format', flag: '--format', commands: ['tools'], where: 'tools' },
  { option: 'strict', flag: '--strict', commands: ['tools'], where: 'tools --format' },
  { option: 'stats', flag: '--stats', commands: ['prompt'], where: 'prompt' },
  { option: 'port', flag: '--port', ...SERVERS },
  { option: 'http', flag: '--http', commands: ['mcp'], where: 'mcp' },
  { option: 'host', flag: '--host', ...SERVERS },
  { option: 'allow-remote', flag: '--allow-remote', ...SERVERS },
  { option: 'in-browser', flag: '--in-browser', commands: ['start'], where: 'start' },
  { option: 'allow-origin', flag: '--allow-origin', ...MCP_HTTP },
  { option: 'allow-host', flag: '--allow-host', ...MCP_HTTP },
  { option: 'max-sessions', flag: '--max-sessions', ...MCP_HTTP },
  { option: 'session-timeout', flag: '--session-timeout', ...MCP_HTTP },
  { option: 'max-result-bytes', flag: '--max-result-bytes', commands: ['mcp'], where: 'mcp' },
  { option: 'model', flag: '--model', ...AGENT },
  { option: 'base-url', flag: '--base-url', ...AGENT },
  { option: 'max-steps', flag: '--max-steps', ...AGENT },
  { option: 'continue', flag: '--continue', ...AGENT },
  { option: 'record', flag: '--record', ...AGENT },
  { option: 'replay', flag: '--replay', ...AGENT },
  { option: 'approve', flag: '--approve', commands: ['agent'], where: 'agent --replay' },
  // The dashboard boots in the page, which takes no init limit from the command line.
  { option: 'init-timeout', flag: '--init-timeout', commands: ['boot', 'tools', 'call', 'run', 'prompt', 'mcp', 'agent', 'runs', 'changes', 'approve', 'reject'], where: 'every command but start and init' },
];

/** Throws a {@link UsageError} for the first option given to a command it does not apply to. */
export function checkOptionScope(command: string, values: Readonly<Record<string, unknown>>): void {
  for (const s of SCOPES) {
    const value = values[s.option];
    if (value === undefined || value === false || s.commands.includes(command)) continue;
    throw new UsageError(`${s.flag} applies to ${s.where}, not to ${command}: leave it out`);
  }
}

/** `--init-timeout MS` as a number of milliseconds (`undefined` when not given); throws a {@link UsageError} for anything else. */
export function initTimeoutOption(value: string | undefined): number | undefined {
  if (value === undefined) return undefined;
  const ms = Number(value);
  if (!/^\d+$/.test(value) || ms < 1 || ms > MAX_TIMER_MS) throw new UsageError(`--init-timeout takes a whole number of milliseconds from 1 to ${MAX_TIMER_MS}, got ${JSON.stringify(value)}`);
  return ms;
}
