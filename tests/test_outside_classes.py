"""Classes of wrong answers, crashes and spurious refusals found by running srcad on code
written outside the project (issues 14 and 16, round 7: tools/autograd_suite.py,
tools/example_programs.py, tools/corpus_programs.py and hostile programs in the style of the
issue texts).

Each class is a case and a small generated family around it, checked against central finite
differences and autograd running the same text.
"""

from __future__ import annotations

import importlib.util
import itertools
import textwrap

import numpy as np
import pytest
from srcad.check import numerical_grad

import srcad

autograd = pytest.importorskip("autograd")

X = np.array([0.5, -0.3, 0.8, -1.3])


def _module(source, tmp_path, numpy_name):
    path = tmp_path / f"outside7_{abs(hash((source, numpy_name)))}.py"
    path.write_text(f"import {numpy_name} as np\n" + textwrap.dedent(source))
    spec = importlib.util.spec_from_file_location(path.stem, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _agree(source, x, tmp_path, hessian=False):
    """srcad's gradient of ``f`` at ``x`` against finite differences and autograd, its jvp
    against the gradient; ``hessian``: its Hessian against finite differences of its
    gradient and against autograd's."""
    f = _module(source, tmp_path, "numpy").f
    fa = _module(source, tmp_path, "autograd.numpy").f
    df = srcad.grad(f)
    g = df(x)
    np.testing.assert_allclose(g, numerical_grad(f, (x,)), rtol=1e-6, atol=1e-8)
    np.testing.assert_allclose(g, autograd.grad(fa)(x), rtol=1e-10, atol=1e-12)
    u = np.cos(np.arange(np.size(x)) + 0.5)
    _, t = srcad.jvp(f, (x,), (u,))
    assert t == pytest.approx(float(np.sum(g * u)), rel=1e-9, abs=1e-12)
    if hessian:
        h = srcad.hessian(f)(x)
        rows = [numerical_grad(lambda v, i=i: df(v)[i], (x,)) for i in range(np.size(x))]
        np.testing.assert_allclose(h, np.array(rows), rtol=1e-5, atol=1e-7)
        np.testing.assert_allclose(h, autograd.hessian(fa)(x), rtol=1e-9, atol=1e-12)


# ---------------------------------------------------------------- lists of made functions
# A list of functions a helper makes, built of constants only (``[make(1.0 * i) for i in
# ...]``) or read with the differentiated values elsewhere: the call of the helper's
# ``make_all`` stayed a call of a name the generated code did not bind (NameError).

MADE = """
def make(a, p=2.0):
    def h(t):
        return a * t ** p
    return h


def f(x):
    fs = [make({item}) for i in range(3)]
    {use}
"""
ITEMS = ["1.0 * i", "0.5 + i"]
USES = {
    "loop": "s = 0.0\n    for h in fs:\n        s = s + h(x[3])\n    return s",
    "sum": "return sum(h(x[3]) for h in fs) * fs[1](x[2])",
    "index": "return fs[0](x[3]) * fs[2](x[1]) + len(fs)",
}


@pytest.mark.parametrize("item, use", list(itertools.product(ITEMS, USES)))
def test_a_list_of_made_functions_of_constants(item, use, tmp_path):
    _agree(MADE.format(item=item, use=USES[use]), X, tmp_path)
