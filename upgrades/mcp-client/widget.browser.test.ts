// The widget renders what the McpClient reports; the client itself runs real servers in Node
// (mcp-client.test.ts), so here a plain object stands in for its API.
import { expect } from 'chai';
import { createEventBus } from '../../src/kernel/event-bus.ts';
import type { McpClientApi } from './mcp-client.ts';
import type { McpServerStatus } from './server-connection.ts';
import { McpClientWidget } from './widget.ts';
import { $, $$, mount, report, settle, stateOf, text } from '../../test/helpers/widget-fixture.ts';

const server = (over: Partial<McpServerStatus>): McpServerStatus => ({
  name: 'memory', namespace: 'memory', transport: 'stdio', target: 'npx -y @modelcontextprotocol/server-memory', state: 'ready',
  offers: [], tools: ['memory.read_graph', 'memory.create_entities'], skipped: [], calls: 3, errors: 0, restarts: 0, server: { name: 'memory-server', version: '0.6.3' }, ...over,
});

function setup(servers: McpServerStatus[]) {
  const bus = createEventBus();
  const restarted: string[] = [];
  const api: McpClientApi = {
    listServers: () => servers,
    getServer: (n) => servers.find((s) => s.name === n)!,
    async restart(n) {
      restarted.push(n);
      const s = servers.find((x) => x.name === n)!;
      Object.assign(s, { state: 'ready', error: undefined, hint: undefined, restarts: s.restarts + 1 });
      bus.emit('module:loaded', { id: `mcp:${n}`, version: '1.0.0', durationMs: 1, parent: 'McpClient' });
      return s;
    },
    addElicitationResponder: () => ({ dispose() {} }),
    pendingElicitations: () => [],
  };
  const el = new McpClientWidget();
  el.context = { bus, moduleId: 'McpClient', api, report: report('McpClient', { category: 'tools' }) };
  return { bus, el, restarted };
}

describe('mcp-client-widget', () => {
  it('says how to add servers when there are none', async () => {
    const { el } = setup([]);
    await mount(el);
    expect(stateOf(el)).to.equal('idle');
    expect(text(el)).to.contain('No MCP servers');
    expect(text(el)).to.contain('--mcp-config FILE');
    el.remove();
  });

  it('lists servers with state, tools and calls; a failed one shows its error and hint; Restart brings it back', async () => {
    const { bus, el, restarted } = setup([
      server({}),
      server({ name: 'files', namespace: 'files', state: 'failed', tools: ['files.read_file'], error: { code: 'MCP_SERVER_EXITED', message: 'the MCP server files (node fs.js) stopped: its process exited' }, hint: 'Restart it.' }),
      server({ name: 'work', namespace: 'notes', instance: 'work', transport: 'http', target: 'http://127.0.0.1:3001/mcp', skipped: [{ name: 'odd name', reason: 'its name cannot be used' }] }),
    ]);
    const actions: string[] = [];
    bus.on('widget:action', (p) => actions.push(p.action));
    await mount(el);
    expect(stateOf(el)).to.equal('warning');
    expect(text(el)).to.contain('2 of 3 servers ready');
    expect(text(el)).to.contain('5 tools · 9 calls');
    const rows = $$(el, 'tr[data-server]').map((r) => r.textContent!.replace(/\s+/g, ' ').trim());
    expect(rows[0]).to.match(/^memory stdio: npx -y @modelcontextprotocol\/server-memory · memory-server 0\.6\.3 ● ready 2 ?memory\.read_graph ?memory\.create_entities 3 Restart$/);
    expect(rows[1]).to.match(/^files stdio: npx .*✖ failed 1 ?files\.read_file 3 Restart$/);
    expect(rows[2]).to.match(/^work \(notes instance\) http: http:\/\/127\.0\.0\.1:3001\/mcp/);
    expect($(el, 'section > p.message')!.textContent).to.contain('files: the MCP server files (node fs.js) stopped');
    const alerts = $$(el, 'tbody p[role=alert]').map((p) => p.textContent!);
    expect(alerts[0]).to.contain('stopped: its process exited').and.to.contain('Restart it.');
    expect(text(el)).to.contain('Not registered: odd name (its name cannot be used)');
    $$(el, 'tr[data-server="files"] button[data-control=restart]')[0]!.click();
    await settle(el);
    await settle(el);
    expect(restarted).to.deep.equal(['files']);
    expect(actions).to.deep.equal(['restart:files']);
    expect(stateOf(el)).to.equal('active');
    expect($$(el, 'tbody p[role=alert]')).to.have.length(0);
    el.remove();
  });
});
