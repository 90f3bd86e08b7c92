/**
 * The shape of `execute_python`'s result as an agent receives it, as data: the system prompt's
 * sentence about the result is written from it, and the compiler keeps it equal to the types the
 * result is built from (a field added to a type and not here does not compile).
 */
import type { ErrorInfo } from '../../src/kernel/errors.ts';
import type { ToolFailure, ToolSuccess } from '../../src/kernel/tool-contract.ts';
import type { ExecutePythonErrorDetails, ExecutePythonValue } from './python-tool.ts';

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
      fields: { value: 'required', stdout: 'required', stderr: 'required', executionTime: 'required', installed: 'optional', sync: 'optional' } satisfies FieldsOf<ExecutePythonValue>,
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
          fields: { traceback: 'required', stdout: 'required', stderr: 'required', executionTime: 'required', line: 'optional', column: 'optional' } satisfies FieldsOf<ExecutePythonErrorDetails>,
        },
      },
    },
  },
};

/** `{ ok: true, value: { value, stdout, ... }, durationMs }`: a shape as an agent reads it (optional fields with `?`). */
export function renderShape(shape: ResultShape, literals: Readonly<Record<string, string>> = {}): string {
  const parts = Object.entries(shape.fields).map(([name, kind]) => {
    const nested = shape.nested?.[name];
    const label = `${name}${kind === 'optional' ? '?' : ''}`;
    if (literals[name]) return `${label}: ${literals[name]}`;
    return nested ? `${label}: ${renderShape(nested)}` : label;
  });
  return `{ ${parts.join(', ')} }`;
}

/** The system prompt's sentence about what `execute_python` returns. */
export function describeExecutePythonResult(): string {
  return `\`execute_python\` returns \`${renderShape(EXECUTE_PYTHON_SUCCESS, { ok: 'true' })}\` or \`${renderShape(EXECUTE_PYTHON_FAILURE, { ok: 'false' })}\`, where \`error.code\` is the Python exception type (e.g. \`ZeroDivisionError\`, \`TimeoutError\`).`;
}
