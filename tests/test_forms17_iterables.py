"""``itertools.islice``, ``chain``, ``chain.from_iterable``, ``pairwise``, ``zip(...,
strict=)``, ``enumerate(start=)``, ``reversed`` and ``accumulate`` of differentiated items
(issue 16, forms17).

``islice``, ``chain``, ``chain.from_iterable`` and ``pairwise`` were refused ("no derivative
rule for islice"), ``zip(..., strict=True)`` too ("kept as an iterator"). srcad now reads the
first four as Python, as it reads ``combinations`` (:mod:`srcad.frontend.builtin_code`: the
items at the positions itertools itself gives, ``index_tuples``), and ``zip(...,
strict=s)`` as ``zip`` after a check that the lengths agree (``check_zip_strict``).

A generated family: each call over a 1-D array, the rows of a 2-D array and a list of values
computed from the argument, taken by a ``for`` loop that unpacks, ``sum`` of a generator, a
comprehension and ``np.array(list(...))``; against central finite differences and autograd
(running the same text, its boxes through itertools itself): grad, value_and_grad, jvp;
Hessians in both modes on a sample. Refusals: an endless iterator, ``strict`` computed.
"""

from __future__ import annotations

import numpy as np
import pytest
from call_checks import check_first_order
from program_files import load
from sampling import sample_by

import srcad
from srcad.errors import UnsupportedSyntaxError

autograd = pytest.importorskip("autograd")
anp = pytest.importorskip("autograd.numpy")

#: the call (``{X}``: the items) and the number of values a step yields
CALLS = {
    "islice_stop": ("itertools.islice({X}, 2)", 1),
    "islice_start_stop": ("islice({X}, 1, None)", 1),
    "islice_step": ("itertools.islice({X}, 0, 3, 2)", 1),
    "chain": ("itertools.chain({X}, {X}[::-1])", 1),
    "chain_three": ("chain({X}, [{X}[0]], ())", 1),
    "from_iterable": ("itertools.chain.from_iterable([{X}, {X}[1:]])", 1),
    "pairwise": ("itertools.pairwise({X})", 2),
    "zip_strict": ("zip({X}, {X}[::-1], strict=True)", 2),
    "zip_not_strict": ("zip({X}, {X}[1:], strict=False)", 2),
    "enumerate_start": ("enumerate({X}, start=3)", 2),
    "reversed": ("reversed({X})", 1),
    "accumulate_fn": ("itertools.accumulate({X}, lambda a, b: a * 0.5 + b * b)", 1),
    "nested": ("enumerate(zip(islice({X}, 3), pairwise({X}), strict=False), start=1)", 2),
}
#: the items: an expression of x (a 1-D array of 3)
ITEMS = {
    "array": "x",
    "rows": "np.reshape(np.concatenate([x, x * x]), (3, 2))",
    "list": "[x[0] * 2.0, np.sin(x[1]), x[2] * x[0]]",
}
#: how the steps are taken; ``{T}`` the call, ``{V}`` the step's names, ``{P}`` their use
USES = {
    "loop": ("    total = 0.0\n    for {V} in {T}:\n        total = total + np.sum({P})\n"
             "    return total\n"),
    "sum": "    return sum(np.sum({P}) for {V} in {T})\n",
    "comprehension": "    return np.sum(np.array([np.sum({P}) for {V} in {T}]))\n",
    "whole": "    return np.sum(np.array([np.sum({P}) for {V} in list({T})]) ** 2)\n",
}


def _text(call, items, use):
    expr, arity = CALLS[call]
    names = [f"v{k}" for k in range(arity)]
    product = " * ".join(f"({n} + {k + 1}.0)" for k, n in enumerate(names))
    step = ", ".join(names)
    if call == "nested":  # (i, (a, (p, q)))
        step, product = "i, (a, (p, q))", "(i + 1.0) * (a + 1.0) * (p * q + 2.0)"
    body = USES[use].format(T=expr.format(X="items"), V=step, P=product)
    return ("import itertools\nfrom itertools import chain, islice, pairwise\n\n\n"
            f"def f(x):\n    items = {ITEMS[items]}\n" + body)


X = np.array([0.3, -0.7, 1.1])


def _pair(tmp_path, call, items, use):
    text = _text(call, items, use)
    f = load(tmp_path, f"i17_{call}_{items}_{use}", text, modules=(np,))
    fa = load(tmp_path, f"i17a_{call}_{items}_{use}", text, modules=(anp,))
    return f, fa


@pytest.mark.parametrize("call,items,use", sample_by([(c, i, u) for c in CALLS for i in ITEMS
                                                      for u in USES], lambda c: c[0], 2))
