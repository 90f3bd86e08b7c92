/**
 * Browser: a confined worker is a module Web Worker running `browser-worker.ts` (served with the
 * CSP in `worker-script.ts`). The host hands it a private MessageChannel port in the `init`
 * message and from then on listens only to that port: the worker's global channel is ignored.
 */
import { SandboxError } from './errors.ts';
import { measureClone } from './measure.ts';
import { SANDBOX_WORKER_PATH } from './worker-script.ts';
import type { SandboxTransport, TransportExit, TransportOptions } from './transport.ts';

/** Starts the Web Worker and returns the host's side of it. */
export async function startBrowserSandbox(options: TransportOptions): Promise<SandboxTransport> {
  const worker = new Worker(options.workerUrl ?? new URL(SANDBOX_WORKER_PATH, location.href), { type: 'module', name: `armature-sandbox:${options.name.slice(0, 60)}` });
  const channel = new MessageChannel();
  let handler: (raw: unknown) => void = () => undefined;
  let exitHandler: (e: TransportExit) => void = () => undefined;
  let ended = false;
  let sentInit = false;
  channel.port1.onmessage = (e) => handler(e.data);
  channel.port1.onmessageerror = () => undefined;
  worker.addEventListener('error', (e) => {
    e.preventDefault();
    if (ended) return;
    ended = true;
    worker.terminate();
    exitHandler({ reason: 'error', detail: e.message || `the worker script failed to load or crashed (is ${String(options.workerUrl ?? SANDBOX_WORKER_PATH)} served?)` });
  });
  return {
    post(msg) {
      if (ended) return;
      if (msg.type === 'init') {
        // The only message on the worker's global channel: it carries the private port.
        if (sentInit) throw new SandboxError('SANDBOX_PROTOCOL', '[sandbox] init was already sent');
        sentInit = true;
        worker.postMessage(msg, [channel.port2]);
        return;
      }
      if (msg.type === 'call' || msg.type === 'cap-result' || msg.type === 'fetch-result' || msg.type === 'deliver') {
        const size = measureClone(msg, options.maxMessageBytes);
        if (size > options.maxMessageBytes) {
          const what = msg.type === 'call' ? 'the arguments' : `the ${msg.type} message`;
          throw new SandboxError('MESSAGE_TOO_LARGE', `[sandbox] ${options.name}: ${what} is at least ${size} bytes; the limit is ${options.maxMessageBytes}`, {
            hint: 'Pass less data, or raise limits.maxMessageBytes.',
            details: { limit: options.maxMessageBytes },
          });
        }
      }
      try {
        channel.port1.postMessage(msg);
      } catch (e) {
        throw new SandboxError('SANDBOX_PROTOCOL', `[sandbox] ${options.name}: the ${msg.type} message cannot be sent (${(e as Error).message}); pass plain data`, { cause: e });
      }
    },
    onMessage(h) {
      handler = h;
    },
    onExit(h) {
      exitHandler = h;
    },
    async terminate() {
      ended = true;
      worker.terminate();
      channel.port1.close();
    },
  };
}
