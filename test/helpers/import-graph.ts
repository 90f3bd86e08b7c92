/**
 * The import graph of the project's sources, read as text (no TypeScript program: the whole walk
 * takes milliseconds). An edge is a relative specifier that names a file: a static `import` or
 * `export ... from`, a side-effect `import '...'`, `import()` with a literal, `declare module '...'`
 * (an augmentation depends on the module it augments), or `new URL(literal, import.meta.url)`
 * naming a source file (workers and child entries are loaded that way). Comments are skipped, so
 * an example in a doc comment is no edge; a specifier built at run time (a template with `${}`) is
 * none either: it names no one file.
 */
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';

/** File extensions of source files. */
const SOURCE = /\.(ts|mts|mjs|js|py)$/;

/** Whether `path` is a test file (`*.test.ts`, `*.browser.test.ts`, ...). */
export const isTest = (path: string): boolean => /\.test\.[cm]?[jt]s$/.test(path);

/** Source files below `dirs` (relative to `root`, with `/`), tests excluded unless asked for. */
export function sourceFiles(root: string, dirs: readonly string[], withTests = false): string[] {
  const out: string[] = [];
  const walk = (dir: string) => {
    for (const name of readdirSync(dir)) {
      if (name === 'node_modules' || name.startsWith('.')) continue;
      const path = join(dir, name);
      if (statSync(path).isDirectory()) walk(path);
      else if (SOURCE.test(name) && (withTests || !isTest(name))) out.push(relative(root, path).split(sep).join('/'));
    }
  };
  for (const d of dirs) if (existsSync(join(root, d))) walk(join(root, d));
  return out.sort();
}

/**
 * `text` with its comments blanked out (strings and templates kept), so that only code is
 * searched for specifiers. Line breaks are kept.
 */
export function withoutComments(text: string): string {
  let out = '';
  let i = 0;
  /** Open template literals: the brace depth of the `${` each one is inside. */
  const templates: number[] = [];
  let depth = 0;
  while (i < text.length) {
    const c = text[i]!;
    const next = text[i + 1];
    if (c === '/' && next === '/') {
      while (i < text.length && text[i] !== '\n') i++;
    } else if (c === '/' && next === '*') {
      const end = text.indexOf('*/', i + 2);
      const stop = end < 0 ? text.length : end + 2;
      out += text.slice(i, stop).replace(/[^\n]/g, ' ');
      i = stop;
    } else if (c === "'" || c === '"') {
      let j = i + 1;
      while (j < text.length && text[j] !== c && text[j] !== '\n') j += text[j] === '\\' ? 2 : 1;
      out += text.slice(i, j + 1);
      i = j + 1;
    } else if (c === '`' || (c === '}' && templates.length && templates.at(-1) === depth)) {
      // A template's text, from its start (or the end of a `${}`) to its end or next `${`.
      if (c === '}') templates.pop();
      let j = i + 1;
      while (j < text.length && text[j] !== '`' && !(text[j] === '$' && text[j + 1] === '{')) j += text[j] === '\\' ? 2 : 1;
      if (text[j] === '$') {
        templates.push(depth);
        out += text.slice(i, j + 2);
        i = j + 2;
      } else {
        out += text.slice(i, j + 1);
        i = j + 1;
      }
    } else {
      if (c === '{') depth++;
      else if (c === '}') depth--;
      out += c;
      i++;
    }
  }
  return out;
}

const SPECIFIER = new RegExp(
  [
    String.raw`\bfrom\s*(['"])(\.{1,2}\/[^'"\n]*)\1`,
    String.raw`\bimport\s*(['"])(\.{1,2}\/[^'"\n]*)\3`,
    String.raw`\bimport\s*\(\s*(['"])(\.{1,2}\/[^'"\n]*)\5\s*\)`,
    String.raw`\bdeclare\s+module\s*(['"])(\.{1,2}\/[^'"\n]*)\7`,
    String.raw`\bnew\s+URL\(\s*(['"])(\.{1,2}\/[^'"\n]*)\9\s*,\s*import\.meta\.url\s*\)`,
  ].join('|'),
  'g',
);

/** The files `file` depends on (relative to `root`), as the module header above describes. */
export function importsOf(root: string, file: string): string[] {
  if (file.endsWith('.py')) return [];
  const code = withoutComments(readFileSync(join(root, file), 'utf8'));
  const out = new Set<string>();
  for (const m of code.matchAll(SPECIFIER)) {
    const spec = m[2] ?? m[4] ?? m[6] ?? m[8] ?? m[10];
    if (!spec) continue;
    const target = resolve(root, dirname(file), spec);
    if (existsSync(target) && statSync(target).isFile() && SOURCE.test(target)) out.add(relative(root, target).split(sep).join('/'));
  }
  return [...out].sort();
}

