// Type-level tests of the public entry, compiled with the suite (test/typecheck.test.ts) and never
// run: each `@ts-expect-error` must meet an error, so a type that loosens fails the type check.
import { boot, type ArmatureSystem, type BootConfig, type ExecutePythonValue, type PythonToolApi, type ReadFileValue, type WorkspaceApi } from '../../upgrades/public-types.ts';

declare const sys: ArmatureSystem;

export async function services(): Promise<void> {
  const workspace: WorkspaceApi = await sys.resolve('Workspace');
  const python: PythonToolApi = await sys.resolve('PythonTool');
  void [workspace, python];
  // An id outside the map resolves to unknown...
  const other = await sys.resolve('Tally');
  // @ts-expect-error ...which is not an API until it is named.
  other.count();
  // @ts-expect-error the map says what each id is.
  const wrong: WorkspaceApi = await sys.resolve('PythonTool');
  void wrong;
}

export async function tools(): Promise<void> {
  const read = await sys.tools.executeTool('read_file', { path: 'notes/a.md' });
  if (read.ok) {
    const file: ReadFileValue = read.value;
    const text: string = read.value.content;
    // @ts-expect-error a built-in tool's value is typed.
    const n: number = read.value.content;
    void [file, text, n];
  }
  const ran = await sys.tools.executeTool('execute_python', { code: '1 + 1' });
  if (ran.ok) {
    const value: ExecutePythonValue = ran.value;
    void value;
  }
  // A tool outside the map (an MCP server's) is called by any name; its value is unknown.
  const mcp = await sys.tools.executeTool('memory.read_graph', {});
  // @ts-expect-error unknown until named.
  if (mcp.ok) void mcp.value.entities;
  // Or named by the caller.
  const named = await sys.tools.executeTool<{ entities: unknown[] }>('memory.read_graph', {});
  if (named.ok) void named.value.entities;
}

export async function config(): Promise<void> {
  await boot({ config: { PyodideRuntime: { isolation: 'thread', poolSize: 2 }, Workspace: { maxFileBytes: 1024 } } });
  // @ts-expect-error a misspelt option: did you mean isolation?
  await boot({ config: { PyodideRuntime: { isolaton: 'process' } } });
  // @ts-expect-error a value the option cannot take.
  await boot({ config: { PyodideRuntime: { isolation: 'procs' } } });
  // @ts-expect-error an upgrade id no upgrade has.
  await boot({ config: { PyodideRuntim: { autoStart: false } } });
  // @ts-expect-error an upgrade without options takes none.
  await boot({ config: { Blueprints: { dir: 'x' } } });
  const loose: BootConfig = { Agent: { maxRetries: 1 } };
  void loose;
}
