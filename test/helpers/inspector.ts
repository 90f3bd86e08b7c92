// The MCP Inspector's CLI (`@modelcontextprotocol/inspector` 2.x, a dev dependency) as tests run
// it: under the Node 22 of the `node` dev dependency (the Inspector declares Node >= 22.19; this
// machine's is 20), with `--cli` and the given arguments; resolves to its exit code and output.
import { spawn } from 'node:child_process';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';

const require = createRequire(import.meta.url);
/** The Node 22 binary of the `node` dev dependency. */
export const NODE_22 = join(dirname(require.resolve('node/package.json')), 'bin', 'node');
const INSPECTOR = join(dirname(require.resolve('@modelcontextprotocol/inspector/package.json')), 'clients', 'launcher', 'build', 'index.js');

/** What one Inspector run printed and how it ended. */
export interface InspectorRun {
  code: number | null;
  stdout: string;
  stderr: string;
  /** stdout as JSON (the CLI prints the answer as JSON), or undefined when it is not. */
  json?: Record<string, unknown>;
}

/** Runs `mcp-inspector --cli ...args` and waits for it to end (at most `timeoutMs`). */
export function inspect(args: string[], timeoutMs = 120_000): Promise<InspectorRun> {
  const child = spawn(NODE_22, [INSPECTOR, '--cli', ...args], { stdio: ['ignore', 'pipe', 'pipe'], timeout: timeoutMs });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (d) => (stdout += d));
  child.stderr.on('data', (d) => (stderr += d));
  return new Promise((resolve, reject) => {
    child.once('error', reject);
    child.once('close', (code) => {
      let json: Record<string, unknown> | undefined;
      try {
        json = JSON.parse(stdout) as Record<string, unknown>;
      } catch {
        // Not JSON: an error, said on stderr.
      }
      resolve({ code, stdout, stderr, ...(json ? { json } : {}) });
    });
  });
}
