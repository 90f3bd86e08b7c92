import type { PythonPoolState, PythonStatus } from '../../src/contracts/python-events.ts';
import type { PythonToolApi, PythonToolStats } from './python-tool-types.ts';

/** Most namespaces, and tools of one namespace, the snapshot's catalog lists. */
const MAX_NAMESPACES = 60;
const MAX_NAMES = 200;
/** Longest tool description in the catalog, in characters. */
const MAX_DESCRIPTION = 300;

/** What the PythonTool card shows: statistics, the runtime's state, the tool catalog, packages. */
export interface PythonToolSnapshot {
  stats: PythonToolStats;
  /** The shared runtime's status and the pool of session runtimes. */
  runtime: { status: PythonStatus; pool?: PythonPoolState };
  /** PythonTool's own tools, and every namespace callable from Python with its tools. */
  catalog: { tools: { name: string; description: string }[]; namespaces: { namespace: string; tools: string[]; more?: number }[] };
  /** Packages installed in the shared runtime. */
  packages: { name: string; version: string }[];
}

const clip = (s: string, n: number) => (s.length > n ? `${s.slice(0, n)}…` : s);

/** The PythonTool snapshot now. */
export function pythonToolSnapshot(api: Pick<PythonToolApi, 'getStats' | 'getRuntimeState' | 'getCatalog'>): PythonToolSnapshot {
  const rt = api.getRuntimeState();
  const catalog = api.getCatalog();
  return {
    stats: api.getStats(),
    runtime: { status: rt.status, ...(rt.pool ? { pool: { ...rt.pool } } : {}) },
    catalog: {
      tools: catalog.tools.map((t) => ({ name: t.name, description: clip(t.description, MAX_DESCRIPTION) })),
      namespaces: catalog.namespaces.slice(0, MAX_NAMESPACES).map((n) => ({
        namespace: n.namespace,
        tools: n.tools.slice(0, MAX_NAMES),
        ...(n.tools.length > MAX_NAMES ? { more: n.tools.length - MAX_NAMES } : {}),
      })),
    },
    packages: rt.packages.map((p) => ({ name: p.name, version: p.version })),
  };
}
