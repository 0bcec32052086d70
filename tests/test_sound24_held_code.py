"""A function of the user's held in a list or dict of functions given other code
(``a1.__code__ = a2.__code__``) after the derivative was made (sound24).

``frontend/held_lists.py`` guards such a container by its items' identity; the item kept
its identity, so the derivative made for its old code ran: a silently wrong gradient (a
function named directly is made again: ``env.code_reads``). The items' code objects are now
read too. Family (container x how it is read x transform) against central differences.
"""

from __future__ import annotations

import itertools

import numpy as np
import pytest
from test_robustness import load_module

import srcad

NP = "import numpy as np\n"
W = np.array([0.3, -0.4, 0.7])
TEXT = """
def a1(x):
    return x * x


def a2(x):
    return x * x * x


ACTS = {acts}


def f(w):
{body}
"""
CONTAINERS = {"list": "[a1, np.sin]", "dict": "{'p': a1, 'q': np.sin}"}
BODIES = {
    "loop": "    x = w[0]\n    for a in ACTS{values}:\n        x = a(x) * w[1]\n"
            "    return x + w[2]",
    "index": "    return ACTS[{first}](w[0]) * w[1] + w[2]",
}


@pytest.mark.parametrize("container,body,how", list(itertools.product(
    CONTAINERS, BODIES, ["grad", "jvp"])))
def test_an_item_given_other_code(container, body, how, tmp_path):
    text = TEXT.format(acts=CONTAINERS[container], body=BODIES[body].format(
        values=".values()" if container == "dict" else "",
        first="'p'" if container == "dict" else "0"))
    m = load_module(tmp_path, NP + text)

    def derivative():
        if how == "grad":
            return srcad.grad(m.f)(W.copy())
        return np.array([srcad.jvp(m.f, (W.copy(),), (e,))[1] for e in np.eye(3)])

    for _ in range(2):
        fd = np.array([(m.f(W + 1e-6 * e) - m.f(W - 1e-6 * e)) / 2e-6 for e in np.eye(3)])
        np.testing.assert_allclose(derivative(), fd, rtol=1e-6, atol=1e-8)
        m.a1.__code__ = m.a2.__code__
