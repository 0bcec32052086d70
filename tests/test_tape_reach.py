"""The reference tape never answers with a wrong gradient, however a primitive is reached.

The tape swaps its own versions in for ``math``, ``numpy`` and ``float`` in the function it runs
and in the user helpers that function names (globals, closure cells, defaults, partials). Code it
does not copy (a method, a function reached through an object, a dict or a module attribute)
still calls the real functions. There NumPy hands Vars back to the tape (``__array_function__``,
``__array_ufunc__``), so it is differentiated; ``math`` and ``float`` convert to a plain number,
which a Var that requires grad refuses (``LostGradientError``).

A generated family: every primitive, called through every route, is either differentiated
(matching central finite differences of the plain function, and srcad's own gradient where srcad
accepts the function) or refused with a :class:`srcad.tape.TapeError`. Which of the two each route
gives is asserted too, so a tape that refused everything would fail.
"""

import functools
import math
import types
from math import erf as math_erf
from math import tanh as th

import numpy as np
import pytest
import srcad.tape as tape
from numpy import sin as np_sin
from numpy.testing import assert_allclose

import srcad

# ================================================================================================
# Primitives and the routes that reach them
# ================================================================================================

MATH_PRIMS = [math.tanh, math.sin, math.exp, math.log1p, math.sqrt, math.atan, math.cosh, math.erf]
NUMPY_PRIMS = [np.tanh, np.sin, np.exp, np.log1p, np.sqrt, np.arctan, np.cosh, np.square]

OK, REFUSED_FOR_MATH = "ok", "refused for math"


class _Holder:
    """Methods of all kinds; ``prim`` is a class attribute set per case."""

    def method(self, x):
        return type(self).prim(x) * 2.0

    @classmethod
    def klass(cls, x):
        return cls.prim(x) + x

    @staticmethod
    def static(x, prim):
        return prim(x)


class _Callable:
    def __init__(self, prim):
        self.prim = prim

    def __call__(self, x):
        return self.prim(x) * x


def _module_with(prim):
    """A module of the user's, whose helper calls prim: reached as ``mod.helper``."""
    mod = types.ModuleType("user_helpers")
    mod.prim = prim
    exec("def helper(x):\n    return prim(x) - x\n", mod.__dict__)  # noqa: S102
    return mod


def _wrapped(fn):
    @functools.wraps(fn)
    def wrapper(*args):
        return fn(*args) * 3.0

    return wrapper


def route_closure(prim):
    def f(x):
        return prim(x)

    return f


def route_nested_closures(prim):
    def inner(t):
        return prim(t) * t

    def middle(t):
        return inner(t) + inner(2.0 * t)

    def f(x):
        return middle(x) - 1.0

    return f


def route_default(prim):
    def f(x, fn=prim):
        return fn(x) + fn(x * 0.5)

    return f


def route_partial(prim):
    p = functools.partial(prim)

    def f(x):
        return p(x) * p(x)

    return f


def route_partial_of_helper(prim):
    def helper(scale, t):
        return scale * prim(t)

    p = functools.partial(helper, 1.5)

    def f(x):
        return p(x)

    return f


def route_lambda(prim):
    g = lambda t: prim(t) + t  # noqa: E731

    def f(x):
        return g(x) * 2.0

    return f


def route_generator(prim):
    def f(x):
        return sum(prim(t) for t in (x, 0.5 * x))

    return f


def route_map(prim):
    def f(x):
        return sum(map(prim, [x, x * x]))

    return f


def route_decorated_helper(prim):
    @_wrapped
    def helper(t):
        return prim(t)

    def f(x):
        return helper(x) + x

    return f


def route_method(prim):
    holder = type("H", (_Holder,), {"prim": staticmethod(prim)})()

    def f(x):
        return holder.method(x)

    return f


def route_classmethod(prim):
    cls = type("H", (_Holder,), {"prim": staticmethod(prim)})

    def f(x):
        return cls.klass(x)

    return f


def route_staticmethod(prim):
    def f(x):
        return _Holder.static(x, prim)  # prim passes through a closure: rebound

    return f


def route_callable_object(prim):
    obj = _Callable(prim)

    def f(x):
        return obj(x)

    return f


