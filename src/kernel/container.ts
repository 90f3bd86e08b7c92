import {
  ArmatureError,
  ContainerDisposedError,
  DependencyCycleError,
  DependencyFailedError,
  DuplicateRegistrationError,
  MissingDependencyError,
  ModuleInitError,
  toErrorInfo,
} from './errors.ts';
import type { ErrorInfo } from './errors.ts';

/** What a factory returns: the public `api` plus optional lifecycle hooks. */
export interface ModuleInstance<Api = unknown> {
  /** The module's public API, handed to dependents and returned by `resolve`. */
  api: Api;
  /** Runs once after the factory, before dependents are created. */
  init?(): void | Promise<void>;
  /** Runs on container disposal, dependents first. */
  dispose?(): void | Promise<void>;
}

/** Resolved dependencies by id; optional ones that are missing or failed are `undefined`. */
export type ResolvedDeps = Record<string, unknown>;

/** How to build one module. */
export interface ModuleDefinition<Api = unknown> {
  /** Unique id within the container, e.g. `ToolRunner`. */
  id: string;
  /** Ids this module needs. Default: none. */
  dependencies?: readonly string[];
  /** Ids this module uses when present. Default: none. */
  optionalDependencies?: readonly string[];
  /** Builds the instance from its dependencies' APIs. */
  factory(deps: ResolvedDeps): ModuleInstance<Api> | Promise<ModuleInstance<Api>>;
}

/** Lifecycle state of a registered module. */
export type ModuleState = 'registered' | 'resolving' | 'ready' | 'failed' | 'disposed';

/** Callbacks a container reports lifecycle facts to (the loader turns them into bus events). */
export interface ContainerHooks {
  /** Called when a module starts being built. */
  onLoading?(id: string): void;
  /** Called when a module's `init()` has resolved. */
  onLoaded?(id: string, durationMs: number): void;
  /** Called when a module failed, with the root module when it failed because of a dependency. */
  onFailed?(id: string, error: ErrorInfo, durationMs: number, rootCause?: string): void;
  /** Called after a module's `dispose()` ran. */
  onDisposed?(id: string): void;
}

interface Entry {
  def: ModuleDefinition;
  state: ModuleState;
  promise?: Promise<unknown>;
  instance?: ModuleInstance;
  error?: Error;
}

/**
 * A dependency-injection container. Modules are registered by id and built on first `resolve`,
 * dependencies first; each is a singleton within the container that registered it.
 * Child containers see their parent's modules and add their own (a scope per persona).
 */
export class Container {
  private readonly entries = new Map<string, Entry>();
  /** Ids in the order their `init()` finished: dependencies always before dependents. */
  private readonly readyOrder: string[] = [];
  private readonly children = new Set<Container>();
  private disposed = false;

  /**
   * @param parent Container whose modules this one can resolve. Default: none.
   * @param hooks Lifecycle callbacks. Default: none.
   */
  constructor(
    private readonly parent?: Container,
    private readonly hooks: ContainerHooks = {},
  ) {}

  /** Registers a module definition. Throws {@link DuplicateRegistrationError} for an id already here. */
  register<Api>(def: ModuleDefinition<Api>): void {
    if (this.disposed) throw new ContainerDisposedError('register', def.id);
    if (this.entries.has(def.id)) throw new DuplicateRegistrationError(def.id);
    this.entries.set(def.id, { def: def as ModuleDefinition, state: 'registered' });
  }

  /** Whether `id` is registered here or in an ancestor. */
  has(id: string): boolean {
    return this.entries.has(id) || (this.parent?.has(id) ?? false);
  }

  /** Ids registered in this container (not ancestors), in registration order. */
  ids(): string[] {
    return [...this.entries.keys()];
  }

  /** State of `id` in the nearest container that registers it, or `undefined`. */
  state(id: string): ModuleState | undefined {
    return this.entries.get(id)?.state ?? this.parent?.state(id);
  }

  /** The error a failed module ended with. */
  error(id: string): Error | undefined {
    return this.entries.get(id)?.error ?? this.parent?.error(id);
  }

  /** Resolves `id` to its module's API, building it and its dependencies on first use. */
  resolve<Api = unknown>(id: string): Promise<Api> {
    if (this.disposed) return Promise.reject(new ContainerDisposedError('resolve', id));
    return this.resolveFrom(id, [], undefined) as Promise<Api>;
  }

  /** A child container: resolves its own modules first, then this container's. */
  createChild(hooks: ContainerHooks = this.hooks): Container {
    if (this.disposed) throw new ContainerDisposedError('createChild');
    const child = new Container(this, hooks);
    this.children.add(child);
    return child;
  }

