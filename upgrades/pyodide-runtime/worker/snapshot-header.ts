/**
 * A sanity check of a Pyodide 0.29 memory snapshot before it is handed to `loadPyodide`: Pyodide
 * sizes the WebAssembly memory from the snapshot's length, and a memory smaller than the module
 * needs makes instantiation fail in a way `loadPyodide` never reports (it waits forever). What
 * the check cannot see (a different build, a damaged heap) fails the restore normally.
 *
 * Layout (Pyodide's `src/js/snapshot.ts`): uint32 magic, uint32 offset of the heap, uint32 length
 * of the JSON state after the 48-byte header, uint32 0, 32 bytes of build id; then the heap.
 */

const MAGIC = 1886286592;
const HEADER = 48;
const PAGE = 65536;
/** The memory the pinned Pyodide's WebAssembly module declares at least (its INITIAL_MEMORY). */
const MIN_HEAP = 20 * 1024 * 1024;

/** Why `bytes` cannot be a restorable snapshot, or undefined when it looks like one. */
export function snapshotProblem(bytes: Uint8Array): string | undefined {
  if (bytes.byteLength < HEADER) return `the snapshot is ${bytes.byteLength} bytes, too short for a header`;
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  if (view.getUint32(0, true) !== MAGIC) return 'Snapshot has invalid magic number';
  const offset = view.getUint32(4, true);
  const jsonLength = view.getUint32(8, true);
  if (offset < HEADER || offset % 16 !== 0 || offset > bytes.byteLength || jsonLength > offset - HEADER) return `the snapshot header is damaged (heap offset ${offset}, state length ${jsonLength})`;
  const heap = bytes.byteLength - offset;
  if (heap < MIN_HEAP || heap % PAGE !== 0) return `the snapshot's heap is ${heap} bytes, not whole 64 KiB pages of at least ${MIN_HEAP} (a truncated file?)`;
  return undefined;
}
