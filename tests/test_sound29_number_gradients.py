"""A number's gradient made a 0-d array (sound29's mutant fuzzer, on autograd's
``test_cumsum_axis0`` given a float, through a list grown by ``L.append(np.sin(L[-1]))``):
``np.cumsum(s, axis=0)`` of a number ``s`` is an array of shape (1,), and ``grad_cumsum``
reshaped its gradient to ``s``'s shape ``()``, a 0-d array, not a float
(``srcad.runtime.numpy_common._match``). ``fill`` then put that one array in every item of
the gradient of ``sum(L)``, and the backward sweep, which adds into a number's gradient with
``+=`` (a new float), added into the shared array in place: every item changed (18.7 where
5.2). ``_match`` now gives a float for a number whatever the gradient's shape. Found with
it: ``np.cumprod(s, axis=0)`` of a number (NumPy reads axis 0 as its ravel's) crashed both
``grad_cumprod`` and ``tangent_cumprod`` with NumPy's ``AxisError``; they ravel a number.

A generated family: functions of a number that return arrays (cumulative sums and products
with and without ``axis``, ``atleast_1d``, ``sort``, ``flip``, ``ravel``, ``reshape``), their
value summed, read after a list grown from the number; srcad's gradient against central
differences, its class (a float), and its jvp. Cheap by default (one case), every case under
``SRCAD_LONG_PROPERTIES=1``. Imports NumPy, srcad, and the tests' program_files,
sampling."""

from __future__ import annotations

import numpy as np
import pytest
from program_files import module
from sampling import LONG

import srcad

ARRAYS = ["np.cumsum(s, axis=0)", "np.cumsum(s)", "np.cumprod(s, axis=0)", "np.cumprod(s)",
          "np.atleast_1d(s)", "np.sort(np.atleast_1d(s))", "np.flip(np.atleast_1d(s), 0)",
          "np.ravel(s)", "np.reshape(s, (1, 1))"]

TEMPLATE = """\
import numpy as np


def f(x):
    y = x * x
    L = [y]
    for j in range(2):
        L.append(np.sin(L[-1]))
    s = sum(L)
    return np.sum({array} * 0.9)
"""

FIRST = ["np.cumsum(s, axis=0)"]


@pytest.mark.parametrize("array", FIRST + (ARRAYS[1:] if LONG else []))
def test_a_number_has_a_float_gradient(tmp_path, array):
    mod = module(tmp_path, "number_grad", TEMPLATE.format(array=array))
    x, h = 1.12, 1e-6
    g = srcad.grad(mod.f)(x)
    assert isinstance(g, float)
    assert np.isclose(g, (mod.f(x + h) - mod.f(x - h)) / (2 * h), rtol=1e-6)
    _, t = srcad.jvp(mod.f, (x,), (1.0,))
    assert np.isclose(t, g, rtol=1e-10)
