"""Writing an attribute of an object the function is given stays refused under every
transform. A store is an effect, and srcad's Jacobians, Hessians and ``elementwise_grad`` may
run the function's forward part more than once (a column or a row at a time, a first call that
learns the output's kind): a branch that kept ``obj.c = y`` as an effect gave wrong values
there (``jacfwd``'s diagonal 1.433, 0.389, 0.100 where it is 1.433, 1.316, 1.147), each pass
reading the previous pass's store. These tests hold the refusal, for every entry point, and
that the object is left as it was: the refusal comes before any of the function's code runs.
``vjp`` (and ``elementwise_grad``, ``make_vjp`` through it) runs the function itself for the
value; since calls31 it makes its code for the arguments first
(``specialise.Transformed.prepare``), so it refuses before that run too, where the store had
happened when the refusal came at the pullback."""

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
    "vjp_value": lambda f: (lambda o, x: srcad.vjp(f, o, x, wrt=1)),  # the pullback not run
    "jvp": lambda f: (lambda o, x: srcad.jvp(f, (o, x), (np.ones(3),), wrt=(1,))),
    "jacobian": lambda f: srcad.jacobian(f, wrt=1),
    "elementwise_grad": lambda f: srcad.elementwise_grad(f, wrt=1),
    "make_vjp": lambda f: (lambda o, x: srcad.make_vjp(f, wrt=1)(o, x)),
    "hvp": lambda f: (lambda o, x: srcad.hvp(f, (o, x), np.ones(3), wrt=1)),
    "grad_has_aux": lambda f: (lambda o, x: srcad.grad(_paired(f), wrt=1, has_aux=True)(o, x)),
    "vjp_has_aux": lambda f: (lambda o, x: srcad.vjp(_paired(f), o, x, wrt=1, has_aux=True)),
}


def stores_scalar_pair(obj, x):
    return stores_scalar(obj, x), 1


def stores_then_returns_pair(obj, x):
    return stores_then_returns(obj, x), 1


def stores_in_branch_pair(obj, x):
    return stores_in_branch(obj, x), 1


def _paired(f):
    """``f`` returning ``(value, aux)``: the has_aux entries' function (the store kept, in
    the callee)."""
    return globals()[f"{f.__name__}_pair"]


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
    assert (o.c, o.k) == (1.5, 0.5) and not hasattr(o, "last")  # before any code ran


@pytest.mark.parametrize("entry", ["jacfwd", "jacrev", "jvp"])
def test_a_store_of_a_vector_function_is_refused(entry):
    o = _holder()
    x = np.array([0.3, 0.5, 0.7])
    with pytest.raises(SrcadError, match="attribute"):
        ENTRIES[entry](stores_first)(o, x)
    assert o.c == 1.5


@pytest.mark.parametrize("entry", ["elementwise_grad", "vjp", "vjp_value", "make_vjp"])
def test_a_store_of_a_vector_function_is_refused_before_it_runs(entry):
    o = _holder()
    with pytest.raises(SrcadError, match="attribute"):
        ENTRIES[entry](stores_first)(o, np.array([0.3, 0.5, 0.7]))
    assert o.c == 1.5


def test_vjp_refuses_before_it_runs_for_new_arguments_too():
    """A second function of the same code object, and a call after a refused one: refused
    before the store each time (the code made first, on every path of srcad.vjp)."""
    for _ in range(2):
        o = _holder()
        with pytest.raises(SrcadError, match="attribute"):
            srcad.vjp(stores_then_returns, o, np.array([0.3, 0.5]), wrt=1)
        assert not hasattr(o, "last")


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
