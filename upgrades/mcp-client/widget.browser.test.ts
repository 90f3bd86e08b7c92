// The widget renders what the McpClient reports in its snapshot and restarts a server through
// restart_mcp_server; the client itself runs real servers in Node (mcp-client.test.ts) and on the
// dashboard (test/e2e/mcp-dashboard.test.ts). It answers a server's elicitation for the person the
// same way on the page's own system and attached: the requests waiting come in the snapshot, the
// answer goes as answer_elicitation. Behind the recorded view here, the McpClient's own elicitation
// desk with the dashboard's responder: its requests feed the snapshot, the tool call answers them.
import { expect } from 'chai';
import type { ElicitRequest } from '@modelcontextprotocol/sdk/types.js';
import { waitForTheDashboard, type ElicitationAnswer } from '../../src/contracts/mcp-client-contract.ts';
import { createEventBus } from '../../src/kernel/event-bus.ts';
import { recordedView } from '../../test/helpers/recorded-view.ts';
import { until } from '../../test/helpers/until.ts';
import { ElicitationDesk } from './elicitation.ts';
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
  const bus = createEventBus();
  const desk = new ElicitationDesk(bus, 60_000);
  desk.addResponder(waitForTheDashboard());
  // The McpClient publishes its snapshot when a request comes and when it ends; the tool answers it.
  const publish = () => base.setStatus('McpClient', { servers: structuredClone(servers), elicitations: desk.pending() });
  bus.on('mcp-client:elicitation-requested', publish);
  bus.on('mcp-client:elicitation-ended', publish);
  base.answer('answer_elicitation', ({ args }) => {
    const { id, ...answer } = args as { id: string } & ElicitationAnswer;
    return desk.answer(id, answer);
  });
  const view = base;
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

  it('answers a server\'s elicitation with a form through answer_elicitation: the server\'s text as text, bad values said, then sent; declined; withdrawn; one gone meanwhile said', async () => {
    const { el, desk, view } = setup([server({})]);
    await mount(el);
    const params: ElicitRequest['params'] = {
      message: 'Who is <b>there</b>?',
      requestedSchema: {
        type: 'object',
        properties: { name: { type: 'string', title: 'Name' }, age: { type: 'integer', minimum: 0 }, color: { type: 'string', enum: ['red', 'blue'] }, size: { type: 'string', oneOf: [{ const: 's', title: 'Small' }, { const: 'l', title: 'Large' }] }, ok: { type: 'boolean' } },
        required: ['name'],
      },
    };
    const first = desk.ask('everything', params, new AbortController().signal);
    await until('the form', () => $(el, 'form[data-elicitation]') !== null);
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
    const sent = view.calls.filter((c) => c.name === 'answer_elicitation');
    expect(sent.map((c) => c.args)).to.deep.equal([{ id: (sent[0]!.args as { id: string }).id, action: 'accept', content: { name: 'Ada', age: 36, color: 'blue', size: 'l', ok: true } }]);
    await until('the form gone', () => $$(el, 'form[data-elicitation]').length === 0);

    const second = desk.ask('everything', params, new AbortController().signal);
    await until('the second form', () => $(el, 'button[data-control=decline]') !== null);
    ($(el, 'button[data-control=decline]') as HTMLButtonElement).click();
    expect(await second).to.deep.equal({ action: 'decline' });

    const withdraw = new AbortController();
    const third = desk.ask('everything', params, withdraw.signal);
    await until('the third form', () => $$(el, 'form[data-elicitation]').length === 1);
    withdraw.abort();
    expect(await third).to.deep.equal({ action: 'cancel' });
    await until('the withdrawn form gone', () => $$(el, 'form[data-elicitation]').length === 0);

    // Answered once it is no longer waiting (it timed out while the person typed): the card says so.
    const late = desk.ask('everything', params, new AbortController().signal);
    await until('the late form', () => $(el, 'button[data-control=cancel]') !== null);
    view.answer('answer_elicitation', () => {
      throw Object.assign(new Error('[answer_elicitation] no request "elicit-9" waits for an answer'), { code: 'ELICITATION_NOT_FOUND' });
    });
    ($(el, 'button[data-control=cancel]') as HTMLButtonElement).click();
    await until('the refusal on the form', () => /no request "elicit-9" waits/.test($(el, 'form[data-elicitation] p[role=alert]')?.textContent ?? ''));
    desk.answer(desk.pending()[0]!.id, { action: 'cancel' });
    expect(await late).to.deep.equal({ action: 'cancel' });
    el.remove();
  });
});
