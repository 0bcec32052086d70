"""A helper called with some of its defaults, its result then written in place (round 21's
outside programs).

Met in jejjohnson/gp_autograd (a Gaussian process as a scikit-learn estimator): the bound
method ``log_marginal_likelihood`` calls ``K = self.rbf_covariance(x_train, length_scale=l,
signal_variance=s)`` (``def rbf_covariance(self, X, y=None, signal_variance=1.0,
length_scale=1.0)``: ``y`` left to its default) and then ``K += noise * np.eye(n)``. The memory
analysis read a call leaving a parameter to its default as a call it cannot follow, so the
result "may be a global a function srcad does not read returns": the ``+=`` was refused, and
where the program also held a global array the analysis crashed (``TypeError`` sorting its
tokens: ``("global", "?")`` beside ``("global", id)``). A default now stands for its own value:
a number, None, a string or a tuple of those is no object, a list or an array default is that
one object (shared by every call: writing into it stays refused, naming the default).

The family: which default the call leaves (``y=None``, a number, a string switch, all of them)
x how the caller changes the result in place (``+=``, an item set, ``*=``, a column set)
x where the data come from (a parameter, a global array), against central differences and
autograd on the same text; the refusals that stay (a helper returning its array or list
default, then written).
"""

from __future__ import annotations

import importlib.util
import itertools
import textwrap

import numpy as np
import pytest
from sampling import sample
from twin_checks import central

import srcad
from srcad.errors import SrcadError

autograd = pytest.importorskip("autograd")

HELPER = """
def kern(X, y=None, s=1.0, kind="rbf", scale=1.0):
    if y is None:
        y = X
    d = X[:, None, :] - y[None, :, :]
    out = s * np.exp(-0.5 * np.sum(d ** 2, axis=2) / scale)
    if kind == "lin":
        out = out + X @ y.T
    return out
"""

CALLS = {
    "y_left": "kern(X, s=np.exp(t[0]))",
    "kind_left": "kern(X, X, np.exp(t[0]))",
    "switch_given": "kern(X, kind='lin', scale=t[2] ** 2 + 1.0)",
    "all_left": "np.exp(t[0]) * kern(X)",
}

WRITES = {
    "iadd": "K += t[1] * np.eye(K.shape[0])",
    "item": "K[0, 0] = t[1] + 2.0",
    "imul": "K *= t[1] ** 2 + 0.5",
    "column": "K[:, 0] = K[:, 0] + t[1]",
}

#: the same change written as a new value, for the autograd twin (autograd's arrays take no
#: item writes)
TWIN_WRITES = dict(WRITES, **{
    "item": "K = np.where((np.arange(K.shape[0])[:, None] == 0) & "
            "(np.arange(K.shape[1])[None, :] == 0), t[1] + 2.0, K)",
    "column": "K = K + t[1] * (np.arange(K.shape[1]) == 0)",
})

DATA = {
    "param": "",
    "global": "    X = XG\n",
}

CASES = list(itertools.product(CALLS, WRITES, DATA))
XG = np.random.RandomState(5).randn(4, 2)
T0 = np.array([0.3, 0.7, -0.4])


def _text(call, write, data, writes=WRITES):
    return HELPER + (
        "\n\ndef objective(t, X):\n" + DATA[data] + f"    K = {CALLS[call]}\n    {writes[write]}\n"
        "    L = np.linalg.cholesky(K @ K.T + 3.0 * np.eye(K.shape[0]))\n"
        "    return np.sum(np.log(np.diag(L))) + np.sum(K * X[:, :1])\n")


