// The reference pages generated from the schemas (docs/configuration.md, docs/manifests.md) are
// what the schemas say now: regenerated here and compared, so they cannot drift. `npm run docs`
// rewrites them.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { checkoutRoot } from '../helpers/packed-install.ts';
import { referencePages } from '../../scripts/reference-docs.ts';

test('docs/configuration.md and docs/manifests.md are what the schemas generate (npm run docs rewrites them)', async () => {
  for (const [path, text] of Object.entries(await referencePages())) {
    assert.equal(readFileSync(join(checkoutRoot, path), 'utf8'), text, `${path} is stale: run npm run docs`);
  }
});

test('every upgrade has a config schema in the reference, and every persona field and manifest key a description', async () => {
  const pages = await referencePages();
  assert.doesNotMatch(pages['docs/configuration.md']!, /No schema: options pass unchecked/);
  for (const page of Object.values(pages)) assert.doesNotMatch(page, /\|  \|$/m, 'a row without a description');
  assert.match(pages['docs/configuration.md']!, /\| `isolation` \| "process" \\\| "thread" \|/);
});
