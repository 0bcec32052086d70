"""A function with a rule differentiated directly (``srcad.jacobian(odeint, wrt=3)(func, y0, t,
args)``, found in a peer's test suite: "wrt=3 is out of range: odeint has 3 parameters"): the
entry point srcad makes for it takes the rule's parameters without a default, and now also
those with a default up to the last one with a derivative, where the function's own signature
gives the same default (so an argument passed by position is one the rule knows, and may be
``wrt``). Against finite differences, each argument given and left out.
"""

from __future__ import annotations

import numpy as np
import pytest

import srcad

scipy_integrate = pytest.importorskip("scipy.integrate")


def _func(y, t, a, b):
    return -a * y + b * np.sin(t)


def _fd_jacobian(f, args, wrt, eps=1e-6):
    x = np.asarray(args[wrt], dtype=float)
    cols = []
    for i in range(x.size):
        step = np.zeros(x.size)
        step[i] = eps
        plus, minus = list(args), list(args)
        plus[wrt] = x + step.reshape(x.shape)
        minus[wrt] = x - step.reshape(x.shape)
        cols.append((np.asarray(f(*plus)) - np.asarray(f(*minus))) / (2 * eps))
    return np.stack(cols, axis=-1).reshape(np.shape(f(*args)) + x.shape)


_CASES = {  # function, arguments, wrt (each a defaulted parameter given by position)
    "interp_left": (np.interp, (np.array([-1.0, 0.5, 3.0]), np.array([0.0, 1.0, 2.0]),
                                np.array([1.0, 3.0, 2.0]), 0.7), 3),
    "interp_right": (np.interp, (np.array([-1.0, 0.5, 3.0]), np.array([0.0, 1.0, 2.0]),
                                 np.array([1.0, 3.0, 2.0]), 0.7, -0.4), 4),
    "interp_fp": (np.interp, (np.array([-1.0, 0.5, 3.0]), np.array([0.0, 1.0, 2.0]),
                              np.array([1.0, 3.0, 2.0]), 0.7), 2),
    "average_weights": (np.average, (np.array([1.0, 2.0, 4.0]), None,
                                     np.array([0.2, 0.5, 0.3])), 2),
    "average_a": (np.average, (np.array([1.0, 2.0, 4.0]), None,
                               np.array([0.2, 0.5, 0.3])), 0),
    "select_default": (np.select, ([np.array([True, False, False])],
                                   [np.array([1.0, 2.0, 3.0])], 0.5), 2),
}


@pytest.mark.parametrize("name", list(_CASES))
def test_a_defaulted_argument_given_by_position(name):
    fn, args, wrt = _CASES[name]
    want = _fd_jacobian(fn, args, wrt)
    got = srcad.jacobian(fn, wrt=wrt)(*args)
    assert np.allclose(got, want, rtol=1e-6, atol=1e-8), (got, want)


def test_odeint_in_its_args_and_y0():
    y0 = np.array([1.0, 0.5, -0.2])
    t = np.linspace(0.1, 0.2, 4)
    args = (np.array([0.3, 0.2, 0.1]), np.array([1.0, 2.0, 0.5]))
    odeint = scipy_integrate.odeint
    got = srcad.jacobian(odeint, wrt=1)(_func, y0, t, args)
    assert np.allclose(got, _fd_jacobian(odeint, (_func, y0, t, args), 1), rtol=1e-5,
                       atol=1e-7)
    got = srcad.jacobian(odeint, wrt=1)(_func, y0, t, args)  # the cached code
    assert got.shape == (4, 3, 3)
    ct = np.random.RandomState(0).randn(4, 3)
    value, pullback = srcad.vjp(odeint, _func, y0, t, args, wrt=3)
    da, db = pullback(ct)
    for k, d in enumerate((da, db)):
        def in_one(v, k=k):
            held = list(args)
            held[k] = v
            return np.sum(ct * odeint(_func, y0, t, tuple(held)))
        x = args[k]
        fd = np.array([(in_one(x + e) - in_one(x - e)) / 2e-6 for e in np.eye(3) * 1e-6])
        assert np.allclose(d, fd, rtol=1e-5, atol=1e-7), (k, d, fd)


def test_left_out_they_take_the_functions_own_defaults():
    x, xp, fp = np.array([-1.0, 0.5, 3.0]), np.array([0.0, 1.0, 2.0]), np.array([1.0, 3.0, 2.0])
    got = srcad.jacobian(np.interp, wrt=2)(x, xp, fp)
    assert np.allclose(got, _fd_jacobian(np.interp, (x, xp, fp), 2), rtol=1e-6, atol=1e-8)
    assert np.isclose(srcad.grad(np.sum)(np.array([1.0, 2.0]))[0], 1.0)
