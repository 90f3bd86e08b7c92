/**
 * Events declared at run time: the channel agent-made upgrades emit on. The kernel's typed map
 * (`events.ts`) holds the system's own events, and built-in upgrades add theirs to it by module
 * augmentation (typed at compile time); an agent-made upgrade's events cannot be typed, so it
 * declares each one with a JSON Schema and the bus validates every payload at run time — through
 * zod's JSON Schema path, as the ToolRunner validates arguments. Declared events travel on the same
 * mitt emitter: they are in the history and reach `onAny`, never a typed `on` handler.
 */
import type * as z from 'zod';
import { quote } from './bounded.ts';
import { ArmatureError } from './errors.ts';
import type { Disposable } from './lifecycle.ts';
import { formatJsonPath } from './manifest-schemas.ts';
import { compileSchema } from './json-schema/tool-schema.ts';

/** An event an upgrade declares: its full name `<owner>:<event>` and the JSON Schema of its payload. */
export interface EventDeclaration {
  /** `<owner>:<event>`, both parts kebab-case, e.g. `notes-index:counted`. */
  name: string;
  /** JSON Schema every payload must satisfy. Default: any JSON value. */
  schema?: Record<string, unknown>;
}

/** One declared event as the history and `onAny` hold it. */
export interface DeclaredEventRecord {
  type: string;
  payload: unknown;
  /** `Date.now()` when emitted. */
  at: number;
  /** Monotonic sequence number, shared with the typed events. */
  seq: number;
  /** The upgrade that declared it. */
  owner: string;
  /** Marks a declared (run-time validated) event. */
  declared: true;
  /** The process on the data folder it came from, as on {@link EventRecord}; absent for the system's own. */
  process?: string;
}

/** What an upgrade holds after declaring its events; disposing it withdraws them. */
export interface DeclaredEvents extends Disposable {
  readonly owner: string;
  /** The full names declared. */
  readonly names: readonly string[];
  /**
   * Validates `payload` against the event's schema and emits it. Throws `UNDECLARED_EVENT` for a
   * name not declared here, `INVALID_EVENT` (naming the JSON path of each problem) for a payload
   * that does not fit, `EVENTS_WITHDRAWN` after disposal.
   */
  emit(name: string, payload: unknown): void;
}

/** Part of a declared event name: kebab-case, at most 40 characters. */
export const EVENT_PART = /^[a-z][a-z0-9-]{0,39}$/;

/** Largest payload of a declared event, in characters of JSON. */
export const MAX_DECLARED_PAYLOAD_CHARS = 64 * 1024;

/** Most events one owner may declare. */
export const MAX_DECLARED_EVENTS = 32;

/** A compiled declaration. */
export interface CompiledDeclaration {
  name: string;
  owner: string;
  validator: z.ZodType | undefined;
}

/** A problem with a declaration: what is wrong, and how to fix it when that is not obvious. */
interface DeclarationProblem {
  message: string;
  hint?: string;
}

/**
 * Compiles `owner`'s declarations, collecting every problem instead of stopping at the first: a
 * reserved owner (a kernel prefix or a built-in upgrade's), a name not of the form
 * `<owner>:<event>`, a duplicate, a schema that does not compile, too many events.
 */
