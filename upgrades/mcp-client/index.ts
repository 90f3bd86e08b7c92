import { ArmatureError } from '../../src/kernel/errors.ts';
import { formatJsonPath } from '../../src/kernel/manifest-schemas.ts';
import { McpServersSchema } from '../../src/kernel/mcp-servers.ts';
import type { ToolRunnerApi } from '../../src/kernel/tool-contract.ts';
import type { UpgradeMetadata, UpgradeModule } from '../../src/kernel/upgrade.ts';
import { MCP_CLIENT_EVENTS } from './events.ts';
import { createMcpClient, type McpClientApi } from './mcp-client.ts';
import { mcpClientSnapshot } from './snapshot.ts';
import type { SamplingModel } from './sampling.ts';

export type { McpClientApi } from './mcp-client.ts';
export type { McpServerStatus, McpServerState } from './server-connection.ts';
export type { ElicitationAnswer, ElicitationRequest, ElicitationResponder } from './elicitation.ts';

/** Its options' schema: boot checks `config.McpClient` against it (docs/configuration.md lists them). */
export { McpClientConfigSchema as configSchema } from './config.ts';

/** McpClient: other MCP servers' tools, registered as Armature tools under each server's namespace. */
export const metadata: UpgradeMetadata = {
  id: 'McpClient',
  version: '1.0.0',
  description: 'Starts MCP servers (stdio, HTTP) and registers their tools under each server\'s namespace.',
  dependencies: ['ToolRunner'],
  optionalDependencies: ['Workspace', 'Agent'],
  blueprint: '0x000060',
  category: 'tools',
  widget: 'mcp-client-widget',
  events: MCP_CLIENT_EVENTS,
};

/**
 * Servers come from the persona's `mcpServers` and `config.servers` (what `--mcp-config` passes;
 * its entries win over the persona's of the same name). Options: `startTimeoutMs` (30000),
 * `callTimeoutMs` (60000, started again by each progress notification), `maxCallTimeoutMs`
 * (600000), `elicitationTimeoutMs` (300000). What servers are offered — roots (the Workspace's
 * folder), sampling (the Agent's model), elicitation — follows the persona's `mcp`.
 */
export const factory: UpgradeModule<McpClientApi>['factory'] = async (deps, ctx) => {
  const parsed = McpServersSchema.safeParse(ctx.config.servers ?? {});
  if (!parsed.success) {
    throw new ArmatureError('INVALID_MCP_CONFIG', `[McpClient] config.servers: ${parsed.error.issues.map((i) => `at ${formatJsonPath(i.path)}: ${i.message}`).join('; ')}`);
  }
  const servers = { ...(ctx.persona.mcpServers ?? {}), ...parsed.data };
  const client = createMcpClient({
    runner: deps.ToolRunner as ToolRunnerApi,
    bus: ctx.bus,
    parts: ctx.parts,
    persona: ctx.persona,
    servers,
    platformKind: ctx.platform.kind,
    store: Object.keys(servers).length ? await ctx.platform.openStore('mcp-client') : undefined,
    startTimeoutMs: ctx.configNumber('startTimeoutMs'),
    callTimeoutMs: ctx.configNumber('callTimeoutMs'),
    maxCallTimeoutMs: ctx.configNumber('maxCallTimeoutMs'),
    elicitationTimeoutMs: ctx.configNumber('elicitationTimeoutMs'),
    ...(deps.Agent ? { model: deps.Agent as SamplingModel } : {}),
    ...((deps.Workspace as { folder?: string } | undefined)?.folder ? { workspaceFolder: (deps.Workspace as { folder: string }).folder } : {}),
    version: metadata.version,
  });
  // A server's state comes as its part's module events; its tools and calls as tool events.
  const ours = (p: { parent?: string; module?: string; name?: string }) => p.parent === metadata.id || p.module === metadata.id || !!p.name?.includes('.');
  for (const t of ['module:loading', 'module:loaded', 'module:failed', 'module:disposed', 'tool:finished', 'tool:registered', 'tool:unregistered'] as const) {
    ctx.bus.on(t, (p) => ours(p as { parent?: string }) && ctx.statusChanged());
  }
  // The card shows the requests waiting for the person.
  for (const t of ['mcp-client:elicitation-requested', 'mcp-client:elicitation-ended'] as const) ctx.bus.on(t, () => ctx.statusChanged());
  return {
    api: client.api,
    tools: client.tools,
    status: () => mcpClientSnapshot(client.api.listServers(), client.api.pendingElicitations()),
    init: () => client.init(),
    dispose: () => client.dispose(),
    // Its init waits for the servers, each within its own start limit: the boot's init limit would cut them short.
    ...(client.initTimeoutMs ? { initTimeoutMs: client.initTimeoutMs } : {}),
  };
};
