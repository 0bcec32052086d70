"""``srcad.source(g)`` shows the whole derivative program: ``g``'s function, then the generated
parts of each function it calls (forward and backward parts, the callees' callees in turn),
each once, in the order they are first called; ``callees=False`` shows ``g``'s function alone.
The text is Python that parses, and each part shown is the one the derivative runs."""

import ast

import calls_cases as cc
import numpy as np
import pytest

import srcad


def _defs(text):
    return [node.name for node in ast.parse(text).body if isinstance(node, ast.FunctionDef)]


def test_the_callees_parts_follow_in_call_order():
    g = srcad.grad(cc.level1, wrt=(0, 1))
    text = srcad.source(g, 0.7, 1.3)
    names = _defs(text)
    assert names[0] == "grad_level1"
    assert "level2_fwd" in names and "level2_bwd" in names
    assert len(names) == len(set(names))  # each part once
    assert any(name.startswith("level3") for name in names)  # the callee's callee too
    # called before shown: each part after the first is named in a text before it
    for name in names[1:]:
        before = text.split(f"def {name}(")[0]
        assert f"{name}(" in before, name
    assert _defs(srcad.source(g, 0.7, 1.3, callees=False)) == ["grad_level1"]


def _rhs(x, y):
    return np.concatenate((x[:1], x[1:] * y[:-1]))


def _step(x, y, h):
    return y + h * _rhs(x, y)


def _last(x, s):
    y = np.zeros_like(x)
    for _ in range(s):
        y = _step(x, y, 0.1)
    return y[-1]


@pytest.mark.parametrize("backend", ["python", "numba"])
def test_a_loop_over_a_callee_shows_every_part(backend):
    if backend == "numba":
        pytest.importorskip("numba")
    g = srcad.grad(_last, backend=backend)
    x = np.linspace(0.1, 0.9, 5)
    got = g(x, 3)
    text = srcad.source(g)
    names = _defs(text)
    # _rhs's parts shown on their own, or (small straight-line parts) written into _step's
    assert any(n.startswith("_step_") for n in names) and (any(
        n.startswith("_rhs_") for n in names) or "# _rhs, line" in text), names
    # the parts shown are the code that ran: the gradient it computes is right
    h = 1e-6
    fd = [(_last(x + h * e, 3) - _last(x - h * e, 3)) / (2 * h) for e in np.eye(5)]
    np.testing.assert_allclose(got, fd, rtol=1e-6, atol=1e-8)


def test_a_function_calling_nothing_is_shown_alone():
    text = srcad.source(srcad.grad(cc.square), 1.5)
    assert len(_defs(text)) == 1
