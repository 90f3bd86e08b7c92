/**
 * What `armature init DIR` writes: a root of one's own, beside the package's — a persona, an
 * upgrade with two tools and a dashboard card, its blueprint, and a test — that boots and passes as
 * written. Plain JavaScript modules (`.mjs`, JSDoc types), so nothing needs compiling and Node and
 * the dashboard import them as they are. `test/e2e/package.test.ts` runs the output's own test.
 */

/** The starter's files, by path inside the folder. */
export function starterFiles(name: string): Record<string, string> {
  return {
    'modules/upgrades.json': `${JSON.stringify(
      {
        upgrades: [{ id: 'Tally', entry: 'upgrades/tally/index.mjs', dependencies: ['ToolRunner'], blueprint: '0x100001', category: 'tools' }],
      },
      null,
      2,
    )}\n`,
    'modules/tools-write.json': `${JSON.stringify(
      [
        {
          name: 'tally_add',
          description: 'Add to the count of a name (by 1 unless told). Returns the name and its new count.',
          module: 'Tally',
          inputSchema: {
            type: 'object',
            properties: { name: { type: 'string', minLength: 1, description: 'What is counted, e.g. "apples".' }, by: { type: 'integer', minimum: 1, default: 1 } },
            required: ['name'],
            additionalProperties: false,
          },
        },
      ],
      null,
      2,
    )}\n`,
    'modules/tools-read.json': `${JSON.stringify(
      [
        {
          name: 'tally_counts',
          description: 'Every count so far, by name, and their total.',
          module: 'Tally',
          inputSchema: { type: 'object', properties: {}, additionalProperties: false },
        },
      ],
      null,
      2,
    )}\n`,
    'modules/personas/tally.json': `${JSON.stringify(
      {
        id: 'tally',
        name: 'Tally',
        description: 'Python with call_tool, the workspace, and the Tally upgrade of this folder.',
        upgrades: ['ToolRunner', 'Workspace', 'PyodideRuntime', 'PythonTool', 'Tally'],
        tools: ['*'],
        skills: ['workspace', 'python', 'tally'],
      },
      null,
      2,
    )}\n`,
    'blueprints/0x100001-tally.md': BLUEPRINT,
    'upgrades/tally/index.mjs': UPGRADE,
    'upgrades/tally/widget.mjs': WIDGET,
    'test/tally.test.mjs': TEST,
    'README.md': readme(name),
  };
}

/** The package.json written when the folder has none. */
export function starterPackageJson(name: string, armatureVersion: string): string {
  return `${JSON.stringify(
    {
      name: name.toLowerCase().replace(/[^a-z0-9-]+/g, '-').replace(/^-+|-+$/g, '') || 'armature-root',
      private: true,
      type: 'module',
      scripts: { test: 'node --test', start: 'armature start --root . --persona tally' },
      dependencies: { armature: `^${armatureVersion}` },
    },
    null,
    2,
  )}\n`;
}

const BLUEPRINT = `---
id: 0x100001
title: Tally
target: Tally
prerequisites: [0x000012]
artifacts: [upgrades/tally/index.mjs, upgrades/tally/widget.mjs, modules/tools-write.json, modules/tools-read.json, modules/personas/tally.json, test/tally.test.mjs]
---
# Tally

## 1. Objective

Count things by name, for an agent working in Python and for a person on the dashboard.

## 2. Contract

- \`tally_add { name, by? = 1 }\` -> \`{ name, count }\` (write); \`tally_counts {}\` -> \`{ counts, total }\` (read).
- From Python: \`from tools.tally import tally_add, tally_counts\`, or \`call_tool("tally_add", {"name": "apples"})\`.
- API for the widget: \`counts()\`, \`total()\`, \`lastAt()\`.

## 3. Behaviour

Counts live in memory and start at zero at each boot. The ToolRunner validates every call against
the input schema, so \`name\` is a non-empty string and \`by\` a whole number of 1 or more.

## 4. Verification

- [ ] tally_add counts and tally_counts lists the counts and their total (test/tally.test.mjs)
- [ ] Python calls both tools (test/tally.test.mjs)
- [ ] a bad argument is refused by the ToolRunner with INVALID_ARGUMENTS (test/tally.test.mjs)
`;

const UPGRADE = `// The Tally upgrade: its metadata (which must agree with its entry in modules/upgrades.json) and a
// factory that returns its API and the handlers of the tools modules/tools-*.json declare for it.
// @ts-check

/** @type {import('armature').UpgradeMetadata} */
export const metadata = {
  id: 'Tally',
  version: '0.1.0',
  description: 'Counts things by name.',
  dependencies: ['ToolRunner'],
  blueprint: '0x100001',
  category: 'tools',
  widget: 'tally-widget',
};

/**
 * @typedef {object} TallyApi
 * @property {() => Record<string, number>} counts
 * @property {() => number} total
 * @property {() => number | undefined} lastAt ms since the epoch of the last count
 */

/** @type {import('armature').UpgradeModule<TallyApi>['factory']} */
export function factory() {
  /** @type {Map<string, number>} */
  const counts = new Map();
  /** @type {number | undefined} */
  let lastAt;
  /** @type {TallyApi} */
  const api = {
    counts: () => Object.fromEntries(counts),
    total: () => [...counts.values()].reduce((a, b) => a + b, 0),
    lastAt: () => lastAt,
  };
  return {
    api,
    tools: {
      // Arguments arrive validated against the tool's input schema.
      tally_add: (args) => {
        const name = String(args.name);
        const count = (counts.get(name) ?? 0) + Number(args.by ?? 1);
        counts.set(name, count);
        lastAt = Date.now();
        return { name, count };
      },
      tally_counts: () => ({ counts: api.counts(), total: api.total() }),
    },
  };
}
`;

