"""Specialisations never go stale (issue 14): a gradient made while a global, a closure cell,
a default or a helper meant one thing still answers correctly once it means another. Each case
changes the function's environment between calls and checks every answer against finite
differences; names that are not identifiers never reach generated text."""

import gc
import itertools
import linecache
import tracemalloc
import types
from dataclasses import dataclass, field

import numpy as np
import pytest
from srcad.check import numerical_grad

import srcad
from srcad import pipeline

# ---------------------------------------------------------------- the environment they read

C = 3.0
AX = 0
N = 2
A = 2.0
B = 2.0
cfg = types.SimpleNamespace(scale=2.0)
SHAPE = (3,)


def gl(x):
    return np.sum(C * x)


def gl_scalar_out(x):
    return np.sum(C * x) + x * 0.0


def axis_sum(x):
    return np.sum(np.sum(x * x, axis=AX) * np.array([1.0, 2.0, 3.0])[: x.shape[1 - AX]])


def power(x):
    return x ** N


def merged(x):
    return A * x + B * x  # equal at first: a CSE keyed on values would merge them


def dotted(x):
    return np.sum(cfg.scale * x)


def shaped(x):
    return np.sum(np.reshape(x, SHAPE) * np.arange(6.0).reshape(SHAPE))


def square(x):
    return x * x


def cube(x):
    return x * x * x


helper = square


def calls_helper(x):
    return helper(x) + 1.0


def reads_c(x):
    return C * x


def calls_reads_c(x):
    return np.sum(reads_c(x) * x)


def with_default(x, c=2.0):
    return np.sum(c * x)


def with_kwdefault(x, *, c=2.0):
    return np.sum(c * x)


def helper_default(x, c=2.0):
    return c * x


def calls_helper_default(x):
    return np.sum(helper_default(x) * x)


def make_closure():
    k = 2.0

    def closure(x):
        return np.sum(k * x)

    def set_k(value):
        nonlocal k
        k = value

    return closure, set_k


closure, set_k = make_closure()

# ---------------------------------------------------------------- the table

VEC = np.array([0.5, -1.0, 2.0])
MAT = np.array([[0.5, -1.0, 2.0], [1.5, 0.25, -0.5]])


def set_global(name, value):
    def apply():
        globals()[name] = value
    apply.__name__ = f"{name} = {value!r}"
    return apply


def set_attr(obj, name, value):
    def apply():
        setattr(obj, name, value)
    return apply


@dataclass
class Case:
    name: str
    f: object
    args: tuple
    steps: list  # each changes the environment; the gradient is checked after each
    wrt: object = 0
    restore: list = field(default_factory=list)


