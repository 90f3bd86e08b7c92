import { test } from 'node:test';
import assert from 'node:assert/strict';
import { snapshotProblem } from './snapshot-header.ts';

function snapshot(heapBytes: number, patch?: (view: DataView) => void): Uint8Array {
  const offset = 4096;
  const bytes = new Uint8Array(offset + heapBytes);
  const view = new DataView(bytes.buffer);
  view.setUint32(0, 1886286592, true);
  view.setUint32(4, offset, true);
  view.setUint32(8, 100, true);
  patch?.(view);
  return bytes;
}

test('a well-formed snapshot passes', () => {
  assert.equal(snapshotProblem(snapshot(20 * 1024 * 1024)), undefined);
});

test('garbage, a truncated heap or a damaged header is named before Pyodide would hang on it', () => {
  assert.match(snapshotProblem(new Uint8Array(10))!, /too short for a header/);
  assert.match(snapshotProblem(new Uint8Array(4096).fill(0x5a))!, /invalid magic number/);
  assert.match(snapshotProblem(snapshot(20 * 1024 * 1024 - 65536))!, /heap is 20905984 bytes, not whole 64 KiB pages of at least 20971520 \(a truncated file\?\)/);
  assert.match(snapshotProblem(snapshot(20 * 1024 * 1024 + 10))!, /not whole 64 KiB pages/);
  assert.match(snapshotProblem(snapshot(20 * 1024 * 1024, (v) => v.setUint32(4, 4004, true)))!, /header is damaged \(heap offset 4004/);
  assert.match(snapshotProblem(snapshot(20 * 1024 * 1024, (v) => v.setUint32(8, 9000, true)))!, /state length 9000/);
});
