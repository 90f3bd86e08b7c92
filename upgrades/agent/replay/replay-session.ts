/**
 * A recorded example played back on the dashboard, turn by turn: its first goal as a new run with
 * the `replay` model, each later goal as a follow-up. Where the recorded run left changes waiting
 * for a person, the replay waits too — it never approves: the person approves them on the Changes
 * card (which announces `change:activated`), then continues. The agent panel renders its state.
 */
import type { EventRecord } from '../../../src/kernel/event-bus.ts';
import type { AgentApi, RecordedExample, RunError } from '../../../src/contracts/agent-contract.ts';

/** The events a replay session follows: its run's changes coming and going. */
export const REPLAY_EVENTS = ['change:pending', 'change:activated', 'change:rejected'] as const;

/** One example being replayed. */
export class ReplaySession {
  /** The run the replay is, once its first turn started. */
  runId: string | undefined;
  /** Turns played so far. */
  played = 0;
  running = false;
  /** Why it stopped early (a divergence, a refusal), if it did. */
  error: RunError | undefined;
  /**
   * Changes made by agent runs that wait for a person: id -> the run and what it changes. Heard
   * before the run id is known (its first turn makes them while it runs).
   */
  private readonly waiting = new Map<string, { run: string; what: string }>();

  constructor(
    private readonly agent: AgentApi,
    readonly example: RecordedExample,
    private readonly changed: () => void,
  ) {}

  get turns(): number {
    return this.example.goals.length;
  }

  /** Whether every recorded turn was played. */
  get finished(): boolean {
    return this.played >= this.turns && !this.running;
  }

  /** This run's changes that wait for a person: id -> what it changes (e.g. `tool made.word_count`). */
  get pending(): Map<string, string> {
    return new Map([...this.waiting].filter(([, w]) => w.run === this.runId).map(([id, w]) => [id, w.what]));
  }

  /** Whether the next turn may start: one is left, nothing runs, nothing failed, no change waits. */
  get canContinue(): boolean {
    return !this.running && !this.error && this.played > 0 && this.played < this.turns && !this.pending.size;
  }

  /** Plays the next turn (the first, or a follow-up). */
  async next(): Promise<void> {
    if (this.running || this.error || this.played >= this.turns || this.pending.size) return;
    this.running = true;
    this.changed();
    try {
      const result = await this.agent.run({ goal: this.example.goals[this.played]!, ...(this.runId ? { runId: this.runId } : {}), model: { provider: 'replay', model: this.example.name }, toolMode: this.example.toolMode });
      this.runId = result.runId;
      if (result.reason === 'answered') this.played++;
      else this.error = result.error ?? { code: result.reason.toUpperCase(), message: `the replay stopped: ${result.reason}` };
    } finally {
      this.running = false;
      this.changed();
    }
  }

  /** Follows the run's changes: pending ones hold the replay until a person decides them. */
  onEvent(r: EventRecord): void {
    const change = (r.payload as { change?: { id: string; kind: string; target: string; caller?: { run?: string } } }).change;
    if (!change) return;
    if (r.type === 'change:pending' && change.caller?.run) this.waiting.set(change.id, { run: change.caller.run, what: `${change.kind} ${change.target}` });
    else if (!this.waiting.delete(change.id)) return;
    this.changed();
  }
}
