/**
 * The terminal as the person's side of MCP elicitation: when a server behind `armature run`,
 * `call` or `agent` asks the person for input, the CLI asks on the terminal — the server's
 * message, then each field of its form (title, description, type, choices, default), then whether
 * to send, decline or cancel. Text from the server is shown on one line without control
 * characters (it never reaches the terminal raw). A request withdrawn or timed out stops asking.
 */
import { createInterface } from 'node:readline';
import { oneLine } from '../../kernel/bounded.ts';
import type { ElicitationAnswer, ElicitationDeskApi, ElicitationRequest, ElicitationResponder } from '../../contracts/mcp-client-contract.ts';
import type { ArmatureSystem } from '../../kernel/boot/boot.ts';

type Field = Record<string, unknown>;
type Value = string | number | boolean | string[];

/** How many times a field is asked again after a value it cannot take. */
const RETRIES = 3;

/** The values a single-select field (or each item of a multi-select one) may take: `enum`, or the `const`s of `oneOf`/`anyOf`. */
export function choicesOf(field: Field): string[] | undefined {
  const consts = (list: unknown) => (Array.isArray(list) ? list.map((o) => String((o as { const?: unknown }).const)) : undefined);
  return (Array.isArray(field.enum) ? field.enum.map(String) : undefined) ?? consts(field.oneOf) ?? consts(field.anyOf);
}

/** `text` parsed as the field's type, or an error saying what it takes. A multi-select takes values separated by commas. */
export function parseField(field: Field, text: string): { value: Value } | { error: string } {
  if (field.type === 'array') {
    const allowed = field.items && typeof field.items === 'object' ? choicesOf(field.items as Field) : undefined;
    const values = text.split(',').map((v) => v.trim()).filter(Boolean);
    const wrong = allowed ? values.filter((v) => !allowed.includes(v)) : [];
    return wrong.length ? { error: `values among ${allowed!.join(', ')}, separated by commas` } : { value: values };
  }
  const choices = choicesOf(field);
  if (choices) return choices.includes(text) ? { value: text } : { error: `one of ${choices.join(', ')}` };
  switch (field.type) {
    case 'boolean':
      if (/^(y|yes|true)$/i.test(text)) return { value: true };
      if (/^(n|no|false)$/i.test(text)) return { value: false };
      return { error: 'yes or no' };
    case 'integer':
    case 'number': {
      const n = Number(text);
      if (!text.trim() || !Number.isFinite(n) || (field.type === 'integer' && !Number.isInteger(n))) return { error: `a${field.type === 'integer' ? ' whole' : ''} number` };
      if (typeof field.minimum === 'number' && n < field.minimum) return { error: `at least ${field.minimum}` };
      if (typeof field.maximum === 'number' && n > field.maximum) return { error: `at most ${field.maximum}` };
      return { value: n };
    }
    default:
      if (typeof field.minLength === 'number' && text.length < field.minLength) return { error: `at least ${field.minLength} characters` };
      if (typeof field.maxLength === 'number' && text.length > field.maxLength) return { error: `at most ${field.maxLength} characters` };
      return { value: text };
  }
}

/** A responder that asks on `output` and reads the answers from `input` (the CLI: stdin and stderr). */
export function terminalResponder(input: NodeJS.ReadableStream, output: NodeJS.WritableStream): ElicitationResponder {
  return (request, signal) => ask(request, signal, input, output);
}

async function ask(request: ElicitationRequest, signal: AbortSignal, input: NodeJS.ReadableStream, output: NodeJS.WritableStream): Promise<ElicitationAnswer> {
  const rl = createInterface({ input, output, terminal: false });
  const lines: string[] = [];
  const waiting: ((line: string | undefined) => void)[] = [];
  rl.on('line', (line) => (waiting.length ? waiting.shift()!(line) : lines.push(line)));
  rl.once('close', () => waiting.splice(0).forEach((w) => w(undefined)));
  const stop = () => rl.close();
  signal.addEventListener('abort', stop, { once: true });
  const question = (prompt: string) =>
    new Promise<string>((resolve, reject) => {
      if (signal.aborted) return reject(new Error('the request was withdrawn'));
      output.write(prompt);
      const take = (line: string | undefined) => (line === undefined ? reject(new Error(signal.aborted ? 'the request was withdrawn' : 'the terminal closed')) : resolve(line.trim()));
      if (lines.length) take(lines.shift());
      else waiting.push(take);
    });
  try {
    output.write(`\n[mcp] ${oneLine(request.server, 64)} asks: ${oneLine(request.message, 500)}\n`);
    if (request.mode === 'url') {
      output.write(`  It asks you to open: ${oneLine(request.url ?? '', 500)}\n`);
      const done = await question('  Did you? [y]es / [d]ecline / [c]ancel: ');
      return /^y/i.test(done) ? { action: 'accept' } : /^d/i.test(done) ? { action: 'decline' } : { action: 'cancel' };
    }
    const content: Record<string, Value> = {};
    const required = new Set(request.schema?.required ?? []);
    for (const [name, field] of Object.entries(request.schema?.properties ?? {})) {
      const title = oneLine(String(field.title ?? name), 80);
      const about = field.description ? ` — ${oneLine(String(field.description), 200)}` : '';
      const items = field.type === 'array' && field.items && typeof field.items === 'object' ? choicesOf(field.items as Field) : undefined;
      const choices = (items ?? choicesOf(field))?.map((c) => oneLine(c, 40));
      const kind = choices ? `${items ? 'any of ' : ''}${choices.join('/')}${items ? ', comma-separated' : ''}` : String(field.type ?? 'string');
      const fallback = field.default === undefined ? undefined : oneLine(Array.isArray(field.default) ? field.default.join(', ') : String(field.default), 80);
      const hint = [kind, fallback !== undefined ? `default ${fallback}` : required.has(name) ? 'required' : 'optional'].join(', ');
      for (let attempt = 0; ; attempt++) {
        const text = await question(`  ${title}${about} (${hint}): `);
        if (!text) {
          if (field.default !== undefined) content[name] = field.default as Value;
          if (field.default !== undefined || !required.has(name)) break;
          output.write('  This one is required.\n');
        } else {
          const parsed = parseField(field, text);
          if ('value' in parsed) {
            content[name] = parsed.value;
            break;
          }
          output.write(`  It takes ${parsed.error}.\n`);
        }
        if (attempt >= RETRIES) return { action: 'cancel' };
      }
    }
    const send = await question('  Send this? [y]es / [d]ecline / [c]ancel: ');
    return /^y/i.test(send) ? { action: 'accept', content } : /^d/i.test(send) ? { action: 'decline' } : { action: 'cancel' };
  } finally {
    signal.removeEventListener('abort', stop);
    rl.close();
  }
}

/** Registers the terminal (stdin, stderr) as the person's side of MCP elicitation, when the McpClient runs. */
export async function answerElicitationsOnTerminal(sys: ArmatureSystem): Promise<void> {
  if (!sys.modules.some((m) => m.id === 'McpClient' && m.state === 'loaded')) return;
  const client = await sys.resolve<ElicitationDeskApi>('McpClient');
  client.addElicitationResponder(terminalResponder(process.stdin, process.stderr));
}
