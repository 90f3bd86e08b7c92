import { test } from 'node:test';
import assert from 'node:assert/strict';
import { InvalidPathError, normalizePath } from './paths.ts';

test('paths are normalized', () => {
  assert.equal(normalizePath('a/b.txt'), 'a/b.txt');
  assert.equal(normalizePath('./a//b/./c.txt'), 'a/b/c.txt');
  assert.equal(normalizePath('a/x/../b.txt'), 'a/b.txt');
  assert.equal(normalizePath('a\\b\\c.txt'), 'a/b/c.txt');
  assert.equal(normalizePath('dir/'), 'dir');
});

test('escapes, absolute host paths, NUL bytes and empty paths are rejected with a clear error', () => {
  const cases: [unknown, RegExp][] = [
    ['../secret', /invalid path "\.\.\/secret": "\.\." would leave the workspace/],
    ['a/../../b', /would leave the workspace/],
    ['/etc/passwd', /invalid path "\/etc\/passwd": absolute host paths are not allowed/],
    ['C:\\Windows\\x', /absolute host paths are not allowed/],
    ['\\\\server\\share', /absolute host paths are not allowed/],
    ['a\0b', /NUL bytes are not allowed/],
    ['', /the path names no file/],
    ['./.', /the path names no file/],
    [42, /a path must be a string/],
    ['x'.repeat(2000), /it is 2000 characters long; paths have at most 1024/],
  ];
  for (const [input, message] of cases) {
    assert.throws(
      () => normalizePath(input),
      (e: unknown) => e instanceof InvalidPathError && e.code === 'INVALID_PATH' && message.test(e.message) && /relative path/.test(e.hint ?? ''),
      `for ${JSON.stringify(input)}`,
    );
  }
});

test('a huge path is refused by its length first, and quoted only in part', () => {
  const huge = `${'a/'.repeat(3_000_000)}\0x`;
  assert.throws(() => normalizePath(huge), (e: InvalidPathError) => {
    assert.match(e.message, /it is 6000002 characters long; paths have at most 1024/);
    assert.ok(e.message.length < 500);
    assert.ok(JSON.stringify(e.details).length < 500);
    return true;
  });
});
