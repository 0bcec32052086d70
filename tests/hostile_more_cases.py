"""The programs of tests/test_hostile_more.py: NumPy and Python constructs nobody on the project
wrote a test for, generated as small grids around each class that once gave a wrong gradient
or a crash (issue 14). Each case is ``(family, body, expect)``: ``body`` is the body of
``f(x)`` (``x`` a float array of 3), and ``expect`` is ``"exact"`` (srcad must differentiate
it), ``"refused"`` (a SrcadError, with a rewrite in its hint) or ``"sound"`` (either, never a
wrong value or gradient).

The module the bodies run in defines the helpers of :data:`HEAD` (a global array ``G``,
helpers that return their argument, a view of it, a new array, ...).
"""

from __future__ import annotations

import itertools

HEAD = '''import numpy as np

G = np.array([0.5, 1.5, 2.5])


def same(a):
    return a


def view(a):
    return a[1:]


def fresh(a):
    return a * 1.0


def transposed(a):
    return a.T


def first(a):
    return (a, a * 2.0)[0]


def glob():
    return G


def made():
    return np.arange(3.0)


def either(a):
    if a[0] > 10.0:
        return a * 1.0
    return a


def through(a):
    return same(a)


def copied(a):
    b = a.copy()
    return b


'''

#: points away from every kink of the programs below (no element on a constant bound)
POINTS = ([0.71, -1.23, 1.94], [-0.37, 0.52, 1.21], [1.33, 0.18, -0.86])

CASES = []


def _add(family, body, expect="sound"):
    CASES.append((family, body, expect))


# ---------------------------------------------------------------- np.clip: crossed and equal bounds
_BOUNDS = [("0.3", "1.0"), ("1.0", "0.3"), ("0.6", "0.6"), ("None", "0.4"), ("-0.5", "None"),
           ("x[0]", "1.5"), ("-1.0", "x[1]"), ("x[1] * 0.5 + 0.1", "x[2] - 1.0"),
           ("x[0] + 3.0", "x[1]"), ("0.2", "x[0] * 0.1")]
_CLIPS = ["np.clip(x, {lo}, {hi})", "(x * 2.0 - 0.5).clip({lo}, {hi})",
          "np.clip(x * x, a_min={lo}, a_max={hi})"]
_CLIP_USES = ["return np.sum(c * x)", "return np.sum(c ** 2) + c[1]"]
for (lo, hi), call, use in itertools.product(_BOUNDS, _CLIPS, _CLIP_USES):
    _add("clip", "c = " + call.format(lo=lo, hi=hi) + "\n" + use, "exact")
for lo, hi in _BOUNDS:
    if "None" not in (lo, hi):
        _add("clip", f"c = x.clip(min={lo}, max={hi})\nreturn np.sum(c * x)", "exact")

# ---------------------------------------------------------------- astype / asarray: the same object
_CONVERSIONS = ["y.astype(float)", "y.astype(float, copy=False)",
                "y.astype(np.float64, copy=False)", "y.astype('f8', copy=False)",
                "np.asarray(y, dtype=float)", "np.asarray(y)", "np.array(y)",
                "np.asarray(y, np.float64)"]
_CONVERSION_WRITES = ["z[0] = x[1] * 2.0", "z += x", "z[1:] *= 3.0"]
for conv, write, base in itertools.product(_CONVERSIONS, _CONVERSION_WRITES,
                                           ["y = x * 1.0", "y = x"]):
    # a copy (np.array, astype without copy=False): written, y read after, exact
    copy = conv == "np.array(y)" or conv == "y.astype(float)" and "[1:]" not in write
    _add("astype", f"{base}\nz = {conv}\n{write}\nreturn np.sum(y * x) + np.sum(z)",
         "exact" if copy else "sound")
for conv, write in itertools.product(_CONVERSIONS, _CONVERSION_WRITES):
    # y not read after the write: exact, but for op= on a slice of an astype result
    _add("astype", f"y = x * 1.0\nz = {conv}\n{write}\nreturn np.sum(z * x)",
         "exact" if conv.startswith("np.") or "[1:]" not in write else "sound")

# ---------------------------------------------------------------- dict.pop
for body in [
    'd = {"a": x[0], "b": x[1]}\nv = d.pop("a")\nreturn v * d["b"]',
    'd = {"a": x[0], "b": x[1], "c": x * 2.0}\nv = d.pop("b")\n'
    'return v * d["a"] + np.sum(d["c"]) * v',
    'd = {"a": x[0], "b": x[1]}\nv = d.pop("a")\nd["a"] = v * 3.0\nreturn d["a"] * d["b"]',
    'd = {"a": x * 1.0, "b": x[1]}\nv = d.pop("a")\nreturn np.sum(v * x) * d["b"]',
    'd = {"a": x[0], "b": x[1]}\nv = d.pop("b")\nreturn v * x[2] + len(d) * d["a"]',
    'd = dict(a=x[0], b=x[1] * x[2])\nv = d.pop("b")\nreturn v + d["a"] ** 2',
    'd = {0: x[0], 1: x[1]}\nv = d.pop(1)\nreturn v * d[0]',
]:
    _add("dict_pop", body, "exact")
