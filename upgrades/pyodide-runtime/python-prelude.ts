/**
 * Python modules the worker installs before any user code runs:
 * - `armature_bridge`: `call_tool`, `call_tool_async`, `ToolError` (the JS side is the
 *   `_armature_js` module the worker registers);
 * - `armature_runner`: compiles and runs user code in its own namespace, catches every exception
 *   (KeyboardInterrupt included) and describes it with the user's frames only.
 *
 * Both are imported before the start-up snapshot is taken, so they hold no JavaScript reference
 * at import time (the snapshot refuses those): the worker registers `_armature_js` afterwards
 * and calls `armature_bridge._connect()`, in a fresh interpreter and in a restored one alike.
 */

import { MAX_NAME_LENGTH } from '../../src/kernel/bounded.ts';

/** Status words of a tool answer (shared with the host). */
export const TOOL_STATUS = { ok: 0, toolError: 1, interrupted: 2, bridgeError: 3 } as const;

/**
 * Set in the channel's status word of an answer part that more parts follow (a long list sent in
 * parts): the worker copies such a part out and frees the region at once, so the host can encode
 * and place the next part while Python decodes this one.
 */
export const MORE_PARTS = 0x100;

export const BRIDGE_MODULE = `
"""Armature's bridge from Python to the JavaScript tools. Installed by the runtime; do not edit."""
import gc
import json
import marshal
import re

__all__ = ["call_tool", "call_tool_async", "ToolError", "TRANSPORT"]

# Set by _connect() once the worker has registered the JavaScript side.
_armature_js = None
TRANSPORT = None
# maxToolArgBytes (set by _connect()): arguments over it are refused here, before they leave Python.
_MAX_ARGS = float("inf")
_NO_SYNC = (
    "call_tool() needs a synchronous channel to the main thread, and this page has none: "
    "serve it with the headers 'Cross-Origin-Opener-Policy: same-origin' and "
    "'Cross-Origin-Embedder-Policy: require-corp' (shared memory), or use a browser with JSPI. "
    "Meanwhile use 'await call_tool_async(name, args)'."
)


class ToolError(Exception):
    """A tool called from Python failed. Carries the tool name, error code, message and hint."""

    def __init__(self, tool, code, message, hint=None):
        text = f"{tool} failed [{code}]: {message}"
        if hint:
            text += f" (hint: {hint})"
        super().__init__(text)
        self.tool = tool
        self.code = code
        self.message = message
        self.hint = hint


_SAFE = 2**53
# One encoder for every call: json.dumps with options builds a new one each time (~3 µs).
_to_json = json.JSONEncoder(allow_nan=False, separators=(",", ":")).encode
_LONG_NUMBER = re.compile(r"\\d{16}")
_BIG = 1 << 16


def _connect():
    """Binds the bridge to the worker's _armature_js module (after start-up or a snapshot restore)."""
    global _armature_js, TRANSPORT, _MAX_ARGS
    import _armature_js as js

    _armature_js = js
    TRANSPORT = js.transport
    _MAX_ARGS = getattr(js, "max_arg_bytes", float("inf"))


def _mark_bigints(v):
    # JSON numbers become JS doubles; ints beyond 2**53 travel as markers the worker turns into BigInt.
    if type(v) is int and not -_SAFE <= v <= _SAFE:
        return {"__armature_bigint__": str(v)}
    if isinstance(v, dict):
        return {k: _mark_bigints(x) for k, x in v.items()}
    if isinstance(v, (list, tuple)):
        return [_mark_bigints(x) for x in v]
    return v


_MAX_NAME = ${MAX_NAME_LENGTH}


def _encode_args(name, args):
    if not isinstance(name, str) or not name:
        raise TypeError(f"call_tool: the tool name must be a non-empty str, got {type(name).__name__}")
    if len(name) > _MAX_NAME:
        # Refused here, before megabytes cross to the host (which refuses them too).
        raise ToolError(name[:40] + "...", "INVALID_TOOL_NAME", f"tool names have at most {_MAX_NAME} characters; this one has {len(name)}", "Tool names are snake_case words such as 'read_file'.")
    if args is None:
        return "{}"
    if not isinstance(args, dict):
        raise TypeError(f"call_tool({name!r}, args): args must be a dict of arguments, got {type(args).__name__}")
    try:
        text = _to_json(args)
        # Only a number of 16 digits or more can be beyond 2**53: mark big ints only then.
        if _LONG_NUMBER.search(text):
            text = _to_json(_mark_bigints(args))
    except (TypeError, ValueError) as e:
        raise TypeError(f"call_tool({name!r}): arguments must be JSON data (dict, list, str, int, float, bool, None): {e}") from None
    if len(text) > _MAX_ARGS:
        raise ToolError(name, "ARGUMENTS_TOO_LARGE", f"the arguments are {len(text)} bytes of JSON; the limit is {_MAX_ARGS} (maxToolArgBytes)", "Pass less data (write it to a workspace file and pass its path), or raise maxToolArgBytes.")
    return text


def _decode(answer):
    # One buffer per answer, marshal of (status, value, more): one proxy, one copy, one decode.
    return marshal.loads(answer.to_bytes())


def _finish(name, answer):
    raw = answer.to_bytes()
    if len(raw) < _BIG or not gc.isenabled():
        status, data, more = marshal.loads(raw)
        paused = False
    else:
        # Decoding builds many containers, and each batch of them would start a collection that
        # finds nothing to free (~8% of the decode; more across the parts of a long list, whose
        # collections would walk everything decoded so far): pause the collector meanwhile.
        gc.disable()
        paused = True
    try:
        if paused:
            status, data, more = marshal.loads(raw)
        del raw
        # A long list comes in parts; the host prepares each next part while this one is decoded.
        while more and status == ${TOOL_STATUS.ok}:
            status, part, more = _decode(_armature_js.next_part())
            if status == ${TOOL_STATUS.ok}:
                data.extend(part)
            else:
                data = part
    finally:
        if paused:
            gc.enable()
    if status == ${TOOL_STATUS.ok}:
        return data
    if status == ${TOOL_STATUS.interrupted}:
        raise KeyboardInterrupt(f"interrupted while waiting for tool {name}")
    raise ToolError(name, data.get("code", "TOOL_FAILED"), data.get("message", ""), data.get("hint"))


def _instance(instance_id):
    if instance_id is not None and not isinstance(instance_id, str):
        raise TypeError(f"instance_id must be a str, got {type(instance_id).__name__}")
    if instance_id is not None and len(instance_id) > _MAX_NAME:
        raise ValueError(f"instance_id has at most {_MAX_NAME} characters; this one has {len(instance_id)}")
    return instance_id


def call_tool(name, args=None, instance_id=None):
    """Calls the Armature tool \`name\` with \`args\` (a dict) and returns its value as native Python data.

    instance_id picks one registration of a tool registered several times (e.g. two databases).
    Raises ToolError when the tool fails (unknown tool, invalid arguments, not allowed, ...).
    """
    payload = _encode_args(name, args)
    instance = _instance(instance_id)
    if TRANSPORT == "shared-memory":
        return _finish(name, _armature_js.call_sync(name, payload, instance))
    if TRANSPORT == "jspi":
        from pyodide.ffi import run_sync

        return _finish(name, run_sync(_armature_js.call_async(name, payload, instance)))
    raise RuntimeError(_NO_SYNC)


async def call_tool_async(name, args=None, instance_id=None):
    """Like call_tool, but awaitable; works on every transport."""
    payload = _encode_args(name, args)
    return _finish(name, await _armature_js.call_async(name, payload, _instance(instance_id)))
`;

