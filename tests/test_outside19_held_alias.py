"""A function an object holds, read into a local, then called (round 19's outside programs).

Met in JiaweiZhuang/AM205_final's ``neuralsolver`` (networks solving ODEs, 6 of its programs):
``NNSolver(f, ...)`` keeps the right-hand side as ``self.f = f``, and its loss reads
``f = self.f`` before calling ``f(t, y_pred_list)``. ``self.f(...)`` was made for the function
the object holds (part of the specialisation, checked where the call runs), but the same
function read into a local first was refused ("calling the local value 'f', whose value srcad
does not know"). The read ``f = self.f`` now gives that function, a constant, with the same
check where it is read (a later ``obj.f = other`` makes the code raise, never a wrong
gradient), so calls of ``f`` and ``f`` passed on are those of the function itself.

The family: what the object holds (a NumPy ufunc, a user function, a module-level lambda, a
right-hand side taking a list and returning one) x how the local is used (called once, called
in a loop, passed to a helper, two of them read from two attributes) x how the object comes
in (a bound method differentiated, the object passed to a function differentiated), against
finite differences and autograd on the same text; value_and_grad, jvp and Hessians in both
modes. Refusal: the object holding another function after the code was made.
"""

from __future__ import annotations

import importlib.util
import itertools
import textwrap

import numpy as np
import pytest
from srcad.check import numerical_grad

import srcad

autograd = pytest.importorskip("autograd")

HEADER = """
def cube(z):
    return z ** 3 - z

shifted = lambda z: np.sin(z + 0.5)

def rhs(t, ys):
    return [ys[0] * t - ys[1], np.cos(ys[0]) + ys[1] * ys[1]]

def apply(g, z):
    return g(z) * 2.0

class Holder:
    def __init__(self, f, g, data):
        self.f = f
        self.g = g
        self.data = data

    def once(self, w):
        f = self.f
        data = self.data
        return np.sum(f(w * data) ** 2)

    def looped(self, w):
        f = self.f
        v = w
        for _ in range(3):
            v = f(v) * 0.5 + w
        return np.sum(v ** 2)

    def passed(self, w):
        f = self.f
        return np.sum(apply(f, w) * self.data)

    def two(self, w):
        f = self.f
        g = self.g
        return np.sum(f(w) * g(self.data * w))

    def system(self, w):
        f = self.f
        ys = [w * self.data, w[::-1] + 1.0]
        out = f(self.data, ys)
        total = 0.0
        for a, b in zip(out, ys):
            total = total + np.mean((a - b) ** 2)
        return total

def outside_once(holder, w):
    return holder.once(w) + w[0]

def outside_looped(holder, w):
    return holder.looped(w) + w[0]

def outside_passed(holder, w):
    return holder.passed(w) + w[0]

def outside_two(holder, w):
    return holder.two(w) + w[0]
"""

HELD = {"ufunc": "np.tanh", "user": "cube", "lambda": "shifted"}
FORMS = ("once", "looped", "passed", "two")
W = np.array([0.3, -0.7, 0.9, 0.1])
DATA = np.array([0.5, -1.0, 2.0, 1.5])