_add("dict_pop", 'd = {"a": x[0], "b": x[1]}\nv = d.pop("a")\nw = d.pop("b")\n'
     'return v * w + len(d)', "exact")  # a second pop: differentiated
for body in [
    'd = {"a": x[0], "b": x[1]}\nv = d.pop("a", 0.0)\nreturn v * x[2] + len(d)',
    'd = {"a": x[0], "b": x[1]}\nv = d.pop("z", x[2])\nreturn v * d["a"]',
    'd = {"a": x[0], "b": x[1]}\ns = 0.0\nfor k in ["a", "b"]:\n    s = s + d.pop(k) * x[2]\n'
    'return s',
    'd = {"a": x[0]}\ne = d\nv = e.pop("a")\nreturn v * len(d)',
]:
    _add("dict_pop", body)

# ---------------------------------------------------------------- your helpers' results
_HELPERS = ["same", "view", "fresh", "transposed", "first", "either", "through", "copied"]
_HELPER_WRITES = ["z[0] = x[1] * 2.0", "z *= 2.0"]
_HELPER_READS = ["return np.sum(y * x)", "return np.sum(z * z) * x[0] + y[0]"]
for helper, write, read in itertools.product(_HELPERS, _HELPER_WRITES, _HELPER_READS):
    _add("helpers", f"y = x * 1.0\nz = {helper}(y)\n{write}\n{read}",
         "exact" if helper in ("fresh", "copied") else "sound")  # a new array: exact
for write in _HELPER_WRITES:
    _add("helpers", f"z = glob()\n{write}\nreturn np.sum(G * x)")
    _add("helpers", f"z = made()\nw = z[1:]\n{write.replace('z', 'w')}\nreturn np.sum(z * x)")
for helper in ("fresh", "copied"):  # a new float array, read from the helper
    _add("helpers", f"y = x * 1.0\nz = {helper}(y)\nz[0] = x[1] * 2.0\n"
         "return np.sum(y * x) + np.sum(z * x)", "exact")
for made in ("np.arange(3)", "np.arange(3.0)", "x > 0.0"):  # the dtype the helper gives
    for helper in ("same", "copied", "first"):
        _add("helpers", f"z = {helper}({made})\nw = z * 1\nw[0] = x[1] * 2.0\n"
             "return np.sum(w * x)", "exact" if made == "np.arange(3.0)" else "sound")

# ---------------------------------------------------------------- new arrays and their views
_MAKERS = ["np.zeros(3)", "np.ones(3)", "np.arange(3.0)", "np.full(3, 2.0)",
           "np.linspace(0.0, 1.0, 3)", "np.zeros_like(x)", "np.ones_like(x)", "np.eye(3)[0]"]
_VIEWS = ["y", "y[1:]", "y.reshape(3)", "y[:]", "y[::-1]", "y.T"]
_MADE_WRITES = ["w[0] = x[0] * 2.0", "w *= x[1]"]
for maker, view, write in itertools.product(_MAKERS, _VIEWS, _MADE_WRITES):
    _add("made", f"y = {maker}\nw = {view}\n{write}\nreturn np.sum(y * x) + np.sum(w)")
for maker, write in itertools.product(_MAKERS[:5], _MADE_WRITES):  # written, then read
    _add("made", f"y = {maker}\n{write.replace('w', 'y')}\nreturn np.sum(y * x)", "exact")

# ---------------------------------------------------------------- d[k] op= v through a dict literal
_ITEMS = ["x[0]", "x * 1.0", "y", "y[1:]"]
_ITEM_OPS = ["+= x[2]", "*= x[1]", "-= x[0] * 0.5", "/= 2.0"]
_DICTS = ['d = {{"a": {item}, "b": 1.0}}', "d = dict(a={item})"]
for item, op, make in itertools.product(_ITEMS, _ITEM_OPS, _DICTS):
    _add("dict_items", "y = x * 1.0\n" + make.format(item=item) + f'\nd["a"] {op}\n'
         'return np.sum(d["a"]) * x[1] + np.sum(y * x)',
         "exact" if item == "x[0]" else "sound")
for op in _ITEM_OPS:
    _add("dict_items", f'd = {{"a": x[0]}}\ne = d\ne["a"] {op}\nreturn d["a"] * x[2]')
    _add("dict_items", f'd = {{"a": [x[0], x[1]]}}\nrow = d["a"]\nrow[0] {op}\n'
         'return sum(d["a"]) * x[2]')

# ---------------------------------------------------------------- np.array of ints and floats
_ELEMENTS = ["[1, x[0]]", "[x[0], 2]", "[True, x[1]]", "(1, x[0])", "[1, 2 * x[2]]",
             "[0, x[0], 1]", "[[1, x[0]], [2, x[2]]]"]
_ARRAY_USES = ["return np.sum(a * a)", "a[0] = x[1] * 3.0\nreturn np.sum(a * a) * x[0]",
               "a[-1] += x[2]\nreturn np.sum(a ** 2)",
               "return np.sum(np.cumsum(a, axis=0) ** 2)"]