const WIDGET = `// The Tally card on the dashboard (armature start --root . --persona tally). It renders what the
// upgrade's API reports and re-renders when one of its tools has run; it holds no logic of its own.
import { BusController, counted, html, ModuleWidget } from 'armature/widgets';

export class TallyWidget extends ModuleWidget {
  events = new BusController(this, () => this.bus, ['tool:finished'], () => this.requestUpdate());

  onContext() {
    this.events.connect();
  }

  getStatus() {
    const api = this.context?.api;
    const total = api?.total() ?? 0;
    return {
      state: total ? 'active' : 'idle',
      primaryMetric: counted(total, 'count'),
      secondaryMetric: counted(Object.keys(api?.counts() ?? {}).length, 'name'),
      lastActivity: api?.lastAt(),
    };
  }

  renderBody() {
    const counts = Object.entries(this.context?.api?.counts() ?? {});
    if (!counts.length) return html\`<p class="empty">Nothing counted yet: call tally_add.</p>\`;
    return html\`<table aria-label="counts">
      <thead><tr><th>name</th><th class="num">count</th></tr></thead>
      <tbody>\${counts.map(([name, n]) => html\`<tr><td>\${name}</td><td class="num">\${n}</td></tr>\`)}</tbody>
    </table>\`;
  }
}

if (!customElements.get('tally-widget')) customElements.define('tally-widget', TallyWidget);
`;

const TEST = `// Boots the tally persona from this folder (beside the armature package's own) and uses its tools
// directly and from Python. Run it with: node --test
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { boot } from 'armature';

const root = fileURLToPath(new URL('..', import.meta.url));
const dataDir = mkdtempSync(join(tmpdir(), 'tally-'));
const sys = await boot({ root, persona: 'tally', dataDir });
after(async () => {
  await sys.dispose();
  rmSync(dataDir, { recursive: true, force: true });
});

test('every upgrade of the persona loads', () => {
  assert.deepEqual(sys.modules.map((m) => [m.id, m.state]), sys.persona.upgrades.map((id) => [id, 'loaded']));
});

test('tally_add counts and tally_counts lists the counts and their total', async () => {
  assert.deepEqual((await sys.tools.executeTool('tally_add', { name: 'apples' })).value, { name: 'apples', count: 1 });
  assert.deepEqual((await sys.tools.executeTool('tally_add', { name: 'apples', by: 2 })).value, { name: 'apples', count: 3 });
  const listed = await sys.tools.executeTool('tally_counts', {});
  assert.equal(listed.ok, true);
  assert.deepEqual(listed.value, { counts: { apples: 3 }, total: 3 });
});

test('Python calls both tools', async () => {
  const code = 'from tools.tally import tally_add, tally_counts\\ntally_add(name="pears")\\ncall_tool("tally_add", {"name": "pears"})\\ntally_counts()["counts"]["pears"]';
  const result = await sys.tools.executeTool('execute_python', { code });
  assert.equal(result.ok, true, JSON.stringify(result));
  assert.equal(result.value.value, 2);
});

test('a bad argument is refused by the ToolRunner with INVALID_ARGUMENTS', async () => {
  const result = await sys.tools.executeTool('tally_add', { name: '' });
  assert.equal(result.ok, false);
  assert.equal(result.error.code, 'INVALID_ARGUMENTS');
});
`;

function readme(name: string): string {
  return `# ${name}

A root of your own for Armature, beside the package's: Armature reads its \`modules/\`,
\`blueprints/\` and \`upgrades/\` as well as its own.

- \`modules/upgrades.json\` registers the \`Tally\` upgrade (\`upgrades/tally/index.mjs\`), and
  \`modules/tools-*.json\` declare its tools (\`module: "Tally"\`: the upgrade that implements them).
- \`modules/personas/tally.json\` is a persona that loads it with Python.
- \`upgrades/tally/widget.mjs\` is its dashboard card; \`blueprints/0x100001-tally.md\` its design.
- \`test/tally.test.mjs\` boots the persona and calls the tools, directly and from Python.

\`\`\`sh
npm install armature          # if this folder's package.json is new
node --test                   # the test
npx armature --root . boot --persona tally
npx armature --root . call tally_add '{"name": "apples"}' --persona tally
npx armature --root . run --persona tally -c 'from tools.tally import tally_add
print(tally_add(name="pears"))'
npx armature --root . start --persona tally   # the dashboard, with the Tally card
\`\`\`

From code: \`boot({ root: '.', persona: 'tally' })\`. \`ARMATURE_ROOT=.\` does what \`--root .\` does.
Ids must not be the package's: your upgrades, tools and personas get names of their own, your
blueprints ids from 0x100000 to 0x9FFFFF.
`;
}
