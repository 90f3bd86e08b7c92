// Test-server routes for browser suites: wheels built on demand and a package index (mirror)
// holding one of them, so package installs are tested offline in Chromium.
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { buildWheel, lockWith, type BuiltWheel } from './wheel.ts';

interface KoaLikeContext {
  path: string;
  body: unknown;
  type: string;
  status: number;
}

const WHEEL = /^([A-Za-z0-9_]+)-([0-9.]+)-py3-none-any\.whl$/;
const built = new Map<string, Promise<BuiltWheel>>();

/** Wheel `name-version`, whose module has `VALUE = "<name> <version>"`; cached so its bytes never change. */
export function fixtureWheel(name: string, version: string): Promise<BuiltWheel> {
  const key = `${name}-${version}`;
  if (!built.has(key)) built.set(key, buildWheel(name, version, `VALUE = ${JSON.stringify(`${name} ${version}`)}\n`));
  return built.get(key)!;
}

/** The package that the test index lists. */
export const INDEXED_FIXTURE = { name: 'armature_fixture_indexed', version: '2.0.0' };

/**
 * Koa middleware: `/__armature/test-wheels/<name>-<version>-py3-none-any.whl` (any fixture wheel)
 * and `/__armature/test-index/` (pyodide-lock.json listing {@link INDEXED_FIXTURE}, plus its wheel).
 */
export function testFixturesMiddleware() {
  const lockPath = join(dirname(createRequire(import.meta.url).resolve('pyodide/package.json')), 'pyodide-lock.json');
  return async (ctx: KoaLikeContext, next: () => Promise<unknown>) => {
    const m = /^\/__armature\/test-(wheels|index)\/(.+)$/.exec(ctx.path);
    if (!m) return next();
    const [, kind, file] = m;
    if (kind === 'index' && file === 'pyodide-lock.json') {
      const wheel = await fixtureWheel(INDEXED_FIXTURE.name, INDEXED_FIXTURE.version);
      ctx.type = 'application/json';
      ctx.body = lockWith(JSON.parse(readFileSync(lockPath, 'utf8')), [wheel]);
      return;
    }
    const w = WHEEL.exec(file!);
    if (!w) {
      ctx.status = 404;
      return;
    }
    const wheel = await fixtureWheel(w[1]!, w[2]!);
    ctx.type = 'application/octet-stream';
    ctx.body = Buffer.from(wheel.bytes);
  };
}
