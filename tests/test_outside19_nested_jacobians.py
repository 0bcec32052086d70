"""Jacobians of Jacobians of Jacobians (round 19's outside programs).

Met in rgiordan/vittles (sensitivity of optima: Taylor expansions in hyperparameters), whose
``ReverseModeDerivativeArray`` builds ``jacobian(jacobian(jacobian(g, 1), 1), 0)`` and so on.
Two levels were differentiated; a third was refused with a misleading message ("g is a function
made by srcad (a Jacobian, ...): srcad differentiates your code, not its own wrappers"): the
third level differentiates the plain Jacobian of the second (``srcad.nested.plain_jacobian``),
which calls ``srcad.jvp`` of the first Jacobian in code, and that call's forward-mode code
was made from the Jacobian's wrapper instead of what ``srcad.jvp`` reads for it (its plain
form): ``srcad.nested.JvpOf`` now makes it from the target ``srcad.jvp`` itself reads.

The family: every sequence of three ``wrt`` choices (and two of four) over a function of two arrays,
Jacobians in reverse and forward mode, and a Hessian of a Jacobian, against autograd's nested
``jacobian`` and central differences of the level below.
"""

from __future__ import annotations

import importlib.util
import itertools
import textwrap

import numpy as np
import pytest

import srcad

autograd = pytest.importorskip("autograd")

SOURCE = """
A1 = [0.3, 0.2]
A2 = [0.5, 0.1, 0.7]

def g(x1, x2):
    val = np.sin(np.dot(np.array(A1), x1) + np.dot(np.array(A2), x2)) * np.sum(x1 * x1)
    return (0.5 + np.arange(3)) * val
"""

X1 = np.array([0.1, 0.4])
X2 = np.array([0.2, 0.3, 0.9])


def _module(tmp_path, numpy_name):
    path = tmp_path / f"jac19_{numpy_name.replace('.', '_')}.py"
    path.write_text(f"import {numpy_name} as np\n" + textwrap.dedent(SOURCE))
    spec = importlib.util.spec_from_file_location(path.stem, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _central(f, args, wrt, h=1e-5):
    """The Jacobian of ``f`` w.r.t. argument ``wrt`` by central differences."""
    x = args[wrt]
    cols = []
    for j in range(x.size):
        e = np.zeros_like(x)
        e.flat[j] = h
        plus = list(args)
        minus = list(args)
        plus[wrt], minus[wrt] = x + e, x - e
        cols.append((np.asarray(f(*plus)) - np.asarray(f(*minus))) / (2 * h))
    return np.stack(cols, axis=-1).reshape(np.shape(f(*args)) + x.shape)


@pytest.mark.parametrize("wrts,mode", [(w, m) for w in itertools.product((0, 1), repeat=3)
                                       for m in ("rev", "fwd")]
                         + [((0, 0, 1, 1), "rev"), ((1, 0, 1, 0), "fwd")])
def test_nested_jacobians(wrts, mode, tmp_path):
    m, a = _module(tmp_path, "numpy"), _module(tmp_path, "autograd.numpy")
    ours, theirs = m.g, a.g
    below = None
    for w in wrts:
        below = ours
        ours = srcad.jacobian(ours, wrt=w, mode=mode)
        theirs = autograd.jacobian(theirs, w)
    value = ours(X1, X2)
    np.testing.assert_allclose(value, theirs(X1, X2), rtol=1e-9, atol=1e-11)
    np.testing.assert_allclose(value, _central(below, (X1, X2), wrts[-1]), rtol=1e-5,
                               atol=1e-6)


def test_a_hessian_of_a_jacobian(tmp_path):
    m, a = _module(tmp_path, "numpy"), _module(tmp_path, "autograd.numpy")

    def first(x1, x2):
        return srcad.jacobian(m.g, wrt=1)(x1, x2)[0, 0]

    def ag_first(x1, x2):
        return autograd.jacobian(a.g, 1)(x1, x2)[0, 0]

    for mode in ("fwd", "rev"):
        np.testing.assert_allclose(srcad.hessian(first, wrt=0, mode=mode)(X1, X2),
                                   autograd.hessian(ag_first, 0)(X1, X2), rtol=1e-9,
                                   atol=1e-11)
