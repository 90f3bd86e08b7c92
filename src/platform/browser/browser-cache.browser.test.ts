// Cache Storage in the real Chromium: what the browser platform keeps the start-up snapshot in.
import { expect } from 'chai';
import { createBrowserPlatform } from './browser.ts';

describe('Cache Storage blob cache', () => {
  const prefix = `armature-test-${Math.random().toString(36).slice(2)}`;
  after(async () => {
    await caches.delete(`${prefix}:blobs`);
  });

  it('stores, replaces, lists and deletes blobs, and keeps them for the next open (a reload)', async () => {
    const cache = createBrowserPlatform({ dbPrefix: prefix }).openCache('blobs');
    expect(await cache.get('snap-1')).to.equal(undefined);
    const big = new Uint8Array(2 * 1024 * 1024).map((_, i) => i % 251);
    await cache.put('snap-1', big);
    await cache.put('other', new Uint8Array([1]));
    await cache.put('other', new Uint8Array([2, 3]));
    // A fresh platform object reads what the first one wrote, as a reloaded page would.
    const again = createBrowserPlatform({ dbPrefix: prefix }).openCache('blobs');
    expect(await again.get('snap-1')).to.deep.equal(big);
    expect(await again.get('other')).to.deep.equal(new Uint8Array([2, 3]));
    expect(await again.keys()).to.deep.equal(['other', 'snap-1']);
    await again.delete('snap-1');
    expect(await cache.keys()).to.deep.equal(['other']);
    expect(await caches.has(`${prefix}:blobs`)).to.equal(true);
  });

  it('refuses keys that are not plain names', async () => {
    const cache = createBrowserPlatform({ dbPrefix: prefix }).openCache('blobs');
    let error: Error | undefined;
    await cache.put('../escape', new Uint8Array([1])).catch((e: Error) => (error = e));
    expect(error?.message).to.match(/invalid key "\.\.\/escape"/);
  });
});
