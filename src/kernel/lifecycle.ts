/** Something that holds a resource until `dispose()` is called. Calling it twice is harmless. */
export interface Disposable {
  dispose(): void;
}

/** Wraps a function as a {@link Disposable} that runs it at most once. */
export function toDisposable(fn: () => void): Disposable {
  let done = false;
  return {
    dispose() {
      if (done) return;
      done = true;
      fn();
    },
  };
}

/** Owns many disposables and disposes them together, newest first. */
export class DisposableStore implements Disposable {
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

  dispose(): void {
    if (this.disposed) return;
    this.disposed = true;
    const all = [...this.items].reverse();
    this.items.clear();
    for (const d of all) d.dispose();
  }
}
