"""A method of a record argument (a dataclass or named tuple the gradient is taken in) taken as a
value, ``fn = p.energy`` or ``map(p.energy, xs)``: refused at the line, and the hint (which said
"a property is not followed", though properties are followed) now names the rewrite, a call
where it is read, ``map(lambda v: p.energy(v), xs)``, which is differentiated (checked against
central differences in each field; found by the fuzzer of tests/test_properties_python.py).
Imports NumPy and srcad."""

import pytest
from class_families import module_of
from twin_checks import close

import srcad
from srcad.errors import SrcadError

CLASSES = """\
import collections
import dataclasses

import numpy as np


@dataclasses.dataclass
class P:
    x: float
    a: np.ndarray

    def energy(self, s):
        return np.sum(self.a * self.x) * s + self.x ** 2


class NT(collections.namedtuple("NT", ["x", "a"])):
    def energy(self, s):
        return np.sum(self.a ** 2) * self.x * s


"""

TAKEN = {"held": "    fn = p.energy\n    return fn(2.0)\n",
         "mapped": "    return sum(map(p.energy, [1.0, 2.0]))\n"}
REWRITTEN = {"lambda": "    return sum(map(lambda v: p.energy(v), [1.0, 2.0]))\n",
             "generator": "    return sum(p.energy(v) for v in [1.0, 2.0])\n"}


@pytest.mark.parametrize("cls", ["P", "NT"])
@pytest.mark.parametrize("form", sorted(TAKEN))
def test_method_taken_as_a_value_is_refused_with_the_rewrite(tmp_path, form, cls):
    mod = module_of(tmp_path, CLASSES, f"taken_{form}_{cls}", "def f(p):\n" + TAKEN[form])
    np = mod.np
    with pytest.raises(SrcadError) as info:
        srcad.grad(mod.f)(getattr(mod, cls)(0.7, np.array([0.3, -0.5, 1.0])))
    assert info.value.lineno == 22 and "a method taken as a value" in str(info.value)
    assert "map(lambda v: p.energy(v), xs)" in info.value.hint


@pytest.mark.parametrize("cls", ["P", "NT"])
@pytest.mark.parametrize("form", sorted(REWRITTEN))
def test_the_rewrite_is_differentiated(tmp_path, form, cls):
    mod = module_of(tmp_path, CLASSES, f"rewritten_{form}_{cls}", "def f(p):\n" + REWRITTEN[form])
    np, make = mod.np, getattr(mod, cls)
    x, a = 0.7, np.array([0.3, -0.5, 1.0])
    got = srcad.grad(mod.f)(make(x, a))
    assert type(got) is make
    h = 1e-6
    gx = (mod.f(make(x + h, a)) - mod.f(make(x - h, a))) / (2 * h)
    ga = [(mod.f(make(x, a + h * e)) - mod.f(make(x, a - h * e))) / (2 * h) for e in np.eye(3)]
    assert close(got.x, gx, 1e-6) and close(got.a, np.array(ga), 1e-6)
