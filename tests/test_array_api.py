"""Arrays of the array API standard that lack NumPy's dispatch protocols (``array-api-strict``,
a strict, minimal implementation of the standard: no ``__array_ufunc__``, no
``__array_function__``), as a check that nothing in srcad takes a NumPy-only road with them.

Code written for the standard (``xp = array_namespace(w, X)``, then ``xp.sum(xp.tanh(X @ w))``)
is differentiated on them: its ``xp.f`` are NumPy's rules (srcad.rules.array_api), and the
generated code runs in the arrays' namespace (srcad.backend.standard). Checked, for a table of
expressions (elementwise functions, reductions, matmul, indexing, shapes, where, linalg), with
grad, value_and_grad, vjp and jvp, against finite differences and against the same code on
NumPy arrays; with ``__array__`` of the strict arrays made to fail, so that no NumPy call ever
takes one. What the backend has no form of is refused, naming the backend, the rule's helper
and the user's line.

Plain NumPy code given such arrays is still refused: NumPy would turn them into NumPy arrays
through ``__array__`` (a silent copy, the gradient then of another type) or the array's own
operators would refuse NumPy's. srcad refuses them, wrt or not, in every entry point, with a
:class:`srcad.BackendError` naming the library and saying what to write instead; the rewrite it
proposes (``np.from_dlpack``, then the array's namespace for the gradient) gives NumPy's
gradient, checked here against finite differences.
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


# ---------------------------------------------------------------- every NumPy rule the standard has
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



# ================================================================ code written for the standard
import importlib.util  # noqa: E402
import re  # noqa: E402
import tempfile  # noqa: E402
from pathlib import Path  # noqa: E402

#: name -> expression of w (3,) and X (4, 3), written with the namespace xp
EXPRESSIONS = {
    # elementwise functions
    "exp": "xp.exp(X @ w)", "log": "xp.log(1.5 + xp.sin(X @ w))", "sin": "xp.sin(X * w)",
    "cos": "xp.cos(X * w)", "tan": "xp.tan(X * w)", "tanh": "xp.tanh(X @ w)",
    "sinh": "xp.sinh(X * w)", "cosh": "xp.cosh(X * w)", "sqrt": "xp.sqrt(1.0 + X * w * w)",
    "abs": "xp.abs(X - w)", "square": "xp.square(X - w)", "expm1": "xp.expm1(X * w)",
    "log1p": "xp.log1p(X * w * w)", "log2": "xp.log2(2.0 + X * w)",
    "log10": "xp.log10(2.0 + X * w)", "asin": "xp.asin(X * w)", "acos": "xp.acos(X * w)",
    "atan": "xp.atan(X * w)", "asinh": "xp.asinh(X * w)", "acosh": "xp.acosh(2.0 + X * w)",
    "atanh": "xp.atanh(X * w)", "sign": "xp.sign(w) * w",
    "reciprocal": "xp.reciprocal(2.0 + X * w)", "negative": "xp.negative(X * w)",
    "positive": "xp.positive(X * w)", "floor": "xp.floor(X * 3.0) * w",
    "round": "xp.round(X * 3.0) * w", "add": "xp.add(X, w)",
    "subtract": "xp.subtract(X, w * w)", "multiply": "xp.multiply(X, w)",
    "divide": "xp.divide(X, 2.0 + w)", "pow": "xp.pow(2.0 + X, w)",
    "pow scalar": "xp.pow(w, 3.0)", "atan2": "xp.atan2(X + 0.1, w)", "hypot": "xp.hypot(X, w)",
    "logaddexp": "xp.logaddexp(X, w)", "maximum": "xp.maximum(X, w)",
    "minimum": "xp.minimum(X, w)",
    # operators
    "operators": "-(X - w) / (1.0 + w * w) ** 2", "rpow": "2.0 ** w", "abs pow": "xp.abs(w) ** 1.5",
    "mask": "xp.where(X > 0.5, X, 0.0) * w",
    # reductions
    "sum axis": "xp.sum(X * w, axis=0)", "sum keepdims": "X / xp.sum(X * w, axis=1, keepdims=True)",
    "mean": "xp.mean(X * w, axis=1)", "mean all": "xp.mean(X @ w)", "max": "xp.max(X * w, axis=0)",
    "min": "xp.min(X * w)", "max keepdims": "xp.max(X * w, axis=1, keepdims=True)",
    "prod": "xp.prod(w)", "prod axis": "xp.prod(X + w, axis=0)", "norm": "xp.sqrt(xp.sum(w * w))",
    "std": "xp.std(X * w)", "std correction": "xp.std(X * w, axis=0, correction=1)",
    "var": "xp.var(X * w, axis=1, correction=1.0, keepdims=True)",
    "clip": "xp.clip(X * w, 0.07, 0.33)", "clip min": "xp.clip(X * w, min=0.07)",
    # linear algebra
    "matmul": "xp.matmul(X, w)", "matmul_T": "X.T @ (X @ w)", "vector_matrix": "w @ X.T",
    "vector_vector": "w @ w", "matrix_matrix": "(X * w) @ (X * w).T",
    "det": "xp.linalg.det(xp.reshape(X[:3, :], (3, 3)) + xp.reshape(w, (1, 3)) + 1.0)",
    "inv": "xp.linalg.inv(X[:3, :] + xp.eye(3) * w)",
    # shapes and selection
    "permute_dims": "xp.permute_dims(X * w, (1, 0))", "reshape": "xp.reshape(X * w, (2, 6))[:, 1]",
    "expand_dims": "xp.expand_dims(w, axis=0) * X",
    "squeeze": "xp.squeeze(xp.reshape(w, (1, 3)), axis=0)",
    "concat": "xp.concat([w, w * w], axis=0)", "stack": "xp.stack([w, 2.0 * w], axis=1)",
    "flip": "xp.flip(w) * w", "moveaxis": "xp.moveaxis(X * w, 0, 1)",
    "broadcast_to": "xp.broadcast_to(w, (4, 3)) * X",
    "where": "xp.where(X > 0.5, X * w, xp.sin(X + w))",
    "slice": "X[1:3, :] @ w", "items": "w[0] * w[2]", "column": "X[:, 0] * w[1]",
    "reversed": "w[::-1] * w", "ellipsis": "X[..., 1] * w[1]", "new axis": "w[None, :] * X",
    "zeros_like": "xp.zeros_like(w) + w", "asarray": "xp.asarray(2.0) * w",
    # numbers: items and full reductions are 0-d arrays of the namespace
    "items math": "xp.sin(w[0]) * xp.cos(w[1]) + xp.atan2(w[2], 2.0 + w[0])",
    "item log": "xp.log(1.0 + w[0] * w[0]) * xp.sqrt(2.0 + w[1]) + xp.exp(w[2])",
    "reductions chained": "xp.exp(xp.sum(w)) * xp.log(xp.sum(w * w))",
    "reductions stacked": "xp.stack([xp.sum(w), xp.prod(w), xp.max(X @ w)])",
    "max squared": "xp.max(w) ** 2 + xp.tanh(xp.mean(X @ w)) / xp.sqrt(xp.sum(w * w))",
    "sum keepdims times": "xp.sum(w, keepdims=True) * w",
    "sort": "xp.sort(X * w, axis=0)[0, :] * xp.sort(w)",
    "vecdot": "xp.vecdot(X, w)", "cumulative_sum": "xp.cumulative_sum(X * w, axis=0) ** 2",
    # the linalg extension (M: a well-conditioned matrix of w and X)
    "slogdet": "xp.linalg.slogdet(M)[1]", "pinv": "xp.linalg.pinv(M)",
    "matrix_power": "xp.linalg.matrix_power(M, 3)", "eigh": "xp.linalg.eigh(M + M.T)[0] ** 2",
    "svdvals": "xp.linalg.svdvals(M)", "trace": "xp.linalg.trace(M @ M)",
    "outer": "xp.linalg.outer(w, w) * M", "linalg.matmul": "xp.linalg.matmul(M, M)",
    "linalg.vecdot": "xp.linalg.vecdot(M, w)",
    "vector_norm": "xp.linalg.vector_norm(X * w, axis=1)",
    "vector_norm all": "xp.linalg.vector_norm(M)", "matrix_norm": "xp.linalg.matrix_norm(M)",
}

_DIR = Path(tempfile.mkdtemp(prefix="srcad_array_api_"))


def _module(name, text):
    path = _DIR / f"{name}.py"
    path.write_text(text)
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _matrices(e):
    return e.replace("M", "(xp.reshape(X[:3, :], (3, 3)) + 2.0 * xp.eye(3) + "
                          "xp.reshape(w, (1, 3)))")


_CASES = _module("array_api_cases", "from array_api_compat import array_namespace\n\n" + "".join(
    f"def scalar_{k}(w, X):\n    xp = array_namespace(w, X)\n    return xp.sum({e})\n\n\n"
    f"def vector_{k}(w, X):\n    xp = array_namespace(w, X)\n    return {e}\n\n\n"
    for k, e in ((n.replace(" ", "_").replace(".", "_"), _matrices(e))
                 for n, e in EXPRESSIONS.items())))


def _functions(name):
    key = name.replace(" ", "_").replace(".", "_")
    return getattr(_CASES, f"scalar_{key}"), getattr(_CASES, f"vector_{key}")


@pytest.fixture
def no_numpy(monkeypatch):
    """Strict arrays that fail when NumPy takes one (``np.asarray``, a ufunc): the code made
    for them must never let NumPy see them."""
    def refused(self, *args, **kwargs):
        raise AssertionError("a strict array reached NumPy")
    monkeypatch.setattr(type(xp.asarray(0.0)), "__array__", refused)


def strict(a):
    return xp.asarray(a)


def numpy(a):
    return np.from_dlpack(a) if not isinstance(a, np.ndarray) else a


RNG = np.random.default_rng(0)
COT = RNG.standard_normal((4, 3))
TAN_W, TAN_X = np.array([0.5, -1.0, 2.0]), RNG.standard_normal((4, 3)) / 3

def _available(expr):
    """Whether this NumPy has a form of every standard function ``expr`` calls (NumPy 1.x
    lacks ``np.linalg.vector_norm``, NumPy < 2.1 ``np.cumulative_sum``: refused there)."""
    from srcad.rules.array_api import numpy_form

    return all(numpy_form(name, bool(linalg)) for linalg, name in
               re.findall(r"xp\.(linalg\.)?(\w+)\(", expr))


NAMES = [n for n, e in EXPRESSIONS.items() if _available(e)]
#: steps in X (floor, round, a mask at a point of X): their X-derivative has no finite difference
STEPS_IN_X = {"floor", "round", "mask", "where"}


@pytest.mark.parametrize("name", NAMES)
def test_grad_on_strict_arrays_is_numpys_and_finite_differences(name, no_numpy):
    f, _ = _functions(name)
    want = numerical_grad(f, (W, X))
    got = srcad.grad(f)(strict(W), strict(X))
    assert compat.array_namespace(got) is xp
    np.testing.assert_allclose(numpy(got), want, rtol=1e-6, atol=1e-8)
    on_numpy = srcad.grad(f)(W, X)  # the same code on NumPy arrays (NumPy's namespace)
    np.testing.assert_allclose(numpy(got), on_numpy, rtol=1e-12, atol=1e-14)


@pytest.mark.parametrize("name", [n for n in NAMES if n not in STEPS_IN_X])
def test_gradient_wrt_both_and_value(name, no_numpy):
    f, _ = _functions(name)
    value, (gw, gX) = srcad.value_and_grad(f, wrt=(0, 1))(strict(W), strict(X))
    np.testing.assert_allclose(float(value), f(W, X), rtol=1e-12)
    want_w, want_X = numerical_grad(f, (W, X), wrt=(0, 1))
    np.testing.assert_allclose(numpy(gw), want_w, rtol=1e-6, atol=1e-8)
    np.testing.assert_allclose(numpy(gX), want_X, rtol=1e-6, atol=1e-8)


@pytest.mark.parametrize("name", [n for n in NAMES if n not in STEPS_IN_X])
def test_jvp_is_the_directional_derivative(name, no_numpy):
    f, _ = _functions(name)
    value, tangent = srcad.jvp(f, (strict(W), strict(X)), (strict(TAN_W), strict(TAN_X)))
    gw, gX = numerical_grad(f, (W, X), wrt=(0, 1))
    np.testing.assert_allclose(float(value), f(W, X), rtol=1e-12)
    np.testing.assert_allclose(float(tangent), gw @ TAN_W + np.sum(gX * TAN_X),
                               rtol=1e-6, atol=1e-8)


@pytest.mark.parametrize("name", NAMES)
def test_vjp_of_the_array_valued_form(name, no_numpy):
    _, v = _functions(name)
    out = v(W, X)
    cot = np.reshape(COT.ravel()[:np.size(out)], np.shape(out)) if np.size(out) <= COT.size \
        else RNG.standard_normal(np.shape(out))
    value, pullback = srcad.vjp(v, strict(W), strict(X), wrt=0)
    np.testing.assert_allclose(numpy(value), out, rtol=1e-12)
    got = pullback(strict(cot))

    def projected(w, X):
        return np.sum(v(w, X) * cot)

    np.testing.assert_allclose(numpy(got), numerical_grad(projected, (W, X)), rtol=1e-6,
                               atol=1e-8)


def test_generated_code_reads_the_namespace():
    f, _ = _functions("tanh")
    df = srcad.grad(f)
    df(strict(W), strict(X))
    text = srcad.source(df, strict(W), strict(X))
    assert "xp.tanh" in text and "np." not in text


def test_ranks_specialise_strict_code():
    f, _ = _functions("sum axis")
    for w, X_ in ((W, X), (W[None, :], X[:, None, :])):
        got = srcad.grad(f)(strict(w), strict(X_))
        np.testing.assert_allclose(numpy(got), numerical_grad(f, (w, X_)), rtol=1e-6, atol=1e-8)


# ---------------------------------------------------------------- what is refused, and how
REFUSED_RULES = {"astype": "xp.astype(w, xp.float32)", "unique": "xp.unique_values(w)",
                 "matrix_transpose": "xp.matrix_transpose(X)"}
REFUSED_BACKEND = {"tensordot": ("xp.tensordot(X, w, axes=1)", "grad_tensordot"),
                   "index array": ("w[xp.asarray([0, 2])]", "np.add.at"),
                   "vector_norm": ("xp.linalg.vector_norm(X * w, axis=1, ord=1)", "grad_norm"),
                   "cumulative_prod": ("xp.cumulative_prod(w)", "grad_cumprod")}
_HEAD = "from array_api_compat import array_namespace\n\n"
_REFUSED = _module("array_api_refused", _HEAD + "".join(
    f"def {k.replace(' ', '_')}(w, X):\n    xp = array_namespace(w, X)\n"
    f"    return xp.sum({e})\n\n\n"
    for k, e in {**REFUSED_RULES, **{k: e for k, (e, _) in REFUSED_BACKEND.items()}}.items()))


@pytest.mark.parametrize("name", list(REFUSED_RULES))
def test_a_standard_function_without_a_rule_is_refused_at_its_line(name):
    f = getattr(_REFUSED, name.replace(" ", "_"))
    for args in ((W, X), (strict(W), strict(X))):
        with pytest.raises(srcad.MissingRuleError, match=f"xp.{name}") as info:
            srcad.grad(f)(*args)
        assert info.value.lineno == f.__code__.co_firstlineno + 2 and info.value.hint


@pytest.mark.parametrize("name", [n for n, (e, _) in REFUSED_BACKEND.items() if _available(e)])
def test_what_the_backend_lacks_is_refused_naming_it(name):
    f = getattr(_REFUSED, name.replace(" ", "_"))
    want = numerical_grad(f, (W, X))
    np.testing.assert_allclose(srcad.grad(f)(W, X), want, rtol=1e-6, atol=1e-8)  # NumPy: fine
    with pytest.raises(srcad.BackendError, match=REFUSED_BACKEND[name][1]) as info:
        srcad.grad(f)(strict(W), strict(X))
    assert "array_api_strict" in str(info.value) and info.value.hint
    assert info.value.lineno == f.__code__.co_firstlineno + 2


def test_a_solve_of_known_ranks_runs_on_the_standard_backend():
    """``xp.linalg.solve(X[:3, :] + 2.0 * xp.eye(3), w)``: with ``xp.eye``'s rank known
    (sound32's made ranks) the rule's matrix-vector form is written inline in the array API
    namespace, no NumPy helper (``grad_solve_b``, still refused where ranks are unknown):
    both gradients on array_api_strict equal central differences."""
    f = _module("array_api_solve", _HEAD + "def solve(w, X):\n"
                "    xp = array_namespace(w, X)\n"
                "    return xp.sum(xp.linalg.solve(X[:3, :] + 2.0 * xp.eye(3), w))\n").solve
    gw, gX = srcad.grad(f, wrt=(0, 1))(strict(W), strict(X))
    want = numerical_grad(f, (W, X))
    fd = np.zeros_like(X)
    for i, j in np.ndindex(*X.shape):
        e = np.zeros_like(X)
        e[i, j] = 1e-6
        fd[i, j] = (f(W, X + e) - f(W, X - e)) / 2e-6
    np.testing.assert_allclose(numpy(gw), want, rtol=1e-6, atol=1e-8)
    np.testing.assert_allclose(numpy(gX), fd, rtol=1e-5, atol=1e-8)


_MISUSE = _module("array_api_misuse", """\
import numpy as np
from array_api_compat import array_namespace


def passed_on(w, X):
    xp = array_namespace(w, X)
    return helper(xp, w)


def helper(xp, w):
    return xp.sum(w)


def reads_numpy(w, X):
    xp = array_namespace(w, X)
    return xp.sum(np.tanh(X @ w))


def own_method(w, X):
    xp = w.__array_namespace__()
    return xp.sum(xp.tanh(X @ w))


def vector(w, X):
    xp = array_namespace(w, X)
    return xp.tanh(X @ w)


def constants(w, X):
    xp = array_namespace(w, X)
    return xp.sum(xp.sin(np.pi * (X @ w))) + np.e * xp.sum(w)
""")


def test_the_namespace_used_as_a_value_is_refused():
    with pytest.raises(srcad.UnsupportedSyntaxError, match="array namespace 'xp'") as info:
        srcad.grad(_MISUSE.passed_on)(W, X)
    assert info.value.lineno == _MISUSE.passed_on.__code__.co_firstlineno + 2


def test_namespace_code_reading_numpy_is_refused_strict_arrays_at_that_line():
    f = _MISUSE.reads_numpy
    np.testing.assert_allclose(srcad.grad(f)(W, X), numerical_grad(f, (W, X)), rtol=1e-6)
    with pytest.raises(srcad.BackendError, match="array_api_strict"):
        srcad.grad(f)(strict(W), strict(X))


def test_numpys_constants_are_numbers_not_numpy_reads(no_numpy):
    f = _MISUSE.constants
    got = srcad.grad(f)(strict(W), strict(X))
    np.testing.assert_allclose(numpy(got), numerical_grad(f, (W, X)), rtol=1e-6, atol=1e-8)


def test_the_arrays_own_namespace_method(no_numpy):
    f = _MISUSE.own_method
    got = srcad.grad(f)(strict(W), strict(X))
    np.testing.assert_allclose(numpy(got), numerical_grad(f, (W, X)), rtol=1e-6, atol=1e-8)


def test_strict_and_numpy_arrays_in_one_call_are_refused():
    f, _ = _functions("tanh")
    with pytest.raises(srcad.BackendError, match="array_api_strict"):
        srcad.grad(f)(strict(W), X)


#: second order and Jacobians on strict arrays: elementwise functions, reductions, matrix
#: products and indexing (each with hessian in both modes, hvp, grad of grad, jacrev, jacfwd)
SECOND = ["tanh", "pow", "maximum", "sum keepdims", "max", "matmul_T", "det", "slice",
          "items"]
_SECOND = _module("array_api_second", "import srcad\nfrom array_api_compat import "
                  "array_namespace\n\n" + "".join(
                      f"def s_{k}(w, X):\n    xp = array_namespace(w, X)\n    return xp.sum({e})"
                      f"\n\n\ndef gg_{k}(w, X):\n    xp = array_namespace(w, X)\n"
                      f"    g = srcad.grad(s_{k}, wrt=(0, 1))(w, X)\n"
                      "    return xp.sum(g[0] * g[0]) + xp.sum(xp.sin(g[1]))\n\n\n"
                      for k, e in ((n.replace(" ", "_"), _matrices(EXPRESSIONS[n]))
                                   for n in SECOND)))


@pytest.mark.parametrize("name", SECOND)
def test_second_order_and_jacobians_on_strict_arrays_are_numpys(name, no_numpy):
    """Written in the namespace too (the code differentiated again is the NumPy code the
    first derivative was written from): the same numbers as on NumPy arrays (1e-12)."""
    key = name.replace(" ", "_")
    f, v = _functions(name)
    gg = getattr(_SECOND, f"gg_{key}")
    for make, args in ((lambda: srcad.hessian(f), (W, X)),
                       (lambda: srcad.hessian(f, wrt=1, mode="rev"), (W, X)),
                       (lambda: srcad.hvp(f), (W, X, TAN_W)),
                       (lambda: srcad.grad(gg, wrt=(0, 1)), (W, X)),
                       (lambda: srcad.jacrev(v, wrt=(0, 1)), (W, X)),
                       (lambda: srcad.jacfwd(v), (W, X))):
        want = make()(*args)
        got = make()(*map(strict, args))
        for g, e in zip(*((r,) if not isinstance(r, tuple) else r for r in (got, want))):
            assert type(g) is type(strict(W))
            np.testing.assert_allclose(numpy(g), e, rtol=1e-12, atol=1e-12)


def test_a_second_order_helper_without_a_form_is_refused_naming_the_backend():
    f, _ = _functions("prod")
    with pytest.raises(srcad.BackendError, match="standard backend.*prod_hvp"):
        srcad.hessian(f)(strict(W), strict(X))


def test_a_non_scalar_output_and_a_float32_argument():
    with pytest.raises(srcad.NonScalarOutputError):
        srcad.grad(_MISUSE.vector)(strict(W), strict(X))
    f, _ = _functions("tanh")
    srcad.grad(f)(strict(W), strict(X))  # made for float64: float32 is another specialisation
    with pytest.raises(srcad.WrtError, match="float64"):
        srcad.grad(f)(xp.asarray(W, dtype=xp.float32), strict(X))


def test_namespace_code_on_dask_arrays_is_lazy_and_numpys():
    """On Dask arrays (array_api_compat's Dask namespace) the code is NumPy's, run by Dask."""
    da = pytest.importorskip("dask.array")
    f, _ = _functions("tanh")
    Xd, wd = da.from_array(X, chunks=(2, 3)), da.from_array(W, chunks=3)
    got = srcad.grad(f)(wd, Xd)
    assert isinstance(got, da.Array)
    np.testing.assert_allclose(got.compute(), srcad.grad(f)(W, X), rtol=1e-12, atol=1e-14)


def test_the_example_fits_the_same_on_both():
    import sys

    sys.path.insert(0, str(Path(__file__).parent.parent / "examples"))
    try:
        from array_api_logistic_regression import main
    finally:
        sys.path.pop(0)
    assert main(["--steps", "20"]) <= 1e-12


# ---------------------------------------------------------------- control flow, writes, callees
_FLOW = _module("array_api_flow", """\
import numpy as np
from array_api_compat import array_namespace


def loop(w, X):
    xp = array_namespace(w, X)
    h = w
    for i in range(3):
        h = xp.tanh(X[:3, :] @ h) + w
    return xp.sum(h * h)


def branch(w, X):
    xp = array_namespace(w, X)
    s = xp.sum(w)
    if s > 0:
        y = xp.sin(X @ w)
    else:
        y = xp.cos(X @ w)
    return xp.sum(y)


def while_loop(w, X):
    xp = array_namespace(w, X)
    t = 0.0
    k = 0
    while k < 4:
        t = t + xp.sum(X[k, :] * w) ** 2
        k += 1
    return t


def helper(v, xp):
    return xp.sum(v * v)


def calls(w, X):
    xp = array_namespace(w, X)
    return helper(X @ w, xp)


def inner(v):
    xp = array_namespace(v)
    return xp.sum(xp.exp(v))


def calls_namespace_code(w, X):
    xp = array_namespace(w, X)
    return inner(X @ w) + xp.sum(w)


def write(w, X):
    xp = array_namespace(w, X)
    out = xp.zeros((3,), dtype=xp.float64)
    out[0] = w[1] * w[2]
    out[1:] = w[:2] ** 2
    return xp.sum(out * out)


def plain(v):
    return v * v + 1.0


def calls_plain(w, X):
    xp = array_namespace(w, X)
    return xp.sum(plain(X @ w))


class Scaled:
    scale = 2.0

    def act(self, v):
        xp = array_namespace(v)
        return xp.tanh(v) * self.scale


model = Scaled()


def calls_method(w, X):
    xp = array_namespace(w, X)
    return xp.sum(model.act(X @ w)) * model.scale


def numpy_inner(v):
    return np.sum(np.exp(v))


def calls_numpy_code(w, X):
    xp = array_namespace(w, X)
    return numpy_inner(X @ w) + xp.sum(w)
""")

FLOW = ["loop", "branch", "while_loop", "write"]


@pytest.mark.parametrize("name", FLOW)
@pytest.mark.parametrize("sign", [1.0, -1.0])
def test_loops_branches_and_writes(name, sign, no_numpy):
    f = getattr(_FLOW, name)
    w = sign * W
    want = numerical_grad(f, (w, X))
    got = srcad.grad(f)(strict(w), strict(X))
    np.testing.assert_allclose(numpy(got), want, rtol=1e-6, atol=1e-8)
    np.testing.assert_allclose(numpy(got), srcad.grad(f)(w, X), rtol=1e-12, atol=1e-14)
    value, tangent = srcad.jvp(f, (strict(w), strict(X)), (strict(TAN_W),), wrt=0)
    np.testing.assert_allclose(float(tangent), want @ TAN_W, rtol=1e-6, atol=1e-8)


@pytest.mark.parametrize("name", ["calls_namespace_code", "calls_plain", "calls_method"])
def test_calls_of_your_functions_are_written_in_the_namespace_too(name, no_numpy):
    f = getattr(_FLOW, name)
    want = numerical_grad(f, (W, X))
    got = srcad.grad(f)(strict(W), strict(X))
    np.testing.assert_allclose(numpy(got), want, rtol=1e-6, atol=1e-8)
    _, tangent = srcad.jvp(f, (strict(W), strict(X)), (strict(TAN_W),), wrt=0)
    np.testing.assert_allclose(float(tangent), want @ TAN_W, rtol=1e-6, atol=1e-8)


def test_a_callee_reading_numpy_is_refused_on_strict_arrays_at_its_line():
    f = _FLOW.calls_numpy_code
    np.testing.assert_allclose(srcad.grad(f)(W, X), numerical_grad(f, (W, X)), rtol=1e-6)
    with pytest.raises(srcad.BackendError, match="array_api_strict") as info:
        srcad.grad(f)(strict(W), strict(X))
    assert info.value.lineno == _FLOW.numpy_inner.__code__.co_firstlineno + 1


# ---------------------------------------------------------------- every elementwise function
# Generated from the table (srcad.rules.array_api.NAMES): each standard function that is a
# NumPy ufunc of floats, on arguments inside its domain (A in (0.1, 0.5), B in (1.1, 1.5)),
# broadcast (a vector against a matrix), in the four entry points' core, grad and jvp.
from srcad.rules import array_api as _table  # noqa: E402

_A, _B = "(0.3 + 0.2 * xp.tanh(X * w))", "(1.3 + 0.2 * xp.tanh(w))"
UFUNCS = sorted(n for n, spelling in _table.NAMES.items()
                if isinstance(getattr(np, spelling, None), np.ufunc) and n != "matmul"
                and ({"d->d", "dd->d"} & set(getattr(np, spelling).types)))
_UFUNC_CALLS = {n: (f"xp.{n}({_B if n == 'acosh' else _A})" if getattr(
    np, _table.NAMES[n]).nin == 1 else f"xp.{n}({_A}, {_B})") for n in UFUNCS}
_UFUNC_MODULE = _module("array_api_ufuncs", _HEAD + "".join(
    f"def {n}(w, X):\n    xp = array_namespace(w, X)\n    return xp.sum({e})\n\n\n"
    for n, e in _UFUNC_CALLS.items()))


def test_the_family_covers_the_tables_ufuncs():
    assert len(UFUNCS) >= 35 and {"pow", "atan2", "acosh", "logaddexp"} <= set(UFUNCS)


@pytest.mark.parametrize("name", UFUNCS)
def test_every_elementwise_function_of_the_table(name, no_numpy):
    f = getattr(_UFUNC_MODULE, name)
    want_w, want_X = numerical_grad(f, (W, X), wrt=(0, 1))
    gw, gX = srcad.grad(f, wrt=(0, 1))(strict(W), strict(X))
    np.testing.assert_allclose(numpy(gw), want_w, rtol=1e-6, atol=1e-8)
    np.testing.assert_allclose(numpy(gX), want_X, rtol=1e-6, atol=1e-8)
    _, tangent = srcad.jvp(f, (strict(W), strict(X)), (strict(TAN_W), strict(TAN_X)))
    np.testing.assert_allclose(float(tangent), want_w @ TAN_W + np.sum(want_X * TAN_X),
                               rtol=1e-6, atol=1e-8)


def test_a_failure_at_run_time_is_a_backend_error_unless_the_function_fails_too():
    from srcad.runtime.standard import on_standard_arrays

    def fails(*args):
        raise TypeError("what the generated code did")

    f, _ = _functions("tanh")
    args = (strict(W), strict(X))
    with pytest.raises(srcad.BackendError, match="standard backend") as info:
        on_standard_arrays(fails, f, args)
    assert "what the generated code did" in str(info.value)
    # the function fails on them itself: the failure is the user's, and passes unchanged
    with pytest.raises(TypeError, match="what the generated code did"):
        on_standard_arrays(fails, lambda *a: (_ for _ in ()).throw(TypeError("own")), args)


def test_an_index_array_fails_naming_add_at_where_the_gradient_runs():
    f = _REFUSED.index_array
    with pytest.raises(srcad.BackendError, match="np.add.at"):
        srcad.vjp(f, strict(W), strict(X), wrt=0)[1](xp.asarray(1.0))


# ---------------------------------------------------------------- NumPy's names, as NumPy has them
# The standard backend's NumPy names take NumPy's arguments, positional ones in NumPy's order
# (np.max(a, axis, out, keepdims), np.sum(a, axis, dtype, out, keepdims)): each call here
# gives NumPy's numbers, and dtype.
_A3 = np.arange(12.0).reshape(3, 4) / 7 - 0.5
NUMPY_CALLS = [
    ("sum", (_A3, 1, None, None, True)), ("max", (_A3, 0, None, True)), ("min", (_A3, None)),
    ("mean", (_A3, (0, 1), None, None, True)), ("prod", (_A3, 0)), ("argmax", (_A3, 1)),
    ("std", (_A3, 0, None, None, 1)), ("var", (_A3,), {"ddof": 1, "keepdims": True}),
    ("zeros_like", (_A3 > 0,)), ("ones_like", (_A3,)), ("full", ((2, 3), 1.5)),
    ("where", (_A3 > 0, _A3, 0.0)), ("where", (_A3, 1.0, -1.0)), ("transpose", (_A3,)),
    ("reshape", (_A3, (4, 3))), ("squeeze", (_A3[None],)), ("expand_dims", (_A3, (0, 3))),
    ("tensordot", (_A3, _A3.T, 1)), ("eye", (3, 4, 1)), ("outer", (_A3[0], _A3[1])),
    ("trace", (_A3[:, :3],)), ("diagonal", (_A3, 1)), ("cumsum", (_A3, 1)), ("cumsum", (_A3,)),
    ("sort", (_A3[::-1], 0)), ("clip", (_A3, -0.2, 0.3)), ("flip", (_A3, 1)),
    ("concatenate", ([_A3, _A3], 1)), ("stack", ([_A3, _A3], 2)), ("power", (_A3, 2)),
    ("maximum", (_A3, 0)), ("arctan2", (_A3, 0.5)), ("swapaxes", (_A3, 0, 1)),
    ("tril", (_A3, -1)), ("linspace", (0.0, 1.0, 5)), ("copy", (_A3,)),
]


@pytest.mark.parametrize("case", NUMPY_CALLS, ids=[f"{c[0]}{len(c[1])}" for c in NUMPY_CALLS])
def test_the_backends_numpy_names_take_numpys_arguments(case, no_numpy):
    from srcad.runtime.standard import Namespace

    name, args = case[0], case[1]
    kwargs = case[2] if len(case) > 2 else {}
    want = getattr(np, name)(*args, **kwargs)

    def to_strict(a):
        if isinstance(a, np.ndarray):
            return xp.asarray(a)
        return [to_strict(v) for v in a] if isinstance(a, list) else a

    got = getattr(Namespace(xp), name)(*map(to_strict, args), **kwargs)
    np.testing.assert_allclose(numpy(got), want, rtol=1e-14, atol=1e-15)
    assert str(numpy(got).dtype) == str(np.asarray(want).dtype)


# ---------------------------------------------------------------- the helpers' forms
# Each gradient helper's namespace form gives what srcad's NumPy helper gives, on examples
# (a second engine: the helper the NumPy code calls).
_G3 = np.arange(12.0).reshape(3, 4) / 5 - 1.0
_V4 = np.array([0.5, -1.0, 2.0, 0.25])
_TIES = np.array([[1.0, 3.0, 3.0, 0.5], [2.0, 2.0, 1.0, 0.0], [0.0, 1.0, 4.0, 4.0]])
HELPER_CALLS = [
    ("unbroadcast", (_G3, _V4)), ("unbroadcast", (_G3, _V4[None, :])), ("unbroadcast", (_G3, 1.0)),
    ("unbroadcast_to", (_G3, (1, 4))), ("grad_sum", (_V4[:3], _G3, 1, False)),
    ("grad_sum", (_V4[:3, None], _G3, 1, True)), ("grad_sum", (2.0, _G3, None, False)),
    ("grad_mean", (_V4, _G3, 0, False)), ("grad_extremum", (_V4[:3], _TIES, np.max(_TIES, 1), 1)),
    ("grad_extremum", (1.0, _TIES, np.max(_TIES))), ("grad_reshape", (_G3.ravel(), _G3)),
    ("scatter", (_V4[:2], _V4, slice(1, 3))), ("scatter", (2.0, _G3, (1, 2))),
    ("broadcast_as", (2.0, _G3)), ("like", (_V4, _G3)), ("total", (_G3,)),
    ("transpose_grad", (_G3, (1, 0))), ("grad_matmul_a", (_V4[:3], _G3, _V4)),
    ("grad_matmul_b", (_V4[:3], _G3, _V4)), ("grad_matmul_a", (_G3, _G3, np.eye(4))),
    ("grad_matmul_b", (_V4, _V4[:3], _G3)), ("grad_prod", (1.0, _TIES - 1.0)),
    ("grad_prod", (_V4, _TIES, 0)), ("grad_var", (_V4, _G3, 0, 1)),
    ("grad_std", (_V4[:3], _G3, np.std(_G3, 1), 1)), ("grad_clip", (_G3, _G3, -0.5, 0.5)),
    ("cleared", (_G3, (slice(None), 1))), ("copy_tangent", (1.0, _G3)), ("zeros_like", (_G3,)),
    ("grad_sort", (_G3, _TIES, 1)), ("tangent_sort", (_G3, _TIES, 0)),
    ("grad_outer_a", (_G3, _V4[:3], _V4)), ("grad_outer_b", (_G3, _V4[:3], _V4)),
    ("grad_cumsum", (_G3, _G3, 1)), ("grad_cumsum", (_G3.ravel(), _G3)),
    ("grad_trace", (2.0, _G3[:, :3])),
    ("grad_norm", (_V4[:3], _G3, np.linalg.norm(_G3, axis=1), 2, 1)),
    ("grad_norm", (2.0, _G3, np.linalg.norm(_G3), None, None)),
]


@pytest.mark.parametrize("case", HELPER_CALLS, ids=[f"{c[0]}-{i}" for i, c in
                                                     enumerate(HELPER_CALLS)])
def test_each_helpers_form_is_the_numpy_helpers(case, no_numpy):
    from srcad.backend.emit import HELPER_OBJECTS
    from srcad.runtime.standard import Namespace
    from srcad.runtime.standard_helpers import make_helpers

    name, args = case
    want = HELPER_OBJECTS[name](*args)
    form = make_helpers(Namespace(xp))[name]
    got = form(*(xp.asarray(a) if isinstance(a, (np.ndarray, np.generic)) else a
                 for a in args))
    np.testing.assert_allclose(numpy(got) if not isinstance(got, float) else got, want,
                               rtol=1e-13, atol=1e-15)
