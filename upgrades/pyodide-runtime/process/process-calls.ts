/**
 * The requests a confined Python child makes of its host (`process` isolation), answered here:
 * `call_tool` — from the Pyodide worker's own pipe (`src/bridge/tool-pipe.ts`: the host runs the
 * handler and encodes the marshal answer, bounded by `maxToolAnswerBytes`) or as a `tool`
 * message — and `fetch` under the host's own copy of the network policy. Every handler runs in
 * the re-entry scope of its runtime (`tool-call-scope.ts`).
 */
import { shortName } from '../../../src/kernel/bounded.ts';
import { LoopSpinner } from '../../../src/bridge/loop-spinner.ts';
import { toWireError } from '../../../src/sandbox/agent-scope.ts';
import { policyFetch } from '../../../src/sandbox/network-policy.ts';
import type { TransportExit } from '../../../src/sandbox/transport.ts';
import { MarshalTooLargeError, toAnswer } from '../../../src/bridge/marshal.ts';
import { answerFrame } from '../../../src/bridge/tool-pipe.ts';
import { parseToolJson } from '../../../src/bridge/tool-request.ts';
import type { ChildLink } from './process-child-link.ts';
import type { FromChild, ToChild } from '../protocol/process-protocol.ts';
import { ToolCallMessageSchema, parseMessage } from '../protocol/protocol.ts';
import { TOOL_STATUS } from '../python/python-prelude.ts';
import type { ResolvedOptions } from '../host/runtime-options.ts';
import type { BridgeCall, ToolCallHandler } from '../host/runtime-types.ts';
import { runInToolScope } from '../host/tool-call-scope.ts';

/** What the answerer needs from the connection to the child. */
export interface ChildCallHooks {
  /** Sends a message to the child behind `l` (nothing once it is dead). */
  post(l: ChildLink, msg: ToChild): void;
  /** Declares the child behind `l` dead (it misbehaved). */
  died(l: ChildLink, exit: TransportExit): void;
}

/** Answers `call_tool` and `fetch` for the children of one runtime. */
export class ChildCallAnswerer {
  handler: ToolCallHandler | undefined;
  observe: ((call: BridgeCall) => void) | undefined;
  /**
   * After an answer, the host's event loop keeps turning for `bridgePollMs` (a task per turn, each
   * turn looking at the pipe without sleeping): Python usually calls again at once, and a sleeping
   * loop would have to be woken for it, which costs more than the call on virtual machines. No
   * back-off: each answer is a new reason to expect the next call.
   */
  private readonly spinner: LoopSpinner;

  /** `runtime` identifies the runtime in re-entry scopes. */
  constructor(
    private readonly o: ResolvedOptions,
    private readonly runtime: object,
    private readonly hooks: ChildCallHooks,
  ) {
    this.spinner = new LoopSpinner(o.bridgePollMs, 0);
  }

  /** Answers a `tool` message (a `call_tool` that came through the child's main thread). */
  async answerTool(l: ChildLink, msg: Extract<FromChild, { type: 'tool' }>): Promise<void> {
    const result = await this.run(msg.name, msg.args, msg.instance);
    const plain = result.ok
      ? { ok: true as const, value: result.value }
      : result.hint
        ? { ok: false as const, error: { code: result.error.code, message: result.error.message }, hint: result.hint }
        : { ok: false as const, error: { code: result.error.code, message: result.error.message } };
    try {
      this.hooks.post(l, { type: 'tool-result', id: msg.id, result: plain });
    } catch (e) {
      this.hooks.post(l, { type: 'tool-result', id: msg.id, result: unsendable(shortName(msg.name), plain, e) });
    }
  }

  /** Answers a `call_tool` the Pyodide worker wrote on its pipe: the answer is encoded (and bounded) here. */
  async answerPipe(l: ChildLink, text: string): Promise<void> {
    const { o } = this;
    const t0 = performance.now();
    let request;
    try {
      request = parseMessage(ToolCallMessageSchema, parseToolJson(text));
    } catch (e) {
      request = { ok: false as const, error: (e as Error).message };
    }
    if (!request.ok) {
      // Only the runtime's own worker code writes here: a malformed request means it is not itself any more.
      return this.hooks.died(l, { reason: 'exit', detail: `it sent a malformed call_tool request (${request.error.slice(0, 200)})` });
    }
    const msg = request.value;
    l.calls.add(msg.callId);
    const name = shortName(msg.name);
    const result = await this.run(msg.name, msg.args, msg.instance);
    let status: number = result.ok ? TOOL_STATUS.ok : TOOL_STATUS.toolError;
    let payload: Uint8Array;
    try {
      payload = result.ok
        ? toAnswer(status, result.value, undefined, false, o.maxToolAnswerBytes)
        : toAnswer(status, { code: result.error.code, message: result.error.message, hint: result.hint });
    } catch (e) {
      const tooLarge = e instanceof MarshalTooLargeError;
      status = tooLarge ? TOOL_STATUS.toolError : TOOL_STATUS.bridgeError;
      payload = toAnswer(
        status,
        tooLarge
          ? { code: 'ANSWER_TOO_LARGE', message: `${name} answered with more than ${o.maxToolAnswerBytes} bytes (maxToolAnswerBytes); the answer was not delivered`, hint: 'Ask for less (a prefix, a page, a filter), or raise maxToolAnswerBytes.' }
          : { code: 'UNSENDABLE_RESULT', message: `${name} returned a value Python cannot receive: ${(e as Error).message}` },
      );
    }
    if (this.writeAnswer(l, msg.callId, status, payload)) {
      this.observe?.({ name, argBytes: msg.argBytes ?? 0, resultBytes: payload.byteLength, durationMs: performance.now() - t0, ok: status === TOOL_STATUS.ok });
    }
  }

