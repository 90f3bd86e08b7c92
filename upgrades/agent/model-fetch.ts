import { ArmatureError } from '../../src/kernel/errors.ts';

/** What {@link observedFetch} reports about a failed response. */
export interface RequestFailure {
  status: number;
  statusText: string;
  /** 1 for the first failure of the current step. */
  attempt: number;
  /** Whether the provider library will send the request again (408, 409, 429, 5xx, within `maxRetries`). */
  willRetry: boolean;
}

/** Options of {@link observedFetch}. */
export interface ObservedFetchOptions {
  /** The real fetch. Default: `globalThis.fetch`. */
  fetch?: typeof fetch;
  /** Retries the provider library makes (its `maxRetries`), to tell whether a failure is final. */
  maxRetries: number;
  /** Called for every response with an error status. */
  onFailure(failure: RequestFailure): void;
}

/** A fetch for the provider library, with {@link ObservedFetch.resetAttempts} called at each step. */
export interface ObservedFetch {
  fetch: typeof fetch;
  /** Starts counting failures again (each model step retries on its own). */
  resetAttempts(): void;
}

// Failures the provider library retries: timeouts, conflicts, rate limits and server errors.
const retryable = (status: number) => status === 408 || status === 409 || status === 429 || status >= 500;

/**
 * Wraps fetch for a provider library: announces each failed response (so a person sees "429,
 * retrying" while the library backs off) and turns a server that cannot be reached at all into
 * `MODEL_UNREACHABLE` naming the URL, reported at once: the library would otherwise retry a
 * refused connection for seconds with a message that names no URL.
 */
export function observedFetch(options: ObservedFetchOptions): ObservedFetch {
  const base = options.fetch ?? globalThis.fetch.bind(globalThis);
  let attempts = 0;
  const wrapped = async (input: Parameters<typeof fetch>[0], init?: Parameters<typeof fetch>[1]): Promise<Response> => {
    let response: Response;
    try {
      response = await base(input, init);
    } catch (e) {
      if (init?.signal?.aborted || (e as Error)?.name === 'AbortError') throw e;
      const url = typeof input === 'string' ? input : input instanceof URL ? input.href : input.url;
      throw unreachable(url, e);
    }
    if (!response.ok) {
      attempts++;
      options.onFailure({ status: response.status, statusText: response.statusText, attempt: attempts, willRetry: retryable(response.status) && attempts <= options.maxRetries });
    }
    return response;
  };
  return { fetch: wrapped as typeof fetch, resetAttempts: () => (attempts = 0) };
}

/** `MODEL_UNREACHABLE` for `url`, with the network's reason (never a `cause` chain the library would retry on). */
export function unreachable(url: string, e: unknown): ArmatureError {
  const cause = (e as { cause?: { code?: string; message?: string } })?.cause;
  const reason = cause?.code ?? cause?.message ?? (e as Error)?.message ?? String(e);
  const origin = (() => {
    try {
      return new URL(url).origin;
    } catch {
      return url;
    }
  })();
  const browser = typeof window !== 'undefined';
  return new ArmatureError('MODEL_UNREACHABLE', `[agent] cannot reach the model at ${url} (${reason})`, {
    details: { url, reason },
    hint: browser
      ? `Check that the server at ${origin} is running and allows this page's origin (CORS), and that the base URL is right (it usually ends in /v1).`
      : `Check that the server at ${origin} is running and that the base URL is right (it usually ends in /v1), e.g. http://127.0.0.1:11434/v1 for Ollama.`,
  });
}
