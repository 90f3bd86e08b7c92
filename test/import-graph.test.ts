// The house rules of the source tree, read from the files as text: imports run one way (no
// circle between files, nothing in src/ imports from upgrades/, no two rooms of a folder importing
// each other), and rooms stay small (folders of at most 20 source files, files of at most 400
// lines unless listed below with their reason).
//
// Test files are left out of the graph: nothing imports a test, so no circle can pass through
// one, and a test of src/ may use an upgrade as a real collaborator (the loader's test boots the
// ToolRunner). They are left out of the counts too: they sit beside what they test.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { importCircles, importGraph, sourceFiles, twoWayRooms } from './helpers/import-graph.ts';

const root = fileURLToPath(new URL('..', import.meta.url));
const lineCount = (file: string) => readFileSync(join(root, file), 'utf8').split('\n').length - 1;
const files = sourceFiles(root, ['src', 'upgrades']);

/** Most source files (tests aside) one folder may hold. */
const MAX_FOLDER_FILES = 20;
/** Most lines one source file may have, unless it is listed in {@link LONG_FILES}. */
const MAX_FILE_LINES = 400;
/** Files allowed past {@link MAX_FILE_LINES}, each with its reason. Keep it short. */
const LONG_FILES: Record<string, string> = {};
/** Rooms of one folder allowed to import each other (`folder: a <-> b`), each with its reason. Keep it short. */
const TWO_WAY_ROOMS: Record<string, string> = {
  'src: kernel/ <-> platform/':
    'the kernel types its Platform and boot() picks the default one, while two platform adapters (directory-store.ts, node-worker.ts) throw the kernel\'s ArmatureError; giving errors a room both can import is its own change',
};

test('no import circle between source files, and nothing in src/ imports from upgrades/', () => {
  const graph = importGraph(root, files);
  const circles = importCircles(graph).map((c) => c.join(' -> '));
  const upward = [...graph].flatMap(([from, to]) => (from.startsWith('src/') ? to.filter((t) => t.startsWith('upgrades/')).map((t) => `${from} -> ${t}`) : []));
  assert.ok(graph.size > 100 && [...graph.values()].flat().length > 300, `the walk found too little to judge: ${graph.size} files`);
  const findings = [
    ...circles.map((c) => `import circle: ${c} (move what both sides need into a file of its own)`),
    ...upward.map((u) => `src/ imports from upgrades/: ${u} (move the shared contract into src/contracts/)`),
  ];
  assert.deepEqual(findings, [], findings.join('\n'));
});

test('the rooms of each folder import one way: no two of them import each other', () => {
  const graph = importGraph(root, files);
  const found = twoWayRooms(graph).map((r) => ({ key: `${r.folder}: ${r.rooms[0]} <-> ${r.rooms[1]}`, line: `${r.folder}: ${r.rooms[0]} <-> ${r.rooms[1]} (${r.imports[0]}; ${r.imports[1]})` }));
  const findings = found.filter((r) => !(r.key in TWO_WAY_ROOMS)).map((r) => r.line);
  const stale = Object.keys(TWO_WAY_ROOMS).filter((k) => !found.some((r) => r.key === k));
  assert.deepEqual(findings, [], `rooms importing each other (move what both need into a room below both):\n${findings.join('\n')}`);
  assert.deepEqual(stale, [], `TWO_WAY_ROOMS lists pairs that no longer import each other: ${stale.join(', ')}`);
});

test(`no folder holds more than ${MAX_FOLDER_FILES} source files, no file has more than ${MAX_FILE_LINES} lines unless it says why`, () => {
  const perFolder = new Map<string, number>();
  for (const f of files) perFolder.set(dirname(f), (perFolder.get(dirname(f)) ?? 0) + 1);
  const crowded = [...perFolder].filter(([, n]) => n > MAX_FOLDER_FILES).map(([dir, n]) => `${dir}/: ${n} files (give it rooms by concern)`);
  const long = files
    .map((f) => [f, lineCount(f)] as const)
    .filter(([f, n]) => n > MAX_FILE_LINES && !(f in LONG_FILES))
    .map(([f, n]) => `${f}: ${n} lines (split it, or list it in LONG_FILES with its reason)`);
  const stale = Object.keys(LONG_FILES).filter((f) => !files.includes(f) || lineCount(f) <= MAX_FILE_LINES);
  assert.deepEqual([...crowded, ...long], [], [...crowded, ...long].join('\n'));
  assert.deepEqual(stale, [], `LONG_FILES lists files that are gone or no longer long: ${stale.join(', ')}`);
});
