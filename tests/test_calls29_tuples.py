"""Hessians of functions of several numbers (``hessian(f, wrt=(0, 1))``) and forward-mode
Jacobians of functions returning a tuple of numbers, by the numbers' closure
(:func:`srcad.jacobian_leaves.number_columns`) instead of the walk over leaves at every call:
the same nesting and numbers as that walk (``_Jacobian._tree``), against autograd and central
differences, at the first call and the calls after it, for floats and float64s; a list out
still takes the walk."""

import math

import autograd
import autograd.numpy as anp
import numpy as np
import pytest

import srcad
from srcad import jacobians
from tests.sampling import sample


def f_two(x, y):
    return math.sin(x) * y + x * x * y


def f_three(x, y, z):
    return math.exp(x * y) * z + math.cos(z) / (1.0 + y * y)


def a_two(x, y):
    return anp.sin(x) * y + x * x * y


def a_three(x, y, z):
    return anp.exp(x * y) * z + anp.cos(z) / (1.0 + y * y)


def t_two(x, y):
    return x * y, math.sin(x) + y * y * x


def t_one(x):
    return x * x, math.sin(x), 2.0 * x


def l_two(x, y):
    return [x * y, x + y]


def _walk(f, wrt, mode, args):
    """The Jacobian by the walk over leaves (the path before the closure)."""
    jac = jacobians._Jacobian(f, wrt, mode)
    jac.index = wrt if isinstance(wrt, tuple) else (wrt,)
    return jac._tree(args).value


def _central(f, args, k, h=1e-6):
    up, down = list(args), list(args)
    up[k] += h
    down[k] -= h
    return (np.array(f(*up)) - np.array(f(*down))) / (2 * h)


HESSIANS = sample([(f_two, a_two, float), (f_two, a_two, np.float64),
                   (f_three, a_three, np.float64), (f_three, a_three, float)], 1)


@pytest.mark.parametrize("f, a, kind", HESSIANS, ids=lambda c: getattr(c, "__name__", ""))
def test_hessian_of_several_numbers(f, a, kind):
    args = tuple(kind(v) for v in (0.3, -0.7, 1.1)[:f.__code__.co_argcount])
    n = len(args)
    wrt = tuple(range(n))
    want = autograd.hessian(lambda v: a(*v))(np.array(args, dtype=float))
    walked = _walk(srcad.grad(f, wrt=wrt), wrt, "fwd", args)
    h = srcad.hessian(f, wrt=wrt)
    for _ in range(3):  # the first call (the code made), then the closure kept
        got = h(*args)
        assert type(got) is tuple and all(type(row) is tuple for row in got)
        assert got == walked
        assert all(type(e) is float for row in got for e in row)
        assert np.array(got) == pytest.approx(want, rel=1e-12, abs=1e-14)
    grad = srcad.grad(f, wrt=wrt)
    for k in range(n):  # column k against central differences of the gradient
        assert np.array(got)[:, k] == pytest.approx(_central(grad, args, k), rel=1e-6, abs=1e-8)


TUPLES = sample([(t_two, (0, 1), float), (t_two, (0, 1), np.float64), (t_one, 0, np.float64),
                 (l_two, (0, 1), float), (t_two, 1, np.float64), (t_one, 0, float),
                 (l_two, (0, 1), np.float64), (t_two, 1, float)], 2)


@pytest.mark.parametrize("f, wrt, kind", TUPLES, ids=lambda c: getattr(c, "__name__", str(c)))
def test_jacfwd_of_a_tuple_out(f, wrt, kind):
    args = tuple(kind(v) for v in (0.4, 1.3)[:f.__code__.co_argcount])
    walked = _walk(f, wrt, "fwd", args)
    jac = srcad.jacfwd(f, wrt=wrt)
    for _ in range(3):
        got = jac(*args)
        assert got == walked and type(got) is type(walked)
        rev = srcad.jacrev(f, wrt=wrt)(*args)  # reverse mode: the same nesting
        assert np.array(rev) == pytest.approx(np.array(got), rel=1e-14)
    for j, k in enumerate(wrt if isinstance(wrt, tuple) else (wrt,)):
        column = [row[j] if isinstance(wrt, tuple) else row for row in got]
        assert column == pytest.approx(list(_central(f, args, k)), rel=1e-6, abs=1e-8)


SCALE = 2.0


def f_scaled(x, y, z):
    return math.exp(x * y) * z * SCALE + math.cos(z) / (1.0 + y * y)


def a_scaled(x, y, z, scale):
    return anp.exp(x * y) * z * scale + anp.cos(z) / (1.0 + y * y)


@pytest.mark.parametrize("wrt", [(0, 1, 2), (2, 0)], ids=str)
def test_reverse_jacobian_of_several_numbers_compiled_in_its_front(wrt):
    """``jacobian(f, wrt=(...))`` of numbers: grad's code in the front, its gradients a tuple
    of floats; a rebound global read by the code makes it again."""
    global SCALE
    args = (0.3, -0.7, np.float64(1.1))
    jac = srcad.jacobian(f_scaled, wrt=wrt)
    try:
        for scale in (2.0, 3.0):
            SCALE = scale
            want = autograd.grad(lambda v, s=scale: a_scaled(*v, s))(np.array(args, dtype=float))
            for _ in range(3):  # the full path, the closure, then the front's own code
                got = jac(*args)
                assert type(got) is tuple and all(type(g) is float for g in got)
                assert got == pytest.approx([want[k] for k in wrt], rel=1e-12)
            assert jac.__srcad_inlined__ is not None
            assert got == jac.__srcad_fallback__(*args)
            for k, p in enumerate(wrt):
                assert got[k] == pytest.approx(_central(f_scaled, args, p), rel=1e-6)
    finally:
        SCALE = 2.0
