// The "notes index" an agent builds in the suites (Node, CLI, Chromium) and the README: its
// blueprint, its upgrade (a count of workspace files by folder, kept current from workspace:
// events, with a notes_summary tool and a widget), variants that fail their gate, and the scripted
// model's turns that make it. Each suite uses the same arguments an agent would send.
import type { ScriptTurn } from './model-script.ts';

/** The body of the notes index's blueprint: the house sections, a checklist naming its tests. */
export const NOTES_INDEX_BODY = [
  '# Notes Index',
  '',
  '## 1. Objective',
  '',
  'Keep a count of the workspace\'s files by folder, current as files are written and deleted, and answer it as a tool.',
  '',
  '## 2. Design',
  '',
  '- `init` lists the files (`call_tool("list_files")`) and counts them by top folder (`(root)` for top-level files).',
  '- It listens to `workspace:written` and `workspace:deleted`, keeps the counts in its storage (`counts.json`),',
  '  emits `notes-index:counted { folder, files }` and shows the counts on its widget.',
  '- `notes_summary { folder? }` answers `{ total, folders }`, or one folder\'s `{ folder, files }`.',
  '- `folder_of { path }` answers the folder a path counts under.',
  '',
  '## 4. Verification',
  '',
  '- [ ] a nested path counts under its top folder (test: folder-of-nested)',
  '- [ ] a top-level file counts under (root) (test: folder-of-root)',
  '- [ ] the summary answers a total and the folders (test: summary-shape)',
  '- [ ] a folder that is not a string is refused (test: bad-folder)',
  '',
].join('\n');

/** What the agent sends to create_blueprint. */
export const NOTES_INDEX_BLUEPRINT = {
  title: 'Notes Index',
  target: 'notes-index',
  prerequisites: ['0x000014'],
  body: NOTES_INDEX_BODY,
  reason: 'People ask how many notes each folder holds.',
};

/** The upgrade's module, as the agent writes it. */
export const NOTES_INDEX_CODE = `const counts = new Map();
const known = new Set();
const folderOf = (path) => (path.includes('/') ? path.slice(0, path.indexOf('/')) : '(root)');
const total = () => [...counts.values()].reduce((a, b) => a + b, 0);

function add(path, delta) {
  const folder = folderOf(path);
  const n = (counts.get(folder) ?? 0) + delta;
  if (n > 0) counts.set(folder, n);
  else counts.delete(folder);
  return folder;
}

async function show(ctx, line) {
  const rows = [...counts].sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1)).slice(0, 10);
  await ctx.status({
    state: total() ? 'active' : 'idle',
    primary: total() + ' files',
    secondary: counts.size + ' folders',
    table: { columns: ['folder', 'files'], rows },
    log: line,
    buttons: [{ label: 'Summary', tool: 'notes_summary' }],
  });
}

export default {
  async init(ctx) {
    const { files } = await ctx.call_tool('list_files', {});
    for (const f of files) if (!known.has(f.path)) { known.add(f.path); add(f.path, 1); }
    ctx.on('workspace:written', async ({ path }) => {
      if (known.has(path)) return;
      known.add(path);
      const folder = add(path, 1);
      await ctx.storage_write('counts.json', JSON.stringify(Object.fromEntries(counts)));
      await ctx.emit('counted', { folder, files: counts.get(folder) });
      await show(ctx, '+ ' + path);
    });
    ctx.on('workspace:deleted', async ({ path }) => {
      if (!known.delete(path)) return;
      const folder = add(path, -1);
      await ctx.emit('counted', { folder, files: counts.get(folder) ?? 0 });
      await show(ctx, '- ' + path);
    });
    await show(ctx, 'indexed ' + total() + ' files');
  },
  tools: {
    notes_summary({ folder }) {
      if (folder !== undefined) return { folder, files: counts.get(folder) ?? 0 };
      return { total: total(), folders: Object.fromEntries([...counts].sort()) };
    },
    folder_of({ path }) {
      return folderOf(path);
    },
  },
  dispose() {
    counts.clear();
    known.clear();
  },
};
`;

/** What the agent sends to create_upgrade (with the blueprint id create_blueprint gave). */
export function notesIndexUpgrade(blueprint: string) {
  return {
    id: 'notes-index',
    blueprint,
    code: NOTES_INDEX_CODE,
    tools: [
      {
        name: 'notes_summary',
        description: 'How many workspace files each folder holds: { total, folders }, or one folder\'s { folder, files }.',
        inputSchema: { type: 'object', properties: { folder: { type: 'string', description: 'One folder, e.g. "notes"; "(root)" for top-level files.' } }, additionalProperties: false },
      },
      {
        name: 'folder_of',
        description: 'The folder a workspace path counts under.',
        inputSchema: { type: 'object', properties: { path: { type: 'string' } }, required: ['path'], additionalProperties: false },
      },
    ],
    events: [{ name: 'counted', schema: { type: 'object', properties: { folder: { type: 'string' }, files: { type: 'integer', minimum: 0 } }, required: ['folder', 'files'], additionalProperties: false } }],
    widget: { title: 'Notes index', category: 'knowledge' as const },
    tests: [
      { name: 'folder-of-nested', tool: 'folder_of', args: { path: 'notes/2025/plan.md' }, expect: 'notes' },
      { name: 'folder-of-root', tool: 'folder_of', args: { path: 'todo.md' }, expect: '(root)' },
      { name: 'summary-shape', tool: 'notes_summary', args: {} },
      { name: 'bad-folder', tool: 'notes_summary', args: { folder: 5 }, expect_error: 'INVALID_ARGUMENTS' },
    ],
    reason: 'The blueprint 0xA00001 says how; its checklist names these tests.',
  };
}