def test_iterables_of_differentiated_items(tmp_path, call, items, use):
    f, fa = _pair(tmp_path, call, items, use)
    check_first_order(f, fa, X, np.array([0.4, -0.1, 0.6]))


@pytest.mark.parametrize("call,items,use", [
    ("islice_step", "array", "loop"), ("chain", "list", "sum"),
    ("from_iterable", "rows", "comprehension"), ("pairwise", "array", "whole"),
    ("zip_strict", "rows", "loop"), ("nested", "list", "sum")])
def test_hessians_through_iterables(tmp_path, call, items, use):
    f, fa = _pair(tmp_path, call, items, use)
    want = autograd.hessian(fa)(X)
    for mode in ("fwd", "rev"):
        np.testing.assert_allclose(srcad.hessian(f, mode=mode)(X), want, rtol=1e-8, atol=1e-10)


@pytest.mark.parametrize("call,error", [
    ("zip(x, x[1:], strict=True)", "zip() argument 2 is shorter than argument 1"),
    ("zip(x[1:], x, x, strict=True)", "zip() argument 2 is longer than argument 1"),
    ("zip(x, x, x[1:], strict=True)", "zip() argument 3 is shorter than arguments 1-2"),
    ("islice(x, -1)", "Stop argument for islice()"),
])
def test_errors_python_raises(tmp_path, call, error):
    """Where Python raises, the derivative raises the same error."""
    use = "np.prod(v)" if call.startswith("zip") else "v * v"
    text = ("from itertools import islice\n\nimport numpy as np\n\n\n"
            f"def f(x):\n    return sum({use} for v in {call})\n")
    f = load(tmp_path, f"i17_err_{abs(hash(call))}", text)
    with pytest.raises(ValueError, match=error.replace("(", r"\(").replace(")", r"\)")):
        f(X)
    with pytest.raises(ValueError, match=error.replace("(", r"\(").replace(")", r"\)")):
        srcad.grad(f)(X)


def test_endless_iterator_refused(tmp_path):
    text = ("import itertools\n\n\ndef f(x):\n"
            "    return x[0] * sum(itertools.islice(itertools.count(), 3))\n")
    f = load(tmp_path, "i17_count", text)
    with pytest.raises(UnsupportedSyntaxError) as info:
        srcad.grad(f)(X)
    assert "iterator (count)" in info.value.message and "list" in info.value.hint


def test_strict_computed_refused(tmp_path):
    text = ("def f(x):\n    s = bool(x[0] > 0)\n"
            "    return sum(a * b for a, b in zip(x, x, strict=s))\n")
    f = load(tmp_path, "i17_strict", text)
    with pytest.raises(UnsupportedSyntaxError) as info:
        srcad.grad(f)(X)
    assert info.value.lineno == 3 and "strict=True" in info.value.hint


def test_generated_code_reads_positions(tmp_path):
    text = ("from itertools import pairwise\n\n\ndef f(x):\n"
            "    return sum((b - a) ** 2 for a, b in pairwise(x))\n")
    f = load(tmp_path, "i17_src", text)
    src = srcad.source(srcad.grad(f), X)
    assert "pairwise_fwd(x)" in src


@pytest.mark.parametrize("leave", ["break", "return t"])
def test_strict_zip_in_a_loop_that_leaves_early_refused(tmp_path, leave):
    """Python checks the lengths only when the loop reaches the end: a loop that may leave
    first would not raise where srcad's check (before the loop) would."""
    text = ("def f(x):\n    t = 0.0\n    for a, b in zip(x, x[::-1], strict=True):\n"
            f"        if a > 1.0:\n            {leave}\n        t = t + a * b\n    return t\n")
    f = load(tmp_path, f"i17_early_{leave[:3]}", text)
    with pytest.raises(UnsupportedSyntaxError) as info:
        srcad.grad(f)(X)
    assert info.value.lineno == 3 and "leave early" in info.value.message
    assert "len(a) != len(b)" in info.value.hint


def test_strict_zip_inside_a_loop_that_leaves_early(tmp_path):
    """A comprehension's zip inside such a loop is its own: read."""
    text = ("def f(x):\n    t = 0.0\n    for i in range(3):\n        if i > 1:\n"
            "            break\n        t = t + sum(a * b for a, b in zip(x, x, strict=True))\n"
            "    return t\n")
    f = load(tmp_path, "i17_inner_strict", text)
    np.testing.assert_allclose(srcad.grad(f)(X), 4.0 * X, rtol=1e-12)
