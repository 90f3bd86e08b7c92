/**
 * Optional peer dependencies: packages only some features need (the AI SDK for the agent and
 * `armature/ai-sdk`, the MCP SDK for `armature mcp` and the McpClient, Lit for `armature/widgets`,
 * OpenTelemetry for spans). The package does not
 * install them; each feature imports its peer on first use, through {@link peerMissing}, so a user
 * without it gets one clear error naming the package and the command that installs it, and
 * everything else keeps working.
 */
import { ArmatureError } from './errors.ts';

/**
 * Every optional peer and the range the package is tested with (`peerDependencies` in
 * package.json, kept equal by a test).
 */
export const OPTIONAL_PEERS = {
  ai: '^6.0.324',
  '@ai-sdk/openai-compatible': '^2.0.91',
  '@ai-sdk/openai': '^3.0.137',
  '@ai-sdk/anthropic': '^3.0.139',
  '@ai-sdk/google': '^3.0.141',
  '@modelcontextprotocol/sdk': '^1.32.2',
  // Widgets of one's own bundled into a page of one's own (`armature/widgets`); the dashboard ships its copy.
  lit: '^3.3.3',
  // Spans over OTLP/HTTP, only when OTEL_EXPORTER_OTLP_ENDPOINT is set (src/kernel/telemetry/otel.ts says which are missing).
  '@opentelemetry/api': '^1.9.1',
  '@opentelemetry/context-async-hooks': '^2.12.1',
  '@opentelemetry/exporter-trace-otlp-http': '^0.223.1',
  '@opentelemetry/resources': '^2.12.1',
  '@opentelemetry/sdk-trace-base': '^2.12.1',
} as const;

/** The name of an optional peer. */
export type OptionalPeer = keyof typeof OPTIONAL_PEERS;

/** The command that installs `peer` in the range this package is tested with. */
export function installCommand(peer: OptionalPeer): string {
  return `npm install ${peer}@${OPTIONAL_PEERS[peer]}`;
}

/** An optional peer a feature needs is not installed. */
export class MissingPeerError extends ArmatureError {
  constructor(
    readonly peer: OptionalPeer,
    readonly feature: string,
    cause?: unknown,
  ) {
    super('PEER_MISSING', `[${feature}] needs the package ${peer}, which is not installed: ${installCommand(peer)}`, {
      cause,
      details: { peer, feature, range: OPTIONAL_PEERS[peer] },
      hint: `Install it beside armature (${installCommand(peer)}); armature lists it as an optional peer dependency, so npm does not install it for you.`,
    });
  }
}

/** The package name a specifier belongs to: `@ai-sdk/openai/internal` -> `@ai-sdk/openai`. */
function packageOf(specifier: string): string {
  const parts = specifier.split('/');
  return specifier.startsWith('@') ? parts.slice(0, 2).join('/') : parts[0]!;
}

/**
 * The optional peer a failed import could not find, if that is why it failed: Node's
 * `ERR_MODULE_NOT_FOUND` ("Cannot find package 'ai' imported from ..."), CommonJS's
 * `MODULE_NOT_FOUND`, or a browser's "Failed to resolve module specifier".
 */
export function missingPeerOf(error: unknown): OptionalPeer | undefined {
  const e = error as { code?: unknown; message?: unknown } | undefined;
  const message = typeof e?.message === 'string' ? e.message : '';
  const notFound = e?.code === 'ERR_MODULE_NOT_FOUND' || e?.code === 'MODULE_NOT_FOUND' || /Failed to resolve module specifier/.test(message);
  if (!notFound) return undefined;
  const quoted = /(?:package|module|specifier) ['"]([^'"]+)['"]/.exec(message)?.[1];
  if (quoted === undefined) return undefined;
  const name = packageOf(quoted);
  return name in OPTIONAL_PEERS ? (name as OptionalPeer) : undefined;
}

/**
 * The rejection handler of a dynamic import of an optional peer, the one way every feature loads
 * one: `await import('ai').catch(peerMissing('ai', 'Agent'))`. "Not installed" becomes a
 * {@link MissingPeerError} naming the package, `feature` (e.g. `armature mcp`) and the install
 * command; any other failure passes through. The `.catch` sits on the `import()` itself so that
 * bundlers (esbuild, Vite with `armature/vite`) leave a peer that is not installed to fail at run
 * time, where this handler explains it, instead of failing the user's build. Also for an import
 * of a module of ours that imports the peer (`import('../mcp/stdio.ts').catch(...)`).
 */
export function peerMissing(peer: OptionalPeer, feature: string): (error: unknown) => never {
  return (error) => {
    if (error instanceof MissingPeerError) throw error;
    // A page that maps the peer to a URL it cannot load says only the URL: that is `peer`.
    const missing = missingPeerOf(error) ?? (unloadableModule(error) ? peer : undefined);
    if (missing !== undefined) throw new MissingPeerError(missing, feature, error);
    throw error;
  };
}

/** Whether a browser failed to load a module by URL (an import map's entry whose file is not there). */
function unloadableModule(error: unknown): boolean {
  const message = (error as { message?: unknown } | undefined)?.message;
  return typeof message === 'string' && /Failed to fetch dynamically imported module/.test(message);
}
