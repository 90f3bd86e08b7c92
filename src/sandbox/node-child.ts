/**
 * Entry of the confined Node child (bundled to plain JavaScript, run under the permission model
 * with an empty environment). Its main realm speaks frames with the host over fd 3; the agent's
 * module runs in a fresh V8 context with ECMAScript built-ins and what `inner-realm.ts` adds, no
 * code generation from strings, and every `import` refused. `process`, `require` and Node's
 * built-in modules exist only in this main realm, which the agent's realm holds no reference to.
 */
import { Socket } from 'node:net';
import vm from 'node:vm';
import { encodeFrame, FrameReader } from './frames.ts';
import type { InnerHost } from './inner-realm.ts';
import { HostMessageSchema, InitMessageSchema, parseMessage, type HostMessage, type InitMessage, type WorkerMessage } from './protocol.ts';
import type { AgentScope } from './agent-scope.ts';

/** Source of the agent realm's script (inner-realm.ts bundled), put here by the bundler. */
declare const __ARMATURE_INNER_REALM__: string;

/** Most bytes of one message the host sends (its own limit is enforced when it encodes). */
const HOST_FRAME_LIMIT = 0xffff_ffff;

const channel = new Socket({ fd: 3, readable: true, writable: true });
let maxMessageBytes = 0;
let scope: AgentScope | undefined;

function send(msg: WorkerMessage): void {
  channel.write(encodeFrame(msg, maxMessageBytes || 64 * 1024, msg.type === 'result' ? 'the value' : `the ${msg.type} message`));
}

function refuse(what: string) {
  return (specifier: string): never => {
    const e = new Error(`${what} ${JSON.stringify(String(specifier).slice(0, 200))} refused: code in a confined worker imports nothing; use the capabilities in ctx`);
    throw Object.assign(e, { code: 'IMPORT_REFUSED' });
  };
}

/** Freezes a constructor and its prototype, so the agent cannot change what the main realm relies on. */
function frozen<T extends object>(value: T): T {
  const proto = (value as { prototype?: object }).prototype;
  if (proto) Object.freeze(proto);
  return Object.freeze(value);
}

function start(init: InitMessage): void {
  maxMessageBytes = init.maxMessageBytes;
  const context = vm.createContext(Object.create(null), {
    name: `agent:${init.name}`,
    codeGeneration: { strings: false, wasm: false },
  });
  const timers = new Map<number, ReturnType<typeof setTimeout>>();
  let nextTimer = 0;
  const host: InnerHost = {
    post: send,
    async load() {
      const mod = new vm.SourceTextModule(init.source, {
        context,
        identifier: `agent:${init.name}`,
        importModuleDynamically: refuse('import()') as never,
      });
      await mod.link(refuse('import'));
      await mod.evaluate();
      return mod.namespace;
    },
    setTimer(fn, ms, repeat) {
      const id = ++nextTimer;
      const t = repeat ? setInterval(fn, ms) : setTimeout(() => (timers.delete(id), fn()), ms);
      timers.set(id, t);
      return id;
    },
    clearTimer(id) {
      clearTimeout(timers.get(id));
      timers.delete(id);
    },
    globals: {
      URL: frozen(URL),
      URLSearchParams: frozen(URLSearchParams),
      TextEncoder: frozen(TextEncoder),
      TextDecoder: frozen(TextDecoder),
      atob: frozen(atob),
      btoa: frozen(btoa),
      crypto: Object.freeze({
        getRandomValues: <T extends ArrayBufferView>(a: T) => crypto.getRandomValues(a as never) as T,
        randomUUID: () => crypto.randomUUID(),
      }),
    },
  };
  const install = vm.runInContext(`(() => { ${__ARMATURE_INNER_REALM__}; return __armatureInner.install; })()`, context) as (
    h: InnerHost,
    i: InitMessage,
  ) => AgentScope;
  scope = install(host, init);
}

// The agent's timers and handlers run here; what they throw is the agent's problem, not a reason to exit.
process.on('uncaughtException', (e) => {
  try {
    send({ type: 'log', id: 'log', level: 'error', text: `uncaught: ${String((e as Error)?.stack ?? e).slice(0, 4000)}` });
  } catch {
    // Nothing more to do: the host still has the process's stderr.
  }
});
process.on('unhandledRejection', (e) => {
  try {
    send({ type: 'log', id: 'log', level: 'error', text: `unhandled rejection: ${String((e as Error)?.stack ?? e).slice(0, 4000)}` });
  } catch {
    // As above.
  }
});

const reader = new FrameReader(HOST_FRAME_LIMIT, {
  message(raw) {
    if (!scope) {
      const init = parseMessage(InitMessageSchema, raw);
      if (!init.ok) {
        send({ type: 'load-failed', id: 'init', error: { name: 'ProtocolError', message: init.error } });
        return;
      }
      start(init.value);
      return;
    }
    const msg = parseMessage(HostMessageSchema, raw);
    if (!msg.ok || msg.value.type === 'init') return;
    scope.receive(msg.value as Exclude<HostMessage, InitMessage>);
  },
  oversize() {},
  malformed() {},
});
channel.on('data', (chunk: Buffer) => reader.push(chunk));
// The host went away: nothing is left to answer.
channel.on('close', () => process.exit(0));
channel.on('error', () => process.exit(0));
