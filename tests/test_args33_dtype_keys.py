"""(args33) A float array's dtype (float16/32/64, longdouble) is not in the key of srcad's
compiled code (backend/keys.py keys ranks and, since keys34, the kind of a dtype that is not
float: a non-differentiated int array gets its own code; specialise._ByRank's fast path holds
the dtype only to pick the guarded function, which casts the gradients). This family shows the
code made for one dtype gives, for another, exactly what code made for that dtype alone gives:
forms whose code might depend on it (a non-differentiated argument's int or float dtype,
``np.zeros_like``, ``np.empty`` of ``x.dtype``, a branch on ``x.dtype``, ``np.finfo(x.dtype)``,
``x.itemsize``, ``astype`` of another argument's dtype, ``//`` of it, a write into its copy);
each gradient is the same array, of the same dtype, whichever dtype was compiled first (errors
too). The long run (SRCAD_LONG_PROPERTIES=1) takes every dtype pair, longdouble and float16, and
the Numba backend."""

from __future__ import annotations

import itertools

import numpy as np
import pytest
from sampling import LONG
from test_robustness import load_module

import srcad

FORMS = {
    "nonwrt": "return np.sum(np.sin(x) * a)",
    "zeros_like": "y = np.zeros_like(x)\n    y[0] = x[0] * 2.0\n    return np.sum(y * y) + "
                  "np.sum(a)",
    "empty_dtype": "y = np.empty(x.shape, x.dtype)\n    y[...] = x ** 2\n    return np.sum(y * a)",
    "branch": "if x.dtype == np.float32:\n        return np.sum(x * a)\n"
              "    return np.sum(2.0 * x * a)",
    "finfo": "return np.sum(np.finfo(x.dtype).eps * 1e6 * x * a)",
    "itemsize": "return np.sum(x * a) * x.itemsize",
    "astype": "return np.sum(x.astype(a.dtype) * a)",
    "int_div": "return np.sum(x * (a // 2))",
    "write_a": "b = a.copy()\n    b[0] = 0.5\n    return np.sum(x * b)",
}
X = np.array([0.7, 1.3, -0.4])
A = np.array([1.0, 3.0, 2.0])

if LONG:
    CASES = [(form, dx, da, first, "python") for form in FORMS for dx, da, first in
             itertools.product(("float64", "float32", "float16", "longdouble"),
                               ("float64", "float32", "int64"),
                               ("float64", "float32", "int64"))]
    CASES += [(form, dx, da, first, "numba") for form in ("nonwrt", "zeros_like", "write_a",
                                                          "int_div", "empty_dtype")
              for dx, da, first in itertools.product(("float64", "float32"),
                                                     ("float64", "int64"),
                                                     ("float64", "float32"))]
else:  # each form: a float32 x after float64 code, an int a after float code
    CASES = [(form, "float32", "float64", "float64", "python") for form in FORMS] + [
        (form, "float64", "int64", "float64", "python") for form in ("nonwrt", "int_div",
                                                                    "astype")]


def _grad(f, x, a, backend):
    try:
        return srcad.grad(f, backend=backend)(x, a)
    except Exception as error:  # noqa: BLE001 - compared, not judged
        return type(error)


@pytest.mark.parametrize("form, dx, da, first, backend", CASES)
def test_dtype_not_keyed(tmp_path, form, dx, da, first, backend):
    f = load_module(tmp_path, f"import numpy as np\n\n\ndef f(x, a):\n    {FORMS[form]}\n").f
    x, a = X.astype(dx), A.astype(da)
    srcad.clear_cache()
    alone = _grad(f, x, a, backend)
    srcad.clear_cache()
    _grad(f, X.astype(first if first != "int64" else "float64"), A.astype(first), backend)
    after = _grad(f, x, a, backend)
    if isinstance(alone, type):
        assert after is alone
        return
    assert not isinstance(after, type), after
    assert after.dtype == alone.dtype
    assert np.array_equal(after, alone, equal_nan=True)
    if form not in ("branch", "finfo", "itemsize"):  # (their value depends on the dtype)
        expected = np.asarray(_grad(f, x.astype("float64"), a, "python"))
        assert np.allclose(alone.astype("float64"), expected, rtol=5e-3, atol=5e-3)
