/**
 * A line diff of two versions' code for the changes widget, computed with jsdiff (`diff`): each
 * line added, removed or kept, with long unchanged stretches folded to their first and last
 * lines so the change stands out. Plain data: the widget renders it as text.
 */
import { diffLines } from 'diff';

/** One row of a diff. `fold` stands for unchanged lines left out. */
export type DiffRow = { op: 'same' | 'add' | 'del'; text: string } | { op: 'fold'; count: number };

/** Lines of `before` and `after`, as rows; unchanged runs longer than `2 * context + 1` are folded. Default `context`: 3. */
export function lineDiff(before: string, after: string, context = 3): DiffRow[] {
  const rows: DiffRow[] = [];
  for (const part of diffLines(before, after)) {
    const lines = part.value.replace(/\n$/, '').split('\n');
    const op = part.added ? 'add' : part.removed ? 'del' : 'same';
    for (const text of lines) rows.push({ op, text });
  }
  return fold(rows, context);
}

/** Counts of added and removed lines. */
export function diffStats(rows: readonly DiffRow[]): { added: number; removed: number } {
  return { added: rows.filter((r) => r.op === 'add').length, removed: rows.filter((r) => r.op === 'del').length };
}

function fold(rows: DiffRow[], context: number): DiffRow[] {
  const out: DiffRow[] = [];
  let i = 0;
  while (i < rows.length) {
    if (rows[i]!.op !== 'same') {
      out.push(rows[i++]!);
      continue;
    }
    let j = i;
    while (j < rows.length && rows[j]!.op === 'same') j++;
    const run = rows.slice(i, j);
    const head = i === 0 ? 0 : context;
    const tail = j === rows.length ? 0 : context;
    if (run.length > head + tail + 1) out.push(...run.slice(0, head), { op: 'fold', count: run.length - head - tail }, ...run.slice(run.length - tail));
    else out.push(...run);
    i = j;
  }
  return out;
}
