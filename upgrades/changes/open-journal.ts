/**
 * Opening the change journal: the first read folds every line (no events: this is the history, not
 * news), then what the read had to skip is reported and recorded once — lines torn by a crash or
 * edited by hand (their checksums fail), decisions refused as made over a stale view, and a last
 * line a crash left unfinished (ended by the repair line itself, then skipped like any torn line).
 * Every record's status is what the valid lines say: there is no second account to disagree.
 */
import type { EventSource } from '../../src/kernel/event-bus.ts';
import { describeError } from '../../src/kernel/errors.ts';
import type { ChangeStore } from './change-store.ts';

/** How long an unfinished last line is given to finish (a writer in another process) before it counts as torn, in ms. */
const UNFINISHED_GRACE_MS = 200;

/** Reads the journal into `store` and records what had to be skipped; emits `change:repaired` for it. */
export async function openJournal(store: ChangeStore, o: { bus: Pick<EventSource, 'emit'>; log(text: string): void }): Promise<void> {
  await store.refresh();
  const notes: string[] = [];
  if (store.unfinished) {
    await new Promise((r) => setTimeout(r, UNFINISHED_GRACE_MS));
    await store.refresh();
    if (store.unfinished) notes.push(`ended an unfinished last line of the journal (${store.unfinished} bytes): a write cut short by a crash`);
  }
  if (!notes.length && !store.fold.problems.length) return;
  try {
    const repairs = await store.recordProblems(notes);
    // The torn line, once ended, is read as a damaged line: recorded by a second repair line.
    if (notes.length) repairs.push(...(await store.recordProblems()));
    if (repairs.length) {
      o.bus.emit('change:repaired', { repairs });
      o.log(`[changes] the journal had damaged lines, skipped and recorded: ${repairs.map((r) => r.what).slice(0, 5).join('; ')}`);
    }
  } catch (e) {
    o.log(`[changes] could not record the journal's repairs (they are reported again at the next start): ${describeError(e)}`);
  }
}