function compileAll(owner: string, declarations: readonly EventDeclaration[], reserved: ReadonlySet<string>): { compiled: CompiledDeclaration[]; problems: DeclarationProblem[] } {
  const problems: DeclarationProblem[] = [];
  const compiled: CompiledDeclaration[] = [];
  if (typeof owner !== 'string' || !EVENT_PART.test(owner)) problems.push({ message: `owner ${quote(owner)} is not a kebab-case name`, hint: 'Owners are upgrade ids in kebab-case, e.g. "notes-index".' });
  else if (reserved.has(owner)) problems.push({ message: `events named ${owner}:* belong to the system`, hint: 'Choose another upgrade id: the kernel and the built-in upgrades own their prefixes.' });
  if (!Array.isArray(declarations)) return { compiled, problems: [...problems, { message: 'declarations must be a list of { name, schema? }' }] };
  if (declarations.length > MAX_DECLARED_EVENTS) problems.push({ message: `${declarations.length} events declared by ${owner}; at most ${MAX_DECLARED_EVENTS}` });
  const seen = new Set<string>();
  declarations.forEach((d, i) => {
    const name = d?.name;
    if (typeof name !== 'string' || !name.startsWith(`${owner}:`) || !EVENT_PART.test(name.slice(owner.length + 1))) {
      problems.push({ message: `events[${i}].name ${quote(name)} is not "${owner}:<event>" with a kebab-case event`, hint: `e.g. "${owner}:counted".` });
      return;
    }
    if (seen.has(name)) return void problems.push({ message: `event ${name} is declared twice` });
    seen.add(name);
    let validator: z.ZodType | undefined;
    if (d.schema !== undefined) {
      if (!d.schema || typeof d.schema !== 'object' || Array.isArray(d.schema)) return void problems.push({ message: `events[${i}].schema of ${name} must be a JSON Schema object` });
      try {
        validator = compileSchema(d.schema);
      } catch (e) {
        return void problems.push({ message: `events[${i}].schema of ${name} is not a usable JSON Schema: ${(e as Error).message.slice(0, 300)}` });
      }
    }
    compiled.push({ name, owner, validator });
  });
  return { compiled, problems };
}

/**
 * Checks `owner`'s declarations and compiles their schemas. Throws `INVALID_EVENT_DECLARATION`
 * naming the first offending owner, name or schema (see {@link declarationProblems} for all).
 */
export function compileDeclarations(owner: string, declarations: readonly EventDeclaration[], reserved: ReadonlySet<string>): CompiledDeclaration[] {
  const { compiled, problems } = compileAll(owner, declarations, reserved);
  const first = problems[0];
  if (first) throw new ArmatureError('INVALID_EVENT_DECLARATION', `[events] ${first.message}`, first.hint ? { hint: first.hint } : undefined);
  return compiled;
}

/**
 * Every reason the bus would refuse `owner`'s declarations, each a sentence with its fix; empty
 * when {@link compileDeclarations} would accept them. For checks that report all problems at once.
 */
export function declarationProblems(owner: string, declarations: readonly EventDeclaration[], reserved: ReadonlySet<string> = new Set()): string[] {
  return compileAll(owner, declarations, reserved).problems.map((p) => (p.hint ? `${p.message}, ${p.hint}` : `${p.message}.`));
}

/** Checks one payload of a compiled declaration; throws `INVALID_EVENT` saying where it does not fit. */
export function checkPayload(d: CompiledDeclaration, payload: unknown): unknown {
  let json: string | undefined;
  try {
    json = JSON.stringify(payload);
  } catch (e) {
    throw new ArmatureError('INVALID_EVENT', `[events] ${d.name}: the payload is not JSON data (${(e as Error).message})`, { hint: 'Emit plain data: objects, arrays, strings, numbers, booleans, null.' });
  }
  if (json === undefined) throw new ArmatureError('INVALID_EVENT', `[events] ${d.name}: the payload is ${quote(payload)}, not JSON data`, { hint: 'Emit plain data, e.g. { "count": 3 }.' });
  if (json.length > MAX_DECLARED_PAYLOAD_CHARS) {
    throw new ArmatureError('INVALID_EVENT', `[events] ${d.name}: the payload is ${json.length} characters of JSON; at most ${MAX_DECLARED_PAYLOAD_CHARS}`, { hint: 'Emit a summary; keep large data in storage.' });
  }
  // What subscribers get is a copy made through JSON: no functions, no shared references.
  const data = JSON.parse(json) as unknown;
  if (!d.validator) return data;
  const r = d.validator.safeParse(data);
  if (r.success) return data;
  const issues = r.error.issues.slice(0, 5).map((i) => `${formatJsonPath(i.path)}: ${i.message}`);
  throw new ArmatureError('INVALID_EVENT', `[events] ${d.name}: the payload does not fit its declared schema: ${issues.join('; ')}`, {
    hint: 'Emit what the schema declared in create_upgrade (events[].schema), or declare the new shape in update_upgrade.',
    details: { event: d.name, issues },
  });
}
