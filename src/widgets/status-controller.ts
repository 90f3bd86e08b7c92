import type { ReactiveController, ReactiveControllerHost } from 'lit';
import type { Disposable } from '../kernel/lifecycle.ts';
import type { SystemView } from '../view/system-view.ts';

/**
 * Keeps a module's status snapshot for a Lit element: reads it from the view when the host
 * connects (or is given its view or module), follows that module's `module:status` events and asks
 * the host to render on each. The subscription ends when the host disconnects.
 */
export class StatusController<S> implements ReactiveController {
  private subscription: Disposable | undefined;
  private key: { view: SystemView; id: string } | undefined;
  private current: S | undefined;

  constructor(
    private readonly host: ReactiveControllerHost,
    private readonly target: () => { view: SystemView; moduleId: string } | undefined,
  ) {
    host.addController(this);
  }

  /** The latest snapshot, or undefined before the module's first one. */
  get value(): S | undefined {
    return this.current;
  }

  hostConnected(): void {
    this.connect();
  }

  hostDisconnected(): void {
    this.subscription?.dispose();
    this.subscription = undefined;
    this.key = undefined;
  }

  /** (Re)subscribes after the host was given a view or a module id. Idempotent. */
  connect(): void {
    const t = this.target();
    if (!t || (this.key?.view === t.view && this.key.id === t.moduleId)) return;
    this.hostDisconnected();
    this.key = { view: t.view, id: t.moduleId };
    this.current = t.view.status<S>(t.moduleId);
    // The view's own system's snapshots only: an attached view also delivers other processes'
    // module:status records (tagged with their process), which are not this card's module.
    this.subscription = t.view.events.onAny((r) => {
      if (r.type !== 'module:status' || r.process !== undefined) return;
      const p = r.payload as { id: string; status: unknown };
      if (p.id !== t.moduleId) return;
      this.current = p.status as S;
      this.host.requestUpdate();
    });
    this.host.requestUpdate();
  }

  /** Whether it follows a module now (for leak checks). */
  get connected(): boolean {
    return this.subscription !== undefined;
  }
}
