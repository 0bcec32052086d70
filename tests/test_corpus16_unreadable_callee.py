"""A function srcad cannot read, called on values no gradient flows through (round 16).

Met in lifelines' regression fitters: ``Xs.filter(mask)`` builds the data through
``_to_1d_array``, whose ``try``/``except IndexError`` srcad cannot read, so everything read from
the result was taken as possibly complex, and lifelines' own rules (``safe_exp``), which have
no complex form, were refused ("safe_exp of a value that may be complex"): 5 example
programs. The analysis of complex values now takes such a function as NumPy's are taken:
its result may be complex only if an argument may be. Sound because (a) given a differentiated
value, the function is refused where it is called (srcad cannot differentiate it), and (b)
given none, its result is a constant, and the gradient of a real argument is checked real
when the code runs (the function is an unseen source of complex numbers), so a complex number
it returns is refused there, never taken into a wrong gradient.

The family: helpers srcad cannot read (a shape check in ``try``, a conversion with a
fallback) x how their result reaches the differentiated value (an index, a factor, an
object's data), followed by a rule without a complex form or plain NumPy, against finite
differences and autograd on the same text; value_and_grad; jvp; Hessians in both modes.
Refusals: such a helper returning a complex number (at run time), or given a differentiated
value (where the code is made: the hint names the call that passes it one).
"""

from __future__ import annotations

import importlib.util
import itertools
import textwrap

import numpy as np
import pytest
from srcad.check import numerical_grad

import srcad
from srcad.errors import UnsupportedSyntaxError

autograd = pytest.importorskip("autograd")

HELPERS = """
def as_vector(x):
    v = np.atleast_1d(x)
    try:
        if v.shape[0] > 1 and v.shape[1] > 1:
            raise ValueError("a matrix")
    except IndexError:
        pass
    return v

def as_float(k):
    try:
        return float(k)
    except TypeError:
        return 1.0

def rotated(k):
    try:
        return k * 1j
    except TypeError:
        return k

class Rows:
    def __init__(self, data):
        self.data = data

    def only(self, mask):
        return Rows(self.data[as_vector(mask)])

    def __getitem__(self, j):
        return self.data[:, j]

def soft(x):
    return np.log1p(np.exp(x))
"""

USES = {
    "index": """
        def f(w, data, mask, k):
            rows = data[as_vector(mask)]
            return np.sum(soft(rows @ w))
        """,
    "factor": """
        def f(w, data, mask, k):
            c = as_float(k) * as_vector(k)
            return np.sum(soft(data @ w) * c)
        """,
    "object": """
        def f(w, data, mask, k):
            xs = Rows(data).only(mask)
            return np.sum(soft(xs[0] * w[0] + xs[1] * w[1]))
        """,
}

TAILS = {"rule": True, "numpy": False}

DATA = np.array([[0.2, -0.4], [1.1, 0.3], [-0.6, 0.9], [0.5, 0.5]])
MASK = np.array([True, False, True, True])
W = np.array([0.7, -0.3])


def _module(source, tmp_path, numpy_name, tag, rule):
    path = tmp_path / f"unread16_{tag}_{abs(hash((source, numpy_name)))}.py"
    path.write_text(f"import {numpy_name} as np\n" + textwrap.dedent(HELPERS)
                    + textwrap.dedent(source))
    spec = importlib.util.spec_from_file_location(path.stem, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    if rule:  # srcad's rule, without a complex form (autograd reads the body)
        srcad.extend.defvjp(module.soft, "x", x="g / (1.0 + np.exp(-x))",
                            jvp=dict(x="t / (1.0 + np.exp(-x))"))
    return module


@pytest.mark.parametrize("use,tail", list(itertools.product(USES, TAILS)))
def test_a_constant_made_by_a_function_srcad_cannot_read(use, tail, tmp_path):
    m = _module(USES[use], tmp_path, "numpy", "np", TAILS[tail])
    a = _module(USES[use], tmp_path, "autograd.numpy", "ag", False)
    args = (W, DATA, MASK, 1.5)
    g = srcad.grad(m.f)(*args)
    np.testing.assert_allclose(g, numerical_grad(m.f, args, 0), rtol=1e-6, atol=1e-9)
    np.testing.assert_allclose(g, autograd.grad(a.f)(*args), rtol=1e-10, atol=1e-12)
    value, g2 = srcad.value_and_grad(m.f)(*args)
    assert value == pytest.approx(m.f(*args), rel=1e-12)
    np.testing.assert_allclose(g2, g, rtol=1e-12)
    t = np.array([0.4, -1.1])
    assert srcad.jvp(m.f, args, (t,), wrt=0)[1] == pytest.approx(float(g @ t), rel=1e-10)
    expected = autograd.hessian(a.f)(*args)
    for mode in ("fwd", "rev"):
        np.testing.assert_allclose(srcad.hessian(m.f, mode=mode)(*args), expected,
                                   rtol=1e-8, atol=1e-10)


def test_a_complex_number_it_returns_is_refused_when_the_code_runs(tmp_path):
    source = """
        def f(w, data, mask, k):
            c = rotated(k)
            return np.sum(np.abs(w * c) ** 2)
        """
    m = _module(source, tmp_path, "numpy", "np", False)
    with pytest.raises(UnsupportedSyntaxError) as info:
        srcad.grad(m.f)(W, DATA, MASK, 2.0)
    assert "came out complex" in info.value.message and "'w'" in info.value.message
    assert "make the value real where it is made" in info.value.hint


def test_given_a_differentiated_value_it_is_refused(tmp_path):
    source = """
        def f(w, data, mask, k):
            return np.sum(as_vector(w) ** 2)
        """
    m = _module(source, tmp_path, "numpy", "np", False)
    with pytest.raises(UnsupportedSyntaxError) as info:
        srcad.grad(m.f)(W, DATA, MASK, 1.5)
    assert "try/except" in info.value.message
    assert info.value.lineno == 5  # the try of as_vector
    assert "test the condition with an if" in info.value.hint
    # ... and which call makes srcad differentiate it, with the way out there
    assert "as_vector is differentiated because" in info.value.hint
    lines = open(m.__file__).read().splitlines()
    call_line = 1 + next(i for i, t in enumerate(lines) if "as_vector(w)" in t)
    assert f"line {call_line} passes it a differentiated value" in info.value.hint
    assert "np.sum(as_vector(w) ** 2)" in info.value.hint
    assert "srcad.stop_gradient(value)" in info.value.hint
