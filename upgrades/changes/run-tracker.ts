import type { EventSource } from '../../src/kernel/event-bus.ts';
import type { ToolCaller } from '../../src/kernel/events.ts';
import type { Disposable } from '../../src/kernel/lifecycle.ts';

/**
 * Which agent run a tool call belongs to, for the lineage ("which persona and agent run made
 * it"). The agent names its calls `<runId>/<step>/<toolCallId>`; calls made from Python inside a
 * run carry ids of their own, so the run in progress is the best answer for them.
 */
export class RunTracker implements Disposable {
  private readonly running: string[] = [];
  private readonly subscriptions: Disposable[];

  constructor(bus: Pick<EventSource, 'on'>) {
    this.subscriptions = [
      bus.on('agent:run-started', (e) => {
        if (!this.running.includes(e.runId)) this.running.push(e.runId);
      }),
      bus.on('agent:run-finished', (e) => {
        const i = this.running.indexOf(e.runId);
        if (i >= 0) this.running.splice(i, 1);
      }),
    ];
  }

  /** The run a call with `callId` from `caller` belongs to, if any. People's calls belong to none. */
  runOf(caller: ToolCaller, callId?: string): string | undefined {
    if (caller === 'ui' || caller === 'cli') return undefined;
    const prefix = callId?.split('/')[0];
    if (prefix && callId!.includes('/') && this.running.includes(prefix)) return prefix;
    return this.running[this.running.length - 1];
  }

  dispose(): void {
    for (const s of this.subscriptions) s.dispose();
  }
}
