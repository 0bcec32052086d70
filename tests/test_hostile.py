"""Hostile programs by class, each differentiated exactly or refused with a SrcadError.

Each family below is a class of program that gave a wrong value or gradient with no error
before (issue 14), written as a small grid so that the mechanism is tested, not one case:

* **the user's own arithmetic is kept as written**: srcad's simplifier, written for gradient
  arithmetic, turned ``np.arange(3) * 1.0`` into ``np.arange(3)`` (an integer array, into which
  a later write truncates), ``x ** 0`` of an array into the number ``1.0``, and a mask
  ``(x > 0) * 1`` into a boolean one (indexing then selects instead of taking items 0 and 1);
* **dtypes**: a differentiated value written into an integer or boolean array (``y[i] = v``,
  ``y[i] += v``), or converted by ``dtype=int`` (``np.sum``, ``np.array``, ...), is truncated
  by NumPy: its derivative is zero, not one. Refused unless the array is certainly a float one;
* **what may share memory**: ``d.get(k)`` is the item itself; ``p, q = np.split(b, 2)`` and
  ``p, q = helper(b)`` may be views of ``b``; ``np.einsum('ii->i', A)`` is a view of ``A``;
  ``A[idx]`` with a tuple ``idx`` of slices is a view; ``d | e`` merges dicts holding values.

Every program is judged against Python itself (the value, on copies of the inputs) and central
finite differences (the gradient); a refusal must be a SrcadError at a line of the program.
"""

from __future__ import annotations

import itertools
import uuid

import numpy as np
import pytest
from srcad.check import numerical_grad
from test_robustness import load_module

import srcad

X = np.array([0.71, -1.23, 1.94])


def _load(tmp_path, body):
    text = "import numpy as np\n\n\ndef f(x):\n" + "".join(
        f"    {line}\n" for line in body.strip("\n").split("\n"))
    return load_module(tmp_path, text, f"hostile_{uuid.uuid4().hex[:8]}").f


def _exact_or_refused(f, x=X):
    """'refused' or 'exact'; fails on a wrong value or gradient."""
    try:
        value, grad = srcad.value_and_grad(f)(x.copy())
    except srcad.SrcadError as e:
        assert e.lineno is not None and e.lineno >= 5, str(e)
        return "refused"
    assert value == pytest.approx(float(f(x.copy())), rel=1e-12, abs=1e-12)
    np.testing.assert_allclose(grad, numerical_grad(lambda v: f(v.copy()), (x,), 0),
                               rtol=1e-5, atol=1e-7)
    return "exact"


# ---------------------------------------------------------------- the user's own arithmetic

_BASES = {"ints": "np.arange(3)", "bools": "(x > 0)", "int_literal": "np.array([1, 2, 3])",
          "floats": "x * 2.0"}
_IDENTITIES = ["* 1", "* 1.0", "/ 1", "+ 0.0", "** 1", "** 0"]
_USES = {
    "write": "y = b {op}\ny[0] = x[0] * 1.5\nreturn np.sum(y * x)",
    "index": "y = b {op}\nreturn np.sum(x[y] ** 2) + np.sum(y * x)",
    "sum": "y = b {op}\nreturn np.sum(y) * x[1] + np.sum(y * x)",
}


@pytest.mark.parametrize(("base", "op", "use"),
                         list(itertools.product(_BASES, _IDENTITIES, _USES)))
def test_the_users_own_arithmetic_is_kept(tmp_path, base, op, use):
    body = f"b = {_BASES[base]}\n" + _USES[use].format(op=op)
    f = _load(tmp_path, body)
    try:
        f(X.copy())
    except (IndexError, TypeError, ValueError):
        return  # not a program Python runs (a float index, True ** 0 as an index ...)
    made = np.asarray(eval(f"{_BASES[base]} {op}", {"np": np, "x": X}))
    if use == "write" and made.dtype.kind not in "fc":
        assert _exact_or_refused(f) == "refused"  # y[0] = v truncates v: see below
    else:
        assert _exact_or_refused(f) == "exact"


# ---------------------------------------------------------------- dtypes

_INT_ARRAYS = ["np.zeros(3, dtype=int)", "np.zeros(3, int)", "np.full(3, 2)", "np.arange(3)",
               "x > 0", "np.array([1, 2, 3])", "np.zeros_like(x, int)"]
