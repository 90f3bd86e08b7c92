/**
 * `armature/vite`: a Vite plugin that gives a page booting Armature what it needs, in development
 * and in the build, with no hand-written config:
 *
 * - the dev server gets `armatureMiddleware` (isolation headers, the project snapshot, the Pyodide
 *   worker and Pyodide's files, the confined worker, a root's upgrades);
 * - the build emits the same at the same paths: `__armature/pyodide-worker.js`,
 *   `__armature/sandbox-worker.js`, `__armature/project.json`, `pyodide/*`, and a root's upgrades'
 *   modules, so `boot()`'s defaults find them on any static host; `vite preview` adds the headers;
 * - an optional peer that is not installed (the AI SDK, the MCP SDK) resolves to a module that
 *   fails with `PEER_MISSING` if ever used, instead of failing the build.
 *
 * Typed structurally (no import of `vite`), so the package's types need no Vite of their own.
 */
import { readdir, readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { dirname, join, relative, sep } from 'node:path';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { OPTIONAL_PEERS } from '../kernel/optional-peer.ts';
import { PYODIDE_FILES_PATH, PYODIDE_WORKER_PATH, ROOT_MODULES_PATH } from '../server/middleware.ts';
import { armatureMiddleware, ISOLATION_HEADERS, PROJECT_SNAPSHOT_PATH, pyodideWorkerCsp } from '../server/middleware.ts';
import { readProjectSnapshot } from '../server/project-snapshot.ts';
import { pyodideWorkerScriptText, sandboxWorkerScript } from '../server/worker-scripts.ts';
import { SANDBOX_WORKER_CSP, SANDBOX_WORKER_PATH } from '../sandbox/worker-script.ts';

/** Options of {@link armature}. */
export interface ArmatureViteOptions {
  /** A folder of your own served and emitted beside the package's (its manifests, blueprints and upgrades). Default: none. */
  root?: string;
  /** Send the cross-origin isolation headers from the dev and preview servers. Default: true. */
  isolation?: boolean;
}

type Connect = (req: IncomingMessage, res: ServerResponse, next: (error?: unknown) => void) => void;

/** The parts of Vite's plugin API this plugin uses: assignable to Vite's `Plugin`. */
export interface ArmatureVitePlugin {
  name: string;
  enforce: 'pre';
  config(): { optimizeDeps: { exclude: string[] } };
  configureServer(server: { middlewares: { use(fn: Connect): unknown } }): void;
  configurePreviewServer(server: { middlewares: { use(fn: Connect): unknown } }): void;
  resolveId(this: { resolve(id: string, importer?: string, options?: { skipSelf?: boolean }): Promise<unknown> }, id: string, importer?: string): Promise<string | undefined>;
  load(id: string): string | undefined;
  generateBundle(this: { emitFile(file: { type: 'asset'; fileName: string; source: string | Uint8Array }): string }): Promise<void>;
}

/** Pyodide's files a page's worker loads (`loadPyodide({ indexURL })`). */
const PYODIDE_FILES = ['pyodide.asm.js', 'pyodide.asm.wasm', 'python_stdlib.zip', 'pyodide-lock.json'];

const MISSING = '\0armature-missing-peer:';

/** The optional peer a specifier belongs to, if it is one. */
function peerOf(id: string): string | undefined {
  return Object.keys(OPTIONAL_PEERS).find((p) => id === p || id.startsWith(`${p}/`));
}

/** Every file under `dir`, as paths relative to it with `/`. */
async function filesUnder(dir: string): Promise<string[]> {
  const out: string[] = [];
  const walk = async (d: string) => {
    for (const e of await readdir(d, { withFileTypes: true }).catch(() => [])) {
      const full = join(d, e.name);
      if (e.isDirectory()) await walk(full);
      else out.push(relative(dir, full).split(sep).join('/'));
    }
  };
  await walk(dir);
  return out;
}

/** The Vite plugin (see the module comment): `plugins: [armature()]` in `vite.config`. */
export function armature(options: ArmatureViteOptions = {}): ArmatureVitePlugin {
  const isolation = options.isolation ?? true;
  return {
    name: 'armature',
    enforce: 'pre',
    // Served as the package built it: its upgrades are already chunks, and its optional peers are
    // resolved (or stood in for) by resolveId below, which the dependency optimizer would bypass.
    config: () => ({ optimizeDeps: { exclude: ['armature'] } }),
    configureServer(server) {
      server.middlewares.use(armatureMiddleware({ root: options.root, isolation }) as Connect);
    },
    configurePreviewServer(server) {
      // The build's files are static there: only the headers are the server's to add.
      server.middlewares.use((req, res, next) => {
        if (isolation) for (const [k, v] of Object.entries(ISOLATION_HEADERS)) res.setHeader(k, v);
        const path = new URL(req.url ?? '/', 'http://localhost').pathname;
        if (path === PYODIDE_WORKER_PATH) res.setHeader('Content-Security-Policy', pyodideWorkerCsp());
        if (path === SANDBOX_WORKER_PATH) res.setHeader('Content-Security-Policy', SANDBOX_WORKER_CSP);
        next();
      });
    },
    async resolveId(id, importer) {
      const peer = peerOf(id);
      if (!peer || !importer) return undefined;
      if (await this.resolve(id, importer, { skipSelf: true })) return undefined;
      return `${MISSING}${peer}`;
    },
    load(id) {
      if (!id.startsWith(MISSING)) return undefined;
      const peer = id.slice(MISSING.length);
      // The shape of Node's own "not installed" error, which armature's peerMissing() turns into PEER_MISSING.
      return `const e = new Error(${JSON.stringify(`Cannot find package '${peer}' (it was not installed when this page was built)`)});\ne.code = 'ERR_MODULE_NOT_FOUND';\nthrow e;\n`;
    },
    async generateBundle() {
      const emit = (fileName: string, source: string | Uint8Array) => this.emitFile({ type: 'asset', fileName, source });
      emit(PYODIDE_WORKER_PATH.slice(1), await pyodideWorkerScriptText());
      emit(SANDBOX_WORKER_PATH.slice(1), await sandboxWorkerScript());
      emit(PROJECT_SNAPSHOT_PATH.slice(1), JSON.stringify(await readProjectSnapshot(options.root)));
      const pyodide = dirname(createRequire(import.meta.url).resolve('pyodide/package.json'));
      for (const file of PYODIDE_FILES) emit(`${PYODIDE_FILES_PATH.slice(1)}${file}`, new Uint8Array(await readFile(join(pyodide, file))));
      if (options.root !== undefined) {
        const upgrades = join(options.root, 'upgrades');
        for (const file of (await filesUnder(upgrades)).filter((f) => /\.m?js$/.test(f))) {
          emit(`${ROOT_MODULES_PATH.slice(1)}upgrades/${file}`, await readFile(join(upgrades, file), 'utf8'));
        }
      }
    },
  };
}
