"""Arrays of the array API standard that lack NumPy's dispatch protocols (``array-api-strict``,
a strict, minimal implementation of the standard: no ``__array_ufunc__``, no
``__array_function__``), as a check that nothing in srcad takes a NumPy-only road with them.

srcad's generated code is NumPy code; NumPy would turn such an array into a NumPy array
through ``__array__`` (a silent copy, the gradient then of another type) or the array's own
operators would refuse NumPy's. So srcad refuses them, wrt or not, in every entry point, with
a :class:`srcad.BackendError` naming the library and saying what to write instead; the
rewrite it proposes (``np.from_dlpack``, then the array's namespace for the gradient) gives
NumPy's gradient, checked here against finite differences.
"""

import numpy as np
import pytest

import srcad
from srcad.tools.check import numerical_grad

xp = pytest.importorskip("array_api_strict")
compat = pytest.importorskip("array_api_compat")

W = np.array([0.3, -0.2, 0.5])
X = np.arange(12.0).reshape(4, 3) / 10


def loss(w, X):
    return np.sum(np.tanh(X @ w)) + np.sum(w * w)


def vector(w, X):
    return np.tanh(X @ w)


CALLS = {
    "grad": lambda w, X: srcad.grad(loss)(w, X),
    "grad wrt X": lambda w, X: srcad.grad(loss, wrt=1)(w, X),
    "value_and_grad": lambda w, X: srcad.value_and_grad(loss)(w, X),
    "vjp": lambda w, X: srcad.vjp(vector, w, X, wrt=0)[1](np.ones(4)),
    "jvp": lambda w, X: srcad.jvp(loss, (w, X), (np.ones(3),), wrt=0),
    "hessian": lambda w, X: srcad.hessian(loss)(w, X),
    "in a list": lambda w, X: srcad.grad(lambda ws, X: loss(ws[0], X))([w], X),
}


CASES = [(call, strict) for call in CALLS for strict in ("w", "X", "both")
         if not (call == "in a list" and strict == "X")]  # the list holds w


@pytest.mark.parametrize(("call", "strict"), CASES, ids=[f"{c}-{s}" for c, s in CASES])
def test_refused_with_the_library_named(call, strict):
    w = xp.asarray(W) if strict in ("w", "both") else W
    X_ = xp.asarray(X) if strict in ("X", "both") else X
    with pytest.raises(srcad.BackendError, match="array_api_strict") as info:
        CALLS[call](w, X_)
    assert "__array_function__" in str(info.value) and "np.from_dlpack" in info.value.hint


def test_the_rewrite_the_error_proposes_gives_numpys_gradient():
    w, X_ = xp.asarray(W), xp.asarray(X)
    namespace = compat.array_namespace(w, X_)
    g = namespace.asarray(srcad.grad(loss)(np.from_dlpack(w), np.from_dlpack(X_)))
    assert compat.array_namespace(g) is namespace
    want = numerical_grad(loss, (W, X))
    np.testing.assert_allclose(np.from_dlpack(g), want, rtol=1e-7, atol=1e-9)
    np.testing.assert_allclose(np.from_dlpack(g), srcad.grad(loss)(W, X), rtol=0, atol=0)


def test_numpy_arrays_are_array_api_objects_and_still_work():
    """NumPy 2's arrays have __array_namespace__ too: they are not refused."""
    assert compat.is_array_api_obj(W)
    np.testing.assert_allclose(srcad.grad(loss)(W, X), numerical_grad(loss, (W, X)),
                               rtol=1e-7, atol=1e-9)


# ---------------------------------------------------------------- every rule the standard has
# Generated from the rule table (tests/test_forward_rules.py): each example whose function the
# array API standard has (array_api_strict's namespace, its linalg extension, the operators)
# is given array_api_strict arrays: refused with a BackendError naming the library; the
# rewrite the error proposes (np.from_dlpack) gives NumPy's gradient, to the bit.
import test_forward_rules as T  # noqa: E402  (after importorskip: the table builds functions)


def _in_standard(rid):
    module, _, rest = rid.partition(".")
    name = rest.split("(")[0]
    if module == "operator":
        return True
    if module != "numpy":
        return False
    if name.startswith("linalg."):
        return hasattr(getattr(xp, "linalg", None), name.split(".", 1)[1])
    return hasattr(xp, name)


STANDARD = [c for c in T.CASES if _in_standard(c[0])
            and any(isinstance(T._value(s, np.random.default_rng(0)), np.ndarray)
                    for s in c[2].values())]


@pytest.mark.parametrize("case", STANDARD, ids=[T._case_id(c) for c in STANDARD])
def test_every_standard_rule_is_refused_precisely_and_the_rewrite_is_numpys(case):
    rid, expr, specs, f, line = case
    s, args, wrt = T.scalar_case(case)
    try:
        want = srcad.grad(s, wrt=wrt)(*args)
    except srcad.SrcadError:
        pytest.skip("refused on NumPy too (checked by test_forward_rules.py)")
    strict = tuple(xp.asarray(a) if isinstance(a, np.ndarray) else a for a in args)
    with pytest.raises(srcad.BackendError, match="array_api_strict") as info:
        srcad.grad(s, wrt=wrt)(*strict)
    assert "np.from_dlpack" in info.value.hint
    back = tuple(np.from_dlpack(a) if not isinstance(a, float) else a for a in strict)
    got = srcad.grad(s, wrt=wrt)(*back)
    for g, w in zip(got, want):
        np.testing.assert_array_equal(np.asarray(g), np.asarray(w))
