// The Node directory store, through the Workspace: the cases every store must pass alike (the
// Chromium suite runs the same ones over IndexedDB: test/browser/store-conformance.test.ts).
import { test } from 'node:test';
import { join } from 'node:path';
import { openDirectoryStore } from '../../src/platform/directory-store.ts';
import { STORE_CASES } from '../helpers/store-conformance.ts';
import { tempDir } from '../helpers/temp-dir.ts';

const base = tempDir('conformance');
for (const c of STORE_CASES) test(`directory store: ${c.name}`, () => c.run((name) => openDirectoryStore(join(base, name))));
