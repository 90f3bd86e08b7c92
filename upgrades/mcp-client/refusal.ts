/**
 * A server's request this client will not (or could not) answer. Thrown by the sampling gate and
 * the elicitation desk, which load without the MCP SDK (an optional peer); the handlers
 * (`client-handlers.ts`, loaded with the SDK) send it to the server as the SDK's `McpError`.
 */

/** JSON-RPC's codes the refusals use. */
export const REFUSAL = { invalidRequest: -32600, internalError: -32603 } as const;

/** A refusal: the JSON-RPC error code and the sentence the server is told. */
export class RequestRefused extends Error {
  constructor(
    readonly code: number,
    message: string,
  ) {
    super(message);
    this.name = 'RequestRefused';
  }
}