CASES = [
    Case("global float -> vector (x vector)", gl, (VEC,),
         [set_global("C", 3.0), set_global("C", np.array([1.0, 2.0, 3.0])),
          set_global("C", 4.0)]),
    Case("global float -> vector (x scalar)", gl, (1.5,),
         [set_global("C", 3.0), set_global("C", np.array([1.0, 2.0, 3.0])),
          set_global("C", 2.0)]),
    Case("global vector -> matrix", gl, (VEC,),
         [set_global("C", np.array([1.0, 2.0, 3.0])), set_global("C", MAT),
          set_global("C", np.array([[1.0], [2.0]]))]),
    Case("global float array -> int array", gl, (1.5,),
         [set_global("C", np.array([1.0, 2.0])), set_global("C", np.array([1, 2, 3])),
          set_global("C", np.float64(2.0))]),
    Case("global int axis", axis_sum, (MAT,), [set_global("AX", 0), set_global("AX", 1)]),
    Case("global int exponent", power, (1.5,),
         [set_global("N", 2), set_global("N", 3), set_global("N", 0.5)]),
    Case("two globals equal at first", merged, (1.5,),
         [set_global("A", 2.0), set_global("B", 5.0), set_global("A", -1.0)]),
    Case("dotted attribute float -> vector", dotted, (VEC,),
         [set_attr(cfg, "scale", 2.0), set_attr(cfg, "scale", np.array([1.0, 2.0, 3.0])),
          set_attr(cfg, "scale", 3)]),
    Case("global tuple shape", shaped, (np.arange(1.0, 7.0),),
         [set_global("SHAPE", (6,)), set_global("SHAPE", (2, 3)), set_global("SHAPE", (3, 2))]),
    Case("global helper rebound", calls_helper, (1.5,),
         [set_global("helper", square), set_global("helper", cube),
          set_global("helper", square)]),
    Case("a callee's global changes kind", calls_reads_c, (VEC,),
         [set_global("C", 3.0), set_global("C", np.array([1.0, 2.0, 3.0])),
          set_global("C", 0.5)]),
    Case("__defaults__ changed", with_default, (VEC,),
         [set_attr(with_default, "__defaults__", (2.0,)),
          set_attr(with_default, "__defaults__", (5.0,)),
          set_attr(with_default, "__defaults__", (np.array([1.0, 2.0, 3.0]),))],
         restore=[set_attr(with_default, "__defaults__", (2.0,))]),
    Case("__kwdefaults__ changed", with_kwdefault, (VEC,),
         [set_attr(with_kwdefault, "__kwdefaults__", {"c": 2.0}),
          set_attr(with_kwdefault, "__kwdefaults__", {"c": np.array([1.0, 2.0, 3.0])}),
          lambda: with_kwdefault.__kwdefaults__.__setitem__("c", -3.0)],
         restore=[set_attr(with_kwdefault, "__kwdefaults__", {"c": 2.0})]),
    Case("a callee's __defaults__ changed", calls_helper_default, (VEC,),
         [set_attr(helper_default, "__defaults__", (2.0,)),
          set_attr(helper_default, "__defaults__", (np.array([1.0, 2.0, 3.0]),)),
          set_attr(helper_default, "__defaults__", (4.0,))],
         restore=[set_attr(helper_default, "__defaults__", (2.0,))]),
    Case("closure cell changes kind", closure, (VEC,),
         [lambda: set_k(2.0), lambda: set_k(np.array([1.0, 2.0, 3.0])), lambda: set_k(3)],
         restore=[lambda: set_k(2.0)]),
]

_SNAPSHOT = {name: globals()[name] for name in ("C", "AX", "N", "A", "B", "SHAPE", "helper")}


@pytest.fixture(autouse=True)
def _restore_environment():
    yield
    globals().update(_SNAPSHOT)
    cfg.scale = 2.0
    for case in CASES:
        for undo in case.restore:
            undo()


def _agree(actual, expected):
    np.testing.assert_allclose(np.asarray(actual, dtype=float), expected, rtol=1e-6,
                               atol=1e-8)


@pytest.mark.parametrize("case", CASES, ids=[c.name for c in CASES])
@pytest.mark.parametrize("engine", ["grad", "value_and_grad"])
def test_gradient_follows_the_environment(case, engine):
    case.steps[0]()
    g = getattr(srcad, engine)(case.f, wrt=case.wrt)
    for step in case.steps + case.steps[:1]:
        step()
        for _ in range(2):  # the call that notices the change, and the next (fast) one
            result = g(*case.args)
            grad = result[1] if engine == "value_and_grad" else result
            _agree(grad, numerical_grad(case.f, case.args, case.wrt))
            if engine == "value_and_grad":
                _agree(result[0], case.f(*case.args))


@pytest.mark.parametrize("case", CASES, ids=[c.name for c in CASES])
def test_source_and_jvp_follow_the_environment(case):
    case.steps[0]()
    g = srcad.grad(case.f, wrt=case.wrt)
    g(*case.args)
    case.steps[1]()
    srcad.source(g)  # made again for the new environment, not the old code shown
    tangent = np.ones_like(np.asarray(case.args[0], dtype=float))
    if tangent.ndim == 0:
        tangent = 1.0
    _, t = srcad.jvp(case.f, case.args, (tangent,))
    expected = np.sum(numerical_grad(case.f, case.args, 0) * tangent)
    _agree(t, expected)


# A generated family: a global that the code multiplies by, going through every pair of
# kinds, ranks and dtypes, with a vector or a number for x.
VALUES = [2.0, 3, np.float64(1.5), np.array([1.0, 2.0, 3.0]), MAT, np.array([1, 2, 3]),
          np.array([[1.0], [2.0]]), np.int64(2)]


@pytest.mark.parametrize("x", [VEC, 1.5], ids=["vector", "scalar"])
def test_every_pair_of_global_kinds(x):
    for first, second in itertools.permutations(VALUES, 2):
        globals()["C"] = first
        g = srcad.grad(gl)
        _agree(g(x), numerical_grad(gl, (x,), 0))
        globals()["C"] = second
        _agree(g(x), numerical_grad(gl, (x,), 0))
        _agree(g(x), numerical_grad(gl, (x,), 0))