def route_namespace(prim):
    ns = types.SimpleNamespace(fn=prim)

    def f(x):
        return ns.fn(x)

    return f


def route_dict(prim):
    table = {"fn": prim}

    def f(x):
        return table["fn"](x)

    return f


def route_list_of_lambdas(prim):
    fns = [lambda t: prim(t) * t]

    def f(x):
        return fns[0](x)

    return f


def route_module_attribute(prim):
    mod = _module_with(prim)

    def f(x):
        return mod.helper(x)

    return f


def route_local_import(prim):
    in_math = prim in MATH_PRIMS

    def f(x):
        if in_math:
            import math as m
        else:
            import numpy as m
        return getattr(m, prim.__name__)(x) + x

    return f


# route -> what the tape must do: differentiate (OK), or refuse a math primitive it cannot reach
ROUTES = {
    route_closure: OK,
    route_nested_closures: OK,
    route_default: OK,
    route_partial: OK,
    route_partial_of_helper: OK,
    route_lambda: OK,
    route_generator: OK,
    route_map: OK,
    route_decorated_helper: OK,
    route_staticmethod: OK,
    route_method: REFUSED_FOR_MATH,
    route_classmethod: REFUSED_FOR_MATH,
    route_callable_object: REFUSED_FOR_MATH,
    route_namespace: REFUSED_FOR_MATH,
    route_dict: REFUSED_FOR_MATH,
    route_list_of_lambdas: REFUSED_FOR_MATH,
    route_module_attribute: REFUSED_FOR_MATH,
    route_local_import: REFUSED_FOR_MATH,
}

X = 0.7
XS = np.array([0.3, 0.8, 0.45])
CASES = [
    pytest.param(route, prim, id=f"{route.__name__[6:]}-{prim.__module__ or 'np'}.{prim.__name__}")
    for route in ROUTES
    for prim in MATH_PRIMS + NUMPY_PRIMS
]


def central_difference(f, x, h=1e-6):
    x = np.asarray(x, dtype=float)
    out = np.zeros(x.shape)
    for i in np.ndindex(x.shape):
        up, down = x.copy(), x.copy()
        up[i] += h
        down[i] -= h
        out[i] = (f(up if x.ndim else float(up)) - f(down if x.ndim else float(down))) / (2 * h)
    return out if x.ndim else float(out)


def assert_right_or_refused(f, x, expect_ok):
    """The tape's gradient matches finite differences (and srcad's), or the tape refuses."""
    try:
        got = tape.grad(f)(x)
    except tape.TapeError as exc:
        assert not expect_ok, f"the tape refused a route it should follow: {exc}"
        return
    assert expect_ok, f"the tape answered {got} where it should have refused"
    assert_allclose(got, central_difference(f, x), rtol=1e-5, atol=1e-7)
    try:
        ours = srcad.grad(f)(x)
    except srcad.SrcadError:
        return  # srcad refuses this form: finite differences are the second opinion
    assert_allclose(got, ours, rtol=1e-9, atol=1e-12)


@pytest.mark.parametrize("route, prim", CASES)
def test_scalar_route(route, prim):
    is_math = prim in MATH_PRIMS
    expect_ok = ROUTES[route] == OK or not is_math
    assert_right_or_refused(route(prim), X, expect_ok)


@pytest.mark.parametrize("route, prim", [c for c in CASES if c.values[1] in NUMPY_PRIMS])
def test_array_route(route, prim):
    f = route(prim)
    assert_right_or_refused(lambda x: np.sum(f(x)), XS, expect_ok=True)


# ================================================================================================
# Aliases and module-level names
# ================================================================================================


def alias_math(x):
    return th(x) * math_erf(x)


def alias_numpy(x):
    return np.sum(np_sin(x) * x)


def through_getattr(x):
    return getattr(math, "tanh")(x) + getattr(np, "exp")(x)  # noqa: B009


def method_calls_float(x):
    return _Converts().twice(x)


class _Converts:
    def twice(self, x):
        return 2.0 * float(x)


def numpy_in_a_method_on_arrays(x):
    return _Arrays().energy(x)


