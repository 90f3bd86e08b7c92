import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { tempDir } from '../../test/helpers/temp-dir.ts';
import { MissingPeerError, missingPeerOf, OPTIONAL_PEERS, peerMissing } from './optional-peer.ts';

const pkg = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as {
  dependencies: Record<string, string>;
  devDependencies: Record<string, string>;
  peerDependencies: Record<string, string>;
  peerDependenciesMeta: Record<string, { optional?: boolean }>;
};

test('the optional peers are package.json\'s peerDependencies, each optional, none a dependency, each pinned for the suite', () => {
  assert.deepEqual(Object.entries(OPTIONAL_PEERS).sort(), Object.entries(pkg.peerDependencies).sort());
  for (const name of Object.keys(OPTIONAL_PEERS)) {
    assert.equal(pkg.peerDependenciesMeta[name]?.optional, true, `${name} is not marked optional`);
    assert.equal(pkg.dependencies[name], undefined, `${name} is still a dependency`);
    // The suite runs against the range's floor, so the range says what was tested.
    assert.equal(`^${pkg.devDependencies[name]}`, OPTIONAL_PEERS[name as keyof typeof OPTIONAL_PEERS], `${name}: devDependency and peer range disagree`);
  }
});

/** A module in a folder with no node_modules that imports `specifier`: Node cannot find it. */
function orphanImporting(specifier: string): string {
  const file = join(tempDir('peer'), 'feature.mjs');
  writeFileSync(file, `import ${JSON.stringify(specifier)};\nexport const loaded = true;\n`);
  return pathToFileURL(file).href;
}

test('a peer that is not installed: MissingPeerError naming the package, the feature and the install command', async () => {
  const url = orphanImporting('@modelcontextprotocol/sdk/server/index.js');
  await assert.rejects(
    import(url).catch(peerMissing('@modelcontextprotocol/sdk', 'armature mcp')),
    (e: unknown) => {
      assert.ok(e instanceof MissingPeerError);
      assert.equal(e.code, 'PEER_MISSING');
      assert.equal(e.message, '[armature mcp] needs the package @modelcontextprotocol/sdk, which is not installed: npm install @modelcontextprotocol/sdk@^1.32.2');
      assert.match(e.hint!, /optional peer dependency/);
      return true;
    },
  );
});

test('other failures pass through: a package that is no peer, an error inside the module', async () => {
  const notPeer = orphanImporting('left-pad-not-here');
  await assert.rejects(import(notPeer).catch(peerMissing('ai', 'x')), (e: { code?: string }) => e.code === 'ERR_MODULE_NOT_FOUND');
  const boom = new Error('boom');
  await assert.rejects(Promise.reject(boom).catch(peerMissing('ai', 'x')), (e) => e === boom);
  assert.equal(missingPeerOf(new TypeError('Failed to resolve module specifier "ai". Relative references must start with either "/", "./", or "../".')), 'ai');
  assert.equal(missingPeerOf(undefined), undefined);
});

test("a page whose import map points a peer at a file it cannot load: the peer the import named", async () => {
  const failed = new TypeError('Failed to fetch dynamically imported module: http://127.0.0.1:5173/vendor/ai.js');
  await assert.rejects(Promise.reject(failed).catch(peerMissing('ai', 'Agent')), (e: unknown) => e instanceof MissingPeerError && e.peer === 'ai' && e.feature === 'Agent');
});

test('a peer that is installed loads', async () => {
  const ai = await import('ai').catch(peerMissing('ai', 'test'));
  assert.equal(typeof ai.generateText, 'function');
});
