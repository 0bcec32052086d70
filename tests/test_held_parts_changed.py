"""An object the derivative reads (the bound method's object, a module-level model) whose part
held in an attribute is given another class after the code was made (``o.inner = Other()``):
the code is made again for the new class (the class of each part is a read of the code, as a
global's value is). Before, a run-time check refused it until ``srcad.clear_cache()``. A
generated family: where the object is (a bound method's, a global, a closure value), how deep
the part is, the derivative (grad, value_and_grad, jvp), the order of the classes.
"""

from __future__ import annotations

import itertools

import numpy as np
import program_files
import pytest

import srcad

_TEXT = '''
import numpy as np


class A:
    def f(self, x):
        return np.sum(x ** 2)


class B:
    def f(self, x):
        return np.sum(np.sin(x)) * 3.0


class Mid:
    def __init__(self, part):
        self.part = part

    def f(self, x):
        return self.part.f(x) + np.sum(x)


class Outer:
    def __init__(self, inner):
        self.inner = inner

    def loss(self, x):
        return self.inner.f(x) * 2.0


MODEL = Outer(A())


def top(x):
    return MODEL.loss(x) + 1.0


def maker():
    model = Outer(A())

    def closed(x):
        return model.loss(x) - 1.0
    return closed, model
'''
_WHERE = ("bound", "global", "closure")
_DEPTH = (1, 2)
_ORDERS = (("A", "B", "A"), ("B", "B", "A"), ("A", "A", "B"))


def _fd(f, x):
    return np.array([(f(x + e) - f(x - e)) / 2e-6 for e in np.eye(len(x)) * 1e-6])


@pytest.mark.parametrize("where, depth, order", list(itertools.product(_WHERE, _DEPTH, _ORDERS)))
def test_a_part_given_another_class(tmp_path, where, depth, order):
    m = program_files.module(tmp_path, f"held_{where}_{depth}_{''.join(order)}", _TEXT)
    if where == "bound":
        model = m.Outer(m.A())
        f = model.loss
    elif where == "global":
        model, f = m.MODEL, m.top
    else:
        f, model = m.maker()
    x = np.array([0.3, -0.5, 0.9])
    made = [srcad.grad(f), srcad.value_and_grad(f)]
    for name in order:
        part = getattr(m, name)()
        model.inner = m.Mid(part) if depth == 2 else part
        want = _fd(f, x)
        for d in made + [srcad.grad(f)]:  # the derivatives made before, and a new one
            got = d(x)
            got = got[1] if isinstance(got, tuple) else got
            assert np.allclose(got, want, rtol=1e-6, atol=1e-8), (name, got, want)
        tangent = srcad.jvp(f, (x,), (np.ones(3),))[1]
        assert np.isclose(tangent, np.sum(want), rtol=1e-6)
