/** Ids of requests and runs, unique within this process or page. */
let seq = 0;

/** A fresh id such as `run-12`. */
export function nextId(prefix: string): string {
  return `${prefix}-${++seq}`;
}
