"""Lists of objects crossing calls (issue 16, objects29): helmrad's BNN as a family.

A list of objects of a plain class built from differentiated values in one method
(``nets.append(DNN(w, self.acts))``, or ``net = DNN(...)`` then ``nets.append(net)``),
returned, and read in others (``nets[k].execute(x)``, ``nets[k].w[m]``), each object holding
a list of weight arrays and a list of activation functions: the callee's body is written in
place where the list crosses a call (:mod:`srcad.frontend.inline_lists`), the list of
functions every item holds is held, not a column (:mod:`srcad.frontend.held_items`). Also
``sum(L[k].m(x) for k in range(K))`` with ``L`` built in the function. A generated family
(how the list is built x how it is used, also two lists from one builder x where the
activations come from) checked in grad against central differences and autograd on the same
text; refusals that stay (an attribute written after the list is built, a method writing
its object's fields); ``nets[k].execute(x)`` on a list passed in.
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

CLASSES = '''
import numpy as np


def relu(o):
    return np.maximum(o, 0.0)


def linear(o):
    return o


ACTS = (np.tanh, linear)


class DNN:
    def __init__(self, w, acts):
        self.w = w
        self.activations = acts

    def execute(self, x):
        h = x
        for layer in range(0, len(self.w)):
            h = self.activations[layer](np.dot(h, self.w[layer]))
        return h


class Plain:
    def __init__(self, w):
        self.w = w

    def execute(self, x):
        return np.sin(np.dot(x, self.w[0])) * np.sum(self.w[1])


class BNN:
    def __init__(self, K, W2, acts):
        self.K = K
        self.W2 = W2
        self.activations = []
        for a in acts:
            self.activations.append(a)
        self.log = []

    def weights(self, w1, k):
        return [w1 * (k + 1.0), self.W2 * np.sum(w1)]

'''

#: how the list is built: a method of BNN (the name ``{acts}`` is the activations' source)
BUILD = {
    "method": '''
    def sample(self, w1):
        nets = []
        for k in range(0, self.K):
            w = []
            for m in range(2):
                w.append(self.weights(w1, k)[m])
            net = DNN(w, {acts})
            nets.append(net)
        return nets
''',
    "method_direct": '''
    def sample(self, w1):
        nets = []
        for k in range(self.K):
            nets.append(DNN(self.weights(w1, k), {acts}))
        return nets
''',
}

#: how it is used: the method differentiated (``self.sample(w1)`` or built in place)
USE = {
    "indexed": '''
    def energy(self, w1, x):
        nets = self.sample(w1)
        s = 0.0
        for k in range(0, self.K):
            s = s + np.sum(nets[k].execute(x) ** 2)
        return s
''',
    "passed": '''
    def likelihoods(self, nets, x):
        lls = []
        for k in range(0, self.K):
            out = nets[k].execute(x)
            lls.append(np.exp(-np.sum(out ** 2)))
        return lls

    def energy(self, w1, x):
        nets = self.sample(w1)
        lls = self.likelihoods(nets, x)
        return -np.log(sum(lls))
''',
    "passed_twice": '''
    def factors(self, nets):
        fs = []
        for k in range(0, self.K):
            f = 0.0
            for mesh in range(0, len(nets[k].w)):
                f = f + np.sum(nets[k].w[mesh] ** 2)
            fs.append(f)
        return fs

    def likelihoods(self, nets, x):
        fs = self.factors(nets)
        lls = []
        for k in range(0, self.K):
            lls.append(np.sum(nets[k].execute(x)) / (1.0 + fs[k]))
        return lls

    def energy(self, w1, x):
        nets = self.sample(w1)
        lls = self.likelihoods(nets, x)
        total = 0.0
        for k in range(self.K):
            total = total + lls[k]
        return total
''',
    "summed": '''
    def energy(self, w1, x):
        nets = self.sample(w1)
        return sum(np.sum(nets[k].execute(x)) for k in range(self.K))
''',
    "twice": '''
    def energy(self, w1, x):
        nets = self.sample(w1)
        more = self.sample(w1 * 0.5)
        s = 0.0
        for k in range(self.K):
            s = s + np.sum(nets[k].execute(x) * more[k].execute(x))
        return s
''',
    "iterated_direct": '''
    def energy(self, w1, x):
        s = 0.0
        for net in self.sample(w1):
            s = s + np.sum(np.cos(net.execute(x)))
        return s
''',
    "passed_direct": '''
    def energy(self, w1, x):
        return -np.log(sum(likelihoods(self.sample(w1), x, self.K)))


def likelihoods(nets, x, K):
    lls = []
    for k in range(0, K):
        lls.append(np.exp(-np.sum(nets[k].execute(x) ** 2)))
    return lls
''',
    "iterated": '''
    def energy(self, w1, x):
        nets = self.sample(w1)
        s = 0.0
        for net in nets:
            s = s + np.sum(np.cos(net.execute(x)))
        return s
''',
}

ACTS = {"attribute": "self.activations", "global": "ACTS"}

CASES = [(b, u, a) for b in BUILD for u in USE for a in ACTS]
CASES.insert(0, CASES.pop(CASES.index(("method", "passed_twice", "attribute"))))  # helmrad's


def _text(build, use, acts):
    return CLASSES + BUILD[build].format(acts=ACTS[acts]) + USE[use]


def _data():
    rng = np.random.default_rng(29)
    return rng.normal(size=(3, 4)) * 0.5, rng.normal(size=(4, 2)) * 0.5, \
        rng.normal(size=(5, 3))


@pytest.mark.parametrize("build,use,acts", sample(CASES, 20))
def test_list_crossing_calls(tmp_path, build, use, acts):
    w1, W2, x = _data()
    text = _text(build, use, acts)
    mod = module_of(tmp_path, text, f"o29_{build}_{use}_{acts}", "")
    twin = module_of(tmp_path, text, f"o29a_{build}_{use}_{acts}", "", numpy="autograd.numpy")
    net = mod.BNN(3, W2, [np.tanh, mod.linear])
    other = twin.BNN(3, W2, [autograd.numpy.tanh, twin.linear])
    g = srcad.grad(lambda w: net.energy(w, x))(w1)
    want = autograd.grad(lambda w: other.energy(w, x))(w1)
    np.testing.assert_allclose(g, want, rtol=1e-9, atol=1e-12)
    np.testing.assert_allclose(g, central(lambda w: net.energy(w, x), [w1], 0), rtol=1e-5,
                               atol=1e-6)


@pytest.mark.skipif(not LONG, reason="the long run (SRCAD_LONG_PROPERTIES=1)")
def test_activations_changed_between_calls(tmp_path):
    """The list of functions the items were built with is guarded: changed after the
    derivative was made, the derivative is made again for the new functions."""
    w1, W2, x = _data()
    mod = module_of(tmp_path, _text("method", "passed", "attribute"), "o29_changed", "")
    net = mod.BNN(3, W2, [np.tanh, mod.linear])
    df = srcad.grad(lambda w: net.energy(w, x))
    df(w1)
    net.activations[0] = np.sin
    want = central(lambda w: net.energy(w, x), [w1], 0)
    np.testing.assert_allclose(df(w1), want, rtol=1e-5, atol=1e-6)


SUM_IN_FUNCTION = '''

def loss(w, x):
    L = [Plain([w * 1.0, w * 2.0]), Plain([w * 3.0, w])]
    return sum(np.sum(L[k].execute(x)) for k in range(2))


def loss_listcomp(w, x):
    L = []
    for k in range(3):
        L.append(Plain([w * (k + 1.0), w]))
    return np.sum(np.array([np.sum(L[k].execute(x)) for k in range(len(L))]))
'''


@pytest.mark.parametrize("name", sample(["loss", "loss_listcomp"], 1))
def test_sum_of_methods_over_indices(tmp_path, name):
    rng = np.random.default_rng(3)
    w, x = rng.normal(size=(3, 3)), rng.normal(size=(4, 3))
    mod = module_of(tmp_path, CLASSES, f"o29s_{name}", SUM_IN_FUNCTION)
    twin = module_of(tmp_path, CLASSES, f"o29sa_{name}", SUM_IN_FUNCTION,
                     numpy="autograd.numpy")
    f = getattr(mod, name)
    g = srcad.grad(f)(w, x)
    np.testing.assert_allclose(g, autograd.grad(getattr(twin, name))(w, x), rtol=1e-9)
    np.testing.assert_allclose(g, central(f, [w, x], 0), rtol=1e-5, atol=1e-6)


REFUSED = {
    "field_written": '''
    def energy(self, w1, x):
        nets = self.sample(w1)
        first = nets[0]
        first.w = [w1, w1]
        s = 0.0
        for k in range(0, self.K):
            s = s + np.sum(nets[k].execute(x))
        return s
''',
    "method_writes": '''
    def energy(self, w1, x):
        nets = self.sample(w1)
        s = 0.0
        for k in range(0, self.K):
            s = s + np.sum(nets[k].run_and_keep(x))
        return s
''',
}

KEEPER = '''

class Keeper(DNN):
    def run_and_keep(self, x):
        self.last = self.execute(x)
        return self.last
'''


@pytest.mark.parametrize("case", sample(sorted(REFUSED, reverse=True), 1))
def test_refused(tmp_path, case):
    w1, W2, x = _data()
    text = CLASSES.replace("class BNN:", KEEPER.strip() + "\n\n\nclass BNN:") + BUILD[
        "method"].format(acts="self.activations").replace("DNN(w,", "Keeper(w,") + REFUSED[case]
    mod = module_of(tmp_path, text, f"o29r_{case}", "")
    net = mod.BNN(3, W2, [np.tanh, mod.linear])
    with pytest.raises(SrcadError) as info:
        srcad.grad(lambda w: net.energy(w, x))(w1)
    assert info.value.lineno is not None and "writing" in str(info.value)


ARGUMENT = '''

def loss_argument(nets, x):
    s = 0.0
    for k in range(len(nets)):
        s = s + np.sum(nets[k].execute(x))
    return s + sum(np.sum(nets[k].execute(x) ** 2) for k in range(len(nets)))
'''


@pytest.mark.skipif(not LONG, reason="the long run (SRCAD_LONG_PROPERTIES=1)")
def test_list_argument_indexed(tmp_path):
    """``nets[k].execute(x)`` on a list of objects passed in (its class known from the
    specialisation's values), also in a generator given to ``sum``."""
    rng = np.random.default_rng(5)
    x = rng.normal(size=(4, 3))
    mod = module_of(tmp_path, CLASSES, "o29_argument", ARGUMENT)
    twin = module_of(tmp_path, CLASSES, "o29_argument_ag", ARGUMENT, numpy="autograd.numpy")
    ws = [[rng.normal(size=(3, 3)), rng.normal(size=(3, 2))] for _ in range(3)]
    nets = [mod.DNN(w, [np.tanh, mod.linear]) for w in ws]
    others = [twin.DNN(w, [autograd.numpy.tanh, twin.linear]) for w in ws]
    g = srcad.grad(mod.loss_argument, wrt=1)(nets, x)
    np.testing.assert_allclose(g, autograd.grad(twin.loss_argument, 1)(others, x), rtol=1e-9)
    np.testing.assert_allclose(g, central(mod.loss_argument, [nets, x], 1), rtol=1e-5,
                               atol=1e-6)
