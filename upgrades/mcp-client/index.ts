import { ArmatureError } from '../../src/kernel/errors.ts';
import { formatJsonPath } from '../../src/kernel/manifest-schemas.ts';
import { McpServersSchema } from '../../src/kernel/mcp-servers.ts';
import type { ToolRunnerApi } from '../../src/kernel/tool-contract.ts';
import type { UpgradeMetadata, UpgradeModule } from '../../src/kernel/upgrade.ts';
import { createMcpClient, type McpClientApi } from './mcp-client.ts';

export type { McpClientApi } from './mcp-client.ts';
export type { McpServerStatus, McpServerState } from './server-connection.ts';

/** Its options' schema: boot checks `config.McpClient` against it (docs/configuration.md lists them). */
export { McpClientConfigSchema as configSchema } from './config.ts';

/** McpClient: other MCP servers' tools, registered as Armature tools under each server's namespace. */
export const metadata: UpgradeMetadata = {
  id: 'McpClient',
  version: '1.0.0',
  description: 'Starts MCP servers (stdio, HTTP) and registers their tools under each server\'s namespace.',
  dependencies: ['ToolRunner'],
  blueprint: '0x000060',
  category: 'tools',
  widget: 'mcp-client-widget',
};

/**
 * Servers come from the persona's `mcpServers` and `config.servers` (what `--mcp-config` passes;
 * its entries win over the persona's of the same name). Options: `startTimeoutMs` (30000),
 * `callTimeoutMs` (60000).
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
    version: metadata.version,
  });
  // Its init waits for the servers, each within its own start limit: the boot's init limit would cut them short.
  return { api: client.api, tools: client.tools, init: () => client.init(), dispose: () => client.dispose(), ...(client.initTimeoutMs ? { initTimeoutMs: client.initTimeoutMs } : {}) };
};
