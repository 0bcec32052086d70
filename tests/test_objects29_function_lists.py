"""A list attribute of functions called in a method (issue 16, objects29 item 3).

``self.acts = [np.tanh, np.sin]`` (or appended in a loop, or ``[ACTS[n] for n in names]``) in
``__init__``, then ``self.acts[i](h)``, ``for a in self.acts: h = a(h)``, ``enumerate`` or
``self.acts[-1](...)`` in a method: the list is part of the specialisation (the object's
:class:`srcad.core.functions.HeldList`, its items read where the code is made and guarded), so
the derivative is made again when the list holds other functions (an object built in the
function itself: a list written of functions in ``__init__``; one ``__init__`` computes stays
refused, its functions unknown where the code is made). A generated family (how the
list is built x how it is called x how the object reaches the code: the bound method
differentiated, an argument, built in the function) against central differences and
autograd on the same text; the list changed between calls; the list changed while the code
runs (an error, not a gradient of the old functions).
"""

from __future__ import annotations

import autograd
import numpy as np
import pytest
from class_families import module_of
from sampling import LONG, sample
from twin_checks import central

import srcad
from srcad.errors import SrcadError

HEAD = '''
import numpy as np


def relu(o):
    return np.maximum(o, 0.0) + 0.1 * o


ACTS = {"tanh": np.tanh, "sin": np.sin, "relu": relu}

'''

BUILT = {
    "display": '''
class Net:
    def __init__(self, W):
        self.W = W
        self.acts = [np.tanh, np.sin]
''',
    "appended": '''
class Net:
    def __init__(self, W):
        self.W = W
        self.acts = []
        for name in ("sin", "tanh"):
            self.acts.append(ACTS[name])
''',
    "comprehension": '''
class Net:
    def __init__(self, W, names=("tanh", "relu")):
        self.W = W
        self.acts = [ACTS[n] for n in names]
''',
}

USES = {
    "index": '''
    def f(self, x):
        h = x
        for i in range(len(self.acts)):
            h = self.acts[i](h @ self.W)
        return np.sum(h)
''',
    "iterate": '''
    def f(self, x):
        h = x
        for a in self.acts:
            h = a(h @ self.W)
        return np.sum(h ** 2)
''',
    "enumerate": '''
    def f(self, x):
        h = x
        for i, a in enumerate(self.acts):
            h = a(h @ self.W) * (i + 1.0)
        return np.sum(h)
''',
    "ends": '''
    def f(self, x):
        return np.sum(self.acts[-1](self.acts[0](x @ self.W)))
''',
}

TAIL = '''

def as_argument(net, x):
    return net.f(x)


def built_here(W, x):
    return Net(W).f(x)
'''

HOW = ("bound", "argument", "built")
CASES = [(b, u, h) for b in BUILT for u in USES for h in HOW]


def _modules(tmp_path, built, use, how):
    text = HEAD + BUILT[built] + USES[use]
    stem = f"o29f_{built}_{use}_{how}"
    return (module_of(tmp_path, text, stem, TAIL),
            module_of(tmp_path, text, stem + "_ag", TAIL, numpy="autograd.numpy"))


def _data():
    rng = np.random.default_rng(7)
    return rng.normal(size=(3, 3)) * 0.7, rng.normal(size=(4, 3))


def _gradient(mod, how, W, x):
    """The gradient with respect to ``x`` (``W`` for ``built``) and the function it is of."""
    if how == "bound":
        net = mod.Net(W)
        return net.f, (x,), 0
    if how == "argument":
        return mod.as_argument, (mod.Net(W), x), 1
    return mod.built_here, (W, x), 0


@pytest.mark.parametrize("built,use,how", sample(CASES, 36))
def test_function_list_attribute(tmp_path, built, use, how):
    W, x = _data()
    mod, twin = _modules(tmp_path, built, use, how)
    f, args, k = _gradient(mod, how, W, x)
    t, targs, _ = _gradient(twin, how, W, x)
    if how == "built" and built != "display":
        # a list __init__ computes, of an object built in the code: its functions are not
        # known where the code is made (stays refused, at the call)
        with pytest.raises(SrcadError, match="calling a function taken from a container"):
            srcad.grad(f, wrt=k)(*args)
        return
    g = srcad.grad(f, wrt=k)(*args)
    np.testing.assert_allclose(g, autograd.grad(t, k)(*targs), rtol=1e-9, atol=1e-12)
    np.testing.assert_allclose(g, central(f, list(args), k), rtol=1e-5, atol=1e-6)


@pytest.mark.skipif(not LONG, reason="the long run (SRCAD_LONG_PROPERTIES=1)")
def test_changed_between_calls(tmp_path):
    W, x = _data()
    mod, _ = _modules(tmp_path, "display", "iterate", "changed")
    net = mod.Net(W)
    df = srcad.grad(mod.as_argument, wrt=1)
    df(net, x)
    net.acts[1] = mod.relu
    np.testing.assert_allclose(df(net, x), central(mod.as_argument, [net, x], 1), rtol=1e-5,
                               atol=1e-6)
    dm = srcad.grad(net.f)
    dm(x)
    net.acts.append(np.sin)
    np.testing.assert_allclose(dm(x), central(net.f, [x], 0), rtol=1e-5, atol=1e-6)


CHANGER = '''

def swap(net):
    net.acts[0] = np.cos
    return 1.0


def changing(net, x):
    a = net.f(x)
    b = swap(net)
    return a + b * net.f(x)
'''


def test_changed_while_running(tmp_path):
    """A list changed while the code runs is refused (when made or when run), never read as
    the functions it held when the code was made."""
    W, x = _data()
    mod = module_of(tmp_path, HEAD + BUILT["display"] + USES["index"], "o29f_running",
                    CHANGER)
    net = mod.Net(W)
    with pytest.raises(SrcadError):
        srcad.grad(mod.changing, wrt=1)(net, x)
