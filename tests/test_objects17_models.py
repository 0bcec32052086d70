"""Twenty small programs written the way people write models (issue 16, objects17).

MLP classes (parameters in a list of pairs, a dict, a list of layer objects built in
``__init__`` from sizes and a flat vector, layers held in attributes, an activation given or
defaulted, held by each layer), an RNN cell as a class, optimisers as classes with ``step``
(one stateless, unrolled with ``srcad.grad`` inside; one keeping momentum in an attribute),
a Gaussian process with a kernel method, an encoder/decoder pair from a factory, a
residual stack iterated with ``enumerate``, a property computing a constrained parameter.
Each is differentiated with respect to a number that scales its weights (or a flat
vector), checked against central finite differences and autograd (the same program under
``autograd.numpy``); the forms still refused are checked for their error, line and hint.
"""

from __future__ import annotations

import importlib.util

import autograd
import numpy as np
import pytest

import srcad
from srcad.errors import SrcadError

PROGRAMS = """import numpy as np
from dataclasses import dataclass, field

rng = np.random.default_rng(0)
X = rng.normal(size=(5, 3))
Y = rng.normal(size=(5, 2))
W1 = rng.normal(size=(3, 4)); B1 = rng.normal(size=4)
W2 = rng.normal(size=(4, 2)); B2 = rng.normal(size=2)

# 1 MLP with sizes, params list
class MLP1:
    def __init__(self, params, act=np.tanh):
        self.params = params
        self.act = act
    def forward(self, x):
        for W, b in self.params[:-1]:
            x = self.act(x @ W + b)
        W, b = self.params[-1]
        return x @ W + b
def p1(w):
    m = MLP1([(W1 * w, B1), (W2, B2)])
    return np.mean((m.forward(X) - Y) ** 2)

# 2 Model with params dict and forward
class Model2:
    def __init__(self, params):
        self.params = params
    def forward(self, x):
        h = np.tanh(x @ self.params["W1"] + self.params["b1"])
        return h @ self.params["W2"] + self.params["b2"]
    def loss(self, x, y):
        return np.mean((self.forward(x) - y) ** 2)
def p2(w):
    m = Model2({"W1": W1 * w, "b1": B1, "W2": W2, "b2": B2})
    return m.loss(X, Y)

# 3 params dict wrt directly, model class holding only config
class Model3:
    def __init__(self, act=np.tanh):
        self.act = act
    def forward(self, params, x):
        return self.act(x @ params["W1"] + params["b1"]) @ params["W2"] + params["b2"]
MODEL3 = Model3()
def p3(params):
    return np.mean((MODEL3.forward(params, X) - Y) ** 2)

# 4 RNN cell as a class used over time
class RNNCell:
    def __init__(self, Wx, Wh, b):
        self.Wx, self.Wh, self.b = Wx, Wh, b
    def __call__(self, h, x):
        return np.tanh(x @ self.Wx + h @ self.Wh + self.b)
def p4(w):
    cell = RNNCell(W1 * w, np.eye(4) * 0.5, B1)
    h = np.zeros(4)
    for t in range(X.shape[0]):
        h = cell(h, X[t])
    return np.sum(h ** 2)

# 5 SGD optimiser class with step, unrolled inner loop (meta-learning style)
class SGD:
    def __init__(self, lr):
        self.lr = lr
    def step(self, w, g):
        return w - self.lr * g
def inner_loss(w):
    return np.sum((X @ w - Y[:, 0]) ** 2)
import srcad


def p5(lr):
    opt = SGD(lr)
    w = np.zeros(3)
    for _ in range(3):
        w = opt.step(w, srcad.grad(inner_loss)(w))
    return inner_loss(w)

# 6 momentum optimiser with state in attributes (written in step)
class Momentum:
    def __init__(self, lr, beta=0.9):
        self.lr, self.beta = lr, beta
        self.v = 0.0
    def step(self, w, g):
        self.v = self.beta * self.v + g
        return w - self.lr * self.v
def p6(lr):
    opt = Momentum(lr)
    w = np.zeros(3)
    for _ in range(3):
        w = opt.step(w, srcad.grad(inner_loss)(w))
    return inner_loss(w)

# 7 layers from sizes in __init__ with a helper init
class Dense:
    def __init__(self, W, b):
        self.W = W
        self.b = b
    def __call__(self, x):
        return x @ self.W + self.b
class Seq:
    def __init__(self, *layers):
        self.layers = list(layers)
    def __call__(self, x):
        for l in self.layers:
            x = np.tanh(l(x))
        return x
def p7(w):
    net = Seq(Dense(W1 * w, B1), Dense(W2, B2))
    return np.sum(net(X))

# 8 Seq with layers list passed (list literal)
class Seq2:
    def __init__(self, layers):
        self.layers = layers
    def __call__(self, x):
        for l in self.layers:
            x = np.tanh(l(x))
        return x
def p8(w):
    net = Seq2([Dense(W1 * w, B1), Dense(W2, B2)])
    return np.sum(net(X))

# 9 dataclass model with list of layer dataclasses, wrt
@dataclass
class DL:
    W: np.ndarray
    b: np.ndarray
@dataclass
class DNet:
    layers: list
    def __call__(self, x):
        for l in self.layers:
            x = np.tanh(x @ l.W + l.b)
        return x
def p9(net):
    return np.sum(net(X))

# 10 network with layer sizes, weights built from a flat vector (unflatten)
class FlatNet:
    def __init__(self, theta, sizes):
        self.layers = []
        k = 0
        for m, n in zip(sizes[:-1], sizes[1:]):
            W = theta[k:k + m * n].reshape(m, n)
            k = k + m * n
            self.layers.append(Dense(W, np.zeros(n)))
    def __call__(self, x):
        for l in self.layers:
            x = np.tanh(l(x))
        return x
def p10(theta):
    return np.sum(FlatNet(theta, [3, 4, 2])(X))

# 11 activation held in a dict by name
ACTS = {"tanh": np.tanh, "sin": np.sin}
class ActNet:
    def __init__(self, W, act="tanh"):
        self.W = W
        self.act = ACTS[act]
    def __call__(self, x):
        return self.act(x @ self.W)
def p11(w):
    return np.sum(ActNet(W1 * w, "sin")(X))

# 12 Layer with activation, layers list
class ALayer:
    def __init__(self, W, b, act=np.tanh):
        self.W, self.b, self.act = W, b, act
    def __call__(self, x):
        return self.act(x @ self.W + self.b)
class ANet:
    def __init__(self, Ws, bs):
        self.layers = [ALayer(W, b) for W, b in zip(Ws, bs)]
    def __call__(self, x):
        for l in self.layers:
            x = l(x)
        return x
def p12(w):
    return np.sum(ANet([W1 * w, W2], [B1, B2])(X))

# 13 Model with forward calling self.layer1/self.layer2 attributes
class TwoLayer:
    def __init__(self, W1, b1, W2, b2):
        self.l1 = Dense(W1, b1)
        self.l2 = Dense(W2, b2)
    def forward(self, x):
        return self.l2(np.tanh(self.l1(x)))
def p13(w):
    return np.sum(TwoLayer(W1 * w, B1, W2, B2).forward(X) ** 2)

# 14 GP-like class: kernel method, params as attributes
class GP:
    def __init__(self, ls, var):
        self.ls = ls
        self.var = var
    def kernel(self, a, b):
        d = a[:, None, :] - b[None, :, :]
        return self.var * np.exp(-0.5 * np.sum(d ** 2, axis=-1) / self.ls ** 2)
    def nll(self, x, y):
        K = self.kernel(x, x) + 0.1 * np.eye(x.shape[0])
        return 0.5 * y @ np.linalg.solve(K, y) + 0.5 * np.linalg.slogdet(K)[1]
def p14(ls):
    return GP(ls, 1.3).nll(X, Y[:, 0])

# 15 class method factory
class Lin:
    def __init__(self, W, b):
        self.W = W
        self.b = b
    @classmethod
    def create(cls, W):
        return cls(W, np.zeros(W.shape[1]))
    def __call__(self, x):
        return x @ self.W + self.b
def p15(w):
    return np.sum(Lin.create(W1 * w)(X))

# 16 layers dict in __init__
class DictNet:
    def __init__(self, W1, W2):
        self.layers = {"enc": Dense(W1, B1), "dec": Dense(W2, B2)}
    def __call__(self, x):
        return self.layers["dec"](np.tanh(self.layers["enc"](x)))
def p16(w):
    return np.sum(DictNet(W1 * w, W2)(X))

# 17 residual blocks via list of layers with same shapes and a loop with enumerate
class Res:
    def __init__(self, Ws):
        self.blocks = [Dense(W, np.zeros(3)) for W in Ws]
    def __call__(self, x):
        for i, b in enumerate(self.blocks):
            x = x + 0.5 ** i * np.tanh(b(x))
        return x
def p17(w):
    return np.sum(Res([np.eye(3) * w, np.eye(3)])(X))

# 18 encoder/decoder from a factory returning tuple
class Enc:
    def __init__(self, W): self.W = W
    def __call__(self, x): return np.tanh(x @ self.W)
class Dec:
    def __init__(self, W): self.W = W
    def __call__(self, h): return h @ self.W
def build(w):
    return Enc(W1 * w), Dec(W1.T)
def p18(w):
    enc, dec = build(w)
    return np.mean((dec(enc(X)) - X) ** 2)

# 19 property based params
class Softplus:
    def __init__(self, raw):
        self.raw = raw
    @property
    def value(self):
        return np.log1p(np.exp(self.raw))
def p19(r):
    s = Softplus(r)
    return np.sum(s.value * X)

# 20 list of layers with activation list
class Net20:
    def __init__(self, Ws, acts):
        self.Ws = Ws
        self.acts = acts
    def __call__(self, x):
        for W, a in zip(self.Ws, self.acts):
            x = a(x @ W)
        return x
def p20(w):
    return np.sum(Net20([W1 * w, W2], [np.tanh, np.sin])(X))
"""

