# Run once by the worker's confinement (worker/confine.ts), after the confined js and pyodide_js
# modules are registered: swaps them in for the real ones in every module that holds them, and
# forgets the modules that imported names from them. Comments, not a docstring: it runs in
# __main__'s globals, and leaves nothing there.
import sys
_old = {name: sys.modules.pop(name, None) for name in ("js", "pyodide_js")}
# Submodules too: the event loop's "from pyodide_js._api import ..." left the real _api in sys.modules.
for _name in [m for m in sys.modules if m.startswith("js.") or m.startswith("pyodide_js.")]:
    _was = sys.modules.pop(_name)
    _old[_name] = _was
import js, pyodide_js
_new = {"js": js, "pyodide_js": pyodide_js, "pyodide_js._api": pyodide_js._api}
# By identity, one lookup per value (_old keeps the old objects alive, so their ids stay theirs).
_swap = {id(_was): _new.get(_name) for _name, _was in _old.items() if _was is not None}
for _mod in list(sys.modules.values()):
    try:
        _vars = vars(_mod)
    except TypeError:
        continue
    for _key in [_k for _k, _v in _vars.items() if id(_v) in _swap]:
        _vars[_key] = _swap[id(_vars[_key])]
for _name in [m for m in sys.modules if m == "pyodide.http" or m.startswith("pyodide.http.") or m in ("pyodide.code", "pyodide._run_js", "webbrowser")]:
    del sys.modules[_name]
[globals().pop(_n, None) for _n in ("_old", "_new", "_swap", "_mod", "_vars", "_key", "_name")]
