// Records the examples in examples/<name>/recording.jsonl: each runs the agent for real (Pyodide,
// the change path, confined workers) in a fresh workspace, against Armature's scripted model — a
// local server speaking the OpenAI wire protocol whose answers are written by hand in
// scripts/examples.ts, not by a language model — with `record`. Between turns, the pending changes
// of the run are approved as a person at the command line would (caller `cli`).
//
//   node --import tsx scripts/record-examples.ts [NAME...]
//
// Record again after a change that alters what the tools answer (a replay would then diverge);
// a changed prompt or tool list only adds a note to the replay.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { boot } from '../src/index.ts';
import { CHANGES_ID, type ChangesApi } from '../src/contracts/change-contract.ts';
import { createNodePlatform } from '../src/platform/node.ts';
import type { AgentApi } from '../src/contracts/agent-contract.ts';
import { startScriptedModelServer } from '../test/helpers/scripted-model-server.ts';
import { EXAMPLES, LABEL } from './examples.ts';

const root = fileURLToPath(new URL('..', import.meta.url));
const only = process.argv.slice(2);
const server = await startScriptedModelServer();
try {
  for (const ex of EXAMPLES.filter((e) => !only.length || only.includes(e.name))) {
    const data = mkdtempSync(join(tmpdir(), `armature-record-${ex.name}-`));
    const sys = await boot({ persona: ex.persona, platform: createNodePlatform({ dataDir: data }) });
    try {
      const workspace = await sys.resolve<{ write(path: string, text: string): Promise<unknown> }>('Workspace');
      for (const f of ex.workspace) await workspace.write(f.path, f.content);
      const agent = await sys.resolve<AgentApi>('Agent');
      const changes = await sys.resolve<ChangesApi>(CHANGES_ID);
      let text = '';
      const record = { header: { title: ex.title, description: ex.description, label: LABEL, workspace: { files: ex.workspace } }, write: (line: string) => void (text += line) };
      let runId: string | undefined;
      for (const [i, turn] of ex.turns.entries()) {
        if (runId) {
          for (const r of changes.list({ status: 'pending' }).filter((c) => c.caller.run === runId).reverse()) await changes.approve(r.id, { caller: 'cli' });
        }
        server.model.setScript(turn.script);
        const result = await agent.run({ goal: turn.goal, ...(runId ? { runId } : {}), model: { provider: 'openai-compatible', model: 'scripted', baseURL: server.baseURL }, record });
        if (result.reason !== 'answered') throw new Error(`${ex.name}, turn ${i + 1}: ${result.reason} ${JSON.stringify(result.error)} ${JSON.stringify(result.toolCalls.map((c) => c.result))}`);
        for (const c of result.toolCalls) if (!c.ok) throw new Error(`${ex.name}, turn ${i + 1}: ${c.name} failed: ${JSON.stringify(c.result)}`);
        runId = result.runId;
      }
      writeFileSync(join(root, 'examples', ex.name, 'recording.jsonl'), text);
      console.log(`examples/${ex.name}/recording.jsonl: ${ex.turns.length} turn(s), ${text.split('\n').filter((l) => l.includes('"type":"step"')).length} steps`);
    } finally {
      await sys.dispose();
      rmSync(data, { recursive: true, force: true });
    }
  }
} finally {
  await server.close();
}
