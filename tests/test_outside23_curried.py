"""Curried derivative builders and nested partials inside differentiated code (issue 16,
outside23 item 3): ``srcad.make_jvp(g)(w, x)(v)``, ``srcad.make_vjp(g)(w, x)`` (autograd's
forms, which tools/autograd_shim.py maps to), the derivative bound to a name, ``g`` a lambda
holding values; and ``partial(partial(g, w=x), v=2.0)``.

Generated families are checked against central differences and autograd on twins (the
pushforward written as ``np.sum(autograd.grad(g) * v)``, the pullback as autograd's own
``make_vjp``), in reverse and forward mode.
"""

from __future__ import annotations

import itertools

import numpy as np
import pytest
from sampling import sample
from test_robustness import load_module
from twin_checks import central

import srcad

autograd = pytest.importorskip("autograd")

W0 = np.array([0.3, -0.2])
X0 = np.array([0.5, 1.0, -1.5])

HEAD = """
def g(w, x):
    return np.sum(np.sin(w[0] * x) * w[1]) + np.sum(x ** 2) * w[0]
"""
HEADS = {  # how the function is given, then the arguments it is called with
    "named": ("g", "(w, x)"),
    "lambda": ("lambda u: g(u, x * w[1])", "(w)"),
    "two_lambda": ("lambda u, y: g(u, y * w[0])", "(w, x)"),
}
TANGENT = {0: "np.array([1.0, -0.5])", 1: "np.cos(x)"}


def _texts(kind, head, wrt, bound):
    fn, args = HEADS[head]
    if head == "lambda" and wrt == 1:
        wrt = 0
    v = TANGENT[wrt]
    made = f"srcad.{kind}({fn}, {wrt})"
    lead = ""
    if bound:
        lead, made = f"    made = {made}\n", "made"
    if kind == "make_jvp":
        body = f"    val, t = {made}{args}({v})\n    return t * val + t ** 2\n"
        twin_t = f"np.sum(autograd.grad({fn}, {wrt}){args} * {v})"
        twin = (f"    val = ({fn}){args}\n    t = {twin_t}\n    return t * val + t ** 2\n")
    else:
        body = (f"    pb, val = {made}{args}\n"
                "    return np.sum(pb(1.5) ** 2) + val * np.sum(pb(val) * 0.1)\n")
        twin = (f"    pb, val = autograd.make_vjp({fn}, {wrt}){args}\n"
                "    return np.sum(pb(1.5) ** 2) + val * np.sum(pb(val) * 0.1)\n")
    mine = "import numpy as np\nimport srcad\n" + HEAD + "\ndef f(w, x):\n" + lead + body
    other = "import autograd\nimport autograd.numpy as np\n" + HEAD + "\ndef f(w, x):\n" + twin
    return mine, other


CASES = [c for c in itertools.product(("make_jvp", "make_vjp"), HEADS, (0, 1), (False, True))
         if not (c[1] == "lambda" and c[2] == 1)]


@pytest.mark.parametrize("kind,head,wrt,bound", sample(CASES, 4))
def test_a_curried_derivative_inside(kind, head, wrt, bound, tmp_path):
    mine, twin = _texts(kind, head, wrt, bound)
    m, t = load_module(tmp_path, mine), load_module(tmp_path, twin)
    value, gw = srcad.value_and_grad(m.f)(W0, X0)
    assert value == pytest.approx(t.f(W0, X0), rel=1e-10)
    np.testing.assert_allclose(gw, central(m.f, (W0, X0), 0), rtol=1e-6, atol=1e-8)
    np.testing.assert_allclose(gw, autograd.grad(t.f)(W0, X0), rtol=1e-9, atol=1e-12)
    gx = srcad.grad(m.f, wrt=1)(W0, X0)
    np.testing.assert_allclose(gx, autograd.grad(t.f, 1)(W0, X0), rtol=1e-9, atol=1e-12)
    d = np.array([0.4, -1.0])
    _, tangent = srcad.jvp(m.f, (W0, X0), (d, np.zeros(3)))
    assert tangent == pytest.approx(float(gw @ d), rel=1e-9, abs=1e-12)


def test_the_autograd_shims_forms_are_read_the_same(tmp_path):
    """tools/autograd_shim's make_vjp / make_jvp declare srcad's as their maker."""
    import sys
    from pathlib import Path
    sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tools"))
    try:
        import autograd_shim
    finally:
        sys.path.pop(0)
    text = HEAD + ("\ndef f(w, x):\n    pb, val = make_vjp(g)(w, x)\n"
                   "    v2, t = make_jvp(g, 1)(w, x)(np.cos(x))\n"
                   "    return np.sum(pb(1.5) ** 2) + t * v2 + val\n")
    m = load_module(tmp_path, "import numpy as np\n" + text)
    m.make_vjp, m.make_jvp = autograd_shim.make_vjp, autograd_shim.make_jvp
    g = srcad.grad(m.f)(W0, X0)
    np.testing.assert_allclose(g, central(m.f, (W0, X0), 0), rtol=1e-6, atol=1e-8)


PARTIALS = {  # a partial of a partial (of a partial), keywords and positions, values held
    "kw_kw": "partial(partial(h, w=w), v=2.0)",
    "pos_kw": "partial(partial(h, w), v=w[1])",
    "pos_pos": "partial(partial(h, w, x * w[0]), 3.0)",
    "three": "partial(partial(partial(h, v=w[0]), w=w), x=x)",
    "kw_over": "partial(partial(h, w=w, v=1.0), v=w[1] * 2.0)",
    "lambda": "partial(partial(lambda w, x, v: h(w, x, v) * w[0], w=w), v=2.0)",
}
CALLS = {"kw_kw": "p(x=x)", "pos_kw": "p(x)", "pos_pos": "p()", "three": "p()",
         "kw_over": "p(x=x)", "lambda": "p(x=x)"}


@pytest.mark.parametrize("form", sorted(PARTIALS))
def test_a_partial_of_a_partial(form, tmp_path):
    text = ("from functools import partial\n\ndef h(w, x, v):\n"
            "    return np.sum(np.sin(w[0] * x)) * v + w[1] * v ** 2\n\n"
            f"def f(w, x):\n    p = {PARTIALS[form]}\n    return {CALLS[form]}\n")
    m = load_module(tmp_path, "import numpy as np\n" + text)
    t = load_module(tmp_path, "import autograd.numpy as np\n" + text)
    value, g = srcad.value_and_grad(m.f)(W0, X0)
    assert value == pytest.approx(m.f(W0, X0), rel=1e-12)
    np.testing.assert_allclose(g, central(m.f, (W0, X0), 0), rtol=1e-6, atol=1e-8)
    np.testing.assert_allclose(g, autograd.grad(t.f)(W0, X0), rtol=1e-10, atol=1e-12)
