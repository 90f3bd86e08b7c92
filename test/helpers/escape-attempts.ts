/**
 * What agent-made JavaScript tries in order to reach past its worker, each with (part of) the error
 * it must get: in Node a confined child process, in the browser a locked-down Web Worker. `origin`
 * is a probe server the fetch must not reach; in Node the built-in attempt writes `marker`, which
 * must not appear.
 */
/**
 * The `create_tool` arguments of a JavaScript tool `try_<what>` that makes one attempt, with a
 * gate test expecting its error: the gate proves the refusal before the tool comes into force.
 */
export function escapeTool(what: string, [body, error]: readonly [string, string]) {
  return {
    name: `try_${what}`,
    description: `Tries ${what}.`,
    input_schema: { type: 'object', properties: {} },
    language: 'javascript',
    code: `export default async () => { ${body} };\n`,
    tests: [{ args: {}, expect_error: error }],
  };
}

/** The IndexedDB database the attempt tries to open: it must not exist afterwards. */
export const ESCAPE_DB = 'escape';

export function escapeAttempts(where: 'node' | 'browser', origin: string, marker = ''): Record<'dom' | 'indexeddb' | 'fetch' | 'process' | 'node_builtin', [string, string]> {
  const node = where === 'node';
  return {
    dom: [node ? 'return document.title;' : "document.title = 'taken over'; return document.title;", 'document is not defined'],
    indexeddb: [`return indexedDB.open('${ESCAPE_DB}');`, 'indexedDB is not defined'],
    fetch: [`return (await fetch(${JSON.stringify(`${origin}/steal`)})).text();`, node ? 'NETWORK_DENIED' : 'may not reach'],
    process: ['return process.env;', 'process is not defined'],
    node_builtin: node
      ? [`(await import('node:fs')).writeFileSync(${JSON.stringify(marker)}, 'escaped'); return 'written';`, 'refused']
      : ["return (await import('node:fs')).readFileSync('/etc/passwd', 'utf8');", 'node:fs'],
  };
}

/**
 * The source of agent code that makes one named attempt and reports what happened instead of
 * throwing (`{ escaped, value }` or `{ escaped: false, error }`). `attempts` is the text of an
 * object literal of attempts (`name: () => ...`); they see the call's `code` and `url`, the
 * worker's `ctx`, and `proto(name)`, which finds a global on the prototype chain.
 */
export function attemptModule(attempts: string): string {
  return `
export default async ({ code, url }, ctx) => {
  const proto = (name) => { for (let o = globalThis; o; o = Object.getPrototypeOf(o)) if (Object.prototype.hasOwnProperty.call(o, name)) return o[name]; };
  const attempts = ${attempts.trim()};
  try {
    const value = await attempts[code]();
    return { escaped: true, value: String(value) };
  } catch (e) {
    return { escaped: false, error: String(e && e.message) };
  }
};
`;
}
