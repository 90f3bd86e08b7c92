/**
 * The options of a confined worker checked and filled in with their defaults, once, before
 * anything starts: a bad name, capability or limit is refused with `INVALID_OPTIONS` naming it.
 */
import { quote, timeoutProblem } from '../kernel/bounded.ts';
import type { Capability, ConfinedWorkerLimits, ConfinedWorkerOptions } from './confined-worker-contract.ts';
import { SandboxError } from './errors.ts';
import { normalizeNetworkPolicy } from './network-policy.ts';
import type { NetworkPolicy } from './protocol.ts';

/** Capability names: JavaScript identifiers, so `ctx.name(...)` reads naturally. `on` is taken by events. */
const CAPABILITY_NAME = /^[A-Za-z_$][\w$]{0,63}$/;

/** The limits' defaults (see {@link ConfinedWorkerLimits}). */
const DEFAULTS = { memoryMb: 256, callTimeoutMs: 5000, startTimeoutMs: 30_000, handlerTimeoutMs: 5000, maxMessageBytes: 8 * 1024 * 1024 };

/** An `INVALID_OPTIONS` error. */
export function invalid(message: string, hint?: string): SandboxError {
  return new SandboxError('INVALID_OPTIONS', message, hint ? { hint } : undefined);
}

/** The options as the host uses them. */
export interface CheckedOptions {
  name: string;
  source: string;
  capabilities: Record<string, Capability>;
  network: NetworkPolicy;
  limits: Required<ConfinedWorkerLimits>;
  onLog?: ConfinedWorkerOptions['onLog'];
  onRestart?: ConfinedWorkerOptions['onRestart'];
  onStop?: ConfinedWorkerOptions['onStop'];
  workerUrl?: string | URL;
}

/** Checks `options` and fills in the defaults; throws `INVALID_OPTIONS`. */
export function checkOptions(options: ConfinedWorkerOptions): CheckedOptions {
  if (!options || typeof options !== 'object') throw invalid('[sandbox] createConfinedWorker needs options { name, source, capabilities }');
  const { name, source, capabilities } = options;
  if (typeof name !== 'string' || name.length === 0 || name.length > 200) throw invalid(`[sandbox] name must be 1 to 200 characters, got ${quote(name)}`);
  const label = `[sandbox] ${quote(name, 60)}`;
  if (typeof source !== 'string') throw invalid(`${label}: source must be the text of an ES module`);
  if (!capabilities || typeof capabilities !== 'object') throw invalid(`${label}: capabilities must be an object of functions (it may be empty)`);
  const caps: Record<string, Capability> = Object.create(null);
  for (const key of Object.keys(capabilities)) {
    if (!CAPABILITY_NAME.test(key) || key === 'on') {
      throw invalid(`${label}: capability name ${quote(key)} is not usable`, 'Name capabilities like JavaScript identifiers (e.g. call_tool); "on" is reserved for events.');
    }
    const fn = capabilities[key];
    if (typeof fn !== 'function') throw invalid(`${label}: capability ${quote(key)} is a ${typeof fn}, not a function`);
    caps[key] = fn;
  }
  const limits = { ...DEFAULTS };
  for (const [key, value] of Object.entries(options.limits ?? {})) {
    if (!(key in DEFAULTS)) throw invalid(`${label}: unknown limit ${quote(key)}`, `Limits are ${Object.keys(DEFAULTS).join(', ')}.`);
    if (value === undefined) continue;
    if (typeof value !== 'number' || !Number.isFinite(value) || value <= 0) throw invalid(`${label}: limits.${key} must be a positive number, got ${quote(value)}`);
    limits[key as keyof typeof DEFAULTS] = Math.floor(value);
  }
  for (const key of ['callTimeoutMs', 'startTimeoutMs', 'handlerTimeoutMs'] as const) {
    const badTimeout = timeoutProblem(limits[key], `limits.${key}`);
    if (badTimeout) throw invalid(`${label}: ${badTimeout}`);
  }
  if (limits.memoryMb < 16) throw invalid(`${label}: limits.memoryMb must be at least 16, got ${limits.memoryMb}`);
  if (limits.maxMessageBytes < 1024) throw invalid(`${label}: limits.maxMessageBytes must be at least 1024, got ${limits.maxMessageBytes}`);
  return {
    name,
    source,
    capabilities: caps,
    network: normalizeNetworkPolicy(options.network, name),
    limits,
    onLog: options.onLog,
    onRestart: options.onRestart,
    onStop: options.onStop,
    workerUrl: options.workerUrl,
  };
}
