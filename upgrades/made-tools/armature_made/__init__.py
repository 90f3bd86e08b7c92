"""Agent-made Python tools: one module per version (v_<sha256 prefix>), written once. Installed by MadeTools; do not edit."""
import importlib as _importlib
import inspect as _inspect
import json as _json


def invoke(module, function, args_json):
    """Calls function(**args) of the version module; the tool's value is what it returns."""
    fn = getattr(_importlib.import_module(f"{__name__}.{module}"), function, None)
    if not callable(fn):
        raise NameError(f"the tool's code defines no function {function}(): define def {function}(...) taking the tool's arguments as keywords")
    result = fn(**_json.loads(args_json))
    if _inspect.iscoroutine(result):
        result.close()
        raise TypeError(f"{function}() is a coroutine function: define it with def, not async def")
    return result
