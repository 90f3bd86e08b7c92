/**
 * Named error classes with stable codes. Messages start with the operation that failed
 * (`[resolve] ...`), quote the offending value and suggest a fix.
 */

/** Plain, clone-safe description of an error, as it crosses tool, worker and event boundaries. */
export interface ErrorInfo {
  /** Stable machine-readable code, e.g. `MISSING_DEPENDENCY`. */
  code: string;
  /** Human-readable message. */
  message: string;
  /** Optional structured details (ids involved, validation issues, ...). */
  details?: unknown;
}

/** Base class of every error Armature raises on purpose. */
export class ArmatureError extends Error {
  /** Stable machine-readable code. */
  readonly code: string;
  /** Optional structured details. */
  readonly details?: unknown;
  /** What to try next; tool results carry it as `hint`. */
  readonly hint?: string;

  constructor(code: string, message: string, options?: { cause?: unknown; details?: unknown; hint?: string }) {
    super(message, options?.cause === undefined ? undefined : { cause: options.cause });
    this.name = new.target.name;
    this.code = code;
    this.details = options?.details;
    this.hint = options?.hint;
  }

  /** The clone-safe form of this error. */
  toJSON(): ErrorInfo {
    return this.details === undefined
      ? { code: this.code, message: this.message }
      : { code: this.code, message: this.message, details: this.details };
  }
}

/** A module asked for a dependency that no container in scope registers. */
export class MissingDependencyError extends ArmatureError {
  constructor(readonly moduleId: string, readonly dependencyId: string, registered: readonly string[]) {
    super(
      'MISSING_DEPENDENCY',
      `[resolve] ${moduleId} depends on ${dependencyId} which is not registered` +
        (registered.length ? ` (registered: ${registered.join(', ')})` : '') +
        `. Register ${dependencyId}, add it to the persona's upgrades, or mark it optional.`,
      { details: { moduleId, dependencyId } },
    );
  }
}

/** Dependencies form a cycle; `path` is the whole cycle, first id repeated at the end. */
export class DependencyCycleError extends ArmatureError {
  constructor(readonly path: readonly string[]) {
    super('DEPENDENCY_CYCLE', `[resolve] dependency cycle: ${path.join(' -> ')}. Break the cycle by making one dependency optional or moving shared code into a new module.`, {
      details: { path },
    });
  }
}

/** A module's factory or `init()` threw. */
export class ModuleInitError extends ArmatureError {
  constructor(readonly moduleId: string, cause: unknown) {
    super('MODULE_INIT_FAILED', `[init] ${moduleId} failed to initialize: ${describeError(cause)}`, { cause, details: { moduleId } });
  }
}

/** A module could not start because a module it depends on failed; names the root cause. */
export class DependencyFailedError extends ArmatureError {
  constructor(readonly moduleId: string, readonly dependencyId: string, readonly rootCause: Error) {
    const rootId = rootCause instanceof DependencyFailedError ? rootCause.rootModuleId : dependencyId;
    const root = rootCause instanceof DependencyFailedError ? rootCause.rootCause : rootCause;
    super('DEPENDENCY_FAILED', `[resolve] ${moduleId} cannot start because its dependency ${dependencyId} failed (root cause in ${rootId}: ${root.message})`, {
      cause: rootCause,
      details: { moduleId, dependencyId, rootModuleId: rootId },
    });
    this.rootModuleId = rootId;
  }
  /** The module whose own failure started the chain. */
  readonly rootModuleId: string;
}

/** Registering an id twice in the same container. */
export class DuplicateRegistrationError extends ArmatureError {
  constructor(readonly moduleId: string) {
    super('DUPLICATE_REGISTRATION', `[register] ${moduleId} is already registered in this container. Use a child container to override it.`, {
      details: { moduleId },
    });
  }
}

/** The container was used after `dispose()`. */
export class ContainerDisposedError extends ArmatureError {
  constructor(op: string, id?: string) {
    super('CONTAINER_DISPOSED', `[${op}] the container is disposed${id ? ` (asked for ${id})` : ''}. Boot a new system.`);
  }
}

/** A JSON manifest (upgrades, personas, tools) is missing or invalid. */
export class ManifestError extends ArmatureError {
  constructor(readonly file: string, message: string, details?: unknown) {
    super('MANIFEST_INVALID', `[manifest] ${file}: ${message}`, { details: { file, ...(details as object) } });
  }
}

/** Declared tools and implemented tools do not match for a module. */
export class ToolManifestMismatchError extends ArmatureError {
  constructor(readonly moduleId: string, readonly declaredOnly: readonly string[], readonly implementedOnly: readonly string[]) {
    const parts: string[] = [];
    if (declaredOnly.length)
      parts.push(`declared in the tool manifests but not implemented by ${moduleId}: ${declaredOnly.join(', ')} (implement them or remove the declarations)`);
    if (implementedOnly.length)
      parts.push(`implemented by ${moduleId} but declared in no tool manifest: ${implementedOnly.join(', ')} (add them to modules/tools-read.json or modules/tools-write.json)`);
    super('TOOL_MANIFEST_MISMATCH', `[tools] ${parts.join('; ')}`, { details: { moduleId, declaredOnly, implementedOnly } });
  }
}

/**
 * An error as one line for a person: `CODE: message`. A Python error's message already begins with
 * its type, which is its code (`ZeroDivisionError: division by zero`): the code is not said twice.
 */
export function errorLine(error: { code: string; message: string }): string {
  return error.message.startsWith(`${error.code}: `) ? error.message : `${error.code}: ${error.message}`;
}

/** A short description of anything thrown. */
export function describeError(error: unknown): string {
  if (error instanceof Error) return error.message;
  if (typeof error === 'string') return error;
  try {
    return JSON.stringify(error);
  } catch {
    return String(error);
  }
}

/** Converts anything thrown to the clone-safe {@link ErrorInfo}. */
export function toErrorInfo(error: unknown, fallbackCode = 'INTERNAL_ERROR'): ErrorInfo {
  if (error instanceof ArmatureError) return error.toJSON();
  if (error instanceof Error) return { code: fallbackCode, message: `${error.name}: ${error.message}` };
  return { code: fallbackCode, message: describeError(error) };
}
