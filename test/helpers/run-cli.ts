/**
 * Runs the `armature` CLI in a process of its own without blocking this one (a scripted model
 * server or an MCP server may live here), with no model keys from the environment unless given.
 */
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';

/** The CLI's entry point in this checkout. */
export const bin = fileURLToPath(new URL('../../bin/armature.js', import.meta.url));

/** What a CLI process printed and how it ended. */
export interface CliResult {
  code: number | null;
  out: string;
  err: string;
}

/** Runs `armature ...args` in `cwd` (killed after 120 s, a hang's bound); `env` adds to the environment. */
export function runCli(args: readonly string[], cwd: string, env: Record<string, string> = {}): Promise<CliResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [bin, ...args], { cwd, env: { ...process.env, OPENAI_API_KEY: '', ARMATURE_API_KEY: '', ...env } });
    let out = '';
    let err = '';
    child.stdout.on('data', (c: Buffer) => (out += c.toString()));
    child.stderr.on('data', (c: Buffer) => (err += c.toString()));
    const timer = setTimeout(() => child.kill(), 120_000);
    child.on('error', reject);
    child.on('exit', (code) => {
      clearTimeout(timer);
      resolve({ code, out, err });
    });
  });
}