def _module(tmp_path, numpy_name, tag):
    path = tmp_path / f"held19_{tag}.py"
    path.write_text(f"import {numpy_name} as np\n" + textwrap.dedent(HEADER))
    spec = importlib.util.spec_from_file_location(path.stem, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _holders(tmp_path, held):
    m, a = _module(tmp_path, "numpy", "np"), _module(tmp_path, "autograd.numpy", "ag")
    pick = (lambda mod: mod.rhs) if held == "rhs" else (
        lambda mod: eval(HELD[held], {"np": mod.np, **vars(mod)}))
    return (m, m.Holder(pick(m), m.np.sin, DATA)), (a, a.Holder(pick(a), a.np.sin, DATA))


def _check(method, ag_method, args=(W,), wrt=0):
    g = srcad.grad(method, wrt=wrt)(*args)
    np.testing.assert_allclose(g, numerical_grad(method, args, wrt), rtol=1e-6, atol=1e-8)
    np.testing.assert_allclose(g, autograd.grad(ag_method, wrt)(*args), rtol=1e-10,
                               atol=1e-12)
    value, g2 = srcad.value_and_grad(method, wrt=wrt)(*args)
    assert value == pytest.approx(method(*args), rel=1e-12)
    np.testing.assert_allclose(g2, g, rtol=1e-12, atol=1e-14)
    t = np.array([0.4, -1.1, 0.2, 0.6])
    tangents = tuple(t if i == wrt else None for i in range(len(args)))
    tangents = tuple(tt for tt in tangents if tt is not None)
    assert srcad.jvp(method, args, tangents, wrt=wrt)[1] == pytest.approx(
        float(g @ t), rel=1e-9, abs=1e-12)
    expected = autograd.hessian(ag_method, wrt)(*args)
    for mode in ("fwd", "rev"):
        np.testing.assert_allclose(srcad.hessian(method, wrt=wrt, mode=mode)(*args), expected,
                                   rtol=1e-8, atol=1e-10)
    return g


@pytest.mark.parametrize("held,form", list(itertools.product(HELD, FORMS)))
def test_a_held_function_read_into_a_local(held, form, tmp_path):
    (m, holder), (a, ag_holder) = _holders(tmp_path, held)
    g = _check(getattr(holder, form), getattr(ag_holder, form))
    # the object passed to the function differentiated: the same code, specialised on it
    g2 = srcad.grad(getattr(m, f"outside_{form}"), wrt=1)(holder, W)
    np.testing.assert_allclose(g2, g + np.eye(4)[0], rtol=1e-12, atol=1e-12)


def test_a_held_right_hand_side_of_lists(tmp_path):
    """neuralsolver's form: ``f = self.f`` then ``f(t, [y1, y2])`` returning a list."""
    (_, holder), (_, ag_holder) = _holders(tmp_path, "rhs")
    _check(holder.system, ag_holder.system)


def test_the_generated_code_reads_the_function_once_and_checks_it(tmp_path):
    (m, holder), _ = _holders(tmp_path, "user")
    text = srcad.source(srcad.grad(holder.once), callees=True)
    assert "check_held(" in text
    # the call is the function itself, no lookup through the object (its forward part small
    # enough to be written into the caller's: backend/inline.py)
    assert "cube_bwd(" in text and "self.f(" not in text


def test_the_object_holding_another_function_later_raises(tmp_path):
    (m, holder), _ = _holders(tmp_path, "user")
    derivative = srcad.grad(holder.passed)
    derivative(W)
    holder.f = np.sin  # the code was made for cube: refused, never a wrong gradient
    with pytest.raises(srcad.SrcadError, match="holds another value") as err:
        derivative(W)
    assert err.value.lineno is not None and "make the derivative again" in err.value.hint
    # a new derivative of the method is made for the function held now
    np.testing.assert_allclose(srcad.grad(holder.passed)(W),
                               numerical_grad(holder.passed, (W,)), rtol=1e-6, atol=1e-8)


def test_the_local_bound_again_on_one_path(tmp_path):
    """``f = self.f`` then ``if c > 0: f = np.sin``: a merge of two known functions, the call
    an ``if`` on which one ``f`` is (as for ``g = f1 if c else f2``)."""
    path = tmp_path / "held19_merge.py"
    path.write_text(textwrap.dedent("""
        import numpy as np

        def cube(z):
            return z ** 3

        class H:
            def __init__(self, f):
                self.f = f

            def loss(self, w, c):
                f = self.f
                if c > 0:
                    f = np.sin
                return np.sum(f(w) * w)
        """))
    spec = importlib.util.spec_from_file_location(path.stem, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    h = module.H(module.cube)
    for c in (1.0, -1.0):
        g = srcad.grad(h.loss)(W, c)
        np.testing.assert_allclose(g, numerical_grad(h.loss, (W, c)), rtol=1e-6, atol=1e-8)
        for mode in ("fwd", "rev"):
            np.testing.assert_allclose(
                srcad.hessian(h.loss, mode=mode)(W, c),
                np.diag(-np.sin(W) * W + 2 * np.cos(W)) if c > 0 else np.diag(12 * W ** 2),
                rtol=1e-8, atol=1e-10)
