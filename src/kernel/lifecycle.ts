import { describeError } from './errors.ts';

/**
 * Something that holds a resource until `dispose()` is called. Calling it twice is harmless. The
 * kernel's own disposables also answer `Symbol.dispose`, so `using` works with them.
 */
export interface Disposable {
  dispose(): void;
}

/** A {@link Disposable} that `using` (TypeScript 5.2+, explicit resource management) also accepts. */
export interface UsableDisposable extends Disposable {
  [Symbol.dispose](): void;
}

/** Wraps a function as a {@link Disposable} that runs it at most once. */
export function toDisposable(fn: () => void): UsableDisposable {
  let done = false;
  const dispose = () => {
    if (done) return;
    done = true;
    fn();
  };
  return { dispose, [Symbol.dispose]: dispose };
}

/**
 * Owns many disposables and disposes them together, newest first. One that throws does not keep
 * the others from being disposed: all are, then one `AggregateError` carries every failure.
 */
export class DisposableStore implements UsableDisposable {
  private readonly items = new Set<Disposable>();
  private disposed = false;

  /** Adds `d`; if the store is already disposed, `d` is disposed at once. */
  add<T extends Disposable>(d: T): T {
    if (this.disposed) d.dispose();
    else this.items.add(d);
    return d;
  }

  /** Forgets `d` without disposing it. */
  delete(d: Disposable): void {
    this.items.delete(d);
  }

  /** How many disposables are held. */
  get size(): number {
    return this.items.size;
  }

  /**
   * Disposes every item, newest first. Throws one `AggregateError` (its `errors` in disposal
   * order) when any item threw, after all were disposed.
   */
  dispose(): void {
    if (this.disposed) return;
    this.disposed = true;
    const all = [...this.items].reverse();
    this.items.clear();
    const errors: unknown[] = [];
    for (const d of all) {
      try {
        d.dispose();
      } catch (e) {
        errors.push(e);
      }
    }
    if (errors.length) {
      throw new AggregateError(errors, `[dispose] ${errors.length} of ${all.length} disposables failed (the others were disposed): ${errors.map(describeError).join('; ')}`);
    }
  }

  [Symbol.dispose](): void {
    this.dispose();
  }
}
