/**
 * What the McpClient offers besides its tools that other parts drive — the person's side of a
 * server's elicitation: a responder (the CLI's terminal, a dashboard form) registers itself and
 * answers the requests the McpClient hands it. A shared contract (`src/contracts/`): the CLI uses
 * it, and src/ imports nothing from upgrades/.
 */
import type { Disposable } from '../kernel/lifecycle.ts';

/** What a responder is asked: plain, clone-safe data a form or a terminal can show. */
export interface ElicitationRequest {
  id: string;
  /** The configured name of the server asking. */
  server: string;
  /** What the server says it wants (untrusted text: show it as text, never as markup). */
  message: string;
  /** `form`: fill `schema` (a flat object of strings, numbers, booleans, enums); `url`: open `url` to go on there. */
  mode: 'form' | 'url';
  schema?: { type: 'object'; properties: Record<string, Record<string, unknown>>; required?: string[] };
  url?: string;
  /** ms since the epoch after which the request is cancelled. */
  expiresAt: number;
}

/** The person's answer. */
export type ElicitationAnswer = { action: 'accept'; content?: Record<string, string | number | boolean | string[]> } | { action: 'decline' } | { action: 'cancel' };

/** How an elicitation ended. */
export type ElicitationOutcome = 'accept' | 'decline' | 'cancel' | 'timeout' | 'refused';

/**
 * Someone who can answer. Resolves with the person's answer; `signal` aborts when the request
 * timed out or the server withdrew it (then the answer is not used).
 */
export type ElicitationResponder = (request: ElicitationRequest, signal: AbortSignal) => Promise<ElicitationAnswer>;

/** The McpClient's elicitation desk, as its API offers it. */
export interface ElicitationDeskApi {
  /**
   * Registers someone who can answer servers' elicitation requests for the person; the latest
   * registered answers. Without one, requests are refused. The disposable removes it. Only where
   * the persona allows elicitation (`mcp.elicitation`).
   */
  addElicitationResponder(responder: ElicitationResponder): Disposable;
  /** Elicitation requests waiting for the person. */
  pendingElicitations(): ElicitationRequest[];
  /**
   * Gives the waiting request `id` the person's answer, whichever responder it was handed to
   * (what the person-only tool `answer_elicitation` calls). Throws `ELICITATION_NOT_FOUND` when
   * none waits by that id.
   */
  answerElicitation(id: string, answer: ElicitationAnswer): { id: string; server: string; action: ElicitationAnswer['action'] };
}

/**
 * The responder of a dashboard: it answers nothing itself and waits, so a request stays pending
 * (in the McpClient's snapshot, as a form on its card) until the person answers it there with
 * `answer_elicitation`, or it times out. Register it with `addElicitationResponder` where a
 * dashboard shows the system (the attached server, the page's own system).
 */
export function waitForTheDashboard(): ElicitationResponder {
  return (_request, signal) => new Promise((resolve) => signal.addEventListener('abort', () => resolve({ action: 'cancel' }), { once: true }));
}
