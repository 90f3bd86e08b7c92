/**
 * Python's heap, watched from the worker. Pyodide's heap is dlmalloc inside 32-bit WebAssembly
 * memory: it grows up to 4 GiB (or the `maxHeapMb` footprint limit set here) and never shrinks.
 * A run that leaves it nearly full — a memory bomb kept in globals — would make every later real
 * run fail with MemoryError while tiny ones still pass: after each run the worker checks, and the
 * host restarts it when too little can still be allocated.
 */

/** The parts of Pyodide's Emscripten module this needs (all exported by Pyodide 0.29). */
interface HeapModule {
  _malloc_footprint(): number;
  _malloc_footprint_limit(): number;
  _malloc_set_footprint_limit(bytes: number): number;
  _emscripten_get_heap_max(): number;
  _PyMem_RawMalloc(bytes: number): number;
  _PyMem_RawFree(ptr: number): void;
  _mallinfo(out: number): void;
  HEAPU32: Uint32Array;
}

/** A heap too full for real work: bytes in use and the limit. */
export interface HeapFull {
  usedBytes: number;
  limitBytes: number;
}

/** The largest heap WebAssembly's 32-bit memory allows, in bytes. */
const MAX_HEAP = 4 * 1024 * 1024 * 1024;

function moduleOf(py: unknown): HeapModule | undefined {
  const m = (py as { _module?: Partial<HeapModule> } | undefined)?._module;
  return typeof m?._malloc_footprint === 'function' && typeof m._PyMem_RawMalloc === 'function' ? (m as HeapModule) : undefined;
}

/** Caps the heap at `bytes` (below 4 GiB only; at or above it the heap's own maximum applies). */
export function setHeapLimit(py: unknown, bytes: number): void {
  const m = moduleOf(py);
  if (!m || bytes >= MAX_HEAP) return;
  m._malloc_set_footprint_limit(bytes);
}

/** The heap's limit in bytes: the footprint limit when set, else the memory's maximum. */
function limitOf(m: HeapModule): number {
  return Math.min(m._malloc_footprint_limit() >>> 0, m._emscripten_get_heap_max() >>> 0 || MAX_HEAP);
}

/**
 * Room a real run needs: when less than this can be allocated after a run, the heap is full.
 * An eighth of the limit, at most 64 MiB.
 */
function headroomFor(limitBytes: number): number {
  return Math.min(64 * 1024 * 1024, Math.floor(limitBytes / 8));
}

/**
 * After a run: undefined while the heap can still grow by the headroom, or a block that large
 * can be allocated; else how full it is. Cheap in the common case (two reads of dlmalloc's
 * counters); the probe and the count of bytes in use happen only near the limit.
 */
export function heapFull(py: unknown): HeapFull | undefined {
  const m = moduleOf(py);
  if (!m) return undefined;
  try {
    return check(m);
  } catch {
    // An interpreter that can no longer run its allocator is a crash, reported as one elsewhere.
    return undefined;
  }
}

function check(m: HeapModule): HeapFull | undefined {
  const limitBytes = limitOf(m);
  const headroom = headroomFor(limitBytes);
  if ((m._malloc_footprint() >>> 0) + headroom <= limitBytes) return undefined;
  const probe = m._PyMem_RawMalloc(headroom);
  if (probe) {
    m._PyMem_RawFree(probe);
    return undefined;
  }
  // struct mallinfo: ten 32-bit counters; uordblks (bytes in use) is the eighth.
  const info = m._PyMem_RawMalloc(64);
  if (!info) return { usedBytes: m._malloc_footprint() >>> 0, limitBytes };
  m._mallinfo(info);
  const usedBytes = m.HEAPU32[(info >>> 2) + 7]!;
  m._PyMem_RawFree(info);
  return { usedBytes, limitBytes };
}
