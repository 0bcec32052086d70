"""A constant appended to a list an attribute holds: a message log (round 19's outside programs).

Met in helmrad/Bayesian-Neural-Network-with-Stochastic-Inputs: methods of the model warn
into a list the object holds, ``self.errormsg.append('an f_w goes to inf.')``, in branches
that run when a value overflows. The effects analysis counted the append as a change of
``self``, so every caller reading ``self`` afterwards was refused ("compute_sample_LLs(...)
(which changes what it is given in place): self is read afterwards"). srcad reads attributes
as constants, and an append of an immutable constant (a string, a number, ``None``, a tuple of
them) leaves every item before it as it was: no value a gradient flows through can change.
Such a statement (``obj.attr.append(c)``, ``c`` a literal) now runs in the forward sweep as in
Python and is not counted as a write into the object.

The family: what is appended (a message, a number, ``None``, a tuple) x where (the method
differentiated, a method it calls, in a loop, in a branch taken or not) x the log read back
(its length deciding a branch); against finite differences and autograd on the same text,
value_and_grad, jvp, Hessians in both modes; the log holds what Python's run appends.
Still refused: a differentiated value appended (``self.log.append(v)``), and a constant
appended to a list argument of the function differentiated (a write the caller sees).
"""

from __future__ import annotations

import importlib.util
import itertools
import textwrap

import numpy as np
import pytest
from srcad.check import numerical_grad

import srcad
from srcad.errors import MutationError

autograd = pytest.importorskip("autograd")

ITEMS = {"message": "'an f_w goes to inf.'", "number": "3", "none": "None",
         "tuple": "('overflow', 2, 1.5)"}

PLACES = {
    "method": """
        def loss(self, w):
            v = np.exp(w) * self.scale
            if np.sum(v) > self.limit:
                self.log.append(ITEM)
            return np.sum(v ** 2)
        """,
    "callee": """
        def part(self, w):
            v = np.exp(w) * self.scale
            if np.sum(v) > self.limit:
                self.log.append(ITEM)
            return v

        def loss(self, w):
            v = self.part(w)
            return np.sum(v ** 2) + self.scale * np.sum(w)
        """,
    "loop": """
        def loss(self, w):
            total = 0.0
            for k in range(3):
                v = np.sin(w * (k + 1))
                if np.max(v) > self.limit:
                    self.log.append(ITEM)
                total = total + np.sum(v * w)
            return total
        """,
    "read back": """
        def part(self, w):
            if np.sum(w) > self.limit:
                self.log.append(ITEM)
            return w * self.scale

        def loss(self, w):
            v = self.part(w)
            if len(self.log) > 100:
                return np.sum(v)
            return np.sum(np.tanh(v) * w)
        """,
}

HEADER = """
class Model:
    def __init__(self, limit):
        self.log = []
        self.scale = 1.5
        self.limit = limit
"""

W = np.array([0.4, -0.3, 0.8])


def _module(tmp_path, numpy_name, place, item):
    body = textwrap.indent(textwrap.dedent(PLACES[place]).replace("ITEM", ITEMS[item]), "    ")
    path = tmp_path / f"log19_{numpy_name.replace('.', '_')}.py"
    path.write_text(f"import {numpy_name} as np\n" + textwrap.dedent(HEADER) + body)
    spec = importlib.util.spec_from_file_location(path.stem, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.mark.parametrize("place,item,taken", list(itertools.product(
    PLACES, ITEMS, (True, False))))
def test_a_constant_logged_into_an_attribute_list(place, item, taken, tmp_path):
    m, a = _module(tmp_path, "numpy", place, item), _module(tmp_path, "autograd.numpy",
                                                           place, item)
    limit = -10.0 if taken else 10.0
    model, ag_model, plain = m.Model(limit), a.Model(limit), m.Model(limit)
    g = srcad.grad(model.loss)(W)
    plain.loss(W)
    assert model.log == plain.log  # what Python's run appends, once per forward sweep
    assert bool(model.log) == taken
    np.testing.assert_allclose(g, numerical_grad(m.Model(limit).loss, (W,)), rtol=1e-6,
                               atol=1e-8)
    np.testing.assert_allclose(g, autograd.grad(ag_model.loss)(W), rtol=1e-10, atol=1e-12)
    value, g2 = srcad.value_and_grad(model.loss)(W)
    assert value == pytest.approx(m.Model(limit).loss(W), rel=1e-12)
    np.testing.assert_allclose(g2, g, rtol=1e-12, atol=1e-14)
    t = np.array([0.3, 1.2, -0.5])
    assert srcad.jvp(model.loss, (W,), (t,))[1] == pytest.approx(float(g @ t), rel=1e-10)
    expected = autograd.hessian(a.Model(limit).loss)(W)
    for mode in ("fwd", "rev"):
        np.testing.assert_allclose(srcad.hessian(model.loss, mode=mode)(W), expected,
                                   rtol=1e-8, atol=1e-10)


REFUSED = {
    "a differentiated value": """
        def loss(self, w):
            v = np.exp(w)
            self.log.append(v)
            return np.sum(self.log[-1] * w)
        """,
    "a list argument": """
        def loss(self, w, log):
            log.append('called')
            return np.sum(w ** 2) + len(log)
        """,
}


@pytest.mark.parametrize("case", sorted(REFUSED))
def test_other_appends_stay_refused(case, tmp_path):
    path = tmp_path / "log19_refused.py"
    path.write_text("import numpy as np\n" + textwrap.dedent(HEADER)
                    + textwrap.indent(textwrap.dedent(REFUSED[case]), "    "))
    spec = importlib.util.spec_from_file_location(path.stem, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    model = module.Model(0.0)
    args = (W,) if case == "a differentiated value" else (W, ["x"])
    with pytest.raises(MutationError) as info:
        srcad.grad(model.loss)(*args)
    lines = path.read_text().splitlines()
    if case == "a differentiated value":
        assert info.value.lineno == 1 + next(i for i, t in enumerate(lines) if ".append(" in t)
    else:  # (a bound method's argument: refused at the call of the method, as before)
        assert "changes what it is given" in info.value.message
    assert info.value.hint
