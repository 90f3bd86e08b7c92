/**
 * Module status snapshots: what an upgrade's card shows, as plain data. A widget renders a
 * module's snapshot (and the events that change it) instead of calling the module's API, so the
 * same card works for a system in the page and for one in another process, where the snapshot
 * arrives over the wire. This file says what a snapshot may hold and checks it.
 */
import { ArmatureError } from './errors.ts';

/** A JSON value: what a snapshot is made of. */
export type StatusValue = string | number | boolean | null | StatusValue[] | { [key: string]: StatusValue | undefined };

/**
 * A module's status snapshot: plain JSON data — objects, arrays, strings, finite numbers,
 * booleans, null (an object's `undefined` fields are left out) — of at most
 * {@link STATUS_MAX_BYTES} as JSON, holding no secret and nothing a person could not see on the
 * module's card anyway.
 */
export type StatusSnapshot = { [key: string]: StatusValue | undefined };

/** The largest snapshot, in bytes of UTF-8 JSON: 64 KiB. */
export const STATUS_MAX_BYTES = 64 * 1024;

/** How deep a snapshot may nest. */
const MAX_DEPTH = 32;

const encoder = new TextEncoder();

/**
 * `value` checked and copied as a {@link StatusSnapshot}: the copy shares nothing with the module's
 * own objects, so a later change of theirs never changes a snapshot already published. Throws
 * `INVALID_STATUS` naming the module, the JSON path of the offending value and what to do.
 */
export function checkStatusSnapshot(moduleId: string, value: unknown): StatusSnapshot {
  const fail = (path: string, problem: string, hint: string): never => {
    throw new ArmatureError('INVALID_STATUS', `[status] ${moduleId}'s status snapshot at ${path} ${problem}`, { hint, details: { module: moduleId, path } });
  };
  const plain = 'Return plain data: objects, arrays, strings, finite numbers, booleans and null.';
  const walk = (v: unknown, path: string, depth: number): void => {
    if (v === null || typeof v === 'string' || typeof v === 'boolean') return;
    if (typeof v === 'number') {
      if (!Number.isFinite(v)) fail(path, `is ${String(v)}, not a finite number`, 'Send null (or leave the field out) instead.');
      return;
    }
    if (typeof v !== 'object') fail(path, `is a ${typeof v}`, plain);
    if (depth >= MAX_DEPTH) fail(path, `nests deeper than ${MAX_DEPTH} levels`, 'Flatten it: a card shows a few levels at most.');
    if (Array.isArray(v)) {
      v.forEach((x, i) => {
        if (x === undefined) fail(`${path}[${i}]`, 'is undefined', 'Use null in an array.');
        walk(x, `${path}[${i}]`, depth + 1);
      });
      return;
    }
    const proto = Object.getPrototypeOf(v);
    if (proto !== Object.prototype && proto !== null) fail(path, `is a ${(v as object).constructor?.name ?? 'class instance'}`, `${plain} Turn a Map or Set into an object or array, a Date into its ms since the epoch.`);
    for (const [k, x] of Object.entries(v as object)) if (x !== undefined) walk(x, /^[A-Za-z_$][\w$]*$/.test(k) ? `${path}.${k}` : `${path}[${JSON.stringify(k)}]`, depth + 1);
  };
  if (value === null || typeof value !== 'object' || Array.isArray(value)) fail('$', `is ${Array.isArray(value) ? 'an array' : value === null ? 'null' : `a ${typeof value}`}, not an object`, 'status() returns an object, e.g. { calls: 3 }.');
  walk(value, '$', 0);
  const json = JSON.stringify(value);
  const bytes = encoder.encode(json).length;
  if (bytes > STATUS_MAX_BYTES) {
    fail('$', `is ${bytes} bytes of JSON, more than ${STATUS_MAX_BYTES}`, 'Bound its lists (the newest N, with totals) and let the card page the rest through a tool.');
  }
  return JSON.parse(json) as StatusSnapshot;
}
