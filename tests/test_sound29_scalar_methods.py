"""Array methods of a NumPy scalar in forward mode (sound29's mutant fuzzer, on a course
project's ``log_density(x) = sp.stats.norm.logpdf(x, 0, 2).reshape((-1,))`` given a float):
``srcad.jvp`` crashed with ``AttributeError: 'float' object has no attribute 'reshape'``. The
primal is a ``np.float64``, which has NumPy's array methods, but its tangent, made by the
rule's template from Python floats (``dx * (-x / 2) / 2``), is a Python float, which has not;
forward mode wrote the method on the tangent as on the primal. The tangent of a method of a
value not known to be an array is now read through ``np.asarray``
(``srcad.transform.forward.linear_term``).

A generated family: NumPy-scalar values whose tangent is a Python float (``np.square``,
``scipy.stats.norm.logpdf``, ``np.float64(x) * x``) with each linear method or attribute
(``reshape``, ``ravel``, ``flatten``, ``sum``, ``mean``, ``T``, ``transpose``, ``squeeze``,
``copy``, ``cumsum``); srcad's jvp against its reverse gradient and central differences.
Cheap by default (one case), every case under ``SRCAD_LONG_PROPERTIES=1``. Imports NumPy,
SciPy, srcad, and the tests' program_files, sampling."""

from __future__ import annotations

import itertools

import numpy as np
import pytest
from program_files import module
from sampling import LONG

import srcad

VALUES = ["np.square(x)", "scipy.stats.norm.logpdf(x, 0, 2)", "np.float64(x) * x"]
METHODS = ["reshape((-1,))", "ravel()", "flatten()", "sum()", "mean()", "T", "transpose()",
           "squeeze()", "copy()", "cumsum()"]

TEMPLATE = """\
import numpy as np
{imports}

def f(x):
    v = {value}
    return np.sum(v.{method} * 2.0) + x
"""

CASES = list(itertools.product(VALUES, METHODS))
FIRST = [("np.square(x)", "reshape((-1,))")]  # (SciPy costs 4 s to import)


@pytest.mark.parametrize("value,method", FIRST + (CASES if LONG else []))
def test_method_of_a_numpy_scalar(tmp_path, value, method):
    mod = module(tmp_path, "scalar_method", TEMPLATE.format(
        value=value, method=method, imports="import scipy.stats\n" if "scipy" in value else ""))
    x = 0.7
    y, t = srcad.jvp(mod.f, (x,), (1.0,))
    assert np.isclose(y, mod.f(x), rtol=1e-12)
    h = 1e-6
    assert np.isclose(t, (mod.f(x + h) - mod.f(x - h)) / (2 * h), rtol=1e-6)
    assert np.isclose(t, srcad.grad(mod.f)(x), rtol=1e-12)


LISTS = """\
import numpy as np


def f(x):
    L = [x, 2.0 * x]
    for j in range(2):
        L[j] = L[j] ** 2
    return L[0] + L[1]


def g(x):
    L = [x, x * x]
    M = L.copy()
    M[0] = M[0] * 3.0
    return np.sum(M[0] * L[1] + M[1])
"""


def test_a_list_method_keeps_its_list_tangent(tmp_path):
    """Only a number's method reads its tangent as an array: the first form of the fix read
    ``L.copy()``'s list tangent through ``np.asarray`` too, and the forward-over-reverse
    Hessian of a loop writing list items lost an item's tangent (the fuzzer's next run: 10 of
    ``jvp(grad(f))`` read as 2; ``copy_tangent`` of an array for a list gives zeros)."""
    mod = module(tmp_path, "list_tangents", LISTS)
    x, h = 0.7, 1e-5
    grad_f = srcad.grad(mod.f)
    _, hv = srcad.jvp(grad_f, (x,), (1.0,))
    assert np.isclose(hv, (grad_f(x + h) - grad_f(x - h)) / (2 * h), rtol=1e-6)
    assert np.isclose(hv, 10.0)
    if not LONG:
        return
    v = np.array([0.3, -1.1])
    _, t = srcad.jvp(mod.g, (np.array([0.5, 1.5]),), (v,))
    want = np.sum(srcad.grad(mod.g)(np.array([0.5, 1.5])) * v)
    assert np.isclose(t, want, rtol=1e-12)
