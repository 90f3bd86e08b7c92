/**
 * A dashboard is the person's side of MCP elicitation for the system it shows: an MCP server's
 * request waits in the McpClient's snapshot (a form on its card) until the person answers it there
 * through `answer_elicitation`, or it times out. Used where a dashboard shows a system: the
 * attached server for its Node system, the page for the system it booted.
 */
import type { ElicitationDeskApi } from '../contracts/mcp-client-contract.ts';
import { waitForTheDashboard } from '../contracts/mcp-client-contract.ts';
import type { Disposable } from '../kernel/lifecycle.ts';
import type { ModuleReport } from '../kernel/boot/module-report.ts';

/** Registers the dashboard as the responder of `system`'s McpClient, when it has one; the disposable removes it. */
export async function answerElicitationsOnDashboard(system: { readonly modules: readonly ModuleReport[]; resolve<T = unknown>(id: string): Promise<T> }): Promise<Disposable | undefined> {
  if (!system.modules.some((m) => m.id === 'McpClient' && m.state === 'loaded')) return undefined;
  try {
    const id: string = 'McpClient';
    const desk = await system.resolve<Partial<ElicitationDeskApi>>(id);
    return desk.addElicitationResponder?.(waitForTheDashboard());
  } catch {
    // No McpClient to answer for: nothing to register.
    return undefined;
  }
}
