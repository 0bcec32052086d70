"""Gradients of a list that was made shorter or longer after it was read (round 16, issue 16).

``srcad.hessian(f, mode="rev")`` of ``f(x, b) = helper([w * 2.0 for w in x], b)`` with
``helper(ws, b) = sum(w * b for w in ws)`` crashed: "two gradients of one list have 0 and 2
items". The first derivative reads the list's gradient out of the callee's backward part,
``ditems, db = helper_bwd(ctx, g)``, and pops it item by item in a loop. Differentiated again,
the gradient of that tuple was built from the tuple itself, ``items_at(result, (1, 0), (ddb,
dditems))``, whose list had been popped empty by then, while ``dditems``, rebuilt by the
loop's adjoint, has the length the list had when it was read. The same happens in plain user
code: ``ys, b = h(x)`` then ``ys.pop()`` in a loop (and ``p = h(x); ys = p[0]; ...; p[1]``,
where the zero gradient of the unread item is made from the popped list). A zero gradient
made from a list as it is now adds nothing to the gradient of that list as it was read: the
sum is that gradient, whatever the two lengths (srcad.runtime.helpers.add; lists of different
lengths that both hold a number other than zero are still a crash, never a sum).

The family: helpers (a generator sum, a loop, an array stack) x how the list is made (a
comprehension over an array, over a list argument, by index, by ``map``), Hessians in both
modes against autograd's; ``grad`` of ``grad``; the user-code form with ``pop`` against finite
differences and autograd, with its Hessian in both modes.
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

HELPERS = {
    "generator_sum": """
        def helper(ws, b):
            return sum(w * b for w in ws)
        """,
    "loop": """
        def helper(ws, b):
            total = 0.0
            for w in ws:
                total = total + np.sum(np.sin(w)) * b
            return total
        """,
    "stacked": """
        def helper(ws, b):
            return np.sum(np.stack(ws) ** 2) * b
        """,
}

LISTS = {
    "comprehension": "[w * 2.0 for w in v[:3]]",
    "of_a_list": "[np.tanh(w) for w in [v[0], v[1] * v[2], v[2]]]",
    "by_index": "[v[i] * v[i] for i in range(3)]",
    "map": "list(map(np.exp, v[:3]))",
}


def _module(source, tmp_path, numpy_name, tag):
    path = tmp_path / f"lists16_{tag}_{abs(hash((source, numpy_name)))}.py"
    path.write_text(f"import {numpy_name} as np\n" + textwrap.dedent(source))
    spec = importlib.util.spec_from_file_location(path.stem, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _source(helper, made):
    return textwrap.dedent(HELPERS[helper]) + (
        f"\ndef f(v):\n    return helper({LISTS[made]}, v[3])\n")


POINT = np.array([0.4, -0.7, 1.1, 0.6])


@pytest.mark.parametrize("helper,made", list(itertools.product(HELPERS, LISTS)))
def test_hessians_of_a_list_passed_to_a_callee(helper, made, tmp_path):
    source = _source(helper, made)
    m = _module(source, tmp_path, "numpy", "np")
    a = _module(source, tmp_path, "autograd.numpy", "ag")
    expected = autograd.hessian(a.f)(POINT)
    for mode in ("rev", "fwd"):
        np.testing.assert_allclose(srcad.hessian(m.f, mode=mode)(POINT), expected, rtol=1e-9,
                                   atol=1e-11)
    g = srcad.grad(m.f)(POINT)
    np.testing.assert_allclose(g, numerical_grad(m.f, (POINT,)), rtol=1e-6, atol=1e-8)


def test_the_brief_form_with_two_arguments(tmp_path):
    """The report's own form: ``f(x, b)``, both arguments, both modes."""
    source = HELPERS["generator_sum"] + """
        def f(x, b):
            return helper([w * 2.0 for w in x], b) * b
        """
    m = _module(source, tmp_path, "numpy", "np")
    a = _module(source, tmp_path, "autograd.numpy", "ag")
    x = np.array([1.0, 2.0, -0.5])
    expected = autograd.hessian(a.f)(x, 0.7)
    for mode in ("rev", "fwd"):
        got = srcad.hessian(m.f, wrt=(0, 1), mode=mode)(x, 0.7)
        np.testing.assert_allclose(got[0][0], expected, rtol=1e-10, atol=1e-12)
        cross = autograd.jacobian(autograd.grad(a.f, 1))(x, 0.7)
        np.testing.assert_allclose(got[1][0], cross, rtol=1e-10, atol=1e-12)
        assert got[1][1] == pytest.approx(autograd.grad(autograd.grad(a.f, 1), 1)(x, 0.7))


def test_grad_of_grad(tmp_path):
    source = HELPERS["loop"] + """
        def f(s):
            return helper([s * k for k in (1.0, 2.0, 3.0)], s)
        """
    m = _module(source, tmp_path, "numpy", "np")
    a = _module(source, tmp_path, "autograd.numpy", "ag")
    for s in (0.3, -1.2):
        assert srcad.grad(srcad.grad(m.f))(s) == pytest.approx(
            autograd.grad(autograd.grad(a.f))(s), rel=1e-10)


POPPED = {
    "unpacked": """
        def f(x):
            ys, b = h(x)
            s = 0.0
            while ys:
                s = s + ys.pop() * x
            return s * b
        """,
    "read_later": """
        def f(x):
            p = h(x)
            ys = p[0]
            s = 0.0
            for i in range(2):
                s = s + ys.pop() * x
            return s * p[1] + ys[0]
        """,
}

HELPER = """
def h(x):
    return [x * x, 2.0 * x, np.sin(x)], x
"""


@pytest.mark.parametrize("form", sorted(POPPED))
@pytest.mark.parametrize("x", [0.4, -1.3])
def test_a_list_popped_after_it_was_read(form, x, tmp_path):
    """``ys.pop()`` of a list a callee returned, after it was read: first order crashed too."""
    source = HELPER + textwrap.dedent(POPPED[form])
    m = _module(source, tmp_path, "numpy", "np")
    a = _module(source, tmp_path, "autograd.numpy", "ag")
    g = srcad.grad(m.f)(x)
    assert g == pytest.approx(numerical_grad(m.f, (x,)), rel=1e-6)
    assert g == pytest.approx(autograd.grad(a.f)(x), rel=1e-12)
    want = autograd.grad(autograd.grad(a.f))(x)
    for mode in ("rev", "fwd"):
        assert srcad.hessian(m.f, mode=mode)(x) == pytest.approx(want, rel=1e-10)
    assert srcad.jvp(m.f, (x,), (1.0,))[1] == pytest.approx(g, rel=1e-12)


def test_only_a_zero_list_meets_another_length():
    """The run-time rule itself: a list of zeros (numbers, arrays, nested) adds nothing to a
    list of another length; two lists of different lengths with other numbers still stop."""
    from srcad.runtime.helpers import add

    grad = [np.array([1.0, 2.0]), 3.0]
    for zero in ([], [0.0], [np.zeros(2), [0.0, np.zeros(3)], 0.0]):
        got = add(zero, grad)
        assert len(got) == 2 and got[1] == 3.0 and got[0] is not grad[0]
        np.testing.assert_array_equal(got[0], grad[0])
        assert len(add(grad, zero)) == 2
    with pytest.raises(RuntimeError, match="two gradients of one list have 1 and 2 items"):
        add([1e-300], grad)
