"""Records (dataclasses, named tuples) in ``vjp``, and ``vjp(..., has_aux=True)``: checked
against finite differences and srcad's reference tape (on the same function with the fields
passed one by one). Forward mode, Jacobians and Hessians with respect to a record give records
(tests/test_programs_trees.py)."""

import dataclasses
from typing import NamedTuple

import numpy as np
import pytest
from srcad.check import numerical_grad

import srcad
from srcad import tape
from srcad.errors import SrcadError


@dataclasses.dataclass
class Layer:
    w: np.ndarray
    b: float


class Pair(NamedTuple):
    w: np.ndarray
    b: float


def layer_out(p, x):
    return np.tanh(p.w * x + p.b)


def fields_out(w, b, x):
    return np.tanh(w * x + b)


def with_aux(x, w):
    y = np.sin(x) * w
    return y, (np.mean(y), "label")


def plain_out(x, w):
    return np.sin(x) * w


POINTS = [np.array([0.5, -1.0]), np.array([1.5, 0.2]), np.array([-0.3, 0.9])]
SEEDS = [np.ones(2), np.array([0.5, -2.0])]


@pytest.mark.parametrize("cls", [Layer, Pair], ids=["dataclass", "namedtuple"])
@pytest.mark.parametrize("w", POINTS, ids=["p0", "p1", "p2"])
@pytest.mark.parametrize("dy", SEEDS, ids=["ones", "mixed"])
def test_vjp_with_respect_to_a_record(cls, w, dy):
    p, x = cls(w, 0.3), np.array([1.0, 2.0])
    value, pullback = srcad.vjp(layer_out, p, x, wrt=0)
    assert np.allclose(value, layer_out(p, x))
    g = pullback(dy)
    assert type(g) is cls

    def dotted(w_, b_):
        return np.sum(dy * fields_out(w_, b_, x))

    for name, k in (("w", 0), ("b", 1)):
        want = numerical_grad(dotted, (w, 0.3), k)
        assert np.allclose(getattr(g, name), want, rtol=1e-6, atol=1e-8)
        assert np.allclose(getattr(g, name), tape.grad(dotted, wrt=k)(w, 0.3), rtol=1e-10)
    # the same pullback's code for the next record of the class: no stale specialisation
    g2 = srcad.vjp(layer_out, cls(w * 2.0, -0.1), x, wrt=0)[1](dy)
    assert np.allclose(g2.w, numerical_grad(lambda w_: np.sum(dy * fields_out(w_, -0.1, x)),
                                            (w * 2.0,), 0), rtol=1e-6, atol=1e-8)


def test_vjp_record_with_array_and_float_fields_in_turn():
    """A record whose field is a float, then an array: each its own code (the key holds the
    fields' kinds), never the other's."""
    x = np.array([1.0, 2.0])
    for b in (0.3, np.array([0.3, -0.2]), 0.7):
        g = srcad.vjp(layer_out, Layer(np.array([0.5, -1.0]), b), x, wrt=0)[1](np.ones(2))
        want = numerical_grad(lambda b_: np.sum(fields_out(np.array([0.5, -1.0]), b_, x)),
                              (b,), 0)
        assert np.allclose(g.b, want, rtol=1e-6, atol=1e-8)
        assert np.shape(g.b) == np.shape(b)


@pytest.mark.parametrize("x", POINTS, ids=["p0", "p1", "p2"])
@pytest.mark.parametrize("wrt", [None, 0, 1])
def test_vjp_has_aux(x, wrt):
    value, pullback, aux = srcad.vjp(with_aux, x, 2.0, wrt=wrt, has_aux=True)
    assert np.allclose(value, plain_out(x, 2.0))
    assert aux[0] == pytest.approx(np.mean(plain_out(x, 2.0))) and aux[1] == "label"
    dy = np.array([0.5, -2.0])
    _, plain_pullback = srcad.vjp(plain_out, x, 2.0, wrt=wrt)
    got, want = pullback(dy), plain_pullback(dy)
    got_t = got if isinstance(got, tuple) else (got,)
    want_t = want if isinstance(want, tuple) else (want,)
    for a, b in zip(got_t, want_t):
        assert np.allclose(a, b, rtol=1e-12)

    def dotted(x_, w_):
        return np.sum(dy * plain_out(x_, w_))

    ks = (0, 1) if wrt is None else (wrt,)
    for a, k in zip(got_t, ks):
        assert np.allclose(a, numerical_grad(dotted, (x, 2.0), k), rtol=1e-6, atol=1e-8)
        assert np.allclose(a, tape.grad(dotted, wrt=k)(x, 2.0), rtol=1e-10)


def test_vjp_has_aux_needs_a_pair():
    with pytest.raises(SrcadError, match="must return a pair"):
        srcad.vjp(plain_out, np.ones(2), 2.0, has_aux=True)


@pytest.mark.parametrize("cls", [Layer, Pair], ids=["dataclass", "namedtuple"])
def test_forward_mode_and_jacobians_of_records_give_records(cls):
    """(The full families are in tests/test_programs_trees.py.)"""
    p, x = cls(np.array([0.5, -1.0]), 0.3), np.array([1.0, 2.0])
    _, tangent = srcad.jvp(layer_out, (p, x), (cls(np.ones(2), 1.0),), wrt=0)
    h = 1e-6
    want = (layer_out(cls(p.w + h, p.b + h), x) - layer_out(cls(p.w - h, p.b - h), x)) / (2 * h)
    assert np.allclose(tangent, want, rtol=1e-6, atol=1e-8)
    jac = srcad.jacobian(layer_out, wrt=0)(p, x)
    assert type(jac) is cls and jac.w.shape == (2, 2) and jac.b.shape == (2,)
    hess = srcad.hessian(lambda q, y: np.sum(np.tanh(q.w * y + q.b)), wrt=0)(p, x)
    assert type(hess) is cls and type(hess.w) is cls and hess.w.w.shape == (2, 2)
