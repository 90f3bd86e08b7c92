/**
 * The PersonaOverlay upgrade's contract: its API. Other upgrades import it from here, never from
 * the implementation.
 */
import type { Disposable } from '../../src/kernel/lifecycle.ts';
import type { PersonaOverlayContent } from './overlay.ts';

export type { PersonaOverlayArgs, PersonaOverlayContent } from './overlay.ts';

/** The PersonaOverlay API: what an agent added to the persona in force. */
export interface PersonaOverlayApi {
  /** The overlay in force, with its version, change and when it came into force, or `undefined` (none, or safe mode). */
  overlay(): (PersonaOverlayContent & { version: number; change: string; activatedAt?: number }) | undefined;
  /** The agent-made upgrades the persona runs (the overlay's `add_upgrades`). */
  upgrades(): string[];
  /**
   * Hears every change of the overlay in force (the change completes once the promises a listener
   * returns settle: e.g. the upgrades it adds have started); the disposable stops it.
   */
  onChange(listener: () => void | Promise<void>): Disposable;
}

declare module '../../src/kernel/services.ts' {
  interface ArmatureServices {
    PersonaOverlay: PersonaOverlayApi;
  }
}
