/**
 * Text on a terminal that came from an agent, a model or Python: its control characters are shown,
 * never obeyed. A terminal acts on escape sequences in what it is sent — `\x1b[1A\x1b[2K` rewrites
 * the line above (a fake "approved by a person"), OSC 0 sets the window title, OSC 8 makes links,
 * OSC 52 writes the clipboard — so every byte the CLI prints goes through {@link terminalText}:
 * the commands write through `terminalIo` (`../cli-io.ts`), and what upgrades log with `console` goes
 * through {@link guardConsole}. A command that prints in another way calls {@link terminalText} itself.
 */
import { Console } from 'node:console';
import { Writable } from 'node:stream';

/**
 * Every C0 control but `\n` and `\t`, DEL and every C1 control (U+0080–U+009F: 8-bit CSI, OSC,
 * ST). ESC and BEL are among them, so no CSI or OSC sequence survives: with its introducer shown,
 * the rest of a sequence is plain text.
 */
// eslint-disable-next-line no-control-regex
const CONTROLS = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/g;

const hex = (c: string) => c.charCodeAt(0).toString(16).padStart(2, '0');

/**
 * `text` with its control characters made visible: C0 as `\x1b`, DEL and C1 as `\u009b`. The
 * second form keeps JSON valid: `JSON.stringify` escapes C0 itself but lets DEL and C1 through,
 * and `\u009b` inside a JSON string means what the raw character meant.
 */
export function terminalText(text: string): string {
  return text.replace(CONTROLS, (c) => (c < '\u007f' ? `\\x${hex(c)}` : `\\u00${hex(c)}`));
}

/** The `console` methods an upgrade may log with, and where each writes. */
const METHODS = { log: 'stdout', info: 'stdout', debug: 'stdout', warn: 'stderr', error: 'stderr', trace: 'stderr' } as const;

/**
 * Routes the global `console` (what upgrades log: an agent-made upgrade's console lines, a
 * Python child's warnings) through `io` until the returned function is called, so it reaches the
 * terminal as every command's output does. Formatting is Node's own (`%s`, objects inspected).
 */
export function guardConsole(io: { write(stream: 'stdout' | 'stderr', text: string): void }): () => void {
  const sink = (stream: 'stdout' | 'stderr') =>
    new Writable({
      write(chunk: Buffer | string, _encoding, done) {
        io.write(stream, terminalText(typeof chunk === 'string' ? chunk : chunk.toString('utf8')));
        done();
      },
    });
  const guarded = new Console({ stdout: sink('stdout'), stderr: sink('stderr') });
  const saved = new Map<string, unknown>();
  const target = console as unknown as Record<string, unknown>;
  for (const name of Object.keys(METHODS)) {
    saved.set(name, target[name]);
    target[name] = (guarded as unknown as Record<string, unknown>)[name];
  }
  return () => {
    for (const [name, fn] of saved) target[name] = fn;
  };
}
