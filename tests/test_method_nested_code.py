"""Methods whose body holds nested code (a comprehension, a generator expression, a lambda, a
nested def, a closure returned), differentiated on every Python srcad supports.

srcad compares a function's code with the text it reads, to refuse a file edited after import.
Python 3.10 keeps a nested code object's qualified name among the constants
(``'Net.loss.<locals>.<listcomp>'``), which the method's text compiled on its own spells
without the class: every such method was refused on 3.10 as "changed since defined" (bound
methods, methods called through ``self``, closures a method returns). A generated family of
method bodies x ways of reaching them, against finite differences and autograd; an edit of
the file after import is still refused, the nested code's included.
"""

from __future__ import annotations

import importlib.util
import itertools

import autograd
import autograd.numpy as anp
import numpy as np
import pytest

import srcad
from srcad.errors import SourceUnavailableError

#: bodies of a method ``value(self, x)``: each holds nested code of one kind
BODIES = {
    "listcomp": "return sum([v * self.s for v in x])",
    "genexp": "return sum(np.sin(v) * self.s for v in x)",
    "lambda": "sq = lambda t: t * t * self.s\n        return np.sum(sq(x))",
    "nested_def": "def sq(t):\n            return t * t * self.s\n        return np.sum(sq(x))",
    "dictcomp": "d = {i: x[i] * self.s for i in range(2)}\n        return d[0] * d[1]",
    "closure": "f = self.make()\n        return f(x)",
}
#: how the method is reached from the function differentiated
REACH = {
    "bound": "NET.value",
    "self_call": "NET.outer",
    "local_object": "loss_local",
}


def _text(body):
    return (
        "import numpy as np\n\n\n"
        "class Net:\n"
        "    def __init__(self, s):\n"
        "        self.s = s\n\n"
        "    def make(self):\n"
        "        return lambda t: np.sum(np.tanh(t) * self.s)\n\n"
        f"    def value(self, x):\n        {body}\n\n"
        "    def outer(self, x):\n"
        "        return self.value(x) * 2.0\n\n\n"
        "NET = Net(1.5)\n\n\n"
        "def loss_local(x):\n"
        "    return NET.value(x) + 1.0\n"
    )


def _module(tmp_path, stem, text, numpy):
    path = tmp_path / f"{stem}.py"
    path.write_text(text.replace("import numpy as np", f"import {numpy} as np"))
    spec = importlib.util.spec_from_file_location(stem, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


X = np.array([0.3, -0.8])


def _fd(f, x, h=1e-6):
    return np.array([(f(x + h * e) - f(x - h * e)) / (2 * h) for e in np.eye(len(x))])


@pytest.mark.parametrize("body,reach", list(itertools.product(BODIES, REACH)))
def test_a_method_holding_nested_code(tmp_path, body, reach):
    text = _text(BODIES[body])
    f = eval(REACH[reach], vars(_module(tmp_path, f"mn_{body}_{reach}", text, "numpy")))
    fa = eval(REACH[reach], vars(_module(tmp_path, f"mna_{body}_{reach}", text,
                                         "autograd.numpy")))
    g = srcad.grad(f)(X.copy())
    np.testing.assert_allclose(g, _fd(f, X), rtol=1e-6, atol=1e-8)
    np.testing.assert_allclose(g, autograd.grad(fa)(anp.array(X)), rtol=1e-10, atol=1e-12)
    value, g2 = srcad.value_and_grad(f)(X.copy())
    assert value == pytest.approx(f(X.copy()), rel=1e-12)
    np.testing.assert_allclose(g2, g, rtol=1e-12)


@pytest.mark.parametrize("body", list(BODIES))
def test_an_edit_after_import_is_still_refused(tmp_path, body):
    text = _text(BODIES[body])
    module = _module(tmp_path, f"me_{body}", text, "numpy")
    edited = text.replace("    def value(self, x):\n", "    def value(self, x):\n"
                          "        x = x * 3.0\n")
    (tmp_path / f"me_{body}.py").write_text(edited)
    with pytest.raises(SourceUnavailableError, match="changed since"):
        srcad.grad(module.NET.value)(X.copy())


@pytest.mark.parametrize("edit", ["3.0", "np.cos"])
def test_an_edited_module_function_is_refused(tmp_path, edit):
    text = "import numpy as np\n\n\ndef f(x):\n    return np.sum(np.sin(x) * 2.0)\n"
    module = _module(tmp_path, f"mf_{edit.replace('.', '_')}", text, "numpy")
    changed = text.replace("2.0", edit) if edit[0].isdigit() else text.replace("np.sin", edit)
    (tmp_path / f"mf_{edit.replace('.', '_')}.py").write_text(changed)
    with pytest.raises(SourceUnavailableError, match="changed since"):
        srcad.grad(module.f)(X.copy())
