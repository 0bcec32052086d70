"""A loop over a lazy iterator of a sequence the body writes into (sound24):
``for i, v in enumerate(reversed(xs)): xs[i] = v * c``.

Python's ``reversed``, ``map``, ``iter`` read ``xs`` as the loop runs (the third step of
the loop above reads the first step's write); lowering took their items at once
(``list(reversed(xs))``) and the alias analysis saw the loop walking that new list, not
``xs``: a silently wrong gradient (``for v in reversed(xs)`` alone was refused). The names
such an iterator reads, inside ``enumerate``/``zip`` too, are now walked by the loop for
the alias analysis (``lower_loops._lazy_sources``): a write into them is refused, a write
elsewhere is differentiated as before. Family (iterator x container x what is written)
against central differences.
"""

from __future__ import annotations

import itertools

import numpy as np
import pytest
from test_robustness import load_module

import srcad
from srcad.errors import SrcadError

NP = "import numpy as np\n"
W = np.array([0.3, -0.4, 0.7])
ITERS = {"enumerate-reversed": "enumerate(reversed(xs))",
         "zip-reversed": "zip(range(3), reversed(xs))",
         "enumerate-map": "enumerate(map(np.sin, xs))",
         "zip-iter": "zip(range(3), iter(xs))",
         "enumerate-reversed-view": "enumerate(reversed(xs[:]))"}
MAKE = {"list": "[w[0], w[1], w[2]]", "array": "w * 1.0"}
TARGET = {"itself": "xs", "another": "ys"}
TEXT = """
def f(w):
    xs = {make}
    ys = [0.0, 0.0, 0.0]
    for i, v in {it}:
        {target}[2 - i] = v * w[2] + xs[i]
    return xs[0] * xs[1] * xs[2] + ys[0] * ys[1] + ys[2]
"""


@pytest.mark.parametrize("it,make,target", list(itertools.product(ITERS, MAKE, TARGET)))
def test_a_lazy_iterator_over_a_sequence_written(it, make, target, tmp_path):
    m = load_module(tmp_path, NP + TEXT.format(make=MAKE[make], it=ITERS[it],
                                               target=TARGET[target]))
    fd = np.array([(m.f(W + 1e-6 * e) - m.f(W - 1e-6 * e)) / 2e-6 for e in np.eye(3)])
    if it == "enumerate-reversed-view" and make == "list" and target == "itself":
        return  # (xs[:] of a list is a copy: refused too, more than needed)
    if it == "zip-iter":  # (refused anyway: iter(xs) zipped with another sequence)
        with pytest.raises(SrcadError):
            srcad.grad(m.f)(W.copy())
        return
    if target == "itself":
        with pytest.raises(SrcadError, match="while the for loop"):
            srcad.grad(m.f)(W.copy())
        return
    np.testing.assert_allclose(srcad.grad(m.f)(W.copy()), fd, rtol=1e-6, atol=1e-8)
