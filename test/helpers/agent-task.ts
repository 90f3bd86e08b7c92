// The scripted task the agent's end-to-end suites share (Node, CLI, Chromium, benchmark): the
// model calls execute_python with code that reads a workspace file through call_tool, computes,
// writes a result file, then answers.
import type { ScriptTurn } from './model-script.ts';

/** The workspace file the task reads. */
export const NUMBERS_FILE = { path: 'data/numbers.txt', content: '3 5 8 13 21\n' };

/** The file the task writes, and what it holds. */
export const RESULT_FILE = { path: 'results/sum.txt', content: '50\n' };

/** The goal a person types. */
export const SUM_GOAL = 'Add up the numbers in data/numbers.txt and write the sum to results/sum.txt.';

/** The Python the scripted model sends. */
export const SUM_CODE = [
  'numbers = [int(x) for x in call_tool("read_file", {"path": "data/numbers.txt"})["content"].split()]',
  'total = sum(numbers)',
  'print(f"sum of {len(numbers)} numbers: {total}")',
  'call_tool("write_file", {"path": "results/sum.txt", "content": f"{total}\\n"})',
  'total',
].join('\n');

/** The answer the scripted model gives once it has the result. */
export const SUM_ANSWER = 'The sum is 50; I wrote it to results/sum.txt.';

/** The stdout the Python run prints. */
export const SUM_STDOUT = 'sum of 5 numbers: 50\n';

/** The two turns of the scripted model. */
export function sumScript(): ScriptTurn[] {
  return [
    { text: 'I will compute it in Python.', toolCalls: [{ id: 'call_sum', name: 'execute_python', args: { code: SUM_CODE } }], usage: { input: 900, output: 60 } },
    { text: SUM_ANSWER, usage: { input: 1000, output: 15 } },
  ];
}
