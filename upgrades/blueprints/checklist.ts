/**
 * The house sections of a blueprint's body and its verification checklist. An agent-made
 * blueprint keeps the sections people write (objective, design, verification), and each item of
 * its verification checklist names the test that proves it as `(test: NAME)`: the upgrade it
 * describes comes into force only when every item names a test of its own that passed.
 */

/** One item of a verification checklist. */
export interface ChecklistItem {
  /** The item's text, without its bullet or checkbox. */
  text: string;
  /** The test it names with `(test: NAME)`, if it names one. */
  test?: string;
  /** Its line in the body, from 1. */
  line: number;
}

/** A test name a checklist item may give: letters, digits, `_`, `.`, `-`; at most 80 characters. */
export const TEST_NAME = /^[A-Za-z0-9][\w.-]{0,79}$/;

const HEADING = /^(#{1,6})\s+(?:\d+[.)]\s*)?(.*?)\s*#*\s*$/;
const ITEM = /^[-*+]\s+(?:\[[ xX]\]\s+)?(.+)$/;
const PROOF = /\(test:\s*([^()\s]+)\s*\)/i;

/** The sections a blueprint body must have: heading words (any level, numbered or not). */
export const HOUSE_SECTIONS = [
  { name: 'objective', words: /^objective\b/i, example: '## 1. Objective' },
  { name: 'design', words: /^(design|architecture|contract)\b/i, example: '## 2. Design' },
  { name: 'verification', words: /^verification\b/i, example: '## 4. Verification' },
] as const;

interface Heading {
  level: number;
  title: string;
  line: number;
}

function headings(lines: readonly string[]): Heading[] {
  const out: Heading[] = [];
  let fenced = false;
  lines.forEach((l, i) => {
    if (/^\s*```/.test(l)) fenced = !fenced;
    const m = fenced ? null : HEADING.exec(l);
    if (m) out.push({ level: m[1]!.length, title: m[2]!, line: i });
  });
  return out;
}

/** The items of the body's Verification section (its top-level bullets), in order. */
export function verificationChecklist(body: string): ChecklistItem[] {
  const lines = body.split(/\r?\n/);
  const all = headings(lines);
  const start = all.find((h) => HOUSE_SECTIONS[2].words.test(h.title));
  if (!start) return [];
  const end = all.find((h) => h.line > start.line && h.level <= start.level)?.line ?? lines.length;
  const items: ChecklistItem[] = [];
  for (let i = start.line + 1; i < end; i++) {
    const m = ITEM.exec(lines[i]!);
    if (!m) continue;
    const text = m[1]!.trim();
    const proof = PROOF.exec(text);
    items.push({ text, line: i + 1, ...(proof ? { test: proof[1]! } : {}) });
  }
  return items;
}

/** What is missing from the house format, each a sentence with the fix; empty when nothing. */
export function sectionProblems(body: string): string[] {
  const lines = body.split(/\r?\n/);
  const titles = headings(lines).map((h) => h.title);
  const problems = HOUSE_SECTIONS.filter((s) => !titles.some((t) => s.words.test(t))).map((s) => `the body has no ${s.name} section: add a heading such as "${s.example}".`);
  if (!problems.length && !verificationChecklist(body).length) {
    problems.push('the verification section has no checklist: list what must hold, one item per line, e.g. "- [ ] counts files by folder (test: counts-by-folder)".');
  }
  return problems;
}

/** Checklist items that name no test, or a name that is not a usable test name, as sentences. */
export function checklistProblems(items: readonly ChecklistItem[]): string[] {
  return items.flatMap((item) => {
    if (!item.test) return [`checklist item on line ${item.line} ("${item.text.slice(0, 80)}") names no test: end it with (test: NAME), the name of the test that proves it.`];
    if (!TEST_NAME.test(item.test)) return [`checklist item on line ${item.line} names test "${item.test.slice(0, 80)}": a test name is letters, digits, _, . and - (at most 80).`];
    return [];
  });
}

/**
 * `body` with the checkbox of each verification item whose named test is in `passed` ticked
 * (`- [ ]` -> `- [x]`): what the gate of the upgrade built from the blueprint proved. Items that
 * name no passed test keep their box as written.
 */
export function tickProven(body: string, passed: ReadonlySet<string>): string {
  if (!passed.size) return body;
  const lines = body.split(/(?<=\n)/);
  for (const item of verificationChecklist(body)) {
    if (!item.test || !passed.has(item.test)) continue;
    const i = item.line - 1;
    lines[i] = lines[i]!.replace(/^([-*+]\s+)\[ \]/, '$1[x]');
  }
  return lines.join('');
}
