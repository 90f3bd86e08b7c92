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


# Status words of a tool answer: TOOL_STATUS in python-prelude.ts (a test checks they agree).
_OK = 0
_INTERRUPTED = 2

_SAFE = 2**53
# One encoder for every call: json.dumps with options builds a new one each time (~3 µs).
_to_json = json.JSONEncoder(allow_nan=False, separators=(",", ":")).encode
_LONG_NUMBER = re.compile(r"\d{16}")
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


# Longest tool name or instance id: MAX_NAME_LENGTH in src/kernel/bounded.ts (a test checks they agree).
_MAX_NAME = 128


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
        while more and status == _OK:
            status, part, more = _decode(_armature_js.next_part())
            if status == _OK:
                data.extend(part)
            else:
                data = part
    finally:
        if paused:
            gc.enable()
    if status == _OK:
        return data
    if status == _INTERRUPTED:
        raise KeyboardInterrupt(f"interrupted while waiting for tool {name}")
    raise ToolError(name, data.get("code", "TOOL_FAILED"), data.get("message", ""), data.get("hint"))


def _instance(instance_id):
    if instance_id is not None and not isinstance(instance_id, str):
        raise TypeError(f"instance_id must be a str, got {type(instance_id).__name__}")
    if instance_id is not None and len(instance_id) > _MAX_NAME:
        raise ValueError(f"instance_id has at most {_MAX_NAME} characters; this one has {len(instance_id)}")
    return instance_id


def call_tool(name, args=None, instance_id=None):
    """Calls the Armature tool `name` with `args` (a dict) and returns its value as native Python data.

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