for fn, elements, use in itertools.product(["np.array", "np.asarray"], _ELEMENTS,
                                           _ARRAY_USES):
    _add("int_array", f"a = {fn}({elements})\n{use}", "exact")
for use in _ARRAY_USES:
    _add("int_array", f"a = np.array([1, 2])\n{use}",  # an int array: refused writes
         "sound" if "\n" in use else "exact")

# ---------------------------------------------------------------- conjugates and real parts
_CONJ = ["np.conjugate(y)", "y.conj()", "np.conj(y)", "y.conjugate()", "np.real(y)", "y.real"]
for conj, write, read in itertools.product(_CONJ, _HELPER_WRITES,
                                           ["return np.sum(y * x)", "return np.sum(c * x)"]):
    _add("conj", f"y = x * 1.0\nc = {conj}\n{write.replace('z', 'c')}\n{read}",
         "exact" if "c * x" in read else "sound")  # y not read after the write: exact

# ---------------------------------------------------------------- op= on targets srcad refuses
for body in [
    "y = x * 1.0\ny.real *= 2.0\nreturn np.sum(y * x)",
    "y = x * 1.0\nfresh(y)[0] += 2.0\nreturn np.sum(y)",
]:
    _add("op_targets", body, "refused")
# op= through two subscripts of a list or dict (the row named and put back:
# frontend/nested_rows.py), exact since session 25
for body in [
    "ys = [[x[0], x[1]], [x[2]]]\nys[0][1] *= 2.0\nreturn ys[0][1] + ys[1][0]",
    'd = {"a": {"b": x[0]}}\nd["a"]["b"] *= x[1]\nreturn d["a"]["b"]',
    "ys = [x * 1.0]\nys[0][0] -= x[1]\nreturn np.sum(ys[0])",
]:
    _add("op_targets", body, "exact")
# a write through two subscripts of an array, the first a slice: the view named and written
# (frontend/nested_writes.py), exact since session 24
_add("op_targets", "y = x * 1.0\ny[1:][0] *= 2.0\nreturn np.sum(y)", "exact")

# ---------------------------------------------------------------- lists built by append
for op in ["+= x[2]", "*= x[1]", "-= 1.5"]:
    _add("appended", f"ys = []\nfor i in range(3):\n    ys.append(x[i] * 2.0)\nys[1] {op}\n"
         "return ys[0] * ys[1] + ys[2]", "exact")
    _add("appended", f"ys = []\nfor i in range(3):\n    ys.append(x * x[i])\nys[1] {op}\n"
         "return np.sum(ys[0] * ys[1] + ys[2])")
    _add("appended", f"ys = []\nys.append(x[0])\nys.append(x[1])\nk = 1\nys[k] {op}\n"
         "return ys[0] * ys[1]", "exact")

# ---------------------------------------------------------------- np.float64 (of an array: itself)
for body in [
    "return np.float64(x[0]) * x[1] + float(np.float64(x[2]) ** 2)",
    "v = np.float64(x[0] * x[1])\nreturn v * v",
    "v = np.float64(x * 2.0)\nreturn np.sum(v * x)",
    "v = np.float64(x * 1.0)\nv[0] = 3.0\nreturn np.sum(v * x)",
    "return np.float64() + x[0]",
    "y = np.arange(3)\nv = np.float64(y)\nv[0] = x[0]\nreturn np.sum(v * x)",  # a new array
]:
    _add("float64", body, "exact")
for body in [
    "v = np.float64(x)\nv[0] = 3.0\nreturn np.sum(v * x)",
    "y = x * 1.0\nv = np.float64(y)\nv *= 2.0\nreturn np.sum(v * y)",
]:
    _add("float64", body)

# ---------------------------------------------------------------- reductions with initial=, where=
_REDUCED = ["x ** 2", "np.outer(x, x ** 2)"]
_REDUCTIONS = ["np.sum(v, initial=1.5)", "np.sum(v, where=v > 0.5)", "np.mean(v, where=v < 1.0)",
               "np.sum(v, axis=0, where=v > 0.5, initial=x[1])", "v.sum(initial=x[0])",
               "np.mean(v, axis=-1, keepdims=True, where=v < 2.0)", "v.mean(where=v > 0.1)",
               "np.sum(v, 0, None, None, False, x[1] * 2.0)"]
for v, reduction in itertools.product(_REDUCED, _REDUCTIONS):
    _add("reductions", f"v = {v}\nr = {reduction}\nreturn np.sum(r ** 2) * x[2]", "exact")

# ---------------------------------------------------------------- odd forms
for body in [
    "return np.max(x, initial=-5.0) * x[1]",
    "return np.prod(x, initial=2.0)",
    "return np.sum(np.diff(x, prepend=0.0) ** 2)",
    "return np.sum(np.diff(x, append=x[0]) ** 2)",
    "y = x * 2.0\nz = y\ndel y\nreturn np.sum(z * x)",
]:
    _add("odd_forms", body, "exact")  # initial=, prepend=/append=, del name: differentiated
