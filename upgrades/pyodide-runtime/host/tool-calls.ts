/**
 * Answering `call_tool` from Python, host side: runs the tool handler inside the re-entry scope,
 * encodes the answer (straight into the shared answer region over shared memory, as a
 * `tool-result` message otherwise), sends long lists in parts, and reports each answered call.
 */
import { MarshalTooLargeError, toAnswer } from '../../../src/bridge/marshal.ts';
import { shortName } from '../../../src/kernel/bounded.ts';
import type { RequestPoller } from '../../../src/bridge/request-poller.ts';
import type { SlotRequest, SyncChannelHost } from '../../../src/bridge/sync-channel.ts';
import { parseToolJson } from '../../../src/bridge/tool-request.ts';
import { ToolCallMessageSchema, parseMessage, type Transport } from '../protocol/protocol.ts';
import { MORE_PARTS, TOOL_STATUS } from '../python/python-prelude.ts';
import type { BridgeCall, ToolCallHandler } from './runtime-types.ts';
import { runInToolScope, type ToolCallScope } from './tool-call-scope.ts';

/** Lists longer than `minItems` are answered in parts: `firstItems`, then about `bytes` each. */
const PARTS = { minItems: 2000, firstItems: 500, bytes: 1 << 20 };

/** The worker a call is answered to: whether it is gone, its shared channel, its message port. */
export interface AnswerTarget {
  readonly dead: boolean;
  readonly bridge?: { host: SyncChannelHost; poller: RequestPoller };
  readonly worker: { post(msg: unknown, transfer?: Transferable[]): void };
}

/** One `call_tool` request as the worker sent it (a `tool-call` message or the shared slot's JSON). */
export interface ToolCallRequest {
  id: string;
  callId: number;
  name: string;
  args: unknown;
  instance?: string;
  argBytes?: number;
}

/** Answers `call_tool` requests for one runtime (every worker it starts). */
export class ToolCallAnswerer {
  private handler: ToolCallHandler | undefined;
  private observe: ((call: BridgeCall) => void) | undefined;

  /**
   * `runtime` identifies the runtime in re-entry scopes (see `tool-call-scope.ts`); an answer's
   * marshal document may be at most `maxAnswerBytes` (the encoding stops there).
   */
  constructor(
    private readonly runtime: object,
    handler?: ToolCallHandler,
    private readonly maxAnswerBytes = Infinity,
  ) {
    this.handler = handler;
  }

  /** Sets who runs the tools, and who hears about each answered call. */
  setHandler(handler: ToolCallHandler | undefined, observe?: (call: BridgeCall) => void): void {
    this.handler = handler;
    this.observe = observe;
  }

  /** Runs the tool for `msg` and sends its answer to `target` over `transport`. Never throws. */
  async answer(target: AnswerTarget, msg: ToolCallRequest, transport: Transport): Promise<void> {
    if (target.dead) return;
    const t0 = performance.now();
    let status: number = TOOL_STATUS.ok;
    let payload: Uint8Array;
    // Reported (events, warnings) but never whole when huge: the ToolRunner refuses such a name.
    const shown = shortName(msg.name);
    const scope: ToolCallScope = { runtime: this.runtime, tool: shown, done: false };
    try {
      const handler = this.handler;
      const pending = handler ? runInToolScope(scope, () => handler(msg.name, msg.args, msg.instance)) : undefined;
      const r = pending
        ? await pending.finally(() => (scope.done = true))
        : { ok: false as const, error: { code: 'NO_TOOLS', message: 'no tools are connected to this Python runtime' } };
      if (r.ok && transport === 'shared-memory' && target.bridge && Array.isArray(r.value) && r.value.length > PARTS.minItems) {
        return await this.answerInParts(target, msg, r.value, t0);
      }
      if (r.ok) {
        try {
          // Over shared memory the value is encoded straight into the free answer region, and
          // respond() below (same task) publishes it without copying.
          payload = toAnswer(status, r.value, transport === 'shared-memory' && !target.dead ? target.bridge?.host.answerTarget() : undefined, false, this.maxAnswerBytes);
        } catch (e) {
          status = e instanceof MarshalTooLargeError ? TOOL_STATUS.toolError : TOOL_STATUS.bridgeError;
          payload = e instanceof MarshalTooLargeError ? tooLarge(shown, e) : unsendable(shown, e);
        }
      } else {
        status = TOOL_STATUS.toolError;
        payload = toAnswer(status, { code: r.error.code, message: r.error.message, hint: r.hint });
      }
    } catch (e) {
      status = TOOL_STATUS.bridgeError;
      payload = toAnswer(status, { code: 'BRIDGE_FAILED', message: String((e as Error).message ?? e) });
    }
    if (target.dead) return;
    const call: BridgeCall = { name: shown, argBytes: msg.argBytes ?? 0, resultBytes: payload.byteLength, durationMs: performance.now() - t0, ok: status === TOOL_STATUS.ok };
    if (transport === 'shared-memory' && target.bridge) {
      // Python usually calls again right away: watch the request slot instead of waiting to be
      // woken. Before answering, so the worker already sees the host watching when it asks again.
      target.bridge.poller.watch();
      const written = target.bridge.host.respond(msg.callId, payload, status).catch(() => undefined);
      this.observe?.(call);
      await written;
    } else {
      target.worker.post({ type: 'tool-result', id: msg.id, callId: msg.callId, status, payload }, [payload.buffer as ArrayBuffer]);
      this.observe?.(call);
    }
  }

