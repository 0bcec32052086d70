"""Python as people write it, round 5 (issue 16).

- closure conversion (:mod:`srcad.frontend.closures`): a function a helper makes and returns
  (a nested ``def``, a lambda, ``functools.partial``, a decorator written as a factory; alone
  or in a tuple beside other functions and values), called by the caller, called at once,
  kept in a name, in a list, passed on: the gradient flows into the values it holds;
- the derivative of ``f`` made again when ``f`` is given another ``__code__`` (its defaults and
  closure cells are read live);
- ``x.shape = s`` refused with the reshape to write instead;
- ``if ax:``, ``if ax is not None:``, ``if not verbose:`` in a callee whose parameter the call
  gives ``None`` or a bool (a default or a literal): only the way taken is read (a plotting
  call under it is not refused; HIPS/autograd's fluidsim ``simulate(..., ax=None)``);
- a callee changing what it is given in place (``vx -= ...`` in fluidsim's ``project``):
  differentiated where the caller reads the object no more after the call (checked in the
  caller as a write of its own), refused otherwise;
- ``print`` of values inside the function (f-strings, ``format``, ``str``, ``repr``), and a
  Gaussian process through ``scipy.linalg.cho_factor``/``cho_solve``.

Gradients are checked against central finite differences and against autograd running the same
text; forward mode against the gradient; second order (Hessian) against finite differences of
the gradient.
"""

from __future__ import annotations

import importlib.util
import textwrap

import numpy as np
import pytest
from srcad.check import numerical_grad

import srcad

autograd = pytest.importorskip("autograd")

X = np.array([0.3, -1.2, 0.5, 0.7])


