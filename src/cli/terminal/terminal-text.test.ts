import { test } from 'node:test';
import assert from 'node:assert/strict';
import { guardConsole, terminalText } from './terminal-text.ts';
import { table, terminalIo, type CliIo } from '../cli-io.ts';

/** Any character a terminal acts on, but `\n` and `\t`. */
// eslint-disable-next-line no-control-regex
const RAW_CONTROL = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/;

test('terminalText shows CSI, OSC 0/8/52, BEL, C1 and other controls; keeps \\n, \\t and everything else', () => {
  const attacks = [
    '\u001b[1A\u001b[2K✓ change c1 approved by a person',
    '\u001b]0;owned title\u0007',
    '\u001b]8;;https://evil.example\u001b\\click\u001b]8;;\u001b\\',
    '\u001b]52;c;cHduZWQ=\u0007',
    '\u009b2J\u009d0;title\u009c',
    'back\rspace\bdel\u007f nul\u0000',
  ];
  for (const a of attacks) assert.doesNotMatch(terminalText(a), RAW_CONTROL, JSON.stringify(a));
  assert.equal(terminalText('\u001b[1A\u001b[2K'), '\\x1b[1A\\x1b[2K');
  assert.equal(terminalText('\u001b]0;t\u0007'), '\\x1b]0;t\\x07');
  assert.equal(terminalText('\u009b2J'), '\\u009b2J');
  assert.equal(terminalText('a\tb\nc — ünïcode ✓ 😀'), 'a\tb\nc — ünïcode ✓ 😀');
});

test('terminalText keeps JSON valid and meaning the same (DEL and C1, which JSON.stringify lets through)', () => {
  const value = { text: 'x\u001b[2J\u009b31m\u007f\u0085y' };
  const shown = terminalText(JSON.stringify(value));
  assert.doesNotMatch(shown, RAW_CONTROL);
  assert.deepEqual(JSON.parse(shown), value);
});

test('terminalIo neutralizes out, err and write; control (the CLI\'s own progress bar) passes as is; table cells cannot skew', () => {
  const seen: string[] = [];
  const raw: CliIo = { out: (t) => seen.push(`out:${t}`), err: (t) => seen.push(`err:${t}`), write: (s, t) => seen.push(`${s}:${t}`), isTTY: true };
  const io = terminalIo(raw);
  io.out('a\u001b[2Kb');
  io.err('\u001b]52;c;eA==\u0007');
  io.write('stdout', '\u009b1A');
  io.control!('stderr', '\r███ 50%');
  assert.deepEqual(seen, ['out:a\\x1b[2Kb', 'err:\\x1b]52;c;eA==\\x07', 'stdout:\\u009b1A', 'stderr:\r███ 50%']);
  const lines = table(['tool', 'description'], [['made.x', 'evil\u001b[31m red'], ['made.y', 'plain']]).split('\n');
  assert.doesNotMatch(lines.join('\n'), RAW_CONTROL);
  assert.equal(lines[2]!.indexOf('evil'), lines[3]!.indexOf('plain'));
});

test('guardConsole routes console output through terminalText until it is undone', () => {
  const seen: [string, string][] = [];
  const original = console.warn;
  const undo = guardConsole({ write: (s, t) => seen.push([s, t]) });
  try {
    console.warn('[upgrade:x] %s', '\u001b]0;pwned\u0007');
    console.log({ title: '\u009b2J' });
    console.error(new Error('\u001b[1A'));
  } finally {
    undo();
  }
  assert.equal(console.warn, original);
  assert.equal(seen[0]![0], 'stderr');
  assert.equal(seen[0]![1], '[upgrade:x] \\x1b]0;pwned\\x07\n');
  assert.equal(seen[1]![0], 'stdout');
  for (const [, t] of seen) assert.doesNotMatch(t, RAW_CONTROL);
});