/** The graph of `files`: each file's imports among them. */
export function importGraph(root: string, files: readonly string[]): Map<string, string[]> {
  const known = new Set(files);
  return new Map(files.map((f) => [f, importsOf(root, f).filter((t) => known.has(t))]));
}

/**
 * The import circles of `graph`: for each file caught in one (a strongly connected component,
 * found with Tarjan's algorithm), a shortest circle through it, as the files along it with the
 * first repeated at the end (`a -> b -> a`). Circles found from several of their files are
 * listed once.
 */
export function importCircles(graph: ReadonlyMap<string, readonly string[]>): string[][] {
  let index = 0;
  const order = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const components: string[][] = [];
  const visit = (v: string) => {
    order.set(v, index);
    low.set(v, index++);
    stack.push(v);
    onStack.add(v);
    for (const w of graph.get(v) ?? []) {
      if (!order.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v)!, low.get(w)!));
      } else if (onStack.has(w)) low.set(v, Math.min(low.get(v)!, order.get(w)!));
    }
    if (low.get(v) === order.get(v)) {
      const component: string[] = [];
      let w: string;
      do {
        w = stack.pop()!;
        onStack.delete(w);
        component.push(w);
      } while (w !== v);
      if (component.length > 1 || (graph.get(v) ?? []).includes(v)) components.push(component);
    }
  };
  for (const v of [...graph.keys()].sort()) if (!order.has(v)) visit(v);
  const circles = new Map<string, string[]>();
  for (const component of components) {
    const members = new Set(component);
    for (const file of [...members].sort()) {
      const circle = circleThrough(graph, members, file);
      // The same circle, whichever file it was found from, starts at its first file by name.
      const ring = circle.slice(0, -1);
      const at = ring.indexOf([...ring].sort()[0]!);
      const rotated = [...ring.slice(at), ...ring.slice(0, at)];
      circles.set(rotated.join('\n'), [...rotated, rotated[0]!]);
    }
  }
  return [...circles.values()];
}

/** A shortest circle through `start` inside one strongly connected component. */
function circleThrough(graph: ReadonlyMap<string, readonly string[]>, members: ReadonlySet<string>, start: string): string[] {
  const from = new Map<string, string>();
  const queue = [start];
  while (queue.length) {
    const v = queue.shift()!;
    for (const w of graph.get(v) ?? []) {
      if (!members.has(w)) continue;
      if (w === start) {
        const path = [v];
        while (path[0] !== start) path.unshift(from.get(path[0]!)!);
        return [...path, start];
      }
      if (!from.has(w)) {
        from.set(w, v);
        queue.push(w);
      }
    }
  }
  return [start, start];
}

/**
 * Rooms that import each other both ways. Within every folder, each subfolder (with all below it)
 * is a room, and the folder's own files are one more, `(top)`; for each pair of rooms of one folder
 * importing each other, one line naming the folder, the pair and an import each way.
 */
export function twoWayRooms(graph: ReadonlyMap<string, readonly string[]>): { folder: string; rooms: [string, string]; imports: [string, string] }[] {
  const folders = new Set<string>();
  for (const f of graph.keys()) for (let d = dirname(f); d !== '.'; d = dirname(d)) folders.add(d);
  const out: { folder: string; rooms: [string, string]; imports: [string, string] }[] = [];
  for (const folder of [...folders].sort()) {
    const roomOf = (f: string) => {
      if (!f.startsWith(`${folder}/`)) return undefined;
      const rest = f.slice(folder.length + 1);
      return rest.includes('/') ? `${rest.slice(0, rest.indexOf('/'))}/` : '(top)';
    };
    /** One import from room a to room b, by `a|b`. */
    const between = new Map<string, string>();
    for (const [from, targets] of graph) {
      for (const to of targets) {
        const a = roomOf(from);
        const b = roomOf(to);
        if (a && b && a !== b && !between.has(`${a}|${b}`)) between.set(`${a}|${b}`, `${from} -> ${to}`);
      }
    }
    for (const [pair, one] of between) {
      const [a, b] = pair.split('|') as [string, string];
      const back = between.get(`${b}|${a}`);
      if (a < b && back) out.push({ folder, rooms: [a, b], imports: [one, back] });
    }
  }
  return out;
}
