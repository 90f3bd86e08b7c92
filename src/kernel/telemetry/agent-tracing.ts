/**
 * What the Agent asks of the tracing in force: OpenTelemetry when `OTEL_EXPORTER_OTLP_ENDPOINT`
 * is set (`otel.ts`, Node only), nothing otherwise. Process-wide, as OpenTelemetry's own global
 * tracer provider is: the telemetry sets it when it starts and clears it when it ends. No Node or
 * OpenTelemetry import here: the Agent reads it in the page too, where it is always undefined.
 */

/** What an agent run says about itself when its span starts. */
export interface AgentRunInfo {
  runId: string;
  persona: string;
  model?: { provider: string; model: string };
  continued: boolean;
}

/** What a run's outcome says when its span ends (read from the result of `fn`). */
export interface AgentRunOutcome {
  reason?: string;
  steps?: number;
  usage?: { inputTokens: number; outputTokens: number };
}

/** The tracing an agent run uses. */
export interface AgentTracing {
  /** Runs `fn` inside the run's span (model calls and tool calls nest under it); the span ends when `fn` settles. */
  run<T extends AgentRunOutcome>(info: AgentRunInfo, fn: () => Promise<T>): Promise<T>;
  /** The AI SDK's `experimental_telemetry` for the run's model calls: its own spans, without prompts or outputs. */
  readonly modelTelemetry: { isEnabled: true; recordInputs: false; recordOutputs: false; functionId: string; tracer: unknown };
}

const KEY = Symbol.for('armature.agent-tracing');

/** The tracing in force, or undefined. */
export function agentTracing(): AgentTracing | undefined {
  return (globalThis as { [KEY]?: AgentTracing })[KEY];
}

/** Puts `tracing` in force (undefined: none). */
export function setAgentTracing(tracing: AgentTracing | undefined): void {
  (globalThis as { [KEY]?: AgentTracing })[KEY] = tracing;
}
