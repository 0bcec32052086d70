"""``itertools.combinations``, ``permutations``, ``combinations_with_replacement`` and
``product`` of differentiated values.

``sum((a - b) ** 2 for a, b in itertools.combinations(x, 2))`` (pairwise energies, cross
terms, interactions) was refused: "no derivative rule for itertools.combinations". The
same over positions (``itertools.combinations(range(len(x)), 2)``, then ``x[i]``) was
already differentiated. srcad now reads these functions as Python
(:mod:`srcad.frontend.builtin_code`): the tuples itertools gives, each item read at its
position in a list of the iterable's items, the positions from itertools itself.

A generated family: each function and ``r``/``repeat``, over a 1-D array, the rows of a
2-D array and a list of values computed from the argument, taken by a ``for`` loop that
unpacks, ``sum`` of a generator, a comprehension and ``np.array(list(...))``; against
central finite differences and autograd (autograd iterates its boxes through itertools
itself), with value_and_grad, jvp and Hessians in both modes on a sample.
"""

from __future__ import annotations

import itertools

import numpy as np
import pytest
from call_checks import check_first_order
from program_files import load
from sampling import sample_by

import srcad

autograd = pytest.importorskip("autograd")
anp = pytest.importorskip("autograd.numpy")

#: the call (``{X}``: the items) and the arity of its tuples
CALLS = {
    "combinations_2": ("itertools.combinations({X}, 2)", 2),
    "combinations_3": ("itertools.combinations({X}, 3)", 3),
    "combinations_r_keyword": ("itertools.combinations({X}, r=2)", 2),
    "permutations": ("itertools.permutations({X})", 3),
    "permutations_2": ("itertools.permutations({X}, 2)", 2),
    "with_replacement_2": ("itertools.combinations_with_replacement({X}, 2)", 2),
    "product_two": ("itertools.product({X}, {X}[::-1])", 2),
    "product_repeat": ("itertools.product({X}, repeat=2)", 2),
    "product_three": ("itertools.product({X}, {X}, [{X}[0], {X}[1]])", 3),
    "from_import": ("combinations({X}, 2)", 2),
}
#: the items: an expression of x (a 1-D array of 3)
ITEMS = {
    "array": "x",
    "rows": "np.reshape(np.concatenate([x, x * x]), (3, 2))",
    "list": "[x[0] * 2.0, np.sin(x[1]), x[2] * x[0]]",
}
#: how the tuples are taken; ``{T}`` the call, ``{V}`` the tuple's names
USES = {
    "loop": ("    total = 0.0\n    for {V} in {T}:\n        total = total + np.sum({P})\n"
             "    return total\n"),
    "sum": "    return sum(np.sum({P}) for {V} in {T})\n",
    "comprehension": "    return np.sum(np.array([np.sum({P}) for {V} in {T}]))\n",
    "whole": "    return np.sum(np.array([np.sum(np.array(c) ** 2) for c in list({T})]))\n",
}


def _text(call, items, use):
    expr, arity = CALLS[call]
    names = [f"v{k}" for k in range(arity)]
    product = " * ".join(f"({n} + {k + 1}.0)" for k, n in enumerate(names))
    body = USES[use].format(T=expr.format(X="items"), V=", ".join(names), P=product)
    return ("import itertools\nfrom itertools import combinations\n\n\n"
            f"def f(x):\n    items = {ITEMS[items]}\n" + body)


def _cases():
    for call in CALLS:
        for items in ITEMS:
            for use in USES:
                if call == "product_three" and items == "list":
                    continue  # a list with [::-1] / [0]: the list's own reads, same as array
                yield call, items, use


X = np.array([0.3, -0.7, 1.1])


#: CI: every call once, a third of the rest (tests/sampling.py); the long run all
@pytest.mark.parametrize("call,items,use", sample_by(_cases(), lambda c: c[0], 1))
def test_itertools_tuples_of_differentiated_items(tmp_path, call, items, use):
    text = _text(call, items, use)
    f = load(tmp_path, f"it_{call}_{items}_{use}", text, modules=(np,))
    fa = load(tmp_path, f"ita_{call}_{items}_{use}", text, modules=(anp,))
    check_first_order(f, fa, X, np.array([0.4, -0.1, 0.6]))


@pytest.mark.parametrize("call,items,use", [
    ("combinations_2", "array", "loop"), ("permutations", "list", "sum"),
    ("product_repeat", "rows", "comprehension"), ("with_replacement_2", "array", "whole")])
def test_hessians_through_itertools_tuples(tmp_path, call, items, use):
    text = _text(call, items, use)
    f = load(tmp_path, f"ith_{call}_{items}_{use}", text, modules=(np,))
    fa = load(tmp_path, f"itha_{call}_{items}_{use}", text, modules=(anp,))
    want = autograd.hessian(fa)(X)
    for mode in ("fwd", "rev"):
        np.testing.assert_allclose(srcad.hessian(f, mode=mode)(X), want, rtol=1e-8,
                                   atol=1e-10)


def test_the_tuples_are_itertools_own():
    """The positions come from itertools: every kind's tuples, in its order."""
    from srcad.runtime.containers import index_tuples
    pool = list(range(4))
    for kind, r in (("combinations", 2), ("permutations", None), ("permutations", 3),
                    ("combinations_with_replacement", 3)):
        at = index_tuples(kind, [4], r)
        made = [tuple(pool[i] for i in t) for t in at]
        assert made == list(getattr(itertools, kind)(pool, *(() if r is None else (r,))))
    pools = [["a", "b"], [1, 2, 3]]
    made = [tuple(pools[k][i] for k, i in at) for at in index_tuples("product", [2, 3], 2)]
    assert made == list(itertools.product(*pools, repeat=2))
