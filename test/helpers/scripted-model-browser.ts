// The page side of the scripted model for browser suites: the test runner serves it (same origin
// as the page) through `scriptedModelMiddleware()` in scripted-model-server.ts.
import type { ScriptedRequest, ScriptTurn } from './model-script.ts';

/** Route prefix of the browser suites' scripted models. */
export const SCRIPTED_MODEL_ROUTE = '/__armature/scripted-model/';

/** One recorded request, as the server keeps it. */
export interface RecordedRequest {
  path: string;
  headers: Record<string, string>;
  body: ScriptedRequest;
}

/** For a browser suite: a scripted model served by the test runner, same origin as the page. */
export async function browserScriptedModel(script: ScriptTurn[], session = `s${Date.now()}${Math.random().toString(36).slice(2, 6)}`) {
  const base = `${location.origin}${SCRIPTED_MODEL_ROUTE}${session}`;
  await fetch(`${base}/script`, { method: 'POST', body: JSON.stringify(script) });
  return {
    baseURL: `${base}/v1`,
    requests: async (): Promise<RecordedRequest[]> => (await fetch(`${base}/requests`)).json(),
  };
}

/** A port of 127.0.0.1 nothing listens on, from the test runner. */
export async function unusedPortFromServer(): Promise<number> {
  return ((await (await fetch(`${location.origin}${SCRIPTED_MODEL_ROUTE}unused-port`)).json()) as { port: number }).port;
}
