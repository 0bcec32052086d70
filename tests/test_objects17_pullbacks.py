"""A pullback made outside, called inside the differentiated function (issue 16, objects17).

``y, pb = srcad.vjp(g, x0)`` at module level (or in the caller, or passed in), then
``pb(v)`` inside the function differentiated: refused before ("pb is a function made by
srcad"). The pullback is now read as the gradient of ``sum(g(x0) * dy)`` at the primals it
holds (:class:`srcad.nested_vjp.PulledBack`), constants of the code: exact in ``dy``, to any
order. Checked against central finite differences and autograd (the pullback written as
autograd's gradient of the same inner product, differentiated again by autograd), in grad,
value_and_grad, jvp and Hessians in both modes.
"""

from __future__ import annotations

import importlib.util

import autograd
import autograd.numpy as anp
import numpy as np
import pytest
from class_families import fd, module_of

import srcad
from srcad.errors import SrcadError

FUNCTIONS = '''
import numpy as np


def g1(z):
    return np.sin(z) * z


def g2(a, b):
    return a * np.exp(b) + b


def g3(z):
    return np.sum(z ** 3) + np.sum(np.cos(z))


def g4(z):
    return np.tanh(z) * 2.0, "aux"


def g5(z):
    return z[0] * z, 3
'''

X0 = np.array([0.4, -0.7, 1.1])
X1 = np.array([0.3, 0.2, -0.5])

#: name -> (function, primals, wrt, has_aux, how f reads the pullback's result)
CASES = {
    "array_all": ("g1", (X0,), None, False, "pb(c)[0]"),
    "array_position": ("g1", (X0,), 0, False, "pb(c)"),
    "two_args_tuple": ("g2", (X0, X1), (0, 1), False, "pb(c)[0] * pb(c)[1]"),
    "two_args_second": ("g2", (X0, X1), 1, False, "pb(c)"),
    "two_args_by_name": ("g2", (X0, X1), "a", False, "pb(c)"),
    "scalar_output": ("g3", (X0,), 0, False, "pb(c[0] * c[1])"),
    "has_aux": ("g4", (X0,), 0, True, "pb(c)"),
}


def _module(tmp_path, stem, numpy="numpy"):
    return module_of(tmp_path, FUNCTIONS, stem, "", numpy)


def _fd(f, x, h=1e-6):
    return fd(f, x, h)


def _pair(tmp_path, name):
    """``(f, fa)``: f(v) reading srcad's pullback made outside, fa the same with autograd's."""
    gname, primals, wrt, aux, reads = CASES[name]
    m, ma = _module(tmp_path, f"pb_{name}"), _module(tmp_path, f"pba_{name}", "autograd.numpy")
    g, ga = getattr(m, gname), getattr(ma, gname)
    out = srcad.vjp(g, *primals, wrt=wrt, has_aux=aux)
    pb = out[1]
    positions = tuple(range(len(primals))) if wrt is None else wrt
    if isinstance(positions, str):
        positions = ("a", "b").index(positions)

    def pba(dy):
        def inner(*a):
            y = ga(*a)
            return anp.sum((y[0] if aux else y) * dy)

        if isinstance(positions, tuple):
            return tuple(autograd.grad(inner, k)(*primals) for k in positions)
        return autograd.grad(inner, positions)(*primals)

    source = f"def f(v):\n    c = v * np.array([1.0, -2.0, 0.5]) + v ** 2\n" \
             f"    r = {reads}\n    return np.sum(r * v) + np.sum(r ** 2)\n"
    scope = {"np": np, "pb": pb}
    ascope = {"np": anp, "pb": pba}
    path = tmp_path / f"pbf_{name}.py"
    path.write_text("import numpy as np\n\n\n" + source)
    spec = importlib.util.spec_from_file_location(f"pbf_{name}", path)
    fm = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(fm)
    fm.pb = pb
    exec(compile(source, str(path), "exec"), ascope)  # noqa: S102 - the test's own text
    del scope
    return fm.f, ascope["f"]


