// Agent-made Python tools in Chromium (issue 28), the system booted in the page: each gate and
// each version in force runs in a Web Worker of its own, so a candidate that hijacks the
// interpreter it is imported in is rejected by its own test and reaches nothing else, other
// candidates' results are their own, and calls from Python are ToolRunner calls.
import { expect } from 'chai';
import { boot, type ArmatureSystem } from '../../src/index.ts';
import { createBrowserPlatform } from '../../src/platform/browser/browser.ts';
import type { Platform } from '../../src/platform/platform.ts';
import { FLAKY, HIJACK } from '../helpers/made-tool-fixtures.ts';

const TOOLS = ['made.*', 'create_tool', 'list_tools_made', 'execute_python'];

/**
 * The browser platform with a `maker` persona beside the project's: the default persona's upgrades,
 * these tools, tool changes in force when their tests pass. (The Node suites' persona-overlay
 * helper imports JSON the test page cannot.)
 */
async function withMaker(platform: Platform): Promise<Platform> {
  const base = JSON.parse(await platform.project.read('modules/personas/default.json')) as { upgrades: string[] };
  const maker = JSON.stringify({ id: 'maker', name: 'Tool maker', description: 'Makes its own tools.', upgrades: base.upgrades, tools: TOOLS, skills: [], selfModification: { tools: 'auto' } });
  const path = 'modules/personas/maker.json';
  return {
    ...platform,
    project: {
      list: async (dir, ext) => [...new Set([...(await platform.project.list(dir, ext)), ...(dir === 'modules/personas' && ext === '.json' ? [path] : [])])].sort(),
      read: (p) => (p === path ? Promise.resolve(maker) : platform.project.read(p)),
    },
  };
}

type Answer = { status: string; tests: { ok: boolean; value?: unknown; error?: { code: string; message: string } }[] };

describe('agent-made Python tools in Chromium', () => {
  let sys: ArmatureSystem;
  before(async () => {
    const platform = await withMaker(createBrowserPlatform({ dbPrefix: `made-trust-${Date.now()}` }));
    sys = await boot({ persona: 'maker', platform, config: { MadeTools: { canaryCalls: 20, canaryFailureShare: 0.9 } } });
  });
  after(() => sys?.dispose());

  async function value<T>(name: string, args: Record<string, unknown>, session?: string): Promise<T> {
    const r = await sys.tools.executeTool<T>(name, args, { caller: 'agent', timeoutMs: 240_000, ...(session ? { session } : {}) });
    expect(r.ok, JSON.stringify(r)).to.equal(true);
    return (r as { value: T }).value;
  }

  it('a hijacking candidate is rejected by its own test; the approved tool answers 42; other candidates get their own results', async () => {
    expect((await value<Answer>('create_tool', HIJACK.victim)).status).to.equal('active');
    const hijack = await value<Answer>('create_tool', HIJACK.hijacker);
    expect(hijack.status, JSON.stringify(hijack)).to.equal('rejected');
    expect(hijack.tests.map((t) => t.error?.code)).to.deep.equal([undefined, 'UNEXPECTED_VALUE']);
    expect(await value<number>('made.victim', { a: 40, b: 2 })).to.equal(42);
    const adder = await value<Answer>('create_tool', HIJACK.adder);
    expect(adder.tests.map((t) => [t.ok, t.value])).to.deep.equal([[true, 3]]);
    const raiser = await value<Answer>('create_tool', HIJACK.raiser);
    expect(raiser.status).to.equal('rejected');
    const traces = await value<{ value: unknown }>('execute_python', { code: 'import sys, json, builtins\n["armature_made" in sys.modules, json.dumps(1), hasattr(builtins, "HIJACKED")]' }, 'page-session');
    expect(traces.value).to.deep.equal([false, '1', false]);
  });

  it('ten flaky(x=-1) from Python are 10 calls and 10 errors of the ToolRunner, all watched by the canary', async () => {
    expect((await value<Answer>('create_tool', FLAKY)).status).to.equal('active');
    const code = 'from tools.made import flaky\nn = 0\nfor i in range(10):\n    try:\n        flaky(x=-1)\n    except ToolError:\n        n += 1\nn';
    expect((await value<{ value: unknown }>('execute_python', { code }, 'flaky-caller')).value).to.equal(10);
    const stats = sys.tools.getStats().find((s) => s.name === 'made.flaky')!;
    expect([stats.calls, stats.errors]).to.deep.equal([10, 10]);
    const listed = await value<{ tools: { name: string; canary?: { watched: number; failures: number } }[] }>('list_tools_made', {});
    const canary = listed.tools.find((t) => t.name === 'made.flaky')!.canary!;
    expect([canary.watched, canary.failures]).to.deep.equal([10, 10]);
  });
});
