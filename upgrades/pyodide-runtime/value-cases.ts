/**
 * Python values and the plain data `execute` must return for them: one case per
 * ensureStructuredCloneable rule, run end to end through a real worker by runtime.test.ts (Node)
 * and runtime.browser.test.ts (Chromium).
 */
export interface ValueCase {
  rule: string;
  code: string;
  expected: unknown;
  /** Compare as a regular expression on the string value instead (addresses vary). */
  pattern?: RegExp;
}

export const VALUE_CASES: readonly ValueCase[] = [
  { rule: 'JSON data, None as null, tuples as lists', code: '{"a": (1, 2), "b": None, "c": [1.5, "é", None, True]}', expected: { a: [1, 2], b: null, c: [1.5, 'é', null, true] } },
  { rule: 'NaN and infinities', code: 'float("nan"), float("inf"), -float("inf")', expected: ['NaN', 'Infinity', '-Infinity'] },
  { rule: 'BigInt within 2**53, huge ints as decimal strings', code: '2**53 - 1, 2**70, -(10**30)', expected: [9007199254740991, '1180591620717411303424', '-1000000000000000000000000000000'] },
  { rule: 'a huge int is kept whole', code: 'len(str(10**999)), 10**999 == int("1" + "0" * 999)', expected: [1000, true] },
  { rule: 'sets and frozensets as lists', code: '{3}, frozenset({(1, 2)}), frozenset()', expected: [[3], [[1, 2]], []] },
  { rule: 'dict keys: numbers as strings, keys JS cannot hold as repr', code: '{1: "a", (1, 2): "b", frozenset(): "c"}', expected: { '1': 'a', '(1, 2)': 'b', 'frozenset()': 'c' } },
  { rule: 'cycles in lists', code: 'a = [1]\na.append(a)\na', expected: [1, '[circular]'] },
  { rule: 'cycles in dicts', code: 'd = {"n": 1}\nd["self"] = d\nd', expected: { n: 1, self: '[circular]' } },
  { rule: 'bytes, bytearray and memoryview as base64', code: 'b"\\x00\\xff", bytearray(b"hi"), memoryview(b"ab")', expected: [{ $bytes: 'AP8=' }, { $bytes: 'aGk=' }, { $bytes: 'YWI=' }] },
  { rule: 'Python objects as described proxies', code: 'class Foo:\n    def __str__(self):\n        return "a Foo"\n[Foo(), 1]', expected: ['[PyProxy Foo: a Foo]', 1] },
  { rule: 'Python functions as described proxies', code: 'len', expected: '[PyProxy builtin_function_or_method: <built-in function len>]' },
  { rule: 'generators as described proxies', code: '(i for i in range(3))', expected: null, pattern: /^\[PyProxy generator: <generator object <genexpr> at 0x[0-9a-f]+>\]$/ },
  { rule: 'JS functions', code: 'import js\njs.setTimeout', expected: '[function setTimeout]' },
  { rule: 'JS Dates as ISO strings', code: 'import js\njs.Date.new(0)', expected: '1970-01-01T00:00:00.000Z' },
  { rule: 'JS Maps and Sets', code: 'import js\n[js.Map.new([[1, 2], ["k", "v"]]), js.Set.new(["x"])]', expected: [{ '1': 2, k: 'v' }, ['x']] },
  { rule: 'typed arrays as number lists', code: 'import js\njs.Float64Array.new([1.5, 2])', expected: [1.5, 2] },
  {
    rule: 'JS objects that cannot be read',
    // A Proxy whose ownKeys trap (a Python function) raises; built without eval, which confined workers refuse.
    code: 'import js\nfrom pyodide.ffi import to_js\ndef keys(target):\n    raise ValueError("trap")\njs.Proxy.new(js.Object.new(), to_js({"ownKeys": keys}, dict_converter=js.Object.fromEntries))',
    expected: null,
    pattern: /^\[unreadable Object: [^\]]*trap/s,
  },
];
