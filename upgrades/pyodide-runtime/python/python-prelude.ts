/**
 * Python modules the worker installs before any user code runs, each a `.py` file beside this one
 * (imported as text: esbuild's `text` loader in the builds, `src/platform/python-text-hook.mjs`
 * when Node runs the sources):
 * - `armature_bridge`: `call_tool`, `call_tool_async`, `ToolError` (the JS side is the
 *   `_armature_js` module the worker registers);
 * - `armature_runner`: compiles and runs user code in its own namespace, catches every exception
 *   (KeyboardInterrupt included) and describes it with the user's frames only.
 *
 * Both are imported before the start-up snapshot is taken, so they hold no JavaScript reference
 * at import time (the snapshot refuses those): the worker registers `_armature_js` afterwards
 * and calls `armature_bridge._connect()`, in a fresh interpreter and in a restored one alike.
 */

import bridgeSource from './armature_bridge.py';
import runnerSource from './armature_runner.py';

/** Status words of a tool answer (shared with the host; `armature_bridge.py` spells out the ones it reads). */
export const TOOL_STATUS = { ok: 0, toolError: 1, interrupted: 2, bridgeError: 3 } as const;

/**
 * Set in the channel's status word of an answer part that more parts follow (a long list sent in
 * parts): the worker copies such a part out and frees the region at once, so the host can encode
 * and place the next part while Python decodes this one.
 */
export const MORE_PARTS = 0x100;

/** The `armature_bridge` module's source (`armature_bridge.py`). */
export const BRIDGE_MODULE: string = bridgeSource;

/**
 * The `armature_runner` module's source (`armature_runner.py`): compiles and runs user code in its
 * own namespace (the last expression's value is the result), catches every exception
 * (KeyboardInterrupt included) and describes it with the user's frames only.
 */
export const RUNNER_MODULE: string = runnerSource;

/**
 * Modules imported before the start-up snapshot is taken, beyond what Pyodide's own start
 * imports (ast, json, linecache, marshal, re, traceback, gc, pyodide.code ...): Armature's
 * prelude, and `importlib.metadata` (listing and installing packages; ~80 ms to import, far more
 * in the cold WebAssembly of a restored interpreter). Measured on a fresh interpreter: running,
 * failing and `call_tool` import nothing else.
 */
export const SNAPSHOT_PREIMPORTS = ['armature_bridge', 'armature_runner', 'importlib.metadata'] as const;
