import { ArmatureError } from '../../src/kernel/errors.ts';
import type { AgentModelRef, RunError } from '../../src/contracts/agent-contract.ts';
import { KEY_VARIABLES, redactDeep } from './keys.ts';

/** What {@link describeModelError} needs to know besides the error. */
export interface ErrorContext {
  model: AgentModelRef;
  /** Where keys come from, for the hint on a refused key. */
  keyStorage: 'environment' | 'browser';
  /** Secrets to mask in whatever the provider sent back. */
  secrets: readonly string[];
}

// The provider library's errors, recognised by shape: importing its classes here would load the
// library on the dashboard's first screen.
interface ApiCallErrorLike {
  name: string;
  message: string;
  statusCode?: number;
  url?: string;
  responseBody?: string;
  isRetryable?: boolean;
}

const isApiCallError = (e: unknown): e is ApiCallErrorLike => !!e && typeof e === 'object' && (e as Error).name === 'AI_APICallError';
const isRetryError = (e: unknown): e is { name: string; lastError: unknown; errors: unknown[]; reason: string } =>
  !!e && typeof e === 'object' && (e as Error).name === 'AI_RetryError';

/** The provider's own words from an error body (`{"error": {"message": ...}}` and friends), shortened. */
function providerMessage(e: ApiCallErrorLike): string {
  let text = e.message;
  try {
    const body = JSON.parse(e.responseBody ?? '') as { error?: { message?: string } | string; message?: string };
    text = (typeof body.error === 'string' ? body.error : body.error?.message) ?? body.message ?? text;
  } catch {
    // Not JSON: keep the library's message.
  }
  return text.length > 300 ? `${text.slice(0, 300)}…` : text;
}

/**
 * A readable {@link RunError} for anything a model request threw: a refused key (401/403) says
 * which variable or setting to fix, an unreachable server names its URL, a rate limit says it was
 * retried, a wrong model name or base URL (404) says which. Every secret is masked.
 */
export function describeModelError(error: unknown, ctx: ErrorContext): RunError {
  const attempts = isRetryError(error) ? error.errors.length : 1;
  const e = isRetryError(error) ? error.lastError : error;
  const { provider, model } = ctx.model;
  const where = ctx.model.baseURL ?? provider;
  let out: RunError;
  if (e instanceof ArmatureError) {
    out = { code: e.code, message: e.message, ...(e.details === undefined ? {} : { details: e.details }), ...(e.hint ? { hint: e.hint } : {}) };
  } else if (isApiCallError(e) && (e.statusCode === 401 || e.statusCode === 403)) {
    out = {
      code: 'MODEL_AUTH_FAILED',
      message: `[agent] the provider refused the key (HTTP ${e.statusCode} from ${e.url ?? where}): ${providerMessage(e)}`,
      hint:
        ctx.keyStorage === 'environment'
          ? `Set ${KEY_VARIABLES[provider]} to a valid ${provider} key and run again.`
          : `Paste a valid ${provider} key in the agent panel's settings (it stays in this browser).`,
    };
  } else if (isApiCallError(e) && e.statusCode === 429) {
    out = {
      code: 'MODEL_RATE_LIMITED',
      message: `[agent] the provider is limiting requests (HTTP 429 from ${e.url ?? where}) after ${attempts} attempt${attempts === 1 ? '' : 's'}: ${providerMessage(e)}`,
      hint: 'Wait a minute and run again, or use a model with a higher rate limit.',
    };
  } else if (isApiCallError(e) && e.statusCode === 404) {
    out = {
      code: 'MODEL_NOT_FOUND',
      message: `[agent] ${e.url ?? where} answered 404 for model ${JSON.stringify(model)}: ${providerMessage(e)}`,
      hint: 'Check the model name and the base URL (for OpenAI-compatible servers it usually ends in /v1).',
    };
  } else if (isApiCallError(e) && e.statusCode === undefined) {
    out = {
      code: 'MODEL_UNREACHABLE',
      message: `[agent] cannot reach the model at ${e.url ?? where}: ${e.message}`,
      hint: 'Check that the server is running and that the base URL is right.',
    };
  } else if (isApiCallError(e)) {
    out = {
      code: 'MODEL_REQUEST_FAILED',
      message: `[agent] the provider answered HTTP ${e.statusCode} (${e.url ?? where})${attempts > 1 ? ` after ${attempts} attempts` : ''}: ${providerMessage(e)}`,
      hint: e.statusCode! >= 500 ? 'The provider has a problem; run again later.' : 'Check the model settings (model name, base URL) and run again.',
    };
  } else {
    const err = e as Error | undefined;
    out = {
      code: 'MODEL_ERROR',
      message: `[agent] the model request failed (${provider}:${model}): ${err?.message ?? String(e)}`,
      hint: 'Check the model settings and run again.',
    };
  }
  return redactDeep(out, ctx.secrets);
}
