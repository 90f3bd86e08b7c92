/**
 * The PyodideRuntime upgrade's options (`boot({ config: { PyodideRuntime: {...} } })`), checked at
 * boot: every {@link PyodideRuntimeOptions} field a boot may set, plus `autoStart`. The runtime
 * checks ranges itself (`RuntimeOptionError`); this schema refuses unknown keys and values of the
 * wrong kind. A compile-time check below keeps its keys equal to the options' own.
 */
import * as z from 'zod';
import { countOption, customOption, numberOption, timeoutOption } from '../../src/kernel/config-schema.ts';
import type { BlobCache } from '../../src/platform/platform.ts';
import type { PyodideRuntimeConfig } from './config-options.ts';

/** What PythonTool sets on the runtime itself: not a boot option. */
type SetByPythonTool = 'onToolCall' | 'modules';

/** The options of the PyodideRuntime upgrade a boot may set. */
export type PyodideRuntimeBootConfig = Omit<PyodideRuntimeConfig, SetByPythonTool>;

const bool = (description: string) => z.boolean({ error: 'true or false' }).optional().describe(description);
const text = (description: string) => z.string({ error: 'a string' }).optional().describe(description);

export const PyodideRuntimeConfigSchema = z.strictObject({
  autoStart: bool('Start Python while the rest boots (else on first use). Default: true.'),
  isolation: z.enum(['process', 'thread']).optional().describe('Node: where Python runs — process: a confined child process; thread: a worker thread of this process, unconfined, for trusted code only. Default: process.'),
  network: z
    .union([z.literal('none'), z.array(z.string())], { error: '"none" or a list of origins such as "https://api.example.com"' })
    .optional()
    .describe('What Python\'s fetch may reach: "none", or origins. Default: none (the persona\'s network when the upgrade boots).'),
  processMemoryMb: numberOption('Node, process isolation: the child\'s memory cap in MiB. Default: 4608.'),
  maxHeapMb: numberOption('Most memory Python\'s heap may take, in MiB (64 to 4096). Default: 4096.'),
  workerUrl: customOption<string | URL>('URL of the Pyodide worker script. Default: the package\'s own (bundles pass theirs).', (v) => typeof v === 'string' || v instanceof URL, 'a URL or a string'),
  indexURL: text('Where Pyodide\'s own files are, with a trailing slash. Default: the installed pyodide package in Node; /pyodide/ on the page\'s origin in a browser.'),
  packageIndexURL: text('Base URL holding the pinned version\'s pyodide-lock.json and wheels. Default: the Pyodide CDN folder of 0.29.5.'),
  packageCacheDir: text('Node: where downloaded packages are kept. Default: <dataDir>/cache/pyodide-packages.'),
  defaultTimeoutMs: timeoutOption('Time limit of a run that sets none, in ms. Default: 30000.'),
  interruptGraceMs: numberOption('How long Python gets to stop after an interrupt before its worker is replaced, in ms. Default: 1000.'),
  resignalMs: numberOption('Interval between repeated interrupt signals, in ms. Default: 100.'),
  maxSyncBytes: numberOption('Most bytes one workspace sync moves in either direction. Default: 52428800 (50 MiB).'),
  stdoutFlushMs: numberOption('How often the worker flushes output while a run prints, in ms. Default: 16.'),
  maxResultOutputChars: numberOption('Most characters of stdout and of stderr kept in a result. Default: 1048576.'),
  transport: z.enum(['auto', 'shared-memory', 'jspi', 'async']).optional().describe('How call_tool reaches the host. Default: auto (shared memory, else JSPI, else async only).'),
  snapshot: z.enum(['persist', 'memory', 'off']).optional().describe('Start workers from a start-up snapshot kept in the platform\'s cache (persist), in memory only (memory), or not (off). Default: persist.'),
  snapshotCache: customOption<BlobCache>('Where snapshot: persist keeps the snapshot. Default: the platform\'s pyodide-snapshot cache.', (v) => v !== null && typeof v === 'object' && typeof (v as BlobCache).get === 'function', 'a BlobCache (get, put, delete, keys)'),
  memorySnapshot: bool('Deprecated: use snapshot; false is snapshot: "off". Default: true.'),
  initTimeoutMs: timeoutOption('Most time Python\'s start may take, in ms. Default: 120000.'),
  prestartOnTimeout: bool('Start a replacement worker as soon as a run times out. Default: false.'),
  bridgePollMs: numberOption('How long the host watches the shared request slot after answering a call_tool, in ms; 0 turns it off. Default: 2.'),
  requestPollMs: numberOption('How long worker and host stay awake after a request or answer, in ms; 0 turns it off. Default: 2.'),
  fastExecute: bool('Compile user code directly instead of through Pyodide\'s CodeRunner. Default: true.'),
  maxResultBytes: numberOption('Largest value one run may return, in bytes. Default: 16777216 (16 MiB).'),
  maxToolArgBytes: numberOption('Largest arguments of one call_tool from Python, in bytes. Default: 16777216 (16 MiB).'),
  maxToolAnswerBytes: numberOption('Largest answer of one call_tool to Python, in bytes. Default: 67108864 (64 MiB).'),
  poolSize: countOption('Most runtimes serving sessions at once (1 to 64). Default: the machine\'s cores.', 1),
  poolIdleMs: timeoutOption('How long an idle session keeps its runtime when no other session waits (and a warm spare stays started), in ms. Default: 300000.'),
  poolGraceMs: numberOption('How long a session keeps its runtime after an operation even when another session waits, in ms. Default: 1000.'),
  poolSpares: countOption('Runtimes kept started and unused for new sessions\' first runs (0 to 64). Default: 1.'),
  poolQueueLimit: countOption('Most runs that may wait for a runtime of the pool (0 to 100000). Default: 256.'),
});

// The schema's keys are the options' own: a new option without a schema entry (or the reverse) does not compile.
type SchemaKeys = keyof z.input<typeof PyodideRuntimeConfigSchema>;
type OptionKeys = keyof PyodideRuntimeBootConfig;
const sameKeys: [SchemaKeys] extends [OptionKeys] ? ([OptionKeys] extends [SchemaKeys] ? true : false) : false = true;
void sameKeys;

declare module '../../src/kernel/config-schema.ts' {
  interface ArmatureConfig {
    PyodideRuntime: PyodideRuntimeBootConfig;
  }
}
