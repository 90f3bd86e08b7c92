/**
 * The JavaScript half of `call_tool` inside the worker: the `_armature_js` module's `call_sync`
 * (shared slot + blocking wait), `next_part` (the next part of a long answer) and `call_async`
 * (a `tool-call` message answered by a `tool-result`).
 */
import { toAnswer } from '../../../src/bridge/marshal.ts';
import { SyncChannelAbort, SyncChannelClient } from '../../../src/bridge/sync-channel.ts';
import { parseToolJson, toolRequestText } from '../../../src/bridge/tool-request.ts';
import { ToolPipeClient, ToolPipeInterrupted, type SyncFs } from '../../../src/bridge/tool-pipe.ts';
import type { WorkerMessage } from '../protocol/protocol.ts';
import { MORE_PARTS, TOOL_STATUS } from '../python/python-prelude.ts';
import type { WorkerOutput } from './output.ts';
import type { Port } from './port.ts';

/** `call_tool` from the worker's side, for one interpreter. */
export class WorkerBridge {
  private channel: SyncChannelClient | undefined;
  private interrupt: Int32Array | undefined;
  private callSeq = 0;
  private readonly pendingAsync = new Map<number, (status: number, payload: Uint8Array) => void>();
  /** The call whose answer parts `next_part` receives. */
  private lastCallId = 0;
  /** Where a part is copied so the shared region is freed at once (reused: no fresh pages per part). */
  private partCopy = new Uint8Array(0);

  constructor(
    private readonly port: Port,
    private readonly output: WorkerOutput,
  ) {}

  /** Largest arguments (JSON) a call may send. */
  private maxArgBytes = Infinity;
  /** In a confined child: the pipe to the host that `call_sync` uses instead of the shared channel. */
  private pipe: ToolPipeClient | undefined;

  /**
   * Sends `call_sync` over the pipe `fd` to the host (a confined child's worker). Call ids start at
   * a random number, so an answer left over from a worker this one replaced never matches.
   */
  connectPipe(fd: number, fs: SyncFs, wake: SharedArrayBuffer): void {
    this.pipe = new ToolPipeClient(fd, fs, new Int32Array(wake), this.interrupt);
    this.callSeq = Math.floor(Math.random() * 2 ** 30);
  }

  /**
   * Uses the shared channel (shared-memory transport) and the interrupt buffer a blocked wait
   * watches; arguments over `maxArgBytes` are refused here, before anything is sent.
   */
  connect(
    channel: { control: SharedArrayBuffer; data: SharedArrayBuffer; request: SharedArrayBuffer } | undefined,
    interrupt: Int32Array | undefined,
    maxArgBytes = Infinity,
  ): void {
    this.channel = channel ? new SyncChannelClient(channel) : undefined;
    this.interrupt = interrupt;
    this.maxArgBytes = maxArgBytes;
  }

  /** The refusal of arguments over the limit, or undefined when they fit. */
  private tooLarge(name: string, argsJson: string): Uint8Array | undefined {
    if (argsJson.length <= this.maxArgBytes) return undefined;
    return toAnswer(TOOL_STATUS.toolError, {
      code: 'ARGUMENTS_TOO_LARGE',
      message: `the arguments of ${name.slice(0, 128)} are ${argsJson.length} bytes of JSON; the limit is ${this.maxArgBytes} (maxToolArgBytes)`,
      hint: 'Pass less data (write it to a workspace file and pass its path), or raise maxToolArgBytes.',
    });
  }

