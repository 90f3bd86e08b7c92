// Boots the project's real upgrades under a persona the test writes, in the browser: the real
// manifests and modules, stores in a fresh IndexedDB, and a persona file added to the project the
// server serves. For widget tests that need a real system behind their view.
import { boot, type ArmatureSystem } from '../../src/index.ts';
import type { Persona } from '../../src/kernel/manifest-schemas.ts';
import { createBrowserPlatform } from '../../src/platform/browser/browser.ts';
import type { Platform, SharedStore } from '../../src/platform/platform.ts';
import { localView } from '../../src/view/local-view.ts';
import type { SystemView } from '../../src/view/system-view.ts';

let booted = 0;

/** A platform whose project also holds `modules/personas/<persona.id>.json`. */
export function withPersona(platform: Platform, persona: Persona): Platform {
  const file = `modules/personas/${persona.id}.json`;
  return {
    ...platform,
    project: {
      list: async (dir, ext) => [...new Set([...(await platform.project.list(dir, ext)), ...(dir === 'modules/personas' && ext === '.json' ? [file] : [])])].sort(),
      read: (path) => (path === file ? Promise.resolve(JSON.stringify(persona)) : platform.project.read(path)),
    },
  };
}

/** Boots `upgrades` (the project's own) under a persona of the test's, with a view of it as the dashboard's. */
export async function bootTest(
  persona: Partial<Persona> & { upgrades: string[] },
  o: { config?: Record<string, Record<string, unknown>>; historySize?: number; shared?: Record<string, SharedStore> } = {},
): Promise<{ sys: ArmatureSystem; view: SystemView }> {
  const p: Persona = { id: `test-${++booted}`, name: 'Test persona', description: 'a widget test', tools: ['*'], skills: [], ...persona };
  const browser = createBrowserPlatform({ dbPrefix: `${p.id}-${Date.now()}-${Math.random().toString(36).slice(2)}` });
  // Shared stores the test holds (e.g. to damage one), by name; the others in IndexedDB.
  const shared = o.shared;
  const platform = withPersona(shared ? { ...browser, openShared: (name) => (shared[name] ? Promise.resolve(shared[name]) : browser.openShared(name)) } : browser, p);
  const sys = await boot({ persona: p.id, platform, historySize: o.historySize ?? 2000, ...(o.config ? { config: o.config } : {}) });
  const failed = sys.modules.filter((m) => m.state === 'failed');
  if (failed.length) throw new Error(`[bootTest] ${failed.map((m) => `${m.id}: ${m.error?.message}`).join('; ')}`);
  return { sys, view: localView(sys) };
}
