import type { PersonaOverlayContent } from './overlay.ts';

/** What the PersonaOverlay card shows: the overlay in force, or null. */
export interface PersonaOverlaySnapshot {
  overlay: (PersonaOverlayContent & { version: number; change: string; activatedAt?: number }) | null;
}

/** The PersonaOverlay snapshot of the overlay in force. */
export function personaOverlaySnapshot(overlay: (PersonaOverlayContent & { version: number; change: string; activatedAt?: number }) | undefined): PersonaOverlaySnapshot {
  return { overlay: overlay ? { ...overlay, add_upgrades: [...overlay.add_upgrades], add_tools: [...overlay.add_tools], remove_tools: [...overlay.remove_tools] } : null };
}
