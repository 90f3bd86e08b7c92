/**
 * OpenTelemetry, for the tools people already run (Jaeger, Grafana Tempo, Honeycomb, Langfuse...):
 * when `OTEL_EXPORTER_OTLP_ENDPOINT` (or `OTEL_EXPORTER_OTLP_TRACES_ENDPOINT`) is set, a booted
 * Node system exports spans over OTLP/HTTP, following the OpenTelemetry GenAI semantic conventions:
 *
 * - `invoke_agent <persona>` per agent run (`gen_ai.operation.name`, `gen_ai.agent.id` = the run id,
 *   `gen_ai.agent.name`, `gen_ai.provider.name`, `gen_ai.request.model`, `gen_ai.usage.*_tokens`);
 * - the model calls inside it, by the AI SDK's own telemetry (`ai.streamText` and its
 *   `ai.streamText.doStream`, with `gen_ai.*` attributes), without prompts or outputs;
 * - `execute_tool <name>` per tool call (`gen_ai.tool.name`, `gen_ai.tool.call.id`, the caller),
 *   nested under whatever called it (a run, the AI SDK's tool span, Python's call_tool);
 * - `execute_python` per Python run.
 *
 * The official `@opentelemetry/*` packages are optional peer dependencies, imported only here and
 * only when an endpoint is set; without them that boot says which to install. Every attribute is
 * masked before export (`span-mask.ts`). Node only.
 */
import type { Attributes, Context, Span, Tracer } from '@opentelemetry/api';
import type { ReadableSpan, SpanExporter } from '@opentelemetry/sdk-trace-base';
import { ArmatureError } from '../errors.ts';
import type { EventSource } from '../event-bus.ts';
import { setAgentTracing, type AgentTracing } from './agent-tracing.ts';
import { attributeMasker } from './span-mask.ts';

/** The packages the export needs, with the ranges this package is tested with. */
export const OTEL_PACKAGES = {
  '@opentelemetry/api': '^1.9.0',
  '@opentelemetry/sdk-trace-base': '^2.12.1',
  '@opentelemetry/exporter-trace-otlp-http': '^0.223.1',
  '@opentelemetry/resources': '^2.12.1',
  '@opentelemetry/context-async-hooks': '^2.12.1',
} as const;

/** The command that installs them. */
export const OTEL_INSTALL = `npm install ${Object.entries(OTEL_PACKAGES)
  .map(([p, v]) => `${p}@${v}`)
  .join(' ')}`;

/** Options of {@link startTelemetry}. */
export interface TelemetryOptions {
  bus: Pick<EventSource, 'on'>;
  persona: string;
  /** Where the endpoint and secrets are read. Default: `process.env`. */
  env?: Readonly<Record<string, string | undefined>>;
}

/** Running telemetry: flushes and ends with the system. */
export interface Telemetry {
  /** Sends what is pending now. */
  flush(): Promise<void>;
  /** Sends what is pending and stops. */
  dispose(): Promise<void>;
}

/** Whether an OTLP endpoint is configured in `env`. */
export function telemetryConfigured(env: Readonly<Record<string, string | undefined>> = process.env): boolean {
  return !!(env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT || env.OTEL_EXPORTER_OTLP_ENDPOINT) && env.OTEL_SDK_DISABLED !== 'true';
}

/**
 * The rejection handler of an import of one of the packages: "not installed" becomes an error
 * naming the packages and the command that installs them. The `.catch` sits on the `import()`
 * itself so that bundlers leave a package that is not installed to fail at run time, here.
 */
export function otelMissing(name: keyof typeof OTEL_PACKAGES): (error: unknown) => never {
  return (e) => {
    const code = (e as { code?: string }).code;
    if (code !== 'ERR_MODULE_NOT_FOUND' && code !== 'MODULE_NOT_FOUND') throw e;
    throw new ArmatureError('PEER_MISSING', `[telemetry] OTEL_EXPORTER_OTLP_ENDPOINT is set, but ${name} is not installed: ${OTEL_INSTALL}`, {
      hint: 'The OpenTelemetry packages are optional peer dependencies of armature: install them beside it, or unset OTEL_EXPORTER_OTLP_ENDPOINT.',
      cause: e,
    });
  };
}

