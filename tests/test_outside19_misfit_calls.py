"""A list method called with arguments no list takes (round 19's outside programs).

Met in helmrad/Bayesian-Neural-Network-with-Stochastic-Inputs: a warning logged as
``self.errormsg.append('one ll is zero.', np.argmin(ll))`` in a branch that runs only when a
likelihood underflows. Python raises ``TypeError`` there if it runs; srcad crashed while it
made the code (``ValueError: too many values to unpack`` in its list analysis, which read every
``.append`` as one item written). Such a call (``append``/``extend`` with other than one
positional argument, or with keywords) is now a check that raises where the call runs:
Python's ``TypeError`` for a list, a refusal at the line for any other object.

The family: the call's form (two items, none, keywords; ``append``, ``extend``) x where the
list is (a local list, a list attribute of the object, a list argument) x whether its branch
runs. When it does not run: gradients against finite differences and autograd on the same
text, value_and_grad, jvp, Hessians in both modes. When it runs: the same TypeError as Python
(and as autograd). On an object that is not a list: UnsupportedSyntaxError at the line.
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

CALLS = {
    "two items": "LOG.append('a value under the floor', np.argmin(w))",
    "no item": "LOG.append()",
    "keyword": "LOG.append(item='under')",
    "extend two": "LOG.extend(['under'], [1])",
}

PLACES = {
    "local": ("log = []", "log"),
    "attribute": ("", "self.log"),
    "argument": ("", "log_arg"),
}

TEMPLATE = """
class Model:
    def __init__(self):
        self.log = []

    def loss(self, w, floor, log_arg):
        {setup}
        s = np.sum(np.exp(w) * w)
        if s < floor:
            {call}
        return s * s + np.sum(w ** 3)

def loss(w, floor, log_arg):
    return Model().loss(w, floor, log_arg)

import collections

def other(w):
    box = collections.deque()
    box.append(w, 1.0)
    return np.sum(w)
"""

W = np.array([0.3, -0.2, 0.5])


def _module(tmp_path, numpy_name, call, place):
    setup, spelled = PLACES[place]
    text = TEMPLATE.replace("{setup}", setup or "pass").replace(
        "{call}", CALLS[call].replace("LOG", spelled))
    path = tmp_path / f"misfit19_{numpy_name.replace('.', '_')}.py"
    path.write_text(f"import {numpy_name} as np\n" + textwrap.dedent(text))
    spec = importlib.util.spec_from_file_location(path.stem, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.mark.parametrize("call,place", list(itertools.product(CALLS, PLACES)))
def test_a_misfit_list_call_in_a_branch_not_taken(call, place, tmp_path):
    m = _module(tmp_path, "numpy", call, place)
    a = _module(tmp_path, "autograd.numpy", call, place)
    args = (W, -1.0, [])
    g = srcad.grad(m.loss)(*args)
    np.testing.assert_allclose(g, numerical_grad(m.loss, args, 0), rtol=1e-6, atol=1e-8)
    np.testing.assert_allclose(g, autograd.grad(a.loss)(*args), rtol=1e-10, atol=1e-12)
    value, g2 = srcad.value_and_grad(m.loss)(*args)
    assert value == pytest.approx(m.loss(*args), rel=1e-12)
    np.testing.assert_allclose(g2, g, rtol=1e-12)
    t = np.array([0.4, -1.1, 0.7])
    assert srcad.jvp(m.loss, args, (t,), wrt=0)[1] == pytest.approx(float(g @ t), rel=1e-10)
    expected = autograd.hessian(a.loss)(*args)
    for mode in ("fwd", "rev"):
        np.testing.assert_allclose(srcad.hessian(m.loss, mode=mode)(*args), expected,
                                   rtol=1e-8, atol=1e-10)


@pytest.mark.parametrize("call,place", list(itertools.product(CALLS, PLACES)))
def test_a_misfit_list_call_that_runs_raises_as_python_does(call, place, tmp_path):
    m = _module(tmp_path, "numpy", call, place)
    a = _module(tmp_path, "autograd.numpy", call, place)
    args = (W, 10.0, [])
    with pytest.raises(TypeError) as python:
        m.loss(*args)
    with pytest.raises(TypeError) as theirs:
        autograd.grad(a.loss)(*args)
    with pytest.raises(TypeError) as ours:
        srcad.grad(m.loss)(*args)
    assert type(ours.value) is type(python.value)
    assert str(python.value).split("(")[0] in str(ours.value) or "argument" in str(ours.value)
    assert str(theirs.value)  # autograd: Python's error too


def test_the_generated_code_holds_the_check_not_the_call(tmp_path):
    m = _module(tmp_path, "numpy", "two items", "local")
    text = srcad.source(srcad.grad(m.loss))
    assert "misfit_list_call(" in text
    assert ".append(" not in text


def test_on_an_object_that_is_not_a_list_it_is_refused_at_its_line(tmp_path):
    m = _module(tmp_path, "numpy", "two items", "local")
    with pytest.raises(UnsupportedSyntaxError) as info:
        srcad.grad(m.other)(W)
    lines = open(m.__file__).read().splitlines()
    assert info.value.lineno == 1 + next(i for i, t in enumerate(lines)
                                         if "box.append(w, 1.0)" in t)
    assert ".append() with 2 arguments on a deque" in info.value.message
    assert "call .append() with one argument" in info.value.hint
