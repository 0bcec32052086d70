"""Jacobians and Hessians of functions with tuple, list and dict outputs nest as JAX's do:
the output's structure outside, then (for a tuple ``wrt``) a tuple over the arguments, each
leaf of shape ``output leaf shape + argument shape`` -- in both modes, for Python floats,
NumPy scalars, 0-d and 1-d arrays, on the first call and on the short paths of later calls.

Forward mode once built the Jacobian of a tuple of numbers taken at Python floats as if the
tuple were an array: argument outside, output inside, the transpose of reverse mode's (and of
JAX's) nesting. Each entry here is checked against central finite differences of the output
leaf it names.
"""

import itertools

import numpy as np
import pytest

import srcad


def _f_tuple2(a, b):
    return (a * b, a + np.sin(b))


def _f_list3(a, b):
    return [a * a, np.cos(a * b), b / (1.0 + a * a)]


def _f_dict2(a, b):
    return {"p": np.exp(a) * b, "q": a - b * b}


def _f_nested(a, b):
    return ((a * b, b), np.tanh(a))


FUNCS = {"tuple2": _f_tuple2, "list3": _f_list3, "dict2": _f_dict2, "nested": _f_nested}
KINDS = {
    "float": lambda v: float(v),
    "float64": lambda v: np.float64(v),
    "0d": lambda v: np.array(v),
    "1d": lambda v: np.array([v, 0.5 * v + 0.1]),
}
WRTS = [0, 1, (0, 1), (1, 0)]


def _leaves(value):
    if isinstance(value, dict):
        return [leaf for k in sorted(value) for leaf in _leaves(value[k])]
    if isinstance(value, (tuple, list)):
        return [leaf for v in value for leaf in _leaves(v)]
    return [value]


def _fd(f, args, p, h=1e-6):
    """Per output leaf, the central-difference derivative w.r.t. argument p (shape out + in)."""
    x = np.asarray(args[p], dtype=float)
    cols = []
    for j in np.ndindex(*x.shape) if x.shape else [()]:
        step = np.zeros(x.shape)
        step[j] = h
        up = list(args)
        down = list(args)
        up[p] = x + step if x.shape else float(x) + h
        down[p] = x - step if x.shape else float(x) - h
        cols.append([(np.asarray(u) - np.asarray(d)) / (2 * h)
                     for u, d in zip(_leaves(f(*up)), _leaves(f(*down)))])
    out = []
    for k in range(len(cols[0])):
        stacked = np.stack([c[k] for c in cols], axis=-1)
        shape = np.shape(cols[0][k]) + x.shape
        out.append(stacked.reshape(shape))
    return out


def _check(jac, f, args, wrt, what):
    value = f(*args)
    # the output's structure outside: the same containers as the value
    assert type(jac) is type(value), f"{what}: {type(jac).__name__} for {type(value).__name__}"
    if isinstance(value, dict):
        assert sorted(jac) == sorted(value), what
    got = _leaves(jac) if isinstance(wrt, int) else None
    positions = (wrt,) if isinstance(wrt, int) else wrt
    expected = [_fd(f, args, p) for p in positions]
    if isinstance(wrt, int):
        for g, e in zip(got, expected[0]):
            assert np.shape(g) == np.shape(e), what
            np.testing.assert_allclose(g, e, rtol=1e-6, atol=1e-7, err_msg=what)
        return
    # a tuple wrt: each output leaf is a tuple over the arguments
    per_leaf = _leaves_of_tuples(jac, value)
    for i, over_args in enumerate(per_leaf):
        assert isinstance(over_args, tuple) and len(over_args) == len(positions), what
        for k in range(len(positions)):
            g, e = over_args[k], expected[k][i]
            assert np.shape(g) == np.shape(e), f"{what}: leaf {i} arg {k}"
            np.testing.assert_allclose(g, e, rtol=1e-6, atol=1e-7, err_msg=what)


def _leaves_of_tuples(jac, value):
    """The Jacobian's entries at the value's leaves (each a tuple over the wrt arguments)."""
    if isinstance(value, dict):
        return [e for k in sorted(value) for e in _leaves_of_tuples(jac[k], value[k])]
    if isinstance(value, (tuple, list)):
        return [e for j, v in zip(jac, value) for e in _leaves_of_tuples(j, v)]
    return [jac]


CASES = [(name, kind, wrt, mode) for name, kind, wrt, mode in itertools.product(
    FUNCS, KINDS, WRTS, ("fwd", "rev"))]


@pytest.mark.parametrize(("name", "kind", "wrt", "mode"), CASES,
                         ids=[f"{n}-{k}-{w}-{m}" for n, k, w, m in CASES])
def test_jacobian_nesting(name, kind, wrt, mode):
    f = FUNCS[name]
    make = KINDS[kind]
    jac = srcad.jacobian(f, wrt=wrt, mode=mode)
    for a, b in ((0.7, 1.3), (-0.4, 0.9)):  # the second call takes the short paths
        args = (make(a), make(b))
        _check(jac(*args), f, args, wrt, f"{name} {kind} wrt={wrt} {mode} at {a}, {b}")


def _scalar(a, b):
    return a * a * b + np.sin(b) * np.exp(a)


def _scalar_vec(a, b):
    return np.sum(a * a * b) + np.sin(np.sum(b)) * np.exp(np.sum(a))


@pytest.mark.parametrize("kind", list(KINDS))
@pytest.mark.parametrize("mode", ["fwd", "rev"])
def test_hessian_of_two_arguments_nests_as_jax(kind, mode):
    """``hessian(f, wrt=(0, 1))`` is ``((H_aa, H_ab), (H_ba, H_bb))`` in both modes, each
    block of shape ``a.shape + b.shape``-like, checked against finite differences of the
    gradient."""
    make = KINDS[kind]
    f = _scalar_vec if kind == "1d" else _scalar
    grad = srcad.grad(f, wrt=(0, 1))
    hess = srcad.hessian(f, wrt=(0, 1), mode=mode)
    for a, b in ((0.7, 1.3), (-0.4, 0.9)):
        args = (make(a), make(b))
        h = hess(*args)
        assert isinstance(h, tuple) and all(isinstance(row, tuple) for row in h), type(h)
        for i in range(2):
            def part(*xs, i=i):
                return grad(*xs)[i]

            expected = _fd(part, args, 0), _fd(part, args, 1)
            for k in range(2):
                assert np.shape(h[i][k]) == np.shape(expected[k][0]), (i, k)
                np.testing.assert_allclose(h[i][k], expected[k][0], rtol=1e-5, atol=1e-6)
