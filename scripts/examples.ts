// The recorded examples (examples/<name>/): what each starts from, its goals, and the answers of
// the scripted model that plays the agent's model in them. scripts/record-examples.ts records
// them; test/e2e/examples.test.ts replays them. The model's words are written by hand here, so
// they name no change id or run id: a replay plays them back verbatim, in a run with new ids.
import type { ScriptTurn } from '../test/helpers/model-script.ts';
import { WORD_COUNT } from '../test/helpers/made-tool-fixtures.ts';
import { NOTES_INDEX_BLUEPRINT, notesIndexUpgrade } from '../test/helpers/made-upgrade-fixtures.ts';

/** How every example was made, in its header. */
export const LABEL = 'Recorded with Armature\'s scripted model: a local stand-in for a language model whose answers were written by hand (scripts/examples.ts). Every tool call ran for real.';

/** One example: its folder, what it starts from, and its turns. */
export interface Example {
  name: string;
  title: string;
  description: string;
  persona: string;
  /** Files the workspace starts with. */
  workspace: { path: string; content: string }[];
  turns: { goal: string; script: ScriptTurn[] }[];
}

const SUM_CODE = [
  'files = [f["path"] for f in call_tool("list_files", {"prefix": "data"})["files"] if f["path"].endswith(".csv")]',
  'totals = {}',
  'for path in files:',
  '    rows = call_tool("read_file", {"path": path})["content"].strip().splitlines()[1:]',
  '    totals[path] = round(sum(float(row.split(",")[1]) for row in rows), 2)',
  '    print(f"{path}: {totals[path]:.2f}")',
  'total = round(sum(totals.values()), 2)',
  'call_tool("write_file", {"path": "results/total.txt", "content": f"{total:.2f}\\n"})',
  'print(f"total: {total:.2f}")',
  '{"files": len(files), "total": total}',
].join('\n');

const WORDS_CODE = [
  'from tools.made import word_count',
  'text = call_tool("read_file", {"path": "notes/intro.md"})["content"]',
  'n = word_count(text=text)',
  'print(f"notes/intro.md: {n} words")',
  'n',
].join('\n');

const BLUEPRINT_CODE = [
  'from tools.blueprints import read_blueprint, create_blueprint',
  'house = read_blueprint(id="0x000014")',
  `made = create_blueprint(**${JSON.stringify(NOTES_INDEX_BLUEPRINT)})`,
  'print("read", house["id"], house["title"], "- wrote", made["id"], made["status"])',
  '{"id": made["id"], "status": made["status"], "tests": [t["name"] for t in made["tests"]]}',
].join('\n');

export const EXAMPLES: Example[] = [
  {
    name: 'sum-files',
    title: 'Python sums files through call_tool',
    description: 'The agent writes Python that lists the CSV files under data/, reads each through call_tool, adds up their amounts and writes the total to results/total.txt.',
    persona: 'default',
    workspace: [
      { path: 'data/january.csv', content: 'date,amount\n2026-01-05,120.50\n2026-01-19,80.25\n' },
      { path: 'data/february.csv', content: 'date,amount\n2026-02-02,42.00\n2026-02-16,57.75\n2026-02-27,10.10\n' },
      { path: 'data/march.csv', content: 'date,amount\n2026-03-09,300.00\n' },
    ],
    turns: [
      {
        goal: 'Add up the amounts in every CSV file under data/ and write the total to results/total.txt.',
        script: [
          { text: 'I will read each file through call_tool in Python and add up the amounts.', toolCalls: [{ id: 'sum', name: 'execute_python', args: { code: SUM_CODE } }], usage: { input: 2100, output: 180 } },
          { text: 'The three files add up to 610.60 (january 200.75, february 109.85, march 300.00); I wrote the total to results/total.txt.', usage: { input: 2400, output: 40 } },
        ],
      },
    ],
  },
  {
    name: 'make-a-tool',
    title: 'The agent makes a tool, a person approves it, the agent uses it',
    description: 'The builder persona makes made.word_count in Python with three tests; they pass in the runtime it will run in, and the tool waits for a person (its policy for tools is "ask"). Once approved, the agent calls it from Python.',
    persona: 'builder',
    workspace: [{ path: 'notes/intro.md', content: '# Intro\n\nArmature runs agents that make their own tools, test them, and wait for a person to approve them.\n' }],
    turns: [
      {
        goal: 'Make yourself a tool that counts the words of a text.',
        script: [
          { text: 'I will write word_count in Python, with tests.', toolCalls: [{ id: 'make', name: 'create_tool', args: WORD_COUNT }], usage: { input: 2300, output: 260 } },
          { text: 'made.word_count passed its 3 tests. It waits for your approval: approve it (armature approve, or Approve on the dashboard\'s Changes), then ask me to use it.', usage: { input: 2700, output: 45 } },
        ],
      },
      {
        goal: 'I approved it. How many words are in notes/intro.md?',
        script: [
          { toolCalls: [{ id: 'use', name: 'execute_python', args: { code: WORDS_CODE } }], usage: { input: 2900, output: 90 } },
          { text: 'notes/intro.md has 20 words, counted by made.word_count.', usage: { input: 3000, output: 15 } },
        ],
      },
    ],
  },
  {
    name: 'build-an-upgrade',
    title: 'The agent writes a blueprint and builds an upgrade with its own card',
    description: 'The builder persona reads the workspace blueprint, writes one for a notes index (in force at once: its policy for blueprints is "auto"), builds the upgrade — a module with tools, an event and a card on the dashboard, its checklist proved by its tests in a confined worker — and adds it to its persona. A person approves the upgrade and the persona change; then the agent asks the new tool.',
    persona: 'builder',
    workspace: [
      { path: 'notes/plan.md', content: '# Plan\n' },
      { path: 'notes/ideas.md', content: '- more notes\n' },
      { path: 'notes/2026/retro.md', content: '# Retro\n' },
      { path: 'data/numbers.txt', content: '1 2 3\n' },
    ],
    turns: [
      {
        goal: 'Keep a count of my notes by folder, as an upgrade of your own with a card on the dashboard.',
        script: [
          { text: 'First the blueprint, in the house format: I will read the workspace\'s.', toolCalls: [{ id: 'bp', name: 'execute_python', args: { code: BLUEPRINT_CODE } }], usage: { input: 2500, output: 700 } },
          { text: 'Blueprint 0xA00001 is in force. Now the upgrade it describes.', toolCalls: [{ id: 'up', name: 'create_upgrade', args: notesIndexUpgrade('0xA00001') }], usage: { input: 3400, output: 1500 } },
          { toolCalls: [{ id: 'persona', name: 'update_persona', args: { add_upgrades: ['notes-index'], add_tools: ['notes_index.*'], reason: 'I built it to keep notes counted.' } }], usage: { input: 3800, output: 60 } },
          { text: 'notes-index passed its 4 tests. The upgrade and the change to my persona wait for your approval, in that order; once approved, its card appears on the dashboard and I can ask it.', usage: { input: 3900, output: 50 } },
        ],
      },
      {
        goal: 'I approved both. How many files does each folder hold?',
        script: [
          { toolCalls: [{ id: 'ask', name: 'execute_python', args: { code: 'from tools.notes_index import notes_summary\nsummary = notes_summary()\nprint(summary)\nsummary' } }], usage: { input: 4100, output: 40 } },
          { text: 'The notes index counts 4 files: 3 under notes/ and 1 under data/.', usage: { input: 4200, output: 20 } },
        ],
      },
    ],
  },
];