# ---------------------------------------------------------------- cheap when nothing changes


def count_transforms(monkeypatch):
    made = []
    adjoint = pipeline.adjoint

    def counting(*args, **kwargs):
        made.append(args[0])
        return adjoint(*args, **kwargs)

    monkeypatch.setattr(pipeline, "adjoint", counting)
    return made


def test_a_new_object_of_the_same_kind_keeps_the_code(monkeypatch):
    made = count_transforms(monkeypatch)
    globals()["C"] = 3.0
    g = srcad.grad(reads_c)
    assert g(2.0) == 3.0
    for value in (4.0, 5.5, -1.0):
        globals()["C"] = value
        assert g(2.0) == value  # read when the code runs
    assert len(made) == 1
    globals()["C"] = np.array([1.0, 2.0])
    with pytest.raises(srcad.SrcadError, match="scalar"):
        g(2.0)  # an array output now: made again, and refused as grad refuses it
    assert len(made) == 2


def test_a_changed_kind_is_made_again_once(monkeypatch):
    made = count_transforms(monkeypatch)
    globals()["C"] = 3.0
    g = srcad.grad(gl)
    g(VEC)
    globals()["C"] = np.array([1.0, 2.0, 3.0])
    for _ in range(3):
        _agree(g(VEC), [1.0, 2.0, 3.0])
    assert len(made) == 2


def test_functions_reading_no_globals_guard_only_their_code():
    def plain(x, w):
        return (x + w) * (w + 1.0)

    def other(x, w):
        return x * w

    g = srcad.grad(plain)
    g(1.0, 2.0)
    # one identity test of the function's code object (f.__code__ = g.__code__), no reads
    assert g.__srcad_guard__ == "__srcad_user.__code__ is not __srcad_env[0]"
    _agree(g(1.0, 2.0), 3.0)
    plain.__code__ = other.__code__
    _agree(g(1.0, 2.0), 2.0)


def _sines(x):
    return np.sin(x) * 2.0


def _cubes(x):
    return x ** 3


@pytest.mark.parametrize("api", ["jacobian", "jacrev", "jacfwd"])
def test_jacobians_of_array_outputs_follow_a_replaced_code(api):
    """The reverse Jacobian of an array output keeps f's split (forward and backward parts)
    per argument kinds: it was kept across f.__code__ = g.__code__ and answered with the old
    function's Jacobian (found 2026-12-03). Checked against finite differences before and
    after the swap, and after putting the code back."""
    def f(x):
        return np.sin(x) * 2.0

    jac, x = getattr(srcad, api)(f), np.array([0.5, 1.0, -0.3])
    code = f.__code__
    for new in (code, _cubes.__code__, code, _cubes.__code__):
        f.__code__ = new
        for _ in range(2):  # the second call takes what the first kept
            got = jac(x)
            expected = np.stack([numerical_grad(lambda v, i=i: f(v)[i], (x,))
                                 for i in range(3)])
            assert np.allclose(got, expected, rtol=1e-6, atol=1e-8)


# ---------------------------------------------------------------- names never pasted


def _named(name):
    def f(x):
        return x * x * 3.0

    f.__name__ = name
    f.__qualname__ = name
    return f


@pytest.mark.parametrize("name", ["f-1", "class", "<lambda>", "", "1x", "__srcad_get",
                                  "x y", "def f(): pass", "__srcad_dispatch"])
def test_any_function_name(name):
    f = _named(name)
    for transform in (srcad.grad, srcad.value_and_grad):
        g = transform(f)
        result = g(2.0)
        assert (result[1] if transform is srcad.value_and_grad else result) == \
            pytest.approx(12.0)
        assert g.__name__ == name
        assert g.__code__.co_name == name
    assert srcad.grad(srcad.grad(f))(2.0) == pytest.approx(6.0)


sq = lambda x: x * x * x  # noqa: E731 - a lambda on its own line is read
pair = (lambda x: x * 2.0, lambda x: x * 3.0)  # two on one line: told apart