WORKS = ["p1", "p2", "p4", "p5", "p7", "p8", "p10", "p11", "p12", "p13", "p14", "p16", "p17",
         "p18", "p19", "p20"]
#: name -> (the line refused, words of the hint)
REFUSED = {
    "p6": ("self.v = self.beta * self.v + g", "return"),
    "p15": ("return np.sum(Lin.create(W1 * w)(X))", ""),
}


def _module(tmp_path, stem, numpy="numpy"):
    path = tmp_path / f"{stem}.py"
    path.write_text(PROGRAMS.replace("import numpy as np", f"import {numpy} as np"))
    spec = importlib.util.spec_from_file_location(stem, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.fixture(scope="module")
def modules(tmp_path_factory):
    where = tmp_path_factory.mktemp("models17")
    return _module(where, "models17"), _module(where, "models17a", "autograd.numpy")


def _point(name):
    return np.linspace(-0.5, 0.5, 20) if name == "p10" else 0.7


@pytest.mark.parametrize("name", WORKS)
def test_model_gradient(modules, name):
    m, ma = modules
    f, x0 = getattr(m, name), _point(name)
    value, g = srcad.value_and_grad(f)(x0)
    assert value == pytest.approx(f(x0), rel=1e-12)
    h = 1e-6
    if np.ndim(x0):
        fd = np.array([(f(x0 + h * e) - f(x0 - h * e)) / (2 * h) for e in np.eye(x0.size)])
    else:
        fd = (f(x0 + h) - f(x0 - h)) / (2 * h)
    np.testing.assert_allclose(g, fd, rtol=1e-5, atol=1e-7)
    if name != "p5":  # (p5 calls srcad.grad inside: autograd does not read it)
        np.testing.assert_allclose(g, autograd.grad(getattr(ma, name))(x0), rtol=1e-9,
                                   atol=1e-12)
    value, t = srcad.jvp(f, (x0,), (np.ones_like(x0) if np.ndim(x0) else 1.0,))
    assert float(t) == pytest.approx(float(np.sum(g)), rel=1e-9, abs=1e-12)


@pytest.mark.parametrize("name", ["p4", "p7", "p8", "p12", "p13", "p18"])
@pytest.mark.parametrize("mode", ["fwd", "rev"])
def test_model_second_derivative(modules, name, mode):
    m, ma = modules
    got = srcad.hessian(getattr(m, name), mode=mode)(0.7)
    want = autograd.hessian(getattr(ma, name))(0.7)
    assert float(np.squeeze(got)) == pytest.approx(float(want), rel=1e-8, abs=1e-10)


def test_wrt_dict_and_dataclass_of_layers(modules):
    m, ma = modules
    params = {"W1": m.W1, "b1": m.B1, "W2": m.W2, "b2": m.B2}
    g = srcad.grad(m.p3)(params)
    want = autograd.grad(ma.p3)(params)
    for k in params:
        np.testing.assert_allclose(g[k], want[k], rtol=1e-9, atol=1e-12)
    net = m.DNet([m.DL(m.W1, m.B1), m.DL(m.W2, m.B2)])
    g = srcad.grad(m.p9)(net)

    def flat(W1):
        return ma.p9(ma.DNet([ma.DL(W1, m.B1), ma.DL(m.W2, m.B2)]))

    np.testing.assert_allclose(g.layers[0].W, autograd.grad(flat)(m.W1), rtol=1e-9,
                               atol=1e-12)


@pytest.mark.parametrize("name", list(REFUSED))
def test_model_refused(modules, name):
    m, _ = modules
    line, words = REFUSED[name]
    with pytest.raises(SrcadError) as info:
        srcad.grad(getattr(m, name))(0.7)
    assert (info.value.construct or "").strip() == line, str(info.value)
    assert words in (info.value.hint or "")
