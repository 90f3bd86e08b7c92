// The dashboard page: boots a persona in the browser and shows its modules' widgets.
import { html, render } from 'lit';
import { boot } from '../kernel/boot/boot.ts';
import { createEventBus } from '../kernel/event-bus.ts';
import { describeError } from '../kernel/errors.ts';
import { createBrowserPlatform } from '../platform/browser/browser.ts';
import type { McpServersInput } from '../kernel/mcp-servers.ts';
import '../widgets/dashboard.ts';

const params = new URLSearchParams(location.search);
const persona = params.get('persona') ?? 'default';
// ?safe boots only what the persona file names: nothing an agent made is loaded, for review.
const safe = params.has('safe') && params.get('safe') !== 'off';
const app = document.getElementById('app')!;
const label = document.getElementById('persona')!;
const bus = createEventBus({ historySize: 2000 });

/** The MCP servers `armature start --mcp-config FILE` passed on, if any (MCP_SERVERS_PATH in src/server/middleware.ts). */
async function mcpServers(): Promise<Record<string, unknown> | undefined> {
  try {
    const res = await fetch('/__armature/mcp-servers.json');
    // 204: the server was started without --mcp-config.
    return res.status === 200 ? ((await res.json()) as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
}

try {
  const servers = await mcpServers();
  const sys = await boot({
    bus,
    persona,
    safe,
    platform: createBrowserPlatform(),
    config: {
      // The server bundles the worker next to this file and serves Pyodide from the installed package.
      // ?snapshot=off (armature start --no-snapshot) starts Python without the start-up snapshot.
      PyodideRuntime: {
        workerUrl: new URL('./pyodide-worker.js', import.meta.url).href,
        indexURL: new URL('/pyodide/', location.href).href,
        snapshot: params.get('snapshot') === 'off' ? 'off' : 'persist',
      },
      // Checked entry by entry by the McpClient, which shows each bad one on its card.
      ...(servers ? { McpClient: { servers: servers as McpServersInput } } : {}),
    },
  });
  label.textContent = `persona ${sys.persona.id} — ${sys.persona.name}${sys.safe ? ' (safe mode)' : ''}`;
  app.replaceChildren();
  render(html`<armature-dashboard .system=${sys}></armature-dashboard>`, app);
  // For people poking around in devtools, and for the end-to-end tests.
  (globalThis as { armature?: unknown }).armature = sys;
} catch (e) {
  label.textContent = `persona ${persona}: boot failed`;
  app.replaceChildren();
  render(html`<div class="boot-error" role="alert"><strong>Armature could not boot.</strong>\n${describeError(e)}</div>`, app);
}
