"""``try: ... finally: ...`` without ``except`` (issue 16, forms17).

Refused before ("try/except") like every ``try``. When the body runs without raising, Python
runs it and then the ``finally`` block, also when the body leaves by ``return``, ``break`` or
``continue`` (the value returned computed first): srcad now writes exactly that
(:mod:`srcad.frontend.try_finally`, the ``finally`` block copied to each way out). A derivative
raises where the function raises. A ``finally`` block that leaves itself, and ``try`` with
``except``, are refused.

Generated family: bodies × finally blocks, at two points (the branches go both ways), against
central finite differences and autograd (running the real ``try``); grad, value_and_grad,
jvp; Hessians in both modes on samples; refusals with their lines and hints.
"""

from __future__ import annotations

import numpy as np
import pytest
from program_files import load
from srcad.check import numerical_grad

import srcad
from srcad.errors import UnsupportedSyntaxError

autograd = pytest.importorskip("autograd")
anp = pytest.importorskip("autograd.numpy")

#: bodies; ``{F}``: the finally block's statements (indented by the body), ``{I}`` indent
BODIES = {
    "plain": ("    s = x[0] * 2.0\n    try:\n        s = s * np.sin(x[1])\n    finally:\n{F}"
              "    return s * x[2]\n"),
    "returns": ("    s = x[0] * 2.0\n    try:\n        if x[1] > 0:\n            return s * x[1]\n"
                "        s = s + x[2] ** 2\n    finally:\n{F}    return s * x[0]\n"),
    "returns_expression": ("    s = 1.0\n    try:\n        return np.sum(x * x) * s\n"
                           "    finally:\n{F}"),
    "loop_exits": ("    s = 0.5\n    for i in range(3):\n        try:\n"
                   "            if x[i] > 0:\n                continue\n"
                   "            s = s + x[i] ** 2\n            if s > 1.2:\n"
                   "                break\n        finally:\n{F8}    return s\n"),
    "loop_inside": ("    s = 0.5\n    try:\n        for v in x:\n            if v > 1.0:\n"
                    "                break\n            s = s * (1.0 + v * v)\n"
                    "    finally:\n{F}    return s * x[1]\n"),
    "nested": ("    s = 1.0\n    try:\n        try:\n            if x[0] > 0:\n"
               "                return x[0] * s\n            s = s * 2.0\n"
               "        finally:\n{F8}    finally:\n{F}    return s * x[0]\n"),
}
#: finally blocks: statements on ``s`` (at the body's indent)
FINALS = {
    "changes": "s = s + x[1] * x[2]\n",
    "noop": "pass\n",
    "records": "trace = [s]\ns = s * np.cos(x[0]) + 0.0 * len(trace)\n",
}


def _text(body, final):
    text = BODIES[body]
    lines = FINALS[final].splitlines(keepends=True)
    return "def f(x):\n" + text.replace("{F8}", "".join(" " * 12 + s for s in lines)).replace(
        "{F}", "".join(" " * 8 + s for s in lines))


POINTS = (np.array([0.3, -0.7, 1.1]), np.array([-0.4, 0.6, 0.9]))


def _pair(tmp_path, body, final):
    text = _text(body, final)
    f = load(tmp_path, f"t17_{body}_{final}", text, modules=(np,))
    fa = load(tmp_path, f"t17a_{body}_{final}", text, modules=(anp,))
    return f, fa


@pytest.mark.parametrize("body,final", [(b, f) for b in BODIES for f in FINALS])
def test_try_finally(tmp_path, body, final):
    f, fa = _pair(tmp_path, body, final)
    for x in POINTS:
        g = srcad.grad(f)(x)
        np.testing.assert_allclose(g, numerical_grad(f, (x,)), rtol=1e-5, atol=1e-7)
        np.testing.assert_allclose(g, autograd.grad(fa)(x), rtol=1e-10, atol=1e-12)
        value, g2 = srcad.value_and_grad(f)(x)
        assert value == pytest.approx(f(x), rel=1e-12)
        np.testing.assert_allclose(g2, g, rtol=1e-12, atol=1e-14)
        t = np.array([0.4, -0.1, 0.6])
        _, tangent = srcad.jvp(f, (x,), (t,))
        assert tangent == pytest.approx(float(np.dot(g, t)), rel=1e-8, abs=1e-10)


@pytest.mark.parametrize("body,final", [("plain", "changes"), ("returns", "records"),
                                        ("loop_exits", "changes"), ("nested", "changes")])
def test_hessians_through_try_finally(tmp_path, body, final):
    f, fa = _pair(tmp_path, body, final)
    for x in POINTS:
        want = autograd.hessian(fa)(x)
        for mode in ("fwd", "rev"):
            np.testing.assert_allclose(srcad.hessian(f, mode=mode)(x), want, rtol=1e-8,
                                       atol=1e-10)


def test_body_raising_raises(tmp_path):
    text = ("import numpy as np\n\n\ndef f(x):\n    try:\n"
            "        if x[0] > 0:\n            raise ValueError('positive')\n"
            "        y = np.sum(x * x)\n    finally:\n        z = 2.0\n    return y * z\n")
    f = load(tmp_path, "t17_raises", text)
    np.testing.assert_allclose(srcad.grad(f)(-POINTS[0]), -4.0 * POINTS[0])
    with pytest.raises(ValueError, match="positive"):
        srcad.grad(f)(POINTS[0])


def test_generated_code_has_no_try(tmp_path):
    f = load(tmp_path, "t17_src", _text("returns", "changes"), modules=(np,))
    src = srcad.source(srcad.grad(f), POINTS[0])
    assert "try" not in src and "finally" not in src


REFUSED = {
    "finally_returns": ("    try:\n        y = x * 2.0\n    finally:\n        return np.sum(x)\n",
                        5, "finally block that leaves it (return)", "set a flag"),
    "finally_breaks": ("    t = 0.0\n    for v in x:\n        try:\n            t = t + v\n"
                       "        finally:\n            break\n    return t\n",
                       7, "finally block that leaves it (break)", "set a flag"),
    "except": ("    try:\n        y = np.sum(x)\n    except ValueError:\n        y = 0.0\n"
               "    return y\n", 2, "try/except", "if np.all(x > 0)"),
    "except_finally": ("    try:\n        y = np.sum(x)\n    except ValueError:\n        y = 0.0\n"
                       "    finally:\n        y = y * 2.0\n    return y\n", 2, "try/except",
                       "drop the except clauses"),
}


@pytest.mark.parametrize("case", list(REFUSED))
def test_refused_try_forms(tmp_path, case):
    body, line, words, hint = REFUSED[case]
    f = load(tmp_path, f"t17_no_{case}", "def f(x):\n" + body, modules=(np,))
    with pytest.raises(UnsupportedSyntaxError) as info:
        srcad.grad(f)(POINTS[0])
    assert info.value.lineno == line
    assert words in info.value.message and hint in info.value.hint
