/**
 * Upgrades' early starts (`earlyStart` in `modules/upgrades.json`): slow work an upgrade's factory
 * would start anyway, begun before boot imports the entries so that it overlaps the rest of boot.
 * An early start is never a reason for a boot or a module to fail: whatever goes wrong is reported
 * as `module:early-start-failed` and the factory starts the work itself.
 */
import { ArmatureError, toErrorInfo } from '../errors.ts';
import type { EventBus } from '../event-bus.ts';
import type { Manifests } from '../manifests.ts';
import type { Persona } from '../manifest-schemas.ts';
import type { EarlyStartModule } from '../upgrade.ts';
import type { Platform } from '../../platform/platform.ts';

/**
 * How long boot waits, at most, for the early starts to get their work under way before it
 * imports the entries, in ms: their first steps (imports, a process spawn) would otherwise queue
 * behind the entries' imports.
 */
export const EARLY_START_WAIT_MS = 1000;

/** What {@link startEarly} needs: the loader's own options. */
export interface EarlyStartOptions {
  manifests: Manifests;
  persona: Persona;
  platform: Platform;
  bus: EventBus;
  /** Per-upgrade options by upgrade id, as the factories get them. Default: `{}`. */
  config?: Readonly<Record<string, Readonly<Record<string, unknown>>>>;
  /** Imports an early start's module by its path. */
  importer(path: string, base?: string): Promise<unknown>;
}

/** The early starts of one boot. */
export interface EarlyStarts {
  /** Tells upgrade `id`'s early start that nothing will take over its work (aborts its signal). */
  end(id: string): void;
  /** The same for every early start of the boot (a boot that failed before its upgrades loaded). */
  endAll(): void;
}

/**
 * Imports the early starts of upgrades `ids` and calls them, all at once. Resolves when each has
 * its work under way (its promise settled) or after `waitMs`, whichever comes first: the work goes
 * on, and a hook still being imported is called when it arrives. Never rejects.
 */
export async function startEarly(ids: readonly string[], options: EarlyStartOptions, waitMs = EARLY_START_WAIT_MS): Promise<EarlyStarts> {
  const { manifests, persona, platform, bus } = options;
  const controllers = new Map<string, AbortController>();
  const failed = (id: string, error: unknown) => {
    const info = toErrorInfo(error, 'EARLY_START_FAILED');
    bus.emit('module:early-start-failed', { id, error: { ...info, message: `[early-start] ${id}: ${info.message} (boot goes on; the upgrade starts its work when it loads)` } });
  };
  const started = Promise.all(
    ids.map(async (id) => {
      const entry = manifests.upgrades.get(id);
      const path = entry?.earlyStart;
      if (path === undefined) return;
      const controller = new AbortController();
      controllers.set(id, controller);
      try {
        const mod = await options.importer(path, entry!.base);
        if (typeof (mod as Partial<EarlyStartModule> | undefined)?.earlyStart !== 'function') {
          throw new ArmatureError('INVALID_EARLY_START', `${path} exports no function "earlyStart(context)": export one there, or remove "earlyStart" from the upgrade's entry in modules/upgrades.json`);
        }
        const context = { config: options.config?.[id] ?? {}, persona, platform, signal: controller.signal };
        await (mod as EarlyStartModule).earlyStart(context);
      } catch (e) {
        failed(id, e);
      }
    }),
  );
  let timer: ReturnType<typeof setTimeout> | undefined;
  await Promise.race([started, new Promise((resolve) => (timer = setTimeout(resolve, waitMs)))]);
  clearTimeout(timer);
  return { end: (id) => controllers.get(id)?.abort(), endAll: () => controllers.forEach((c) => c.abort()) };
}
