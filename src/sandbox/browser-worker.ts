/**
 * The confined worker's script in browsers (bundled into one file and served with the CSP in
 * `worker-script.ts`). It waits for `init` on its global channel, keeps the private port it
 * carries, locks the global scope down, then imports the agent's module from a `blob:` URL.
 */
import { startAgentScope, type AgentScope } from './agent-scope.ts';
import { lockdownWorkerScope } from './lockdown.ts';
import { measureClone } from './measure.ts';
import { HostMessageSchema, InitMessageSchema, parseMessage, type HostMessage, type InitMessage, type WorkerMessage } from './protocol.ts';

interface WorkerScope {
  addEventListener(type: 'message', h: (e: MessageEvent) => void): void;
  removeEventListener(type: 'message', h: (e: MessageEvent) => void): void;
}

const scope = globalThis as unknown as WorkerScope;

function first(event: MessageEvent): void {
  scope.removeEventListener('message', first);
  const port = event.ports[0];
  const parsed = parseMessage(InitMessageSchema, event.data);
  if (!port || !parsed.ok) return;
  const init = parsed.value;
  // Captured before the lockdown and before any agent code: the only way out of this worker.
  const post = port.postMessage.bind(port);
  const moduleUrl = URL.createObjectURL(new Blob([init.source], { type: 'text/javascript' }));
  lockdownWorkerScope();
  const send = (msg: WorkerMessage) => {
    if (msg.type === 'result' || msg.type === 'cap' || msg.type === 'fetch') {
      const size = measureClone(msg, init.maxMessageBytes);
      if (size > init.maxMessageBytes) {
        const what = msg.type === 'result' ? 'the value' : `the ${msg.type} message`;
        throw Object.assign(new RangeError(`${what} is at least ${size} bytes; the limit is ${init.maxMessageBytes}`), { code: 'MESSAGE_TOO_LARGE' });
      }
    }
    post(msg);
  };
  const agent: AgentScope = startAgentScope({ post: send, load: () => import(/* @vite-ignore */ moduleUrl) as Promise<object> }, init as InitMessage);
  port.onmessage = (e: MessageEvent) => {
    const msg = parseMessage(HostMessageSchema, e.data);
    if (msg.ok && msg.value.type !== 'init') agent.receive(msg.value as Exclude<HostMessage, InitMessage>);
  };
}

scope.addEventListener('message', first);
