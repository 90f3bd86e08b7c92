/**
 * What the loader reports about each module (`ArmatureSystem.modules`, the dashboard's cards), and
 * where a dashboard finds a module's widget.
 */
import type { ErrorInfo } from '../errors.ts';
import type { UpgradeEntry } from '../manifest-schemas.ts';

/** What the loader reports about one module. */
export interface ModuleReport {
  id: string;
  state: 'loaded' | 'failed';
  /** Import + factory + init, in ms. */
  durationMs: number;
  version?: string;
  category: UpgradeEntry['category'];
  /** Widget tag from the module's metadata (for a part: the one it reported, if any). */
  widget: string | null;
  /** For a part: the name its card shows (e.g. an agent-made upgrade's widget title). Default: its id. */
  title?: string;
  /**
   * The upgrade's folder under `upgrades/` (for a part, its upgrade's), where its `widget.ts` is:
   * what a dashboard imports the widget from, wherever the system runs.
   */
  folder?: string;
  /**
   * A root's upgrade (`boot({ root })`): the URL of its widget, a JavaScript module beside its entry
   * (`widget.js`), which a dashboard imports instead of `upgrades/<folder>/widget.ts`. Default: none
   * (the package's upgrades).
   */
  widgetModule?: string;
  blueprint: string;
  error?: ErrorInfo;
  /** Module whose own failure made this one fail. */
  rootCause?: string;
  /**
   * For a part an upgrade runs itself (e.g. `mcp:memory`, an MCP server of the McpClient): that
   * upgrade's id. Parts are announced with `module:*` events carrying `parent`; their state can
   * change after boot (a server dies, is restarted).
   */
  parent?: string;
}

/** The upgrade's folder under `upgrades/` from its entry (`upgrades/<folder>/index.ts`). */
export function folderOf(entry: string): string {
  return entry.split('/')[1] ?? entry;
}

/** A root's upgrade brings its widget as a JavaScript module beside its entry. */
export function widgetModuleOf(entry: { entry: string; base?: string }): { widgetModule?: string } {
  if (entry.base === undefined) return {};
  return { widgetModule: new URL(entry.entry.replace(/index(\.m?js|\.ts)$/, 'widget$1').replace(/\.ts$/, '.js'), entry.base).href };
}
