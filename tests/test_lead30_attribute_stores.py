"""Writing an attribute of an object the function is given stays refused under every
transform. A store is an effect, and srcad's Jacobians, Hessians and ``elementwise_grad`` may
run the function's forward part more than once (a column or a row at a time, a first call that
learns the output's kind): a branch that kept ``obj.c = y`` as an effect gave wrong values
there (``jacfwd``'s diagonal 1.433, 0.389, 0.100 where it is 1.433, 1.316, 1.147), each pass
reading the previous pass's store. These tests hold the refusal, for every entry point, and
that the object is left as it was where the refusal comes before any of the function's code
runs. ``vjp`` and ``elementwise_grad`` run the function itself first (for the value, for the
output's shape), so the store has happened when the refusal comes, at the pullback or the
gradient: no value is ever given for it, as Python's plain call would have stored too."""

import numpy as np
import pytest

import srcad
from srcad.errors import SrcadError


class Holder:
    pass


def stores_scalar(obj, x):
    y = np.sum(obj.c * np.sin(x))
    obj.c = y
    return y


def stores_first(obj, x):
    y = obj.c * np.sin(x)
    obj.c = y[0]
    return y


def stores_then_returns(obj, x):
    obj.last = x * 2.0
    return np.sum(np.cos(x))


def stores_in_branch(obj, x):
    y = np.sum(x ** 2)
    if y > 0.0:
        obj.c = y
    return y * obj.k


SCALAR = (stores_scalar, stores_then_returns, stores_in_branch)

ENTRIES = {
    "grad": lambda f: srcad.grad(f, wrt=1),
    "value_and_grad": lambda f: srcad.value_and_grad(f, wrt=1),
    "hessian": lambda f: srcad.hessian(f, wrt=1),
    "hessian_rev": lambda f: srcad.hessian(f, wrt=1, mode="rev"),
    "jacrev": lambda f: srcad.jacrev(f, wrt=1),
    "jacfwd": lambda f: srcad.jacfwd(f, wrt=1),
    "vjp": lambda f: (lambda o, x: srcad.vjp(f, o, x, wrt=1)[1](1.0)),
    "jvp": lambda f: (lambda o, x: srcad.jvp(f, (o, x), (np.ones(3),), wrt=(1,))),
}


def _holder():
    o = Holder()
    o.c, o.k = 1.5, 0.5
    return o


@pytest.mark.parametrize("entry", sorted(ENTRIES))
@pytest.mark.parametrize("f", SCALAR, ids=lambda f: f.__name__)
def test_a_store_is_refused(entry, f):
    o = _holder()
    x = np.array([0.3, 0.5, 0.7])
    with pytest.raises(SrcadError, match="attribute"):
        ENTRIES[entry](f)(o, x)
    if entry != "vjp":
        assert (o.c, o.k) == (1.5, 0.5) and not hasattr(o, "last")


@pytest.mark.parametrize("entry", ["jacfwd", "jacrev", "jvp"])
def test_a_store_of_a_vector_function_is_refused(entry):
    o = _holder()
    x = np.array([0.3, 0.5, 0.7])
    with pytest.raises(SrcadError, match="attribute"):
        ENTRIES[entry](stores_first)(o, x)
    assert o.c == 1.5


def test_elementwise_grad_of_a_store_is_refused():
    o = _holder()
    with pytest.raises(SrcadError, match="attribute"):
        srcad.elementwise_grad(stores_first, wrt=1)(o, np.array([0.3, 0.5, 0.7]))


def test_the_same_function_without_the_store_is_exact():
    """The refusal is the store's: the function computing the same value without it is
    differentiated, against central differences (so the tests above cannot pass by every
    entry refusing everything)."""
    def pure(obj, x):
        return obj.c * np.sin(x)

    o = _holder()
    x = np.array([0.3, 0.5, 0.7])
    jac = srcad.jacfwd(pure, wrt=1)(o, x)
    eps = 1e-6
    fd = np.stack([(pure(o, x + eps * e) - pure(o, x - eps * e)) / (2 * eps)
                   for e in np.eye(3)], axis=1)
    assert np.allclose(jac, fd, atol=1e-7)
    assert np.allclose(srcad.jacrev(pure, wrt=1)(o, x), fd, atol=1e-7)
