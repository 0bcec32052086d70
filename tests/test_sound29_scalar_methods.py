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