V = np.array([0.8, -0.3, 0.6])


@pytest.mark.parametrize("name", list(CASES))
def test_gradients(tmp_path, name):
    f, fa = _pair(tmp_path, name)
    value, g = srcad.value_and_grad(f)(V.copy())
    assert value == pytest.approx(float(f(V)), rel=1e-12)
    np.testing.assert_allclose(g, autograd.grad(fa)(anp.array(V)), rtol=1e-9, atol=1e-12)
    np.testing.assert_allclose(g, _fd(f, V), rtol=1e-5, atol=1e-7)
    u = np.array([0.2, 1.0, -0.4])
    value, t = srcad.jvp(f, (V.copy(),), (u,))
    assert t == pytest.approx(float(g @ u), rel=1e-9, abs=1e-12)


@pytest.mark.parametrize("name", ["array_all", "two_args_tuple", "scalar_output", "has_aux"])
@pytest.mark.parametrize("mode", ["fwd", "rev"])
def test_hessian_both_modes(tmp_path, name, mode):
    f, fa = _pair(tmp_path, name)
    got = srcad.hessian(f, mode=mode)(V.copy())
    np.testing.assert_allclose(got, autograd.hessian(fa)(anp.array(V)), rtol=1e-8,
                               atol=1e-10)
    np.testing.assert_allclose(got, _fd(srcad.grad(f), V), rtol=1e-5, atol=1e-7)


def test_pullback_passed_in_and_from_the_caller(tmp_path):
    m = _module(tmp_path, "pb_passed")
    ma = _module(tmp_path, "pba_passed", "autograd.numpy")

    def use(v, pb):
        return np.sum(pb(v * X1) ** 2)

    def caller(x0):
        _, pb = srcad.vjp(m.g1, x0, wrt=0)
        return srcad.grad(lambda v: np.sum(pb(v * X1) * v))(V.copy())

    _, pb = srcad.vjp(m.g1, X0, wrt=0)
    got = srcad.grad(use)(V.copy(), pb)

    def pba(dy, x0=X0):
        return autograd.grad(lambda a: anp.sum(ma.g1(a) * dy))(x0)

    want = autograd.grad(lambda v: anp.sum(pba(v * X1) ** 2))(anp.array(V))
    np.testing.assert_allclose(got, want, rtol=1e-9, atol=1e-12)
    x2 = X0 * 1.5
    want = autograd.grad(lambda v: anp.sum(pba(v * X1, x2) * v))(anp.array(V))
    np.testing.assert_allclose(caller(x2), want, rtol=1e-9, atol=1e-12)
    np.testing.assert_allclose(caller(X0), autograd.grad(
        lambda v: anp.sum(pba(v * X1) * v))(anp.array(V)), rtol=1e-9, atol=1e-12)


def test_the_primals_are_those_the_pullback_holds(tmp_path):
    """Two pullbacks of one function at two points: each reads its own primals."""
    m = _module(tmp_path, "pb_two")
    _, p1 = srcad.vjp(m.g1, X0, wrt=0)
    _, p2 = srcad.vjp(m.g1, X1, wrt=0)

    def f(v):
        return np.sum(p1(v) * p2(v * v))

    got = srcad.grad(f)(V.copy())
    np.testing.assert_allclose(got, _fd(f, V), rtol=1e-5, atol=1e-7)


def test_an_output_that_is_not_an_array_is_refused_where_the_pullback_runs(tmp_path):
    m = _module(tmp_path, "pb_bad")
    _, pb = srcad.vjp(lambda z: (np.sin(z), z), X0, wrt=0)

    def f(v):
        return np.sum(pb((v, v))[0])

    with pytest.raises(SrcadError) as info:
        srcad.grad(f)(V.copy())
    assert "return an array" in info.value.hint
    del m