def _module(source, tmp_path, numpy_name, tag=""):
    path = tmp_path / f"forms5_{tag}{abs(hash((source, numpy_name)))}.py"
    path.write_text(f"import functools\nimport {numpy_name} as np\n\n" + textwrap.dedent(source))
    spec = importlib.util.spec_from_file_location(path.stem, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _agree(source, x, tmp_path, second=False):
    f = _module(source, tmp_path, "numpy").f
    g = srcad.grad(f)(x)
    np.testing.assert_allclose(g, numerical_grad(f, (x,)), rtol=1e-6, atol=1e-8)
    ag = _module(source, tmp_path, "autograd.numpy", "ag").f
    np.testing.assert_allclose(g, autograd.grad(ag)(x), rtol=1e-10, atol=1e-12)
    u = np.cos(np.arange(x.size) + 0.5)
    _, t = srcad.jvp(f, (x,), (u,))
    assert t == pytest.approx(float(np.sum(g * u)), rel=1e-9, abs=1e-12)
    if second:
        dg, h = srcad.grad(f), srcad.hessian(f)(x)
        eps = 1e-5
        fd = np.array([(dg(x + e) - dg(x - e)) / (2 * eps) for e in np.eye(x.size) * eps])
        np.testing.assert_allclose(h, fd, rtol=1e-5, atol=1e-6)
    return f


# ---------------------------------------------------------------- closure conversion

#: helpers that make and return a function (``make(a)`` then called with ``x``)
MAKERS = {
    "def": """
        def make(a):
            def inner(x):
                return np.sin(a * x) + a
            return inner
        """,
    "def_computed": """
        def make(a):
            b = 2.0 * a
            c = np.cos(a)
            def inner(x):
                return np.sin(b * x) * c
            return inner
        """,
    "late_bound": """
        def make(a):
            def inner(x):
                return x * b + a
            b = a * a
            for _ in range(2):
                b = b + a
            return inner
        """,
    "lambda": """
        def make(a):
            s = a + 1.0
            return lambda x: np.tanh(s * x) * a
        """,
    "partial_library": """
        def make(a):
            return functools.partial(np.multiply, a * a)
        """,
    "partial_own": """
        def scaled(k, x, shift=0.0):
            return k * x ** 2 + shift

        def make(a):
            return functools.partial(scaled, a, shift=np.sin(a))
        """,
    "partial_nested": """
        def make(a):
            def inner(k, x):
                return k * np.exp(a * x)
            return functools.partial(inner, a + 2.0)
        """,
    "branches": """
        def make(a):
            if a > 0:
                b = a * 3.0
            else:
                b = -a
            def inner(x):
                return b * x * x
            if b > 100:
                return inner
            return inner
        """,
    "wraps": """
        def make(a):
            @functools.wraps(np.sin)
            def inner(x):
                return a * np.sin(x)
            return inner
        """,
}

#: how the caller uses what ``make`` returns (w is the differentiated vector)
USES = {
    "at_once": "def f(w):\n    return np.sum(make(w[0])(w))\n",
    "named": "def f(w):\n    h = make(w[1])\n    return np.sum(h(w) * h(w[::-1]))\n",
    "list": "def f(w):\n    hs = [make(w[0]), make(w[2] * 2.0)]\n    total = 0.0\n"
            "    for h in hs:\n        total = total + np.sum(h(w))\n    return total\n",
    "passed_on": "def apply(h, v):\n    return h(v) ** 2\n\n\n"
                 "def f(w):\n    h = make(w[3])\n    return np.sum(apply(h, w))\n",
    "in_callee": "def use(v):\n    h = make(v[0] * v[1])\n    return np.sum(h(v))\n\n\n"
                 "def f(w):\n    return use(w) + use(w[::-1])\n",
}


#: each helper used as "named" and in one other way (every way met by two helpers or more)
_OTHER = ["at_once", "list", "passed_on", "in_callee"]
CASES = [(m, u) for i, m in enumerate(sorted(MAKERS)) for u in ("named", _OTHER[i % 4])]


@pytest.mark.parametrize("maker, use", CASES)
def test_a_function_a_helper_returns(maker, use, tmp_path):
    source = textwrap.dedent(MAKERS[maker]) + "\n\n" + USES[use]
    _agree(source, X, tmp_path, second=use in ("named", "passed_on") and maker in (
        "def_computed", "lambda", "partial_own"))


TUPLES = {
    "two_functions": "p, q = make_two(w[0])\n    return np.sum(p(w) * q(w))",
    "indexed": "fs = make_two(w[2])\n    return np.sum(fs[0](w) + fs[1](w[::-1]))",
    "value_and_function": "n, predict = make_net(w[1])\n    return np.sum(predict(w[:n]))",
    "layers": "W = np.outer(w, w)\n    net = [layer(W, w), layer(W * 2.0, w[::-1])]\n"
              "    x = np.ones(4)\n    for apply in net:\n        x = apply(x)\n"
              "    return np.sum(x)",
    "in_loop": "total = 0.0\n    for t in range(3):\n        p, q = make_two(w[t])\n"
               "        total = total + np.sum(q(p(w)))\n    return total",
}

TUPLE_MAKERS = """
def make_two(a):
    def p(x):
        return a * x

    def q(x):
        return np.exp(a) * np.sin(x)
    return p, q


def make_net(a):
    n = 3
    scale = a * a

    def predict(x):
        return scale * np.tanh(x)
    return n, predict


def layer(W, b):
    def apply(x):
        return np.tanh(W @ x + b)
    return apply
"""


@pytest.mark.parametrize("body", sorted(TUPLES))
def test_functions_a_helper_returns_in_a_tuple(body, tmp_path):
    _agree(TUPLE_MAKERS + f"\n\ndef f(w):\n    {TUPLES[body]}\n", X, tmp_path,
           second=body == "two_functions")


DECORATORS = """
def scale(c):
    def deco(fn):
        @functools.wraps(fn)
        def wrapped(x):
            return c * fn(x)
        return wrapped
    return deco


@scale(3.0)
def model(x):
    return np.sum(x ** 2)
"""


@pytest.mark.parametrize("body", [
    "return model(w)",  # decorated at module level
    "return scale(w[0])(model)(w)",  # the factory applied in the code, to a value
    "g = scale(w[1] * w[2])(np.sin)\n    return np.sum(g(w))",
    "g = scale(w[0])(scale(w[1])(model))\n    return g(w)",  # two levels
])
def test_decorators_written_as_factories(body, tmp_path):
    _agree(DECORATORS + f"\n\ndef f(w):\n    {body}\n", X, tmp_path, second=True)


def test_the_values_a_returned_function_holds_are_made_again_each_call(tmp_path):
    source = textwrap.dedent(MAKERS["def_computed"]) + "\n\n" + USES["named"]
    f = _module(source, tmp_path, "numpy").f
    df = srcad.grad(f)
    for k in range(3):
        x = X * (k + 1.0)
        np.testing.assert_allclose(df(x), numerical_grad(f, (x,)), rtol=1e-6, atol=1e-8)


def test_a_global_function_a_partial_names_is_guarded(tmp_path):
    source = """
        def first(k, x):
            return k * x

        def second(k, x):
            return k * x ** 3

        def make(a):
            return functools.partial(first, a)

        def f(w):
            return np.sum(make(w[0])(w))
        """
    module = _module(source, tmp_path, "numpy")
    df = srcad.grad(module.f)
    df(X)
    module.first = module.second
    np.testing.assert_allclose(df(X), numerical_grad(module.f, (X,)), rtol=1e-6, atol=1e-8)


# ---------------------------------------------------------------- if on a parameter given None

FLAGS = """
class Plotter:
    def plot(self, y):
        self.last = y


def show(ax, y):
    ax.plot(y)  # an effect srcad cannot differentiate: only run when ax is given


def step(x, w, ax=None, verbose=False, scale=None):
    y = np.tanh(w * x)
    if ax:
        show(ax, y)
    if ax is not None:
        ax.plot(y)
    if not verbose:
        y = y * 2.0
    if scale is None:
        scale = 0.5
    return y * scale


def f(w):
    x = w
    for _ in range(2):
        x = step(x, w)
    return np.sum(x) + np.sum(step(w, w[0], verbose=True, scale=w[1]))
"""


def test_an_if_on_a_parameter_given_none_or_a_bool_takes_one_way(tmp_path):
    _agree(FLAGS, X, tmp_path, second=True)


def test_the_other_way_is_made_for_another_call(tmp_path):
    source = FLAGS + "\n\ndef g(w):\n    return np.sum(step(w, w[0], Plotter()))\n"
    g = _module(source, tmp_path, "numpy").g
    with pytest.raises(srcad.SrcadError) as info:  # ax given: show(ax, y) is read, refused
        srcad.grad(g)(X)
    assert "line" in str(info.value)


# ---------------------------------------------------------------- a callee writing its argument

IN_PLACE = """
def project(vx, vy):
    p = vx * vy
    vx -= 0.5 * (np.roll(p, 1) - np.roll(p, -1))
    vy *= 1.5
    return vx, vy


def advect(f, v):
    return f * np.cos(v) + 0.1 * v


def simulate(vx, vy, steps, ax=None):
    for _ in range(steps):
        vx_new = advect(vx, vy)
        vy_new = advect(vy, vx)
        vx, vy = project(vx_new, vy_new)
    return vx * vy


def f(w):
    return np.sum(simulate(w, np.sin(w), 3))
"""


def test_a_callee_changing_what_it_is_given_that_nobody_reads_after(tmp_path):
    """HIPS/autograd's fluidsim: ``vx -= ...`` in ``project`` on arrays its caller made and
    does not read after the call: differentiated as the new values it computes."""
    _agree(IN_PLACE, X, tmp_path, second=True)
    # an item written too (autograd cannot run this one): against finite differences
    f = _module(IN_PLACE.replace("    vy *= 1.5\n", "    vy *= 1.5\n    vy[0] = vy[0] + vx[1]\n"),
                tmp_path, "numpy", "item").f
    np.testing.assert_allclose(srcad.grad(f)(X), numerical_grad(f, (X,)), rtol=1e-6,
                               atol=1e-8)


def test_a_callee_of_a_callee_changing_what_its_caller_reads_after(tmp_path):
    """``simulate_twice(u)`` calls ``project(u, ...)``, which writes into ``u`` (``vx -=``);
    the caller reads ``u`` after: refused before session 33, differentiated since args33's
    written arguments (the call returns what it writes into). Against central differences
    (autograd cannot run writes in place), and grad's own Hessian against its Jacobian."""
    source = IN_PLACE + """
def simulate_twice(u):
    project(u, u * 1.0)
    return u * 2.0


def g(w):
    u = w * 2.0
    t = simulate_twice(u)
    return np.sum(t * t) + np.sum(u * np.cos(u))
"""
    g = _module(source, tmp_path, "numpy", "twice").g
    np.testing.assert_allclose(srcad.grad(g)(X.copy()), numerical_grad(g, (X.copy(),)),
                               rtol=1e-6, atol=1e-6)
    grad_g = srcad.grad(g)
    columns = [(grad_g(X + 1e-6 * e) - grad_g(X - 1e-6 * e)) / 2e-6 for e in np.eye(X.size)]
    np.testing.assert_allclose(srcad.hessian(g)(X.copy()), np.array(columns).T, rtol=1e-5,
                               atol=1e-5)


def test_a_callee_changing_the_callers_argument(tmp_path):
    """(state36) the caller's array changed by the callee as the plain run changes it; the
    gradient at the values given (central differences on copies)."""
    g = _module(IN_PLACE + "\n\ndef g(w):\n    x, y = project(w, np.sin(w))\n"
                "    return np.sum(x * y)\n", tmp_path, "numpy", "argument").g
    mine, plain = X.copy(), X.copy()
    got = srcad.grad(g)(mine)
    g(plain)
    np.testing.assert_array_equal(mine, plain)
    want = [(g(X + e) - g(X - e)) / 2e-6 for e in np.eye(X.size) * 1e-6]
    np.testing.assert_allclose(got, want, rtol=1e-6, atol=1e-6)


@pytest.mark.parametrize("body", [
    "u = w * 2.0\n    x, y = project(u, np.sin(w))\n    return np.sum(x * y) + np.sum(u)",
    "u = w * 2.0\n    z = u\n    project(u, np.sin(w))\n    return np.sum(z)",
    "u = w * 2.0\n    t = deep(u, 3)\n    return t + np.sum(u)",  # through recursion
])
def test_a_callee_changing_what_its_caller_reads_after_is_refused(body, tmp_path):
    source = IN_PLACE + """
def simulate_twice(u):
    project(u, u * 1.0)
    return u * 2.0


def deep(u, n):
    if n == 0:
        u *= 3.0
        return 1.0
    return deep(u[1:], n - 1) * 2.0


def g(w):
    """ + body + "\n"
    g = _module(source, tmp_path, "numpy").g
    with pytest.raises(srcad.SrcadError) as info:
        srcad.grad(g)(X.copy())
    assert "in place" in str(info.value) and "line" in str(info.value)


# ---------------------------------------------------------------- programs' small habits

MESSAGES = {
    "print": 'print("loss", loss, "w", w)',
    "f_string": 'print(f"loss {loss} at {w!r}")',
    "format": 'print("loss {} at {}".format(loss, w))',
    "str_repr": 'print("loss " + str(loss), repr(w))',
}


@pytest.mark.parametrize("form", sorted(MESSAGES))
def test_a_message_printed_inside_the_function(form, tmp_path, capsys):
    source = f"def f(w):\n    loss = np.sum(np.sin(w) * w)\n    {MESSAGES[form]}\n" \
        "    return loss * 2.0\n"
    _agree(source, X, tmp_path)


def test_a_gaussian_process_through_cho_factor_and_cho_solve(tmp_path):
    """``c = cho_factor(K)`` then ``cho_solve(c, y)`` and ``c[0]``: the gradient of the pair
    has no part for the flag (a crash in the generated code: None added to a number)."""
    source = """
        import scipy.linalg

        T = np.linspace(0.0, 1.0, 5)[:, None]
        Y = np.sin(3.0 * T[:, 0])

        def f(p):
            ls, sf, sn = np.exp(p[:3])
            K = sf ** 2 * np.exp(-0.5 * (T - T.T) ** 2 / ls ** 2) + sn ** 2 * np.eye(5)
            c = scipy.linalg.cho_factor(K)
            return 0.5 * Y @ scipy.linalg.cho_solve(c, Y) + np.sum(np.log(np.diag(c[0])))
        """
    f = _module(source, tmp_path, "numpy").f
    p = np.array([-0.5, 0.1, -1.0])
    np.testing.assert_allclose(srcad.grad(f)(p), numerical_grad(f, (p,)), rtol=1e-6,
                               atol=1e-8)


# ---------------------------------------------------------------- a new __code__


def test_a_differentiated_function_given_another_code_is_made_again(tmp_path):
    source = """
        def f(x):
            return x * x

        def g(x):
            return x ** 3

        def fa(x):
            return np.sum(x * x)

        def ga(x):
            return np.sum(np.sin(x))
        """
    m = _module(source, tmp_path, "numpy")
    df, dfa = srcad.grad(m.f), srcad.grad(m.fa)
    assert srcad.jvp(m.f, (2.0,), (1.0,))[1] == pytest.approx(4.0)
    assert df(2.0) == 4.0 and dfa(X) == pytest.approx(2 * X)
    m.f.__code__, m.fa.__code__ = m.g.__code__, m.ga.__code__
    assert df(2.0) == pytest.approx(12.0)  # the inlined scalar body is dropped too
    assert dfa(X) == pytest.approx(np.cos(X))
    assert srcad.jvp(m.f, (2.0,), (1.0,))[1] == pytest.approx(12.0)


def test_defaults_and_cells_of_the_differentiated_function_are_read_live():
    def f(x, a=2.0, *, b=1.0):
        return a * x * x + b * x

    def make():
        c = 2.0

        def q(x):
            return c * x ** 2
        return q

    df = srcad.grad(f)
    assert df(1.0) == pytest.approx(5.0)
    f.__defaults__, f.__kwdefaults__ = (5.0,), {"b": 3.0}
    assert df(1.0) == pytest.approx(13.0)
    q = make()
    dq = srcad.grad(q)
    assert dq(1.0) == pytest.approx(4.0)
    q.__closure__[0].cell_contents = 4.0
    assert dq(1.0) == pytest.approx(8.0)
    q.__closure__[0].cell_contents = 5  # another type: the code is made again
    assert dq(1.0) == pytest.approx(10.0)


# ---------------------------------------------------------------- x.shape = s refused


@pytest.mark.parametrize("body, other", [
    ("x.shape = (2, 2)\n    return np.sum(x[0])", "the argument x"),
    ("y = x * 2.0\n    z = y\n    y.shape = (2, 2)\n    return np.sum(z * x)", "other name"),
    ("y = x * 2.0\n    ys = [y]\n    y.shape = (2, 2)\n    return np.sum(ys[0])", "ys"),
])
def test_setting_shape_of_a_shared_array_says_what_to_write(body, other, tmp_path):
    f = _module(f"def f(x):\n    {body}\n", tmp_path, "numpy").f
    with pytest.raises(srcad.SrcadError) as info:
        srcad.grad(f)(X.copy())
    message = str(info.value)
    mine = "x" if body.startswith("x.") else "y"
    assert f"write {mine} = {mine}.reshape((2, 2))" in message and other in message