export const RUNNER_MODULE = `
"""Runs user code for Armature: own namespace, last-expression value, user-only tracebacks."""
import ast
import linecache
import sys
import traceback

from pyodide.code import CodeRunner

import armature_bridge

_CO_COROUTINE = 0x80
_runs = 0
# Set by the worker (maxResultBytes); a str or bytes value over it is refused before conversion.
_MAX_RESULT = 16 << 20
# Most characters of an exception's text sent to the host.
_MAX_TEXT = 64 << 10
_INTERNAL = ("/_pyodide/", "/pyodide/", "armature_runner", "armature_bridge", "<exec>")
namespace = {}


def reset():
    """Fresh globals for user code (the bridge names are always there)."""
    namespace.clear()
    namespace.update(
        __name__="__main__",
        __builtins__=__builtins__,
        call_tool=armature_bridge.call_tool,
        call_tool_async=armature_bridge.call_tool_async,
        ToolError=armature_bridge.ToolError,
    )


reset()


def _user_frames(te):
    te.stack = traceback.StackSummary.from_list([f for f in te.stack if not any(s in f.filename for s in _INTERNAL)])
    if te.__cause__ is not None:
        _user_frames(te.__cause__)
    if te.__context__ is not None:
        _user_frames(te.__context__)
    return te


def configure(max_result):
    global _MAX_RESULT
    _MAX_RESULT = max_result


def _cut(text):
    return text if len(text) <= _MAX_TEXT else text[:_MAX_TEXT] + f"... [{len(text) - _MAX_TEXT} more characters]"


def _checked(value):
    """(ok, value_or_error): a str or bytes result over the limit becomes ResultTooLarge here,
    before Pyodide converts it; other values are measured by the worker after conversion."""
    if isinstance(value, (str, bytes, bytearray, memoryview)) and len(value) > _MAX_RESULT:
        kind = type(value).__name__
        return (False, {"type": "ResultTooLarge", "message": f"the value of the run is a {kind} of {len(value)} {'characters' if kind == 'str' else 'bytes'}; the limit is {_MAX_RESULT} bytes (maxResultBytes)", "traceback": ""})
    return (True, value)


def describe(e, chain=True):
    te = _user_frames(traceback.TracebackException(type(e), e, e.__traceback__, compact=True))
    info = {"type": type(e).__name__, "message": _cut(str(e)), "traceback": _cut("".join(te.format(chain=chain)))}
    if isinstance(e, SyntaxError):
        info["message"] = e.msg or str(e)
        if e.lineno is not None:
            info["line"] = e.lineno
        if e.offset is not None:
            info["column"] = e.offset
    return info


def _failure(e):
    """describe(e), even when describing fails: an interrupt that lands while the traceback is
    formatted, or an exception whose __str__ raises, is described instead (user frames only)."""
    try:
        return describe(e)
    except BaseException as again:
        try:
            return describe(again, chain=False)
        except BaseException:
            return {"type": type(again).__name__, "message": "", "traceback": ""}


_TLA = ast.PyCF_ALLOW_TOP_LEVEL_AWAIT
_AST_ONLY = ast.PyCF_ONLY_AST
# Compile user code directly (parse once, compile the body and the last expression); False sends
# every run through Pyodide's CodeRunner (set by the worker, for comparison).
FAST = True


def _register(code):
    """A fresh file name for a run, registered with linecache, so tracebacks show source lines
    even for functions defined in earlier runs."""
    global _runs
    _runs += 1
    filename = f"<python:{_runs}>"
    lines = code.splitlines(True)
    linecache.cache[filename] = (len(code), None, lines, filename)
    return filename, lines


def _quieted(lines, node):
    # Whether anything after the last expression holds a ';' (conservative: a ';' in a trailing
    # comment counts too, and CodeRunner then decides exactly). Offsets are in UTF-8 bytes.
    tail = lines[node.end_lineno - 1].encode()[node.end_col_offset:]
    return b";" in tail or any(";" in line for line in lines[node.end_lineno:])


def _compile_fast(code, filename, lines):
    """(body, last expression or None) as code objects; None when Pyodide's CodeRunner must run
    the code: a ';' after the last expression (which quiets its value), top-level await, or a
    __future__ import (it must govern the last expression too). Raises SyntaxError."""
    if "__future__" in code:
        return None
    tree = compile(code, filename, "exec", _AST_ONLY, dont_inherit=True)
    body = tree.body
    expr = None
    if body and type(body[-1]) is ast.Expr:
        if ";" in code and _quieted(lines, body[-1]):
            return None
        expr = compile(ast.Expression(body.pop().value), filename, "eval", _TLA, dont_inherit=True)
    main = compile(tree, filename, "exec", _TLA, dont_inherit=True)
    if (main.co_flags | (expr.co_flags if expr is not None else 0)) & _CO_COROUTINE:
        return None
    return main, expr


def _code_runner(code, filename):
    # Top-level await is allowed; code that uses it compiles to a coroutine and runs asynchronously.
    runner = CodeRunner(code, filename=filename, return_mode="last_expr", quiet_trailing_semicolon=True, flags=_TLA)
    runner.compile()
    return runner


def run(code, force_async):
    """(ok, value_or_error, is_async_awaitable). Never raises."""
    try:
        filename, lines = _register(code)
        fast = _compile_fast(code, filename, lines) if FAST else None
        runner = _code_runner(code, filename) if fast is None else None
    except BaseException as e:
        return (False, _failure(e), False)
    if runner is not None and (force_async or runner.code.co_flags & _CO_COROUTINE):
        return (True, _run_async(runner), True)
    if runner is None and force_async:
        return (True, _run_fast_async(*fast), True)
    try:
        if runner is not None:
            return (*_checked(runner.run(namespace)), False)
        main, expr = fast
        exec(main, namespace)
        return (*_checked(None if expr is None else eval(expr, namespace)), False)
    except BaseException as e:
        return (False, _failure(e), False)
    finally:
        _flush()


async def _run_async(runner):
    try:
        return _checked(await runner.run_async(namespace))
    except BaseException as e:
        return (False, _failure(e))
    finally:
        _flush()


async def _run_fast_async(main, expr):
    # Entered from JavaScript as a coroutine (JSPI needs that to switch stacks in call_tool).
    try:
        exec(main, namespace)
        return _checked(None if expr is None else eval(expr, namespace))
    except BaseException as e:
        return (False, _failure(e))
    finally:
        _flush()


def _flush():
    # sys.stdout buffers text that has no newline yet: it belongs to this run, so send it now.
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except BaseException:
            pass


def _patch_sleep():
    # Output is batched in the worker and a batch can only leave on the next write: flush before
    # sleeping so progress printed before time.sleep() is seen while the run waits.
    import time

    original = time.sleep

    def sleep(seconds):
        _flush()
        if armature_bridge._armature_js is not None:
            armature_bridge._armature_js.flush_output()
        return original(seconds)

    sleep.__doc__ = original.__doc__
    time.sleep = sleep


_patch_sleep()


_KEY_TYPES = (str, int, float, bool, type(None))


def js_safe(value, _memo=None):
    """A copy of value whose dict keys JavaScript can hold: keys other than str, int, float, bool
    and None become their repr(). Containers become dicts and lists; cycles are kept (as cycles)."""
    memo = {} if _memo is None else _memo
    if isinstance(value, dict):
        if id(value) in memo:
            return memo[id(value)]
        out = memo[id(value)] = {}
        for k, v in value.items():
            out[k if isinstance(k, _KEY_TYPES) else repr(k)] = js_safe(v, memo)
        return out
    if isinstance(value, (list, tuple, set, frozenset)):
        if id(value) in memo:
            return memo[id(value)]
        out = memo[id(value)] = []
        out.extend(js_safe(v, memo) for v in value)
        return out
    return value


def installed():
    from importlib.metadata import distributions

    seen = {}
    for d in distributions():
        name = d.metadata["Name"]
        if name and name.lower() not in seen:
            seen[name.lower()] = (name, d.version)
    return sorted(seen.values())
`;

/**
 * Modules imported before the start-up snapshot is taken, beyond what Pyodide's own start
 * imports (ast, json, linecache, marshal, re, traceback, gc, pyodide.code ...): Armature's
 * prelude, and `importlib.metadata` (listing and installing packages; ~80 ms to import, far more
 * in the cold WebAssembly of a restored interpreter). Measured on a fresh interpreter: running,
 * failing and `call_tool` import nothing else.
 */
export const SNAPSHOT_PREIMPORTS = ['armature_bridge', 'armature_runner', 'importlib.metadata'] as const;
