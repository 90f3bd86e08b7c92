// IndexedDB, through the Workspace: the cases every store must pass alike (the Node suite runs the
// same ones over the directory store: test/integration/store-conformance.test.ts).
import { openIndexedDbStore } from '../../src/platform/browser/browser.ts';
import { STORE_CASES } from '../helpers/store-conformance.ts';

describe('IndexedDB store conformance (Chromium)', () => {
  for (const c of STORE_CASES) it(c.name, () => c.run((name) => openIndexedDbStore(`armature-test:${name}`)));
});