def _module(tmp_path, text, numpy_name, tag):
    path = tmp_path / f"defaults21_{tag}.py"
    path.write_text(f"import {numpy_name} as np\n" + textwrap.dedent(text))
    spec = importlib.util.spec_from_file_location(path.stem, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    module.XG = XG
    return module


@pytest.mark.parametrize("call,write,data", sample(CASES, 5))
def test_a_result_with_defaults_left_written_in_place(call, write, data, tmp_path):
    text = _text(call, write, data)
    tag = f"{call}_{write}_{data}"
    m = _module(tmp_path, text, "numpy", tag)
    a = _module(tmp_path, _text(call, write, data, TWIN_WRITES), "autograd.numpy", tag + "_ag")
    X = XG + 0.1
    g = srcad.grad(m.objective)(T0, X)
    np.testing.assert_allclose(g, central(m.objective, (T0, X), 0), rtol=1e-6, atol=1e-8)
    np.testing.assert_allclose(g, autograd.grad(a.objective)(T0, X), rtol=1e-10, atol=1e-12)
    value, g2 = srcad.value_and_grad(m.objective)(T0, X)
    assert value == pytest.approx(m.objective(T0, X), rel=1e-12)
    np.testing.assert_allclose(g2, g, rtol=1e-12, atol=1e-14)


def test_the_gaussian_process_method_as_written(tmp_path):
    """The program's shape: a bound method calling another with ``y`` left to None."""
    text = """
    class GP:
        def __init__(self, X, y):
            self.X_train_ = X
            self.y_train_ = y
            self.jitter = 1e-8

        def rbf_covariance(self, X, y=None, signal_variance=1.0, length_scale=1.0):
            if y is None:
                y = X
            D = np.expand_dims(X / length_scale, 1) - np.expand_dims(y / length_scale, 0)
            return signal_variance * np.exp(-0.5 * np.sum(D ** 2, axis=2))

        def log_marginal_likelihood(self, theta):
            x_train = self.X_train_
            n = x_train.shape[0]
            K = self.rbf_covariance(x_train, length_scale=np.exp(theta[2:]),
                                    signal_variance=np.exp(theta[0]))
            K += np.exp(theta[1]) * np.eye(n)
            L = np.linalg.cholesky(K + self.jitter * np.eye(n))
            w = np.linalg.solve(L.T, np.linalg.solve(L, self.y_train_))
            return 0.5 * self.y_train_ @ w + np.log(np.diag(L)).sum()
    """
    m = _module(tmp_path, text, "numpy", "gp")
    a = _module(tmp_path, text, "autograd.numpy", "gp_ag")
    rs = np.random.RandomState(0)
    X, y = rs.randn(6, 2), rs.randn(6)
    theta = np.array([0.1, -1.0, 0.3, -0.2])
    gp, gpa = m.GP(X, y), a.GP(X, y)
    value, g = srcad.value_and_grad(gp.log_marginal_likelihood)(theta)
    assert value == pytest.approx(gp.log_marginal_likelihood(theta), rel=1e-12)
    np.testing.assert_allclose(g, autograd.grad(gpa.log_marginal_likelihood)(theta),
                               rtol=1e-9, atol=1e-12)
    np.testing.assert_allclose(g, central(gp.log_marginal_likelihood, (theta,), 0),
                               rtol=1e-6, atol=1e-8)


REFUSED = """
BUF = np.zeros(3)

def returns_array_default(X, buf=BUF):
    return buf

def returns_list_default(X, acc=[np.zeros(3)]):
    return acc[0]

def writes_array_default(t):
    K = returns_array_default(XG)
    K += t
    return np.sum(K * XG[:3, 0])

def writes_list_default(t):
    K = returns_list_default(XG)
    K[1] = t[0]
    return np.sum(K)
"""


@pytest.mark.parametrize("name", ["writes_array_default", "writes_list_default"])
def test_writing_into_a_default_stays_refused(name, tmp_path):
    """A default is one object every call shares: changing it in place would change later
    calls. Refused at the line, naming the default (before: a crash sorting tokens)."""
    m = _module(tmp_path, REFUSED, "numpy", "refused_" + name)
    with pytest.raises(SrcadError) as caught:
        srcad.grad(getattr(m, name))(np.array([0.2, 0.3, 0.1]))
    message = str(caught.value)
    assert "default for" in message and "in place" in message
    assert caught.value.lineno is not None
