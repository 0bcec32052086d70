"""``type(self).f(x)`` and ``self.__class__.f(x)`` in methods (a static or class method, or a
class attribute, reached through the object's class): srcad knows the class of the bound
method's object, of an object passed in, built here or held in an attribute, so ``type(obj)``
is that class, a constant of the code (checked at run time for a held part, as its methods
are). Refused before ("no derivative rule for .V()"). A generated family: how the class is
reached x what is called x the object's class (a subclass overriding it), against finite
differences and autograd running the same classes.
"""

from __future__ import annotations

import itertools

import numpy as np
import program_files
import pytest
from sampling import sample

import srcad

autograd = pytest.importorskip("autograd")
anp = pytest.importorskip("autograd.numpy")

_CLASSES = '''
class Pot:
    scale = 2.0

    @staticmethod
    def V(x):
        return 0.5 * np.sum(x ** 2)

    @classmethod
    def W(cls, x):
        return cls.scale * np.sum(np.sin(x))

    def energy(self, x):
        return {call}


class Sub(Pot):
    scale = -1.5

    @staticmethod
    def V(x):
        return np.sum(np.cos(x) * x)


class Holder:
    def __init__(self, part):
        self.part = part

    def energy(self, x):
        return self.part.energy(x) + {held}


def f(x):
    obj = {cls}()
    return {use}
'''
_CALLS = {
    "type_static": "type(self).V(x)",
    "class_static": "self.__class__.V(x * 2.0)",
    "type_classmethod": "type(self).W(x)",
    "type_attribute": "type(self).scale * np.sum(x)",
    "both": "type(self).V(x) + self.__class__.W(x)",
}
_USES = {
    "built": "obj.energy(x)",
    "type_here": "type(obj).V(x) + obj.energy(x)",
}
_CASES = list(itertools.product(_CALLS, _USES))


@pytest.mark.parametrize("call, use", sample(_CASES, 2),
                         ids=[f"{c}-{u}" for c, u in sample(_CASES, 2)])
def test_the_class_of_an_object(tmp_path, call, use):
    x = np.array([0.3, -0.8, 1.1])
    for cls in ("Pot", "Sub"):
        text = _CLASSES.format(call=_CALLS[call], use=_USES[use], cls=cls,
                               held="type(self.part).V(x)")
        stem = f"class_of_{call}_{use}_{cls}"  # modules: classes of a module of their own
        f = program_files.module(tmp_path, stem, "import numpy as np\n" + text).f
        f_autograd = program_files.module(tmp_path, stem + "_autograd",
                                          "import autograd.numpy as np\n" + text).f
        want = autograd.grad(f_autograd)(x)
        got = srcad.grad(f)(x)
        assert np.allclose(got, want, rtol=1e-10, atol=1e-12), (cls, got, want)
        fd = np.array([(f(x + e) - f(x - e)) / 2e-6 for e in np.eye(3) * 1e-6])
        assert np.allclose(got, fd, rtol=1e-5, atol=1e-7)
        v = np.array([0.2, 0.5, -1.0])
        assert np.isclose(srcad.jvp(f, (x,), (v,))[1], want @ v, rtol=1e-9)
        expected = autograd.hessian(f_autograd)(x)
        assert np.allclose(srcad.hessian(f)(x), expected, rtol=1e-9, atol=1e-12)


@pytest.mark.parametrize("call", list(_CALLS))
def test_a_bound_method_of_either_class(tmp_path, call):
    text = _CLASSES.format(call=_CALLS[call], use="obj.energy(x)", cls="Pot",
                           held="type(self.part).V(x) + self.part.__class__.W(x)")
    module = program_files.module(tmp_path, f"bound_{call}", "import numpy as np\n" + text)
    x = np.array([0.3, -0.8, 1.1])
    for obj in (module.Pot(), module.Sub(), module.Pot(), module.Holder(module.Sub()),
                module.Holder(module.Pot())):  # a part held in an attribute: checked
        fd = np.array([(obj.energy(x + e) - obj.energy(x - e)) / 2e-6
                       for e in np.eye(3) * 1e-6])
        assert np.allclose(srcad.grad(obj.energy)(x), fd, rtol=1e-5, atol=1e-7), type(obj)
