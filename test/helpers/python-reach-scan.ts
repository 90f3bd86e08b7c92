// Python code that walks every JavaScript object Python can reach (gc, modules, closures) and
// lists the paths to dangerous names. Used by the escape suites in Node and in Chromium.

/**
 * Evaluates to `[roots, found]`: how many starting points, and the paths (e.g. `js.fetch`) to
 * names that would reach the host (process, file systems, eval, messaging, storage, network).
 */
export const REACH_SCAN = `
import gc, sys
import js, pyodide_js
from pyodide.ffi import JsProxy
DANGER = {"getBuiltinModule", "binding", "dlopen", "require", "process", "fetch", "postMessage", "FS", "NODEFS", "mount",
          "XMLHttpRequest", "WebSocket", "runPython", "_module", "indexedDB", "importScripts", "eval", "Function", "env",
          "jsglobals", "globalThis", "self", "window", "parentPort", "Worker"}
roots = {"js": js, "pyodide_js": pyodide_js}
for o in gc.get_objects():
    if isinstance(o, JsProxy):
        roots[f"gc{len(roots)}"] = o
    elif callable(o) and getattr(o, "__closure__", None):
        for c in o.__closure__:
            try:
                if isinstance(c.cell_contents, JsProxy):
                    roots[f"closure{len(roots)}"] = c.cell_contents
            except ValueError:
                pass
for name, m in list(sys.modules.items()):
    if isinstance(m, JsProxy):
        roots[name] = m
    for k, v in list(getattr(m, "__dict__", {}).items()):
        if isinstance(v, JsProxy):
            roots[f"{name}.{k}"] = v
found, seen = set(), set()
# Breadth first, by the JavaScript object's identity (js_id: each attribute access makes a new
# proxy), four levels deep, at most 300 names per object and 20,000 objects in all.
queue = list(roots.items())
while queue and len(seen) < 20000:
    path, p = queue.pop(0)
    key = getattr(p, "js_id", None)
    if key is None or key in seen or path.count(".") > 4:
        continue
    seen.add(key)
    try:
        names = [n for n in dir(p) if not n.isdigit() and not n.startswith("__")][:300]
    except Exception:
        continue
    for n in names:
        if n in DANGER:
            found.add(path + "." + n)
        try:
            v = getattr(p, n)
        except Exception:
            continue
        if isinstance(v, JsProxy):
            queue.append((path + "." + n, v))
[len(roots), sorted(found)]
`;