  /** Answers a request taken from the shared slot (by the poller or after a `tool-call-ready`). */
  answerSlot(target: AnswerTarget, request: SlotRequest): void {
    let parsed: ReturnType<typeof parseMessage<typeof ToolCallMessageSchema>>;
    try {
      parsed = parseMessage(ToolCallMessageSchema, parseToolJson(request.text));
    } catch (e) {
      parsed = { ok: false, error: `the request is not JSON: ${(e as Error).message}` };
    }
    if (!parsed.ok) {
      const payload = toAnswer(TOOL_STATUS.bridgeError, { code: 'BRIDGE_FAILED', message: `malformed call_tool request: ${parsed.error}` });
      void target.bridge?.host.respond(request.callId, payload, TOOL_STATUS.bridgeError).catch(() => undefined);
      return;
    }
    void this.answer(target, parsed.value, 'shared-memory');
  }

  /**
   * Sends a long list in parts (about 1 MiB each after a small first one) so that encoding and
   * decoding overlap: the host encodes part k+1 while Python decodes part k (the worker copies
   * each part out and frees the region at once). Stops if the worker has moved on to another call
   * (an interrupt). Never throws.
   */
  private async answerInParts(target: AnswerTarget, msg: ToolCallRequest, list: unknown[], t0: number): Promise<void> {
    const bridge = target.bridge!;
    let start = 0;
    let count = PARTS.firstItems;
    let bytes = 0;
    let ok = true;
    try {
      while (!target.dead) {
        const end = Math.min(list.length, start + count);
        let more = end < list.length;
        let status: number = TOOL_STATUS.ok;
        let payload: Uint8Array;
        try {
          payload = toAnswer(status, list.slice(start, end), bridge.host.answerTarget(), more, this.maxAnswerBytes - bytes);
        } catch (e) {
          more = false;
          ok = false;
          if (e instanceof MarshalTooLargeError) {
            status = TOOL_STATUS.toolError;
            payload = tooLarge(msg.name.slice(0, 128), new MarshalTooLargeError(bytes + e.bytes, this.maxAnswerBytes));
          } else {
            status = TOOL_STATUS.bridgeError;
            payload = unsendable(msg.name.slice(0, 128), e, ` (in items ${start}..${end - 1})`);
          }
        }
        bytes += payload.byteLength;
        if (!more) bridge.poller.watch();
        await bridge.host.respond(msg.callId, payload, more ? status | MORE_PARTS : status);
        if (!more) break;
        // Encode the next part once this one is copied out, while Python decodes it.
        await bridge.host.whenTaken();
        if (!bridge.host.clientWaitsFor(msg.callId)) return;
        count = Math.max(100, Math.round(PARTS.bytes / (payload.byteLength / (end - start))));
        start = end;
      }
    } catch {
      // The worker stopped taking parts (it was interrupted, or died): nothing more to send.
      return;
    }
    if (!target.dead) this.observe?.({ name: msg.name, argBytes: msg.argBytes ?? 0, resultBytes: bytes, durationMs: performance.now() - t0, ok });
  }
}

/** `ANSWER_TOO_LARGE`: the tool's value is more than Python may receive. */
function tooLarge(name: string, e: MarshalTooLargeError): Uint8Array {
  return toAnswer(TOOL_STATUS.toolError, {
    code: 'ANSWER_TOO_LARGE',
    message: `${name} answered with more than ${e.limit} bytes (maxToolAnswerBytes); the answer was not delivered`,
    hint: 'Ask for less (a prefix, a page, a filter), or raise maxToolAnswerBytes.',
  });
}

/** `UNSENDABLE_RESULT` for a tool value marshal refused (`where`: which items, for a list in parts). */
function unsendable(name: string, e: unknown, where = ''): Uint8Array {
  return toAnswer(TOOL_STATUS.bridgeError, { code: 'UNSENDABLE_RESULT', message: `${name} returned a value Python cannot receive: ${(e as Error).message}${where}` });
}