class _Arrays:
    def energy(self, x):
        return np.sum(np.tanh(x) ** 2) + np.dot(x, x) + np.sum(np.maximum(x, 0.5) * np.ones(3))


@pytest.mark.parametrize(
    "f, x, expect_ok",
    [
        (alias_math, X, True),
        (alias_numpy, XS, True),
        (through_getattr, X, True),
        (method_calls_float, X, False),
        (numpy_in_a_method_on_arrays, XS, True),
    ],
)
def test_module_level_routes(f, x, expect_ok):
    assert_right_or_refused(f, x, expect_ok)


# ================================================================================================
# Conversions and writes that would drop the tape, wherever they happen
# ================================================================================================


class _Leaky:
    """Code the tape does not copy, each method dropping the gradient one way."""

    def into_array(self, x):
        out = np.zeros(2)
        out[0] = x
        return np.sum(out)

    def in_place(self, x):
        out = np.ones(3)
        out *= x
        return np.sum(out)

    def np_float(self, x):
        return np.float64(x) * 2.0

    def vectorized(self, x):
        return np.sum(np.vectorize(lambda t: 2.0 * t)(x))

    def without_a_rule(self, x):
        return np.sum(np.cumsum(x))

    def reduce_method(self, x):
        return np.add.reduce(x)

    def fsum(self, x):
        return math.fsum([x, x])


@pytest.mark.parametrize("name", [n for n in vars(_Leaky) if not n.startswith("_")])
@pytest.mark.parametrize("x", [X, XS], ids=["scalar", "array"])
def test_leaks_are_refused(name, x):
    method = getattr(_Leaky(), name)
    # NumPy reports ``out[0] = x`` itself: a Var has __getitem__, so it tries it as a sequence
    expected = (tape.TapeError, ValueError) if name == "into_array" else tape.TapeError
    with pytest.raises(expected):
        tape.grad(lambda x: np.sum(method(x)))(x)


def test_plain_code_still_writes_constants_into_arrays():
    # writing a value that does not require grad is fine, and the gradient through the rest holds
    def f(x):
        out = np.zeros(2)
        out[0] = 3.0
        return np.sum(out) * x

    assert tape.grad(f)(2.0) == 3.0


def test_a_keyword_argument_that_requires_grad_is_refused():
    with pytest.raises(tape.TapeUnsupportedError, match="keyword"):
        tape.grad(lambda x: np.sum(np.ones(2), initial=x))(2.0)
    # where the stand-in passes it on as an argument with a rule, it is differentiated
    assert tape.grad(lambda x: np.sum(np.clip(np.ones(2), a_min=x, a_max=5.0)))(2.0) == 2.0


def test_a_copy_of_a_var_is_the_var():
    import copy

    def f(x):
        return copy.deepcopy(x) * copy.copy(x)

    assert tape.grad(f)(3.0) == 6.0


# ================================================================================================
# NumPy arrays and scalars on the left of an operator: NumPy hands the Var to the tape
# ================================================================================================

A = np.array([0.5, 1.5, 2.0])
M = np.arange(6.0).reshape(2, 3)
LEFT_OPERANDS = {
    "array * x": lambda x: A * x,
    "float64 * x": lambda x: np.float64(2.0) * x,
    "array - x": lambda x: A - x,
    "float64 - x": lambda x: np.float64(3.0) - x,
    "array / x": lambda x: A / x,
    "array ** x": lambda x: A**x,
    "array % x": lambda x: A % x,
    "matrix @ x": lambda x: M @ x,
    "x @ matrix.T": lambda x: x @ M.T,
    "maximum(array, x)": lambda x: np.maximum(A, x),
}


class _Applies:
    def apply(self, op, x):
        return np.sum(op(x))


@pytest.mark.parametrize("where", ["plain", "method"])
@pytest.mark.parametrize("op", LEFT_OPERANDS.values(), ids=list(LEFT_OPERANDS))
def test_numpy_on_the_left(op, where):
    obj = _Applies()
    f = (lambda x: np.sum(op(x))) if where == "plain" else (lambda x: obj.apply(op, x))
    assert_right_or_refused(f, np.array([0.7, 1.2, 0.9]), expect_ok=True)