  /**
   * Disposes children first, then this container's modules in reverse order of readiness,
   * so every module is disposed before the modules it depends on. Errors thrown by `dispose()`
   * hooks are collected and rethrown together after every module had its turn.
   */
  async dispose(): Promise<void> {
    if (this.disposed) return;
    this.disposed = true;
    const errors: unknown[] = [];
    for (const child of [...this.children].reverse()) {
      try {
        await child.dispose();
      } catch (e) {
        errors.push(e);
      }
    }
    this.parent?.children.delete(this);
    // Modules still being built are awaited so none is left half-made.
    await Promise.allSettled([...this.entries.values()].map((e) => e.promise));
    for (const id of [...this.readyOrder].reverse()) {
      const entry = this.entries.get(id)!;
      try {
        await entry.instance?.dispose?.();
      } catch (e) {
        errors.push(e);
      }
      entry.state = 'disposed';
      this.hooks.onDisposed?.(id);
    }
    if (errors.length === 1) throw errors[0];
    if (errors.length > 1) throw new AggregateError(errors, `[dispose] ${errors.length} modules failed to dispose`);
  }

  private owner(id: string): Container | undefined {
    if (this.entries.has(id)) return this;
    return this.parent?.owner(id);
  }

  private resolveFrom(id: string, path: readonly string[], asker: string | undefined): Promise<unknown> {
    if (path.includes(id)) {
      return Promise.reject(new DependencyCycleError([...path.slice(path.indexOf(id)), id]));
    }
    const owner = this.owner(id);
    if (!owner) {
      return Promise.reject(
        asker
          ? new MissingDependencyError(asker, id, this.allIds())
          : new ArmatureError('NOT_REGISTERED', `[resolve] ${id} is not registered (registered: ${this.allIds().join(', ') || 'none'})`, {
              details: { id },
            }),
      );
    }
    return owner.build(id, path);
  }

  /** The first dependency cycle reachable from `id` through registered definitions, as a path. */
  private findCycle(id: string, path: readonly string[], seen = new Set<string>()): string[] | undefined {
    if (path.includes(id)) return [...path.slice(path.indexOf(id)), id];
    if (seen.has(id)) return undefined;
    seen.add(id);
    const def = this.owner(id)?.entries.get(id)?.def;
    if (!def) return undefined;
    for (const dep of [...(def.dependencies ?? []), ...(def.optionalDependencies ?? [])]) {
      const found = this.findCycle(dep, [...path, id], seen);
      if (found) return found;
    }
    return undefined;
  }

  private allIds(): string[] {
    return [...new Set([...(this.parent?.allIds() ?? []), ...this.entries.keys()])];
  }

  private build(id: string, path: readonly string[]): Promise<unknown> {
    const entry = this.entries.get(id)!;
    if (entry.promise) {
      // A module already being built that is reached again along the current path is a cycle;
      // the path check in resolveFrom catches that before we get here.
      return entry.promise;
    }
    entry.state = 'resolving';
    const started = now();
    this.hooks.onLoading?.(id);
    entry.promise = (async () => {
      // Checking the static graph first means concurrent resolves can never wait on each other in a loop.
      const cycle = this.findCycle(id, []);
      if (cycle) throw new DependencyCycleError(cycle);
      const deps: Record<string, unknown> = {};
      const nextPath = [...path, id];
      for (const dep of entry.def.dependencies ?? []) {
        try {
          deps[dep] = await this.resolveFrom(dep, nextPath, id);
        } catch (e) {
          throw wrapDependencyError(id, dep, e);
        }
      }
      for (const dep of entry.def.optionalDependencies ?? []) {
        if (!this.has(dep)) continue;
        try {
          deps[dep] = await this.resolveFrom(dep, nextPath, id);
        } catch (e) {
          // A cycle is a design error even through an optional edge; a failed optional one is just absent.
          if (e instanceof DependencyCycleError) throw e;
        }
      }
      let instance: ModuleInstance;
      try {
        instance = await entry.def.factory(deps);
        if (!instance || typeof instance !== 'object' || !('api' in instance)) {
          throw new TypeError(`factory must return { api, init?, dispose? }, got ${JSON.stringify(instance)}`);
        }
        entry.instance = instance;
        await instance.init?.();
      } catch (e) {
        if (e instanceof ModuleInitError && e.moduleId === id) throw e;
        throw new ModuleInitError(id, e);
      }
      return instance.api;
    })().then(
      (api) => {
        entry.state = this.disposed ? 'disposed' : 'ready';
        this.readyOrder.push(id);
        this.hooks.onLoaded?.(id, now() - started);
        return api;
      },
      (error: Error) => {
        entry.state = 'failed';
        entry.error = error;
        // Dispose what the factory made if init failed, so no half-started resource leaks.
        void Promise.resolve()
          .then(() => entry.instance?.dispose?.())
          .catch(() => undefined);
        const root = error instanceof DependencyFailedError ? error.rootModuleId : undefined;
        this.hooks.onFailed?.(id, toErrorInfo(error), now() - started, root);
        throw error;
      },
    );
    return entry.promise;
  }
}

function wrapDependencyError(id: string, dep: string, e: unknown): Error {
  // A cycle names every id involved already; so does a dependency of our own that is missing.
  if (e instanceof DependencyCycleError) return e;
  if (e instanceof MissingDependencyError && e.moduleId === id) return e;
  return new DependencyFailedError(id, dep, e instanceof Error ? e : new Error(String(e)));
}

function now(): number {
  return typeof performance !== 'undefined' ? performance.now() : Date.now();
}
