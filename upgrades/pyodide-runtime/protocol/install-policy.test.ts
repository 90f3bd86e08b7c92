// Which installs may reach the network: the package index by default, origins the policy allows,
// names always, local paths in Node only; every refusal says why and what to do.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { installRefusal } from './install-policy.ts';

const INDEX = 'https://mirror.example/pyodide/';

test('names, wheels under the package index, and origins the policy allows are let through', () => {
  for (const spec of ['numpy', 'my-pkg', ' regex ', `${INDEX}p-1.0-py3-none-any.whl`]) assert.equal(installRefusal(spec, 'none', INDEX, true), undefined, spec);
  assert.equal(installRefusal('https://files.example/p-1.0-py3-none-any.whl', ['https://files.example'], INDEX, false), undefined);
  // The index named without its trailing slash still means the folder.
  assert.equal(installRefusal(`${INDEX}p.whl`, 'none', INDEX.slice(0, -1), false), undefined);
});

test('a URL off the index that the policy does not allow is refused, naming both', () => {
  const r = installRefusal('http://127.0.0.1:9/exfil/secret/p-1.0-py3-none-any.whl', 'none', INDEX, true);
  assert.equal(r?.error.type, 'NETWORK_DENIED');
  assert.match(r!.error.message, /^installing "http:\/\/127\.0\.0\.1:9\/exfil\/secret\/p-1\.0-py3-none-any\.whl" was refused: it is not under the package index \(https:\/\/mirror\.example\/pyodide\/\), and the network policy allows no origin$/);
  assert.match(r!.hint, /add the wheel's origin to the persona's "network"/);
  assert.match(installRefusal('https://mirror.example/pyodide-evil/p.whl', ['https://other.example'], INDEX, true)!.error.message, /allows https:\/\/other\.example/);
  assert.ok(installRefusal('https://mirror.example.evil/pyodide/p.whl', 'none', INDEX, true));
});

test('local paths are the host\'s in Node only; other schemes and relative wheels are refused', () => {
  for (const spec of ['/tmp/p-1.0-py3-none-any.whl', 'file:///tmp/p.whl', 'C:\\wheels\\p.whl']) {
    assert.equal(installRefusal(spec, 'none', INDEX, true), undefined, spec);
    assert.match(installRefusal(spec, 'none', INDEX, false)?.error.message ?? '', /only package names and http\(s\) URLs can be installed/, spec);
  }
  for (const spec of ['ftp://files.example/p.whl', '//files.example/p.whl', 'p-1.0-py3-none-any.whl', 'data:application/zip;base64,AA']) {
    assert.equal(installRefusal(spec, ['https://files.example'], INDEX, true)?.error.type, 'NETWORK_DENIED', spec);
  }
});
