// The widget renders what the McpClient reports in its snapshot and restarts a server through
// restart_mcp_server; the client itself runs real servers in Node (mcp-client.test.ts) and on the
// dashboard (test/e2e/mcp-dashboard.test.ts). On the page's own system it answers a server's
// elicitation for the person: a plain object with the McpClient's own elicitation desk behind it
// stands in for the API the view lends it.
import { expect } from 'chai';
import type { ElicitRequest } from '@modelcontextprotocol/sdk/types.js';
import { createEventBus } from '../../src/kernel/event-bus.ts';
import { recordedView } from '../../test/helpers/recorded-view.ts';
import { until } from '../../test/helpers/until.ts';
import { ElicitationDesk } from './elicitation.ts';
import type { McpClientApi } from './mcp-client.ts';
import { RequestRefused } from './refusal.ts';
import type { McpServerStatus } from './server-connection.ts';
import { McpClientWidget } from './widget.ts';
import { $, $$, mount, report, settle, stateOf, text } from '../../test/helpers/widget-fixture.ts';

const server = (over: Partial<McpServerStatus>): McpServerStatus => ({
  name: 'memory', namespace: 'memory', transport: 'stdio', target: 'npx -y @modelcontextprotocol/server-memory', state: 'ready',
  offers: [], tools: ['memory.read_graph', 'memory.create_entities'], skipped: [], calls: 3, errors: 0, restarts: 0, server: { name: 'memory-server', version: '0.6.3' }, ...over,
});

function setup(servers: McpServerStatus[]) {
  const base = recordedView();
  base.setStatus('McpClient', { servers });
  // The system restarts the server; its new state arrives as the next snapshot.
  base.answer('restart_mcp_server', ({ args }) => {
    const s = servers.find((x) => x.name === args.name)!;
    Object.assign(s, { state: 'ready', restarts: s.restarts + 1 });
    delete s.error;
    delete s.hint;
    base.emit('module:loaded', { id: `mcp:${s.name}`, version: '1.0.0', durationMs: 1, parent: 'McpClient' });
    base.setStatus('McpClient', { servers: structuredClone(servers) });
    return s;
  });
  const desk = new ElicitationDesk(createEventBus(), 60_000);
  const api = { addElicitationResponder: (responder: Parameters<McpClientApi['addElicitationResponder']>[0]) => desk.addResponder(responder), pendingElicitations: () => desk.pending() } as unknown as McpClientApi;
  // The page's own system lends the card the McpClient's API for elicitation (view.local).
  const view = Object.assign(base, { local: { resolve: async <T>() => api as T } });
  const el = new McpClientWidget();
  el.context = { view, moduleId: 'McpClient', report: report('McpClient', { category: 'tools' }) };
  return { view, el, desk };
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
    const { view, el } = setup([
      server({}),
      server({ name: 'files', namespace: 'files', state: 'failed', tools: ['files.read_file'], error: { code: 'MCP_SERVER_EXITED', message: 'the MCP server files (node fs.js) stopped: its process exited' }, hint: 'Restart it.' }),
      server({ name: 'work', namespace: 'notes', instance: 'work', transport: 'http', target: 'http://127.0.0.1:3001/mcp', skipped: [{ name: 'odd name', reason: 'its name cannot be used' }] }),
    ]);
    const actions: string[] = [];
    view.events.on('widget:action', (p) => actions.push(p.action));
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
    await until('the server back', () => stateOf(el) === 'active');
    expect(view.calls.map((c) => [c.name, c.args])).to.deep.equal([['restart_mcp_server', { name: 'files' }]]);
    expect(actions).to.deep.equal(['restart:files']);
    expect($$(el, 'tbody p[role=alert]')).to.have.length(0);
    el.remove();
  });

  it('answers a server\'s elicitation with a form: the server\'s text as text, bad values said, then sent; declined; withdrawn; refused once it is gone', async () => {
    const { el, desk } = setup([server({})]);
    await mount(el);
    await until('the card answering elicitations', () => (el as unknown as { responder?: unknown }).responder !== undefined);
    const params: ElicitRequest['params'] = {
      message: 'Who is <b>there</b>?',
      requestedSchema: {
        type: 'object',
        properties: { name: { type: 'string', title: 'Name' }, age: { type: 'integer', minimum: 0 }, color: { type: 'string', enum: ['red', 'blue'] }, size: { type: 'string', oneOf: [{ const: 's', title: 'Small' }, { const: 'l', title: 'Large' }] }, ok: { type: 'boolean' } },
        required: ['name'],
      },
    };
    const first = desk.ask('everything', params, new AbortController().signal);
    await settle(el);
    const form = $(el, 'form[data-elicitation]') as HTMLFormElement;
    expect(form.querySelector('.asked')!.textContent).to.equal('Who is <b>there</b>?');
    expect(form.querySelector('b')).to.equal(null);
    (form.querySelector('input[name=age]') as HTMLInputElement).value = '3.5';
    ($(el, 'button[data-control=send]') as HTMLButtonElement).click();
    await settle(el);
    expect($(el, 'form[data-elicitation] p[role=alert]')!.textContent).to.equal('Name is required');
    (form.querySelector('input[name=name]') as HTMLInputElement).value = 'Ada';
    ($(el, 'button[data-control=send]') as HTMLButtonElement).click();
    await settle(el);
    expect($(el, 'form[data-elicitation] p[role=alert]')!.textContent).to.equal('age takes a whole number');
    (form.querySelector('input[name=age]') as HTMLInputElement).value = '36';
    (form.querySelector('select[name=color]') as HTMLSelectElement).value = 'blue';
    const size = form.querySelector('select[name=size]') as HTMLSelectElement;
    expect([...size.options].map((o) => [o.value, o.textContent])).to.deep.equal([['', ''], ['s', 'Small'], ['l', 'Large']]);
    size.value = 'l';
    (form.querySelector('input[name=ok]') as HTMLInputElement).checked = true;
    ($(el, 'button[data-control=send]') as HTMLButtonElement).click();
    expect(await first).to.deep.equal({ action: 'accept', content: { name: 'Ada', age: 36, color: 'blue', size: 'l', ok: true } });
    await settle(el);
    expect($$(el, 'form[data-elicitation]')).to.have.length(0);

    const second = desk.ask('everything', params, new AbortController().signal);
    await settle(el);
    ($(el, 'button[data-control=decline]') as HTMLButtonElement).click();
    expect(await second).to.deep.equal({ action: 'decline' });

    const withdraw = new AbortController();
    const third = desk.ask('everything', params, withdraw.signal);
    await settle(el);
    expect($$(el, 'form[data-elicitation]')).to.have.length(1);
    withdraw.abort();
    expect(await third).to.deep.equal({ action: 'cancel' });
    await settle(el);
    expect($$(el, 'form[data-elicitation]')).to.have.length(0);

    el.remove();
    const refused = await desk.ask('everything', params, new AbortController().signal).then(() => undefined, (e: unknown) => e);
    expect(refused).to.be.instanceOf(RequestRefused);
    expect((refused as Error).message).to.contain('nobody can answer here');
  });
});
