/**
 * `tools/list` and `tools/call`: the persona's allowed tools, and calls through the ToolRunner with
 * the session's id. During an `execute_python` call its output streams as log notifications (at
 * the session's level or above) and, when asked for, progress; a result too large for one message
 * is linked (`large-results.ts`).
 */
import { CallToolRequestParamsSchema, ListToolsRequestSchema, type Tool } from '@modelcontextprotocol/sdk/types.js';
import { clip } from '../kernel/bounded.ts';
import { toDisposable, type Disposable } from '../kernel/lifecycle.ts';
import { formatTools } from '../tools-format/format-tools.ts';
import { offersRunAgent, RUN_AGENT, RUN_AGENT_TOOL, runAgentTool } from './agent-tool.ts';
import { linkLargeResult, resultBytes } from './large-results.ts';
import { onRequest } from './requests.ts';
import type { McpSession } from './session.ts';
import { toCallToolResult } from './tool-results.ts';

/** Most characters of output one notification carries (a 20 MB print must not become a 20 MB message). */
export const MAX_NOTIFICATION_CHARS = 64 * 1024;

let calls = 0;

/** Where a run's output goes: the call that started it. */
type OutputSink = (kind: 'stdout' | 'stderr', chunk: string) => void;

/**
 * Serves the tools of `s.sys` on `s.server`; `dispose()` stops listening for Python output (at
 * the session's close).
 */
export function serveTools(s: McpSession): Disposable {
  const { sys, server } = s;
  server.setRequestHandler(ListToolsRequestSchema, () => {
    const tools = formatTools(sys.tools.getToolDeclarations(), 'mcp').tools as Tool[];
    return { tools: offersRunAgent(s) ? [...tools, RUN_AGENT_TOOL] : tools };
  });

  // Python output goes to the call whose run made it, by run id: one pair of listeners for the
  // session, made at its first execute_python, instead of a pair per call that every chunk of
  // every run passed through.
  const sinks = new Map<string, OutputSink>();
  let listening: Disposable[] | undefined;
  const listen = () =>
    (listening ??= [
      sys.bus.on('python:stdout', (p) => sinks.get(p.runId)?.('stdout', p.chunk)),
      sys.bus.on('python:stderr', (p) => sinks.get(p.runId)?.('stderr', p.chunk)),
    ]);

  onRequest(server, 'tools/call', CallToolRequestParamsSchema, { name: 'the name of the tool to call, as tools/list gives it', arguments: 'the tool\'s arguments by name' }, async (params, extra) => {
    const { name } = params;
    if (name === RUN_AGENT && offersRunAgent(s)) return runAgentTool(s, params.arguments, extra);
    const callId = `mcp-${++calls}`;
    const progressToken = params._meta?.progressToken;
    let progress = 0;
    // A Python run's output, as it is produced: log messages at the session's level, progress when asked for.
    const streamed = name === 'execute_python';
    if (streamed) {
      listen();
      sinks.set(callId, (kind, text) => {
        if (extra.signal.aborted) return;
        const level = kind === 'stdout' ? 'info' : 'warning';
        const chunk = clip(text, MAX_NOTIFICATION_CHARS);
        if (s.log.allows(level)) void extra.sendNotification({ method: 'notifications/message', params: { level, logger: `python.${kind}`, data: chunk } }).catch(() => undefined);
        if (progressToken !== undefined) {
          void extra.sendNotification({ method: 'notifications/progress', params: { progressToken, progress: ++progress, message: chunk } }).catch(() => undefined);
        }
      });
    }
    try {
      const result = await sys.tools.executeTool(name, params.arguments ?? {}, { caller: 'mcp', callId, signal: extra.signal, session: s.id });
      const answer = toCallToolResult(result);
      const bytes = resultBytes(answer);
      if (bytes <= s.maxResultBytes) return answer;
      return linkLargeResult(answer, bytes, { tool: name, callId, session: s.id, value: result.ok ? result.value : undefined, limit: s.maxResultBytes, files: s.workspace });
    } finally {
      if (streamed) sinks.delete(callId);
    }
  });

  return toDisposable(() => {
    for (const sub of listening ?? []) sub.dispose();
    listening = undefined;
    sinks.clear();
  });
}
