// Every relative link in the README and docs/ points at a file that exists, and every `#anchor` at
// a heading of that file (GitHub's slugs): pages moved out of the README keep their readers.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { checkoutRoot as root } from '../helpers/packed-install.ts';

const pages = ['README.md', 'CHANGELOG.md', 'SECURITY.md', 'blueprints/README.md', ...readdirSync(join(root, 'docs')).filter((f) => f.endsWith('.md')).map((f) => `docs/${f}`)];

/** GitHub's anchor of a heading: lower case, punctuation dropped, spaces to hyphens. */
function slug(heading: string): string {
  return heading.trim().toLowerCase().replace(/[^\p{L}\p{N}\s_-]/gu, '').replace(/\s/g, '-');
}

function anchors(file: string): Set<string> {
  const text = readFileSync(file, 'utf8').replace(/```[\s\S]*?```/g, '');
  return new Set([...text.matchAll(/^#{1,6} (.+)$/gm)].map((m) => slug(m[1]!)));
}

test('every relative link of the README and docs/ reaches an existing file and heading', () => {
  const broken: string[] = [];
  for (const page of pages) {
    const text = readFileSync(join(root, page), 'utf8').replace(/```[\s\S]*?```/g, '');
    for (const [, target] of text.matchAll(/\]\(([^)\s]+)\)/g)) {
      if (/^[a-z]+:/.test(target!)) continue;
      const [path, anchor] = target!.split('#') as [string, string | undefined];
      const file = path ? join(root, dirname(page), path) : join(root, page);
      if (!existsSync(file)) broken.push(`${page}: ${target} (no ${relative(root, file)})`);
      else if (anchor && file.endsWith('.md') && !anchors(file).has(anchor)) broken.push(`${page}: ${target} (no heading #${anchor})`);
    }
  }
  assert.deepEqual(broken, []);
});