/** An update whose init throws: its gate rejects it and the version in force keeps running. */
export const BROKEN_INIT_CODE = NOTES_INDEX_CODE.replace("const { files } = await ctx.call_tool('list_files', {});", "const { files } = await ctx.call_tool('list_files', {});\n    throw new Error('the index file is corrupt');");

/** Version 2: counts only Markdown files (a visible change of behaviour). */
export const MARKDOWN_ONLY_CODE = NOTES_INDEX_CODE.replace("const folderOf = (path) =>", "const counted = (path) => path.endsWith('.md');\nconst folderOf = (path) =>")
  .replace("for (const f of files) if (!known.has(f.path))", "for (const f of files) if (counted(f.path) && !known.has(f.path))")
  .replace("if (known.has(path)) return;", "if (known.has(path) || !counted(path)) return;");

/** The turns of the scripted model: read a blueprint and write one (from Python), build the upgrade and add it to the persona (native tools), answer. */
export function notesIndexScript(): ScriptTurn[] {
  const pythonWritesBlueprint = [
    'from tools.blueprints import read_blueprint, create_blueprint',
    'workspace = read_blueprint(id="0x000014")',
    `made = create_blueprint(**${JSON.stringify({ ...NOTES_INDEX_BLUEPRINT })})`,
    'print(workspace["title"], "->", made["id"], made["status"])',
    'made',
  ].join('\n');
  return [
    { text: 'I will read the workspace blueprint, then write the notes index\'s.', toolCalls: [{ id: 'bp', name: 'execute_python', args: { code: pythonWritesBlueprint } }] },
    (req) => {
      const made = lastToolResult(req) as { value?: { value?: { id?: string } } };
      const id = made.value?.value?.id ?? '0xA00001';
      return { text: `Blueprint ${id} written; building it.`, toolCalls: [{ id: 'up', name: 'create_upgrade', args: notesIndexUpgrade(id) }] };
    },
    { toolCalls: [{ id: 'persona', name: 'update_persona', args: { add_upgrades: ['notes-index'], add_tools: ['notes_index.*'], reason: 'I built it to keep notes counted' } }] },
    { text: 'The notes index runs: notes_summary answers the counts by folder.' },
  ];
}

/** The last tool result the model was sent. */
function lastToolResult(req: { messages: { role: string; content?: unknown }[] }): unknown {
  const m = [...req.messages].reverse().find((x) => x.role === 'tool');
  try {
    return JSON.parse(String(m?.content ?? '{}'));
  } catch {
    return {};
  }
}

/**
 * A small upgrade `id` for the limits' suites: it counts its starts in its storage (`starts.txt`),
 * answers `ping`, and emits `heard { path }` for each workspace file written. Its own code runs
 * away on request: its init loops while the workspace holds `hang/<id>/init.txt`, its handler
 * loops on a write of `hang/<id>/handler.txt`.
 */
export function probeUpgrade(id: string, blueprint: string) {
  const code = `export default {
  async init(ctx) {
    const starts = Number((await ctx.storage_read('starts.txt')) ?? '0') + 1;
    await ctx.storage_write('starts.txt', String(starts));
    const { files } = await ctx.call_tool('list_files', { prefix: 'hang/${id}' });
    if (files.some((f) => f.path === 'hang/${id}/init.txt')) for (;;) {}
    ctx.on('workspace:written', async ({ path }) => {
      if (path === 'hang/${id}/handler.txt') for (;;) {}
      await ctx.emit('heard', { path });
    });
  },
  tools: { ping: () => 'pong' },
};
`;
  return {
    id,
    blueprint,
    code,
    tools: [{ name: 'ping', description: 'Answers pong.', inputSchema: { type: 'object', properties: {}, additionalProperties: false } }],
    events: [{ name: 'heard', schema: { type: 'object', properties: { path: { type: 'string' } }, required: ['path'] } }],
    tests: [{ name: 'ping', tool: 'ping', args: {}, expect: 'pong' }],
    reason: `A probe (${id}).`,
  };
}

/** The blueprint of {@link probeUpgrade} `id` (its checklist names its one test). */
export function probeBlueprint(id: string) {
  return {
    title: `Probe ${id}`,
    target: id,
    prerequisites: ['0x000014'],
    body: ['# Probe', '', '## 1. Objective', '', 'Answer pings and report written files.', '', '## 2. Design', '', '- `ping` answers pong; each workspace write is emitted as `heard`.', '', '## 4. Verification', '', '- [ ] it answers pong (test: ping)', ''].join('\n'),
    reason: `A probe (${id}).`,
  };
}