  /** The worker went to sleep waiting for the answer to `callId`. */
  sleeping(l: ChildLink, callId: number): void {
    // Answered already (the answer and this crossed): wake it now; else when answering.
    if (l.calls.has(callId)) l.sleepers.add(callId);
    else this.hooks.post(l, { type: 'wake', id: 'wake' });
  }

  /** Performs a fetch Python asked for under the host's network policy, and answers it. */
  async answerFetch(l: ChildLink, msg: Extract<FromChild, { type: 'fetch' }>): Promise<void> {
    const { o } = this;
    const { id, type: _type, ...req } = msg;
    try {
      const response = await policyFetch(o.network, { type: 'fetch', id, ...req }, { maxBytes: o.maxToolAnswerBytes, timeoutMs: o.defaultTimeoutMs, owner: 'Python' });
      this.hooks.post(l, { type: 'fetch-result', id, ok: true, response });
    } catch (e) {
      const w = toWireError(e);
      this.hooks.post(l, { type: 'fetch-result', id, ok: false, error: w.code ? { name: w.name, message: w.message, code: w.code } : { name: w.name, message: w.message } });
    }
  }

  /** Ends every `call_tool` the worker is blocked on with "interrupted" (an interrupt, a timeout). */
  cutCalls(l: ChildLink): void {
    for (const callId of [...l.calls]) this.writeAnswer(l, callId, TOOL_STATUS.interrupted, toAnswer(TOOL_STATUS.interrupted, null));
  }

  /** Runs the handler for one call inside the runtime's re-entry scope. Never throws. */
  private async run(name: string, args: unknown, instance: string | undefined): Promise<Awaited<ReturnType<ToolCallHandler>>> {
    const h = this.handler;
    if (!h) return { ok: false, error: { code: 'NO_TOOLS', message: 'no tools are connected to this Python runtime' } };
    const scope = { runtime: this.runtime, tool: shortName(name), done: false };
    try {
      return await runInToolScope(scope, () => h(name, args, instance)).finally(() => (scope.done = true));
    } catch (e) {
      return { ok: false, error: { code: 'TOOL_FAILED', message: String((e as Error)?.message ?? e) } };
    }
  }

  /** Writes an answer frame on the worker's pipe, unless the call was cut short meanwhile. */
  private writeAnswer(l: ChildLink, callId: number, status: number, payload: Uint8Array): boolean {
    if (l.dead || !l.calls.delete(callId)) return false;
    this.spinner.hold();
    l.writeFrame(answerFrame(callId, status, payload));
    if (l.sleepers.delete(callId)) this.hooks.post(l, { type: 'wake', id: 'wake' });
    return true;
  }
}

/**
 * Why a tool's answer cannot go to the child: too large for a message, or not data. Marshal (what
 * Python would receive) names the offending path, which the structured clone does not.
 */
function unsendable(name: string, result: { ok: boolean; value?: unknown }, e: unknown): { ok: false; error: { code: string; message: string } } {
  if ((e as { code?: unknown }).code === 'MESSAGE_TOO_LARGE') {
    return { ok: false, error: { code: 'ANSWER_TOO_LARGE', message: `${name} answered with more than Python may receive: ${(e as Error).message}` } };
  }
  let why = (e as Error).message;
  try {
    toAnswer(0, result.value);
  } catch (marshal) {
    why = (marshal as Error).message;
  }
  return { ok: false, error: { code: 'UNSENDABLE_RESULT', message: `${name} returned a value Python cannot receive: ${why}` } };
}

/**
 * A frame writer for the pipe: small frames go out with one `writeSync` on its descriptor (a
 * stream write costs ~10 µs of machinery, several times the tiny call it carries); what does not
 * fit at once, and anything queued behind it, goes through the stream, which keeps the order.
 */
export async function directWriter(pipe: { write(chunk: Uint8Array): boolean; writableLength: number }): Promise<(frame: Uint8Array) => void> {
  const { writeSync } = await import('node:fs');
  const fd = (pipe as unknown as { _handle?: { fd?: unknown } })._handle?.fd;
  if (typeof fd !== 'number' || fd < 0) return (frame) => void pipe.write(frame);
  return (frame) => {
    if (pipe.writableLength === 0 && frame.length <= 64 * 1024) {
      let written = 0;
      try {
        written = writeSync(fd, frame);
      } catch (e) {
        if ((e as NodeJS.ErrnoException).code !== 'EAGAIN') throw e;
      }
      if (written === frame.length) return;
      pipe.write(frame.subarray(written));
      return;
    }
    pipe.write(frame);
  };
}
