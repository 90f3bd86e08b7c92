/**
 * The one message protocol between a confined worker's host and the worker (a Node child process
 * or a module Web Worker). Every message has `type` and `id`; both sides validate what they
 * receive with these schemas; errors cross as `{ name, message, stack?, code? }`.
 *
 * Host -> worker: `init` (once), `call`, `cap-result`, `fetch-result`, `deliver`.
 * Worker -> host: `loading` (once: the agent's module starts to run, so the time from here on is
 * its own, not the worker's start-up), `ready` / `load-failed` (once), `result`, `cap`, `fetch`,
 * `log`, `listen` (the first handler of an event name was added with `ctx.on`, or its last
 * removed: only names listened to are delivered), `delivered`.
 * A `call` is answered by exactly one `result` with its id; a `deliver` by one `delivered` with
 * its id once every handler of the event has returned and what it returned has settled; a `cap`
 * or `fetch` the worker sends is answered by one `cap-result` / `fetch-result` with the worker's id.
 */
import * as z from 'zod';
import { MAX_NAME_LENGTH } from '../kernel/bounded.ts';

const id = z.string().min(1).max(64);
const bytes = z.custom<Uint8Array>((v) => v instanceof Uint8Array, 'a Uint8Array');

/** Longest capability, event or export name, in characters (the kernel's bound for every name). */
export { MAX_NAME_LENGTH };
const name = z.string().min(1).max(MAX_NAME_LENGTH);

/** An error as it crosses the boundary. */
export const WireErrorSchema = z.object({
  name: z.string().max(200),
  message: z.string().max(64 * 1024),
  stack: z.string().max(64 * 1024).optional(),
  code: z.string().max(200).optional(),
});
export type WireError = z.infer<typeof WireErrorSchema>;

/** What the worker may reach on the network: nothing, or these origins (`https://api.example.com`). */
export const NetworkPolicySchema = z.union([z.literal('none'), z.array(z.string().max(2048)).max(256)]);
export type NetworkPolicy = z.infer<typeof NetworkPolicySchema>;

export const InitMessageSchema = z.object({
  type: z.literal('init'),
  id,
  /** For errors and logs. */
  name: z.string().max(200),
  /** The agent's ES module source. */
  source: z.string(),
  /** Names the agent's `ctx` gets; each call crosses to the host as a `cap` message. */
  capabilities: z.array(name).max(256),
  /** Normalized origins, or `none`. */
  network: NetworkPolicySchema,
  /** Largest message the worker may send, in bytes. */
  maxMessageBytes: z.number().int().positive(),
});
export type InitMessage = z.infer<typeof InitMessageSchema>;

export const CallMessageSchema = z.object({
  type: z.literal('call'),
  id,
  /** Export path, e.g. `['default']` or `['tools', 'lookup']`. */
  path: z.array(name).min(1).max(8),
  args: z.array(z.unknown()).max(64),
});
export const CapResultMessageSchema = z.discriminatedUnion('ok', [
  z.object({ type: z.literal('cap-result'), id, ok: z.literal(true), value: z.unknown() }),
  z.object({ type: z.literal('cap-result'), id, ok: z.literal(false), error: WireErrorSchema }),
]);
/** A response fetched by the host on the worker's behalf. */
export const FetchedSchema = z.object({
  status: z.number().int(),
  statusText: z.string().max(1024),
  url: z.string(),
  headers: z.array(z.tuple([z.string(), z.string()])),
  body: bytes,
});
export type Fetched = z.infer<typeof FetchedSchema>;
export const FetchResultMessageSchema = z.discriminatedUnion('ok', [
  z.object({ type: z.literal('fetch-result'), id, ok: z.literal(true), response: FetchedSchema }),
  z.object({ type: z.literal('fetch-result'), id, ok: z.literal(false), error: WireErrorSchema }),
]);
export const DeliverMessageSchema = z.object({ type: z.literal('deliver'), id, name, payload: z.unknown() });

/** Host -> worker. */
export const HostMessageSchema = z.discriminatedUnion('type', [InitMessageSchema, CallMessageSchema, CapResultMessageSchema, FetchResultMessageSchema, DeliverMessageSchema]);
export type HostMessage = z.infer<typeof HostMessageSchema>;

/** What `describe()` reports, sent once the module is loaded. */
export const ReadyMessageSchema = z.object({
  type: z.literal('ready'),
  id,
  /** The module's export names. */
  exports: z.array(z.string()).max(4096),
  /** Keys of the default export when it is an object (e.g. `init`, `tools`, `dispose`). */
  members: z.array(z.string()).max(4096).optional(),
  /** Keys of the `tools` object (an export, or a member of the default export). */
  tools: z.array(z.string()).max(4096).optional(),
});
export type ReadyMessage = z.infer<typeof ReadyMessageSchema>;
export const LoadFailedMessageSchema = z.object({ type: z.literal('load-failed'), id, error: WireErrorSchema });
export const ResultMessageSchema = z.discriminatedUnion('ok', [
  z.object({ type: z.literal('result'), id, ok: z.literal(true), value: z.unknown() }),
  z.object({ type: z.literal('result'), id, ok: z.literal(false), error: WireErrorSchema }),
]);
export const CapMessageSchema = z.object({ type: z.literal('cap'), id, name, args: z.array(z.unknown()).max(64) });
export const FetchMessageSchema = z.object({
  type: z.literal('fetch'),
  id,
  url: z.string().max(8192),
  method: z.string().max(16),
  headers: z.array(z.tuple([z.string().max(1024), z.string().max(16 * 1024)])).max(256),
  body: z.union([z.string(), bytes]).optional(),
});
export type FetchRequest = z.infer<typeof FetchMessageSchema>;
export const LogMessageSchema = z.object({ type: z.literal('log'), id, level: z.enum(['log', 'info', 'warn', 'error', 'debug']), text: z.string().max(64 * 1024) });
export type LogLevel = z.infer<typeof LogMessageSchema>['level'];
/** The worker's code listens to event `name` (`on`), or stopped (`!on`). */
export const ListenMessageSchema = z.object({ type: z.literal('listen'), id, name, on: z.boolean() });
/** The agent's module starts to run (sent once, before `ready` or `load-failed`). */
export const LoadingMessageSchema = z.object({ type: z.literal('loading'), id });
/** The handlers of the `deliver` with this id have finished. */
export const DeliveredMessageSchema = z.object({ type: z.literal('delivered'), id });

/** Worker -> host. */
export const WorkerMessageSchema = z.discriminatedUnion('type', [
  LoadingMessageSchema,
  ReadyMessageSchema,
  LoadFailedMessageSchema,
  ResultMessageSchema,
  CapMessageSchema,
  FetchMessageSchema,
  LogMessageSchema,
  ListenMessageSchema,
  DeliveredMessageSchema,
]);
export type WorkerMessage = z.infer<typeof WorkerMessageSchema>;

/**
 * Validates `msg` with `schema`; on failure returns a description naming the message type and the
 * problem, so a bad message is reported instead of crashing either side.
 */
export function parseMessage<S extends z.ZodType>(schema: S, msg: unknown): { ok: true; value: z.infer<S> } | { ok: false; error: string } {
  const r = schema.safeParse(msg);
  if (r.success) return { ok: true, value: r.data };
  const type = typeof msg === 'object' && msg && 'type' in msg ? String((msg as { type: unknown }).type).slice(0, 40) : typeof msg;
  return { ok: false, error: `invalid ${type} message: ${r.error.issues.slice(0, 5).map((i) => `${i.path.join('.') || '(root)'}: ${i.message}`).join('; ')}` };
}
