"""Runs user code for Armature: own namespace, last-expression value, user-only tracebacks."""
import ast
import linecache
import sys
import traceback
from textwrap import dedent

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


_SPACE = (" ", "\t", "\n", "\r")


def _dedented(code):
    """Code indented as a whole (models often send a block cut from a longer message) without its
    common indentation, as Pyodide's eval_code and CodeRunner take it; line numbers stay. Only code
    whose first line with text starts with whitespace can have any, so the rest skips the work."""
    if code[:1] not in _SPACE:
        return code
    return dedent(code) if code.lstrip("\r\n")[:1] in _SPACE else code


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
        code = _dedented(code)
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