def test_lambdas_on_their_own_line():
    assert srcad.grad(sq)(2.0) == pytest.approx(12.0)
    g = srcad.grad(
        lambda x: np.sum(np.sin(x) * C)
    )
    globals()["C"] = 2.0
    _agree(g(VEC), 2.0 * np.cos(VEC))
    assert srcad.value_and_grad(sq)(2.0) == pytest.approx((8.0, 12.0))


def test_lambdas_sharing_a_line_are_told_apart():
    # found by their code (tests/test_entry_points.py has more)
    assert srcad.grad(pair[0])(1.5) == 2.0
    assert srcad.grad(pair[1])(1.5) == 3.0


# ---------------------------------------------------------------- no leaks


def _srcad_lines():
    return sum(1 for name in linecache.cache if name.startswith("<srcad"))


def leaky(x):
    return x * x + 3.0 * x


def test_making_the_same_gradient_again_reuses_its_transform(monkeypatch):
    made = count_transforms(monkeypatch)
    srcad.clear_cache()
    srcad.grad(leaky)(1.0)
    gc.collect()
    lines = _srcad_lines()
    tracemalloc.start()
    try:
        start = tracemalloc.get_traced_memory()[0]
        for _ in range(1000):
            assert srcad.grad(leaky)(1.0) == 5.0
        srcad.value_and_grad(leaky)(1.0)
        srcad.value_and_grad(leaky)(1.0)
        gc.collect()
        grown = tracemalloc.get_traced_memory()[0] - start
    finally:
        tracemalloc.stop()
    assert len(made) == 2  # one per mode
    assert _srcad_lines() <= lines + 2
    assert grown < 200_000
    assert srcad.grad(leaky, wrt="x") is srcad.grad(leaky)
    assert srcad.grad(leaky, wrt=(0,)) is not srcad.grad(leaky)  # a tuple of one gradient


def _family(i):
    def member(x):
        return x * x * i + x

    return member


def test_clear_cache_frees_what_srcad_made():
    # warm Python's own caches first (inspect's module-by-file table, linecache, tokenize's
    # compiled patterns: filled by the first source read in a process, not srcad's to free)
    assert srcad.grad(_family(-1.0))(1.0) == pytest.approx(-1.0)
    srcad.clear_cache()
    gc.collect()
    lines = _srcad_lines()
    functions = [_family(float(i)) for i in range(80)]
    tracemalloc.start()
    try:
        start = tracemalloc.get_traced_memory()[0]
        for i, f in enumerate(functions):
            assert srcad.grad(f)(1.0) == pytest.approx(2.0 * i + 1.0)
        assert _srcad_lines() >= lines + 80
        made = tracemalloc.get_traced_memory()[0] - start
        srcad.clear_cache()
        gc.collect()
        left = tracemalloc.get_traced_memory()[0] - start
    finally:
        tracemalloc.stop()
    assert _srcad_lines() <= lines
    assert left < made / 5, (made, left)
    for i, f in enumerate(functions[:3]):  # still usable: made again
        assert srcad.grad(f)(1.0) == pytest.approx(2.0 * i + 1.0)


# ---------------------------------------------------------------- the other transforms


def vec_out(x):
    return np.sin(x) * x * C


def scalar_out(x):
    return np.sum(np.sin(x) * x * C)


X3 = np.array([0.3, 0.5, 0.7])
OTHER_TRANSFORMS = {
    "vjp": lambda: srcad.vjp(vec_out, X3)[1](np.ones(3)),
    "jacrev": lambda: srcad.jacrev(vec_out)(X3),
    "jacfwd": lambda: srcad.jacfwd(vec_out)(X3),
    "jacobian": lambda: srcad.jacobian(vec_out)(X3),
    "hessian": lambda: srcad.hessian(scalar_out)(X3),
    "hessian rev": lambda: srcad.hessian(scalar_out, mode="rev")(X3),
    "hvp": lambda: srcad.hvp(scalar_out, X3, np.ones(3)),
    "jvp": lambda: srcad.jvp(vec_out, (X3,), (np.ones(3),)),
}


def _fd_jacobian(f, x):
    return np.stack([numerical_grad(lambda y, i=i: f(y)[i], (x,), 0) for i in range(len(x))])


