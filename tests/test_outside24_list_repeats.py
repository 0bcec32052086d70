"""A list display repeated, ``[x] * n``, ``n * [a, b]`` (issue 16, outside24): refused
before where the items carry gradients ("repeating a list that carries gradients"); read as
the comprehension making the same list (``frontend/list_repeats.py``), ``n`` checked to be a
Python int when the code runs (NumPy's numbers and arrays multiply instead: refused there).
Generated family (items x count x use) against central differences and autograd, Hessians
in both modes for one."""

from __future__ import annotations

import itertools

import numpy as np
import pytest
from sampling import sample
from test_robustness import load_module

import srcad

autograd = pytest.importorskip("autograd")
NP, AG = "import numpy as np\n", "import autograd.numpy as np\n"
W = np.array([0.3, -0.4, 0.7])

ITEMS = {"one": "[w[0]]", "two": "[w[0], w[1] * 2.0]", "array": "[w * 1.5]"}
COUNTS = {"constant": "3", "name": "k", "len": "len(w)", "left": None}
USES = {
    "sum": "    return sum(np.sum(x * (i + 1)) for i, x in enumerate(xs))",
    "write": "    xs[0] = xs[0] * w[2]\n    return sum(np.sum(x * x) for x in xs)",
    "index": "    return np.sum(xs[-1] * xs[0]) + len(xs)",
}
TEXT = "\ndef f(w):\n    k = 2\n    xs = {expr}\n{use}\n"
CASES = list(itertools.product(ITEMS, COUNTS, USES))


def _text(items, count, use):
    expr = f"2 * {ITEMS[items]}" if COUNTS[count] is None else \
        f"{ITEMS[items]} * {COUNTS[count]}"
    return TEXT.format(expr=expr, use=USES[use])


@pytest.mark.parametrize("items,count,use", sample(CASES, 5))
def test_a_repeated_list(items, count, use, tmp_path):
    text = _text(items, count, use)
    m, a = load_module(tmp_path, NP + text), load_module(tmp_path, AG + text)
    g = srcad.grad(m.f)(W.copy())
    fd = np.array([(m.f(W + 1e-6 * e) - m.f(W - 1e-6 * e)) / 2e-6 for e in np.eye(3)])
    np.testing.assert_allclose(g, fd, rtol=1e-6, atol=1e-8)
    np.testing.assert_allclose(g, autograd.grad(a.f)(W.copy()), rtol=1e-10, atol=1e-12)
    if (items, count, use) == CASES[0]:
        h = autograd.hessian(a.f)(W.copy())
        for mode in ("rev", "fwd"):
            np.testing.assert_allclose(srcad.hessian(m.f, mode=mode)(W.copy()), h,
                                       rtol=1e-8, atol=1e-10)


# (np.int64(2): a NumPy integer Python's repetition takes repeats the list, outside26:
# tests/test_outside26_forms.py)
@pytest.mark.parametrize("count", ["np.float64(2)", "np.array(2)"])
def test_a_count_that_is_not_a_python_int_is_refused(count, tmp_path):
    m = load_module(tmp_path, NP + f"\ndef f(w):\n    n = {count}\n    xs = [w[0]] * n\n"
                    "    return np.sum(xs)\n")
    with pytest.raises(srcad.SrcadError, match="Python int") as err:
        srcad.grad(m.f)(W.copy())
    assert err.value.lineno == 5