_FLOAT_ARRAYS = ["np.zeros(3)", "np.zeros_like(x)", "x.copy()", "np.ones(3, 'f8')",
                 "np.arange(3.0)", "np.arange(3) * 1.0", "np.full(3, 2.0)",
                 "np.array([1.0, 2.0, 3.0])"]
_WRITES = ["y[0] = x[0] * 3.7", "y[1:] += x[1:] * 3.7", "y[x > 0] = x[x > 0] * 3.7"]


@pytest.mark.parametrize(("array", "write"), list(itertools.product(_INT_ARRAYS, _WRITES)))
def test_writing_into_an_integer_array_is_refused(tmp_path, array, write):
    f = _load(tmp_path, f"y = {array}\n{write}\nreturn np.sum(y * 1.5) * x[1] + x[0]")
    assert _exact_or_refused(f) == "refused"


@pytest.mark.parametrize(("array", "write"), list(itertools.product(_FLOAT_ARRAYS, _WRITES)))
def test_writing_into_a_float_array_is_differentiated(tmp_path, array, write):
    f = _load(tmp_path, f"y = {array}\n{write}\nreturn np.sum(y * y) * x[1] + x[0]")
    assert _exact_or_refused(f) == "exact"


_CONVERSIONS = ["np.sum(v, dtype={d})", "np.cumsum(v, dtype={d})[2]", "np.mean(v, dtype={d})",
                "np.prod(v, dtype={d})", "np.sum(np.array(v, dtype={d}))",
                "np.sum(np.asarray(v, {d}))", "v.sum(dtype={d})", "np.sum(v.astype({d}))",
                "np.sum(np.full(3, v[0], dtype={d}))"]


@pytest.mark.parametrize(("conversion", "dtype"), list(itertools.product(
    _CONVERSIONS, ["int", "bool", "'i8'", "float", "np.float64"])))
def test_a_dtype_argument_is_differentiated_or_refused(tmp_path, conversion, dtype):
    f = _load(tmp_path, "v = x * 3.7\nreturn float(" + conversion.format(d=dtype)
              + ") * x[1] + x[0] * x[2]")
    outcome = _exact_or_refused(f)
    if dtype in ("float", "'f8'", "np.float64"):
        assert outcome == "exact"


# ---------------------------------------------------------------- what may share memory

_SHARING = {
    "dict_get": "d = {'a': x * 1.0}\nv = d.get('a')\nv += x\nreturn np.sum(d['a'] * x)",
    "dict_get_default": "d = {}\nw = x * 1.0\nv = d.get('a', w)\nv[0] = 0.0\n"
                        "return np.sum(w * x)",
    "split_unpacked": "b = x * 1.0\np, q = np.split(b, [1])\nq *= 2.0\nreturn np.sum(b * x)",
    "array_split_item": "b = x * 1.0\nparts = np.array_split(b, 2)\nparts[1][0] = 0.0\n"
                        "return np.sum(b * x)",
    "einsum_diagonal": "A = np.outer(x, x)\nd = np.einsum('ii->i', A)\nd += 1.0\n"
                       "return np.sum(A * A)",
    "einsum_transpose": "A = np.outer(x, x ** 2)\nT = np.einsum('ij->ji', A)\nT[0, 1] = 0.0\n"
                        "return np.sum(A * A)",
    "tuple_index": "A = np.outer(x, x)\nidx = (0, slice(None))\nv = A[idx]\nv += 1.0\n"
                   "return np.sum(A * A)",
    "helper_views": "p, q = halves(x * 1.0)\np += 1.0\nreturn np.sum(q * x)",
    "helper_view_list": "vs = halves(x * 1.0)\nvs[0][1] = 5.0\nreturn np.sum(vs[1] * x)",
    "dict_union": "d = {'a': x[0]}\ne = d | {'b': x[1]}\nreturn e['a'] * e['b']",
    "dict_union_in_place": "d = {'a': x[0]}\nd |= {'b': x[1]}\nreturn d['a'] * d['b']",
}


@pytest.mark.parametrize("case", sorted(_SHARING))
def test_values_that_may_share_memory(tmp_path, case):
    text = ("import numpy as np\n\n\ndef halves(a):\n    return [a[:2], a[1:]]\n\n\n"
            "def f(x):\n" + "".join(f"    {line}\n" for line in _SHARING[case].split("\n")))
    f = load_module(tmp_path, text, f"hostile_{uuid.uuid4().hex[:8]}").f
    _exact_or_refused(f)