  /**
   * `_armature_js.call_sync`: offers the request and blocks on the shared channel. The answer —
   * marshal of `(status, value)` — is returned as a view of the shared region: Python copies it
   * at once (`to_bytes`), and the region is released at the next call or the end of the run.
   */
  callSync = (name: string, argsJson: string, instance?: string | null): Uint8Array => {
    const refused = this.tooLarge(name, argsJson);
    if (refused) return refused;
    if (this.pipe) {
      const callId = ++this.callSeq;
      try {
        // The host encodes the answer (marshal, bounded) and may cut the call short with an interrupted one.
        this.pipe.send(toolRequestText({ id: this.output.run?.id ?? 'none', callId, name, instance }, argsJson));
        return this.pipe.receive(callId).payload;
      } catch (e) {
        return failedAnswer(e);
      }
    }
    if (!this.channel) return toAnswer(TOOL_STATUS.bridgeError, { code: 'NO_CHANNEL', message: 'the shared-memory channel is not set up' });
    const callId = ++this.callSeq;
    try {
      // The request goes through the shared slot; a message follows only if the host is not
      // already watching it (after an answer it watches for a moment: calls come in bursts).
      const id = this.output.run?.id ?? 'none';
      const outcome = this.channel.offer(callId, toolRequestText({ id, callId, name, instance }, argsJson));
      if (outcome === 'notify') this.port.post({ type: 'tool-call-ready', id, callId });
      else if (outcome === 'too-large') this.port.post(this.toolCall(callId, name, argsJson, instance));
      this.lastCallId = callId;
      return this.receive(callId);
    } catch (e) {
      return failedAnswer(e);
    }
  };

  /** `_armature_js.next_part`: the next part of the answer to the last `call_sync`. */
  nextPart = (): Uint8Array => {
    if (!this.channel) return toAnswer(TOOL_STATUS.bridgeError, { code: 'NO_CHANNEL', message: 'the shared-memory channel is not set up' });
    try {
      return this.receive(this.lastCallId);
    } catch (e) {
      return failedAnswer(e);
    }
  };

  /** `_armature_js.call_async`: posts the call; the answer arrives as a `tool-result` message. */
  callAsync = (name: string, argsJson: string, instance?: string | null): Promise<Uint8Array> => {
    const refused = this.tooLarge(name, argsJson);
    if (refused) return Promise.resolve(refused);
    const callId = ++this.callSeq;
    return new Promise((resolve) => {
      this.pendingAsync.set(callId, (_status, payload) => resolve(payload));
      this.port.post(this.toolCall(callId, name, argsJson, instance));
    });
  };

  /** A `tool-result` arrived for an async call. */
  resolveAsync(callId: number, status: number, payload: Uint8Array): void {
    this.pendingAsync.get(callId)?.(status, payload);
    this.pendingAsync.delete(callId);
  }

  /** Frees the shared answer region (the last answer of a run may still hold it). */
  release(): void {
    this.channel?.release();
  }

  /** The next answer to `callId`: a view of the shared region, or for a part with more to come a copy. */
  private receive(callId: number): Uint8Array {
    const { status, payload } = this.channel!.waitFor(callId, { interrupt: this.interrupt, view: true });
    if (!(status & MORE_PARTS)) return payload;
    if (this.partCopy.length < payload.length) this.partCopy = new Uint8Array(Math.max(payload.length, 2 * this.partCopy.length));
    this.partCopy.set(payload);
    // Free the region now: the host places the next part while Python decodes this one.
    this.channel!.release();
    return this.partCopy.subarray(0, payload.length);
  }

  private toolCall(callId: number, name: string, argsJson: string, instance: string | null | undefined): WorkerMessage {
    const msg = { type: 'tool-call' as const, id: this.output.run?.id ?? 'none', callId, name, args: parseToolJson(argsJson), argBytes: argsJson.length };
    return typeof instance === 'string' ? { ...msg, instance } : msg;
  }
}

function failedAnswer(e: unknown): Uint8Array {
  if ((e instanceof SyncChannelAbort && e.reason === 'interrupted') || e instanceof ToolPipeInterrupted) return toAnswer(TOOL_STATUS.interrupted, null);
  return toAnswer(TOOL_STATUS.bridgeError, { code: 'BRIDGE_FAILED', message: String((e as Error).message) });
}
