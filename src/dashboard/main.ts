// The dashboard page: shows the modules' widgets of a system. Served by `armature start`, it is a
// view of the Node system the server booted (and of every process on its data folder): it boots
// nothing and acts through the server. Served by `armature start --in-browser`, it boots a persona
// in this tab. The server says which in `<meta name="armature-mode">`; the widgets are the same.
import { html, render } from 'lit';
import { boot } from '../kernel/boot/boot.ts';
import { createEventBus } from '../kernel/event-bus.ts';
import { describeError } from '../kernel/errors.ts';
import { createBrowserPlatform } from '../platform/browser/browser.ts';
import type { McpServersInput } from '../kernel/mcp-servers.ts';
import { localView } from '../view/local-view.ts';
import { answerElicitationsOnDashboard } from '../view/dashboard-elicitation.ts';
import { MODE_META } from '../view/page-mode.ts';
import { remoteView } from '../view/remote-view.ts';
import type { SystemView } from '../view/system-view.ts';
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

/** Shows `view` on the page, its persona in the header. */
function show(view: SystemView): void {
  label.textContent = `persona ${view.persona.id} — ${view.persona.name}${view.persona.safe ? ' (safe mode)' : ''}${view.mode === 'attached' ? ' · attached' : ''}`;
  app.replaceChildren();
  render(html`<armature-dashboard .view=${view}></armature-dashboard>`, app);
}

/** The page in the browser boots its own system (`armature start --in-browser`). */
async function bootInPage(): Promise<void> {
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
  // The McpClient card answers servers' elicitation for the person (answer_elicitation), as attached.
  await answerElicitationsOnDashboard(sys);
  // The widgets see the system as a view: the same cards render a system attached from another process.
  show(localView(sys));
  // For people poking around in devtools, and for the end-to-end tests.
  (globalThis as { armature?: unknown }).armature = sys;
}

/** The page views the system its server booted: its cookie authenticates every request. */
async function attach(): Promise<void> {
  label.textContent = 'attaching…';
  const view = await remoteView({ baseUrl: location.origin });
  show(view);
  (globalThis as { armatureView?: unknown }).armatureView = view;
}

const attached = document.querySelector(`meta[name="${MODE_META}"]`)?.getAttribute('content') === 'attached';
try {
  await (attached ? attach() : bootInPage());
} catch (e) {
  label.textContent = attached ? 'could not attach' : `persona ${persona}: boot failed`;
  app.replaceChildren();
  render(html`<div class="boot-error" role="alert"><strong>${attached ? 'Armature could not reach the system this server runs.' : 'Armature could not boot.'}</strong>\n${describeError(e)}</div>`, app);
}
