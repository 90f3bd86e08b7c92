// The call clock in a browser, where the McpClient also runs (HTTP servers from the dashboard): a
// timer there is a plain number, so the clock must not lean on Node's Timeout.refresh(). Progress
// and the end of a server's wait on the client (the person answering an elicitation) start it again.
import { expect } from 'chai';
import { ServerWaits } from './client-handlers.ts';

const aborted = (signal: AbortSignal) => new Promise<void>((resolve) => signal.addEventListener('abort', () => resolve(), { once: true }));

describe('ServerWaits in a browser', () => {
  it('progress and the end of a wait start the clock again; silence then ends the call', async () => {
    const waits = new ServerWaits();
    const call = waits.clock('web', 30);
    call.refresh();
    let endWait!: () => void;
    const waiting = waits.during('web', () => new Promise<void>((r) => (endWait = r)));
    endWait();
    await waiting;
    expect(call.signal.aborted).to.equal(false);
    await aborted(call.signal);
    call.stop();
  });
});
