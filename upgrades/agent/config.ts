/** The Agent's options (`boot({ config: { Agent: {...} } })`), checked at boot. */
import * as z from 'zod';
import { countOption, customOption } from '../../src/kernel/config-schema.ts';
import type { AgentModelRef } from '../../src/contracts/agent-contract.ts';

/**
 * Makes the model of a run. Typed without the AI SDK's own types, so that the package's types
 * need no optional peer: it resolves to an AI SDK `LanguageModel`.
 */
export type AgentModelFactory = (ref: AgentModelRef, options: { apiKey?: string; fetch?: typeof fetch }) => Promise<unknown>;

export const AgentConfigSchema = z.strictObject({
  maxRetries: countOption('Retries of a failed model request (429, 5xx), with the provider library\'s backoff. Default: 2.'),
  maxResultChars: countOption('Longest tool result given back to the model, in characters of JSON. Default: 20000.', 1),
  env: z
    .record(z.string(), z.string().optional(), { error: 'an object of environment variables' })
    .optional()
    .describe('Node: where provider keys are read (OPENAI_API_KEY, ...). Default: process.env.'),
  modelFactory: customOption<AgentModelFactory>('Makes the model of a run, (ref, { apiKey, fetch }) => LanguageModel: tests and benchmarks pass their own. Default: the AI SDK provider of the model\'s provider.', (v) => typeof v === 'function', 'a function (ref, options) => Promise<LanguageModel>'),
});

/** The Agent's options. */
export type AgentConfig = z.input<typeof AgentConfigSchema>;

declare module '../../src/kernel/config-schema.ts' {
  interface ArmatureConfig {
    Agent: AgentConfig;
  }
}
