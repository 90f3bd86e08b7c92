// A page of your own that boots Armature's `python` persona (the workspace and Python with
// call_tool) and runs Python that writes and reads a file through call_tool.
import { boot } from 'armature';

const out = document.getElementById('out')!;
out.textContent = 'Booting Python…';
const sys = await boot({ persona: 'python' });
const code = [
  'call_tool("write_file", {"path": "hello.txt", "content": "Hello from Python"})',
  'text = call_tool("read_file", {"path": "hello.txt"})["content"]',
  'print(text)',
  'len(text)',
].join('\n');
const result = await sys.tools.executeTool('execute_python', { code });
out.textContent = result.ok ? `${result.value.stdout}=> ${JSON.stringify(result.value.value)}` : `${result.error.code}: ${result.error.message}`;
// For the test suite, which drives this page in Chromium.
(globalThis as { armatureExample?: unknown }).armatureExample = { modules: sys.modules.map((m) => [m.id, m.state]), result };
