/**
 * The shape of `execute_python`'s result as an agent receives it, as data: the system prompt's
 * sentence about the result is written from it, and the compiler keeps it equal to the types the
 * result is built from (a field added to a type and not here does not compile).
 */
import type { ErrorInfo } from '../../src/kernel/errors.ts';
import type { ToolFailure, ToolSuccess } from '../../src/kernel/tool-contract.ts';
import type { ExecutePythonErrorDetails, ExecutePythonValue } from './python-tool-types.ts';

type OptionalKeys<T> = { [K in keyof T]-?: object extends Pick<T, K> ? K : never }[keyof T];

/** Every field of `T`, each marked as `T` marks it. */
type FieldsOf<T> = { readonly [K in keyof T]-?: K extends OptionalKeys<T> ? 'optional' : 'required' };

/** One level of a result: its fields, and the shape of those that are objects. */
export interface ResultShape {
  fields: Readonly<Record<string, 'optional' | 'required'>>;
  nested?: Readonly<Record<string, ResultShape>>;
}

/** A failed `execute_python`'s `error`: the Python exception type as `code`, and always `details`. */
type ExecutePythonError = ErrorInfo & { details: ExecutePythonErrorDetails };

/** A successful `execute_python`, as the ToolRunner returns it. */
export const EXECUTE_PYTHON_SUCCESS: ResultShape = {
  fields: { ok: 'required', value: 'required', durationMs: 'required' } satisfies FieldsOf<ToolSuccess<ExecutePythonValue>>,
  nested: {
    value: {
      fields: { value: 'required', stdout: 'required', stderr: 'required', executionTime: 'required', installed: 'optional', sync: 'optional', notice: 'optional' } satisfies FieldsOf<ExecutePythonValue>,
    },
  },
};

/** A failed `execute_python`, as the ToolRunner returns it. */
export const EXECUTE_PYTHON_FAILURE: ResultShape = {
  fields: { ok: 'required', error: 'required', hint: 'optional', durationMs: 'required' } satisfies FieldsOf<ToolFailure>,
  nested: {
    error: {
      fields: { code: 'required', message: 'required', details: 'required' } satisfies FieldsOf<ExecutePythonError>,
      nested: {
        details: {
          fields: { traceback: 'required', stdout: 'required', stderr: 'required', executionTime: 'required', line: 'optional', column: 'optional', notice: 'optional' } satisfies FieldsOf<ExecutePythonErrorDetails>,
        },
      },
    },
  },
};

/** How {@link renderShape} writes a shape. */
export interface RenderOptions {
  /** Fields written as a literal value, e.g. `{ ok: 'true' }`. */
  literals?: Readonly<Record<string, string>>;
  /** Fields left out (at any depth), shown as one `…` per object: what an agent rarely needs. */
  omit?: ReadonlySet<string>;
}

/** `{ ok: true, value: { value, stdout, ... }, durationMs }`: a shape as an agent reads it (optional fields with `?`). */
export function renderShape(shape: ResultShape, options: RenderOptions = {}): string {
  const parts: string[] = [];
  let omitted = false;
  for (const [name, kind] of Object.entries(shape.fields)) {
    if (options.omit?.has(name)) {
      omitted = true;
      continue;
    }
    const nested = shape.nested?.[name];
    const label = `${name}${kind === 'optional' ? '?' : ''}`;
    const literal = options.literals?.[name];
    parts.push(literal ? `${label}: ${literal}` : nested ? `${label}: ${renderShape(nested, { omit: options.omit })}` : label);
  }
  if (omitted) parts.push('…');
  return `{ ${parts.join(', ')} }`;
}

/**
 * Fields the prompt's sentence leaves out: timings and details of rarer cases (a notice explains itself when it comes). Each is a field of
 * the shapes above (a test checks it), so renaming one in the types shows here too.
 */
export const BRIEF_OMITS: ReadonlySet<string> = new Set(['durationMs', 'executionTime', 'installed', 'sync', 'line', 'column', 'notice']);

/** The system prompt's sentence about what `execute_python` returns: the shapes, briefly. */
export function describeExecutePythonResult(): string {
  const ok = renderShape(EXECUTE_PYTHON_SUCCESS, { literals: { ok: 'true' }, omit: BRIEF_OMITS });
  const failed = renderShape(EXECUTE_PYTHON_FAILURE, { literals: { ok: 'false' }, omit: BRIEF_OMITS });
  return `\`execute_python\` returns \`${ok}\` or \`${failed}\`; \`error.code\` is the Python exception type.`;
}
