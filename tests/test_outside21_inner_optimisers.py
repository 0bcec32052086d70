"""An optimiser run inside the function differentiated (round 21's outside programs).

Met in danielflamshep/gpbnn's ``iwae.py``: the outer objective fits a variational posterior
with ``adam(grad(objective_inner), init_var_params(arch), step_size=0.1, num_iters=100)``
(autograd's optimiser, here srcad's :mod:`srcad.misc.optimizers`) and then scores the prior's
parameters on it; ``adam(grad(kl), ...)`` differentiates all of it (autograd's hypergradient
style: the loss after a few steps of sgd, as a function of a hyperparameter). srcad's
optimisers were made by a decorator, each a closure over the step function: reading one inside
differentiated code was refused ("passing a function that holds local values to adam, which
reads variables of an enclosing function"). Each is now one plain function (the tree flattened
in its own body), which srcad reads like the user's own loop.

The family: the optimiser (sgd, adam, rmsprop) x the parameters' tree (an array, a list, a
dict, a tuple) x how the inner objective depends on the outer parameters (through its
gradient: a hypergradient; not at all: the outer score reads both, as in iwae.py; through a
lambda), against autograd's own optimisers on the same text and central differences.
"""

from __future__ import annotations

import importlib.util
import itertools
import textwrap

import numpy as np
import pytest
from sampling import sample
from twin_checks import central

import srcad

autograd = pytest.importorskip("autograd")
pytest.importorskip("autograd.misc.optimizers")

TREES = {  # (the start, the parameters as one vector, the score; P: the tree)
    "array": ("np.zeros(3)", "P", "np.sum(P ** 2)"),
    "list": ("[np.zeros(2), np.ones(1)]", "np.concatenate([P[0], P[1]])",
             "np.sum(P[0] ** 2) + np.sum(P[1])"),
    "dict": ("{'w': np.zeros(2), 'b': 0.5 * np.ones(1)}", "np.concatenate([P['w'], P['b']])",
             "np.sum(P['w'] ** 2) - np.sum(P['b'])"),
    "tuple": ("(np.zeros(2), np.ones(1))", "np.concatenate([P[0], P[1]])",
              "np.sum(P[0] * P[1])"),
}

ROUTES = {
    "hyper": "    def inner(p, i):\n        v = {vec}\n"
             "        return np.sum((v - h) ** 2) + 0.1 * np.sum(v ** 4)\n"
             "    q = {opt}(grad(inner), {init}, num_iters=6, step_size=0.1)\n"
             "    return {score}\n",
    "independent": "    def inner(p, i):\n        v = {vec}\n"
                   "        return np.sum((v - TARGET) ** 2)\n"
                   "    q = {opt}(grad(inner), {init}, num_iters=6, step_size=0.1)\n"
                   "    v = {qvec}\n    return np.sum(v * h) + np.sum(h ** 2) * {score}\n",
    "lambda": "    inner = lambda p, i: np.sum(({vec} - h) ** 2 * SCALE)\n"
              "    q = {opt}(grad(inner), {init}, num_iters=6, step_size=0.05)\n"
              "    return {score}\n",
}

CASES = list(itertools.product(("sgd", "adam", "rmsprop"), TREES, ROUTES))
H0 = np.array([0.3, -0.5, 1.13])  # (1.2: a zero first gradient, where adam has none)


def _text(opt, tree, route, numpy_name):
    init, vec, score = TREES[tree]
    lib = "srcad" if numpy_name == "numpy" else "autograd"
    body = ROUTES[route].format(vec=vec.replace("P", "p"), opt=opt, init=init,
                                score=score.replace("P", "q"), qvec=vec.replace("P", "q"))
    return (f"import {numpy_name} as np\nfrom {lib} import grad\n"
            f"from {lib}.misc.optimizers import {opt}\n\n"
            "TARGET = np.array([0.5, -0.2, 0.1])\nSCALE = np.array([1.0, 2.0, 0.5])\n\n"
            "def outer(h):\n" + body)


def _module(tmp_path, text, tag):
    path = tmp_path / f"inner_opt21_{tag}.py"
    path.write_text(textwrap.dedent(text))
    spec = importlib.util.spec_from_file_location(path.stem, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.mark.parametrize("opt,tree,route", sample(CASES, 4))
def test_an_optimiser_inside_the_function_differentiated(opt, tree, route, tmp_path):
    tag = f"{opt}_{tree}_{route}"
    m = _module(tmp_path, _text(opt, tree, route, "numpy"), tag)
    a = _module(tmp_path, _text(opt, tree, route, "autograd.numpy"), tag + "_ag")
    assert m.outer(H0) == pytest.approx(a.outer(H0), rel=1e-12)
    g = srcad.grad(m.outer)(H0)
    np.testing.assert_allclose(g, autograd.grad(a.outer)(H0), rtol=1e-9, atol=1e-12)
    np.testing.assert_allclose(g, central(m.outer, (H0,), 0), rtol=1e-5, atol=1e-7)


@pytest.mark.parametrize("opt", ["sgd", "adam", "rmsprop"])
def test_the_optimisers_alone_follow_autograds(opt):
    """Called as before (not differentiated): the same steps as autograd's, a callback seeing
    the tree and its gradient."""
    from autograd.misc import optimizers as theirs

    from srcad.misc import optimizers as ours

    def objective(p, i):
        return np.sum((p["w"] - 1.0) ** 2) + np.sum(p["b"] ** 4) * (i + 1)

    seen = []

    def callback(p, i, g):
        seen.append((i, set(p), set(g)))

    x0 = {"w": np.zeros(3), "b": np.ones(2)}
    mine = getattr(ours, opt)(srcad.grad(objective), x0, callback=callback, num_iters=7)
    want = getattr(theirs, opt)(autograd.grad(objective), x0, num_iters=7)
    for k in x0:
        np.testing.assert_allclose(mine[k], want[k], rtol=1e-12, atol=1e-14)
    assert [s[0] for s in seen] == list(range(7)) and seen[0][1:] == ({"w", "b"}, {"w", "b"})