@pytest.mark.parametrize("name", list(OTHER_TRANSFORMS))
def test_a_second_call_does_not_transform_again(name, monkeypatch):
    globals()["C"] = 2.0
    OTHER_TRANSFORMS[name]()
    made = []
    for attr in ("adjoint", "tangent", "make_split"):
        real = getattr(pipeline, attr)
        monkeypatch.setattr(pipeline, attr,
                            lambda *a, _real=real, **k: made.append(1) or _real(*a, **k))
    first = OTHER_TRANSFORMS[name]()
    second = OTHER_TRANSFORMS[name]()
    assert made == []
    np.testing.assert_array_equal(np.asarray(first[0] if name == "jvp" else first),
                                  np.asarray(second[0] if name == "jvp" else second))


@pytest.mark.parametrize("mode", ["rev", "fwd"])
def test_jacobians_and_hessians_follow_the_environment(mode):
    jac = srcad.jacobian(vec_out, mode=mode)
    hess = srcad.hessian(scalar_out, mode=mode)
    for value in (2.0, np.array([1.0, -2.0, 3.0]), 0.5):
        globals()["C"] = value
        np.testing.assert_allclose(jac(X3), _fd_jacobian(vec_out, X3), rtol=1e-6, atol=1e-8)
        expected = _fd_jacobian(lambda y: srcad.grad(scalar_out)(y), X3)
        np.testing.assert_allclose(hess(X3), expected, rtol=1e-6, atol=1e-8)


class _Settings:
    def __init__(self):
        self.base = 2.0

    @property
    def scale(self):
        return self.base * 1.0  # a new float object on every read


settings = _Settings()


def through_property(x):
    return settings.scale * x * x


def test_a_property_making_new_objects_neither_loops_nor_goes_stale(monkeypatch):
    made = count_transforms(monkeypatch)
    g = srcad.grad(through_property)
    for base in (2.0, 3.0, -1.5):
        settings.base = base
        assert g(1.5) == pytest.approx(3.0 * base)
        assert g(1.5) == pytest.approx(3.0 * base)
    assert len(made) == 1
    settings.base = np.array([1.0, 2.0])
    with pytest.raises(srcad.SrcadError, match="scalar"):
        g(1.5)
    settings.base = 2.0


def test_a_global_rebound_on_every_call_stays_cheap(monkeypatch):
    made = count_transforms(monkeypatch)
    g = srcad.grad(reads_c)
    for step in range(200):
        globals()["C"] = float(step) + 0.5
        assert g(2.0) == float(step) + 0.5
    assert len(made) == 1


# ---------------------------------------------------------------- dtypes of the gradients

def _dtype_cases():
    def f_sin(x):
        return np.sum(np.sin(x.astype("float64")))

    def f_two(x, y):
        return np.sum(np.sin(x) * y)

    def f_matrix(x):
        return np.sum(x @ x.T)

    return [(f_sin, ()), (f_two, (2.5,)), (f_matrix, ())]


@pytest.mark.parametrize("case", range(3))
@pytest.mark.parametrize("dtype", [np.float32, np.float16, np.float64])
@pytest.mark.parametrize("entry", ["grad", "value_and_grad", "vjp"])
def test_a_gradient_has_its_arguments_dtype(case, dtype, entry):
    """A float32 argument gets a float32 gradient (as in autograd and JAX), whichever
    dtype came first to the cache; the numbers are those of float64 arithmetic, rounded."""
    autograd = pytest.importorskip("autograd")
    f, rest = _dtype_cases()[case]
    shape = (2, 3) if f.__name__ == "f_matrix" else (3,)
    x64 = np.linspace(-0.7, 0.9, int(np.prod(shape))).reshape(shape)
    x = x64.astype(dtype)
    expected = autograd.grad(f)(x, *rest)
    made = getattr(srcad, "grad" if entry == "vjp" else entry)(f)
    for arg in (x64, x, x64, x):  # each dtype after the other: no entry answers for another
        if entry == "vjp":
            g = srcad.vjp(f, arg, *rest)[1](1.0)[0]
        else:
            g = made(arg, *rest)
            g = g[1] if entry == "value_and_grad" else g
        assert g.dtype == arg.dtype == np.asarray(autograd.grad(f)(arg, *rest)).dtype
        numerical = numerical_grad(f, (arg.astype(float),) + rest)
        tol = 1e-6 if arg.dtype == np.float64 else 5e-2 if dtype == np.float16 else 1e-4
        np.testing.assert_allclose(g, numerical, rtol=tol, atol=tol)
    assert expected.dtype == dtype