/** Starts exporting spans when an endpoint is configured; resolves to undefined when none is. */
export async function startTelemetry(options: TelemetryOptions): Promise<Telemetry | undefined> {
  const env = options.env ?? process.env;
  if (!telemetryConfigured(env)) return undefined;
  const api = await import('@opentelemetry/api').catch(otelMissing('@opentelemetry/api'));
  const sdk = await import('@opentelemetry/sdk-trace-base').catch(otelMissing('@opentelemetry/sdk-trace-base'));
  const otlp = await import('@opentelemetry/exporter-trace-otlp-http').catch(otelMissing('@opentelemetry/exporter-trace-otlp-http'));
  const resources = await import('@opentelemetry/resources').catch(otelMissing('@opentelemetry/resources'));
  const hooks = await import('@opentelemetry/context-async-hooks').catch(otelMissing('@opentelemetry/context-async-hooks'));

  const url = env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT || `${env.OTEL_EXPORTER_OTLP_ENDPOINT!.replace(/\/+$/, '')}/v1/traces`;
  const exporter = maskingExporter(new otlp.OTLPTraceExporter({ url }), attributeMasker(env));
  const provider = new sdk.BasicTracerProvider({
    resource: resources.resourceFromAttributes({ 'service.name': env.OTEL_SERVICE_NAME || 'armature', 'process.pid': process.pid, 'armature.persona': options.persona }),
    spanProcessors: [new sdk.BatchSpanProcessor(exporter, { scheduledDelayMillis: 500 })],
  });
  // Spans nest by the async context they start in: a tool call inside an agent run is its child.
  // Registered once per process, as OpenTelemetry's globals are; the AI SDK finds the provider too.
  if (!contextManager) contextManager = api.context.setGlobalContextManager(new hooks.AsyncLocalStorageContextManager().enable());
  // The AI SDK is handed the tracer itself; the global provider is for the user's own code, and
  // is free again after dispose (another boot in this process takes it).
  const global = api.trace.setGlobalTracerProvider(provider);
  const tracer = provider.getTracer('armature');
  const subscriptions = followBus(options.bus, tracer, api);
  const tracing: AgentTracing = {
    run: (info, fn) =>
      tracer.startActiveSpan(
        `invoke_agent ${info.persona}`,
        {
          kind: api.SpanKind.INTERNAL,
          attributes: {
            'gen_ai.operation.name': 'invoke_agent',
            'gen_ai.agent.id': info.runId,
            'gen_ai.agent.name': info.persona,
            'gen_ai.conversation.id': info.runId,
            ...(info.model ? { 'gen_ai.provider.name': info.model.provider, 'gen_ai.request.model': info.model.model } : {}),
            'armature.run.continued': info.continued,
          },
        },
        async (span: Span) => {
          try {
            const outcome = await fn();
            span.setAttributes({
              ...(outcome.reason ? { 'armature.run.reason': outcome.reason } : {}),
              ...(outcome.steps !== undefined ? { 'armature.run.steps': outcome.steps } : {}),
              ...(outcome.usage ? { 'gen_ai.usage.input_tokens': outcome.usage.inputTokens, 'gen_ai.usage.output_tokens': outcome.usage.outputTokens } : {}),
            });
            if (outcome.reason === 'error') span.setStatus({ code: api.SpanStatusCode.ERROR, message: 'the run ended with an error' });
            return outcome;
          } catch (e) {
            span.recordException(e as Error);
            span.setStatus({ code: api.SpanStatusCode.ERROR, message: (e as Error).message });
            throw e;
          } finally {
            span.end();
          }
        },
      ),
    modelTelemetry: { isEnabled: true, recordInputs: false, recordOutputs: false, functionId: 'armature.agent', tracer },
  };
  setAgentTracing(tracing);
  return {
    flush: () => provider.forceFlush(),
    async dispose() {
      for (const s of subscriptions) s.dispose();
      setAgentTracing(undefined);
      await provider.shutdown();
      if (global) api.trace.disable();
    },
  };
}

/** Whether the async context manager is registered (once per process, as OpenTelemetry's globals are). */
let contextManager = false;

type Api = typeof import('@opentelemetry/api');

/** Tool calls and Python runs as spans, from the bus (events are emitted in the caller's async context). */
function followBus(bus: Pick<EventSource, 'on'>, tracer: Tracer, api: Api) {
  const open = new Map<string, Span>();
  return [
    bus.on('tool:started', (e) => {
      const parent: Context = api.context.active();
      const span = tracer.startSpan(
        `execute_tool ${e.name}`,
        { kind: api.SpanKind.INTERNAL, attributes: { 'gen_ai.operation.name': 'execute_tool', 'gen_ai.tool.name': e.name, 'gen_ai.tool.call.id': e.callId, 'armature.tool.caller': e.caller } },
        parent,
      );
      open.set(e.callId, span);
    }),
    bus.on('tool:finished', (e) => {
      const span = open.get(e.callId);
      if (!span) return;
      open.delete(e.callId);
      span.setAttribute('armature.tool.ok', e.ok);
      if (!e.ok) {
        span.setAttribute('error.type', e.error?.code ?? 'error');
        span.setStatus({ code: api.SpanStatusCode.ERROR, message: e.error?.message ?? 'failed' });
      }
      span.end();
    }),
    bus.on('python-tool:executed', (e) => {
      const attributes: Attributes = { 'armature.python.run_id': e.runId, 'armature.python.ok': e.ok, ...(e.errorType ? { 'error.type': e.errorType } : {}) };
      const span = tracer.startSpan('execute_python', { kind: api.SpanKind.INTERNAL, startTime: Date.now() - e.durationMs, attributes }, api.context.active());
      if (!e.ok) span.setStatus({ code: api.SpanStatusCode.ERROR, message: e.errorType ?? 'failed' });
      span.end();
    }),
  ];
}

/** An exporter that hands on copies of the spans with every attribute masked. */
function maskingExporter(inner: SpanExporter, mask: (key: string, value: unknown) => unknown): SpanExporter {
  const attrs = (a: Attributes) => Object.fromEntries(Object.entries(a).map(([k, v]) => [k, mask(k, v)])) as Attributes;
  const masked = (span: ReadableSpan): ReadableSpan => {
    const copy = Object.create(span) as ReadableSpan & { attributes: Attributes; events: ReadableSpan['events']; name: string };
    Object.defineProperties(copy, {
      attributes: { value: attrs(span.attributes) },
      events: { value: span.events.map((ev) => ({ ...ev, ...(ev.attributes ? { attributes: attrs(ev.attributes) } : {}) })) },
      name: { value: String(mask('span.name', span.name)) },
    });
    return copy;
  };
  return {
    export: (spans, done) => inner.export(spans.map(masked), done),
    shutdown: () => inner.shutdown(),
    ...(inner.forceFlush ? { forceFlush: () => inner.forceFlush!() } : {}),
  };
}
