/**
 * `run_agent`, a tool `armature mcp` offers its clients (and nobody else: not Python, not other
 * agents) when the persona loads the Agent upgrade and allows `run_agent`: an Armature agent works
 * on a goal with the persona's tools until it answers. Its model is the persona's own when one is
 * configured with what it needs (a key, or a local server); otherwise — where the client offers
 * sampling with tools and the persona's `mcp.clientModel` allows it — the client's own model
 * (`sampling-model.ts`), so `armature mcp` runs agents with no key of its own. Each finished step
 * is a progress notification (which also keeps the client's request timeout from running out) and
 * each tool call a log message; cancelling the request aborts the run.
 */
import { ErrorCode, McpError, type CallToolResult, type Tool } from '@modelcontextprotocol/sdk/types.js';
import type { LanguageModel } from 'ai';
import * as z from 'zod';
import { personaAllows } from '../kernel/allow-list.ts';
import { errorLine } from '../kernel/errors.ts';
import type { RequestExtra } from './requests.ts';
import { samplingModel } from './sampling-model.ts';
import type { AgentSide, McpSession } from './session.ts';
import { ERROR_META_KEY } from './tool-results.ts';

/** The tool's name. */
export const RUN_AGENT = 'run_agent';

/** The declaration clients see. */
export const RUN_AGENT_TOOL: Tool = {
  name: RUN_AGENT,
  title: 'Run an Armature agent',
  description:
    'Hand a goal to an Armature agent: it works with this persona\'s tools (Python with every tool callable) step by step until it answers, and returns its answer. It runs on the persona\'s own model, or else on your model (through MCP sampling, which you may be asked to approve).',
  inputSchema: {
    type: 'object',
    properties: {
      goal: { type: 'string', minLength: 1, description: 'What the agent should do.' },
      max_steps: { type: 'integer', minimum: 1, maximum: 100, description: 'Model steps before it stops (default: the persona\'s, else 8).' },
    },
    required: ['goal'],
    additionalProperties: false,
  },
  outputSchema: {
    type: 'object',
    properties: {
      runId: { type: 'string' },
      reason: { type: 'string', description: 'answered, max-steps, aborted or error.' },
      answer: { type: 'string' },
      steps: { type: 'integer' },
      model: { type: 'string', enum: ['persona', 'client'], description: 'Whose model ran it.' },
      usage: { type: 'object', properties: { inputTokens: { type: 'integer' }, outputTokens: { type: 'integer' } } },
    },
    required: ['runId', 'reason', 'steps', 'model'],
  },
  annotations: { title: 'Run an Armature agent', readOnlyHint: false, destructiveHint: true, openWorldHint: true },
};

const Args = z.strictObject({ goal: z.string().trim().min(1), max_steps: z.number().int().min(1).max(100).optional() });

/** Whether `s` offers `run_agent`. */
export function offersRunAgent(s: McpSession): boolean {
  return !!s.agent && personaAllows(s.sys.persona, RUN_AGENT);
}

/** Whether the persona's own model can run (a model, and its key unless it is a local server). */
const ownModelReady = (agent: AgentSide) => {
  const { model, hasKey } = agent.getSettings();
  return !!model && (hasKey || model.provider === 'openai-compatible');
};

/** Runs `run_agent` for the client behind `extra`. */
export async function runAgentTool(s: McpSession, args: unknown, extra: RequestExtra): Promise<CallToolResult> {
  const agent = s.agent!;
  const parsed = Args.safeParse(args ?? {});
  if (!parsed.success) throw new McpError(ErrorCode.InvalidParams, `invalid run_agent arguments: ${parsed.error.issues.map((i) => `${i.path.join('.') || 'arguments'}: ${i.message}`).join('; ')}; it takes { goal: string, max_steps?: integer 1-100 }`);
  const own = ownModelReady(agent);
  let languageModel: LanguageModel | undefined;
  if (!own) {
    if (!s.sys.persona.mcp?.clientModel) {
      return failure('NO_MODEL', `[run_agent] persona ${s.sys.persona.id} has no model configured, and it does not let agents run on the client's model`, `Configure a model (the persona's "model", or armature mcp --model ...), or set "mcp": { "clientModel": true } in modules/personas/${s.sys.persona.id}.json.`);
    }
    try {
      languageModel = samplingModel(extra, s.server.getClientCapabilities(), s.server.getClientVersion()?.name ?? 'mcp-client');
    } catch (e) {
      return failure((e as { code?: string }).code ?? 'MCP_NO_CLIENT_MODEL', (e as Error).message, (e as { hint?: string }).hint);
    }
  }
  const token = extra._meta?.progressToken;
  let runId: string | undefined;
  // The run's id is known from its first event, emitted before run() first waits.
  const subs = [
    s.sys.bus.on('agent:run-started', (e) => void (runId ??= e.goal === parsed.data.goal ? e.runId : undefined)),
    s.sys.bus.on('agent:step-finished', (e) => {
      if (e.runId !== runId || token === undefined) return;
      void extra.sendNotification({ method: 'notifications/progress', params: { progressToken: token, progress: e.step, message: `step ${e.step}: ${e.finishReason}, ${e.toolCalls} tool calls` } }).catch(() => undefined);
    }),
    s.sys.bus.on('agent:tool-called', (e) => {
      if (e.runId !== runId || !s.log.allows('info')) return;
      void extra.sendNotification({ method: 'notifications/message', params: { level: 'info', logger: 'agent', data: `step ${e.step}: ${e.name}` } }).catch(() => undefined);
    }),
  ];
  try {
    const r = await agent.run({ goal: parsed.data.goal, ...(parsed.data.max_steps ? { maxSteps: parsed.data.max_steps } : {}), signal: extra.signal, ...(languageModel ? { languageModel } : {}) });
    const value = { runId: r.runId, reason: r.reason, ...(r.answer === undefined ? {} : { answer: r.answer }), steps: r.steps, model: own ? 'persona' : 'client', usage: r.usage };
    if (r.reason === 'error' && r.error) return failure(r.error.code, r.error.message, r.error.hint, value);
    return { content: [{ type: 'text', text: r.answer ?? `The agent stopped (${r.reason}) after ${r.steps} steps without an answer.` }], structuredContent: value };
  } finally {
    for (const sub of subs) sub.dispose();
  }
}

function failure(code: string, message: string, hint?: string, details?: unknown): CallToolResult {
  const error = { code, message, ...(details ? { details } : {}) };
  return { isError: true, content: [{ type: 'text', text: `${errorLine(error)}${hint ? `\nhint: ${hint}` : ''}` }], _meta: { [ERROR_META_KEY]: hint ? { ...error, hint } : error } };
}
