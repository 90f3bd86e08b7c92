import type { LanguageModel } from 'ai';
import { ArmatureError } from '../../src/kernel/errors.ts';
import { peerMissing } from '../../src/kernel/optional-peer.ts';
import type { AgentModelRef } from '../../src/contracts/agent-contract.ts';

/** Options of {@link createLanguageModel}. */
export interface ModelOptions {
  /** The provider key; none for local OpenAI-compatible servers. */
  apiKey?: string;
  /** The fetch the provider library uses (see `observedFetch`). */
  fetch?: typeof fetch;
}

/** Makes the language model for a run; tests and benchmarks pass their own. */
export type ModelFactory = (ref: AgentModelRef, options: ModelOptions) => Promise<LanguageModel>;

/**
 * The Vercel AI SDK's provider for `ref`, imported on first use: the dashboard's first screen
 * loads none of them, and a run loads only its own. Each is an optional peer of the package: one
 * that is not installed fails the run with `PEER_MISSING`, naming the package to install.
 */
export const createLanguageModel: ModelFactory = async (ref, options) => {
  const common = { apiKey: options.apiKey, fetch: options.fetch, ...(ref.baseURL ? { baseURL: ref.baseURL } : {}) };
  switch (ref.provider) {
    case 'openai-compatible': {
      if (!ref.baseURL) throw missingBaseUrl();
      const { createOpenAICompatible } = await import('@ai-sdk/openai-compatible').catch(peerMissing('@ai-sdk/openai-compatible', 'Agent'));
      // includeUsage asks the server for token counts at the end of the stream.
      return createOpenAICompatible({ name: 'openai-compatible', baseURL: ref.baseURL, apiKey: options.apiKey, fetch: options.fetch, includeUsage: true })(ref.model);
    }
    case 'openai': {
      const { createOpenAI } = await import('@ai-sdk/openai').catch(peerMissing('@ai-sdk/openai', 'Agent'));
      return createOpenAI(common)(ref.model);
    }
    case 'anthropic': {
      const { createAnthropic } = await import('@ai-sdk/anthropic').catch(peerMissing('@ai-sdk/anthropic', 'Agent'));
      // Anthropic answers a browser only when the page says it knows the key is exposed to it.
      const headers = typeof window === 'undefined' ? undefined : { 'anthropic-dangerous-direct-browser-access': 'true' };
      return createAnthropic({ ...common, ...(headers ? { headers } : {}) })(ref.model);
    }
    case 'google': {
      const { createGoogleGenerativeAI } = await import('@ai-sdk/google').catch(peerMissing('@ai-sdk/google', 'Agent'));
      return createGoogleGenerativeAI(common)(ref.model);
    }
    case 'replay':
      // The agent plays recordings itself (it knows the run's turn and workspace): see replay/turn-model.ts.
      throw new ArmatureError('REPLAY_UNAVAILABLE', '[agent] a replay is made by the agent from its recording, not by a provider library');
    default:
      throw new ArmatureError('UNKNOWN_PROVIDER', `[agent] unknown provider ${JSON.stringify((ref as { provider: unknown }).provider)}`, {
        hint: 'Use one of: openai-compatible, openai, anthropic, google, replay.',
      });
  }
};

function missingBaseUrl(): ArmatureError {
  return new ArmatureError('NO_BASE_URL', '[agent] an openai-compatible model needs a base URL', {
    hint: 'Give the server\'s URL, e.g. http://127.0.0.1:11434/v1 (Ollama) or http://127.0.0.1:8080/v1 (llama.cpp).',
  });
}
