"""``y = obj.m(x)`` whose result is unused, ``m`` a pure method (issue 16, outside23 item 7).

Such a call was refused as possibly storing a differentiated value somewhere, because the
effect analysis counted the method's read of ``self.s`` as a call of unknown effect. A read
``p.name`` of a parameter the code was made for an object of a known class (a property is a
call of its getter there already) is a plain read (``analysis/effects._plain_read``): the call
is accepted when the method writes nothing. A method that changes an attribute's list, or
reads through ``__getattr__`` of its class, stays refused.

Generated family: how the object is reached x what the method reads x how the call stands,
checked against central differences and autograd on the same source.
"""

from __future__ import annotations

import itertools

import numpy as np
import pytest
from sampling import sample
from test_robustness import load_module
from twin_checks import central

import srcad

autograd = pytest.importorskip("autograd")
NP, AG = "import numpy as np\n", "import autograd.numpy as np\n"

W0 = np.array([0.3, -0.2])
X0 = np.array([0.5, 1.0, -1.5])

CLASSES = """
class Helper:
    K = 3.0

    def __init__(self):
        self.s = 2.0
        self.hist = []

    def plain(self, x):
        return x * self.s

    def nested(self, x):
        t = self.plain(x)
        return t * self.K

    @property
    def scale(self):
        return self.s * 2.0

    def through_property(self, x):
        return x * self.scale

    def stores(self, x):
        self.hist.append(x)
        return x


class Model:
    def __init__(self):
        self.h = Helper()
        self.s = 0.5

    def own(self, x):
        return x * self.s

    def loss(self, w, x):
{call}
        return np.sum(np.sin(w * 2.0)) + np.sum(x * w[0])


def passed(h, w, x):
{call_h}
    return np.sum(np.sin(w * 2.0)) + np.sum(x * w[0])


H = Helper()


def held_global(w, x):
{call_g}
    return np.sum(np.sin(w * 2.0)) + np.sum(x * w[0])
"""
METHODS = ("plain", "nested", "through_property")
STANDS = {"assigned": "y = {obj}.{m}(x * w[0])", "bare": "{obj}.{m}(x * w[1])",
          "in_loop": "for i in range(2):\n{pad}    y = {obj}.{m}(x * w[i])"}
REACHED = {"attribute": ("loss", "self.h"), "argument": ("passed", "h"),
           "global": ("held_global", "H")}


def _text(method, stand, pad=8):
    def line(obj, indent):
        return " " * indent + STANDS[stand].format(obj=obj, m=method, pad=" " * indent)
    return CLASSES.format(call=line("self.h", 8), call_h=line("h", 4), call_g=line("H", 4))


CASES = list(itertools.product(METHODS, STANDS, REACHED))


@pytest.mark.parametrize("method,stand,reached", sample(CASES, 3))
def test_an_unused_result_of_a_pure_method(method, stand, reached, tmp_path):
    text = _text(method, stand)
    m, a = load_module(tmp_path, NP + text), load_module(tmp_path, AG + text)
    name, _ = REACHED[reached]
    if name == "loss":
        f, t, args, k = m.Model().loss, a.Model().loss, (W0, X0), 0
    elif name == "passed":
        f, t, args, k = m.passed, a.passed, (m.Helper(), W0, X0), 1
    else:
        f, t, args, k = m.held_global, a.held_global, (W0, X0), 0
    g = srcad.grad(f, wrt=k)(*args)
    np.testing.assert_allclose(g, central(f, args, k), rtol=1e-6, atol=1e-8)
    twin_args = (a.Helper(),) + args[1:] if name == "passed" else args
    np.testing.assert_allclose(g, autograd.grad(t, k)(*twin_args), rtol=1e-10, atol=1e-12)


@pytest.mark.parametrize("stand", sorted(STANDS))
def test_a_method_storing_the_value_stays_refused(stand, tmp_path):
    m = load_module(tmp_path, NP + _text("stores", stand))
    with pytest.raises(srcad.SrcadError, match="effect|changes what it is given") as err:
        srcad.grad(m.Model().loss)(W0, X0)
    assert "stores(x * w[" in err.value.construct


GETATTR = """
class Odd:
    def __init__(self):
        self.seen = []

    def __getattr__(self, name):
        self.seen.append(name)
        return 2.0

    def m(self, x):
        return x * self.s

    def loss(self, w, x):
        y = self.m(x * w[0])
        return np.sum(w * 2.0)
"""


def test_a_class_with_getattr_stays_refused(tmp_path):
    """``self.s`` runs ``__getattr__``, which changes the object: not a plain read (and the
    object's ``__getattr__`` answering ``__name__`` no longer crashes lowering)."""
    m = load_module(tmp_path, NP + GETATTR)
    with pytest.raises(srcad.SrcadError, match="effect") as err:
        srcad.grad(m.Odd().loss)(W0, X0)
    assert "self.m(x * w[0])" in err.value.construct
