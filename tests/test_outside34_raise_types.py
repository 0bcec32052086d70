"""Where the function raises, its derivative raises, for what raises by the operands' value
types (``srcad.rules.raising``: :data:`~srcad.rules.raising.FLOAT`,
:data:`~srcad.rules.raising.INT`, :data:`~srcad.rules.raising.NUMBER`,
:data:`~srcad.rules.raising.CNUMBER`, an :class:`~srcad.rules.raising.Alike` that may be
complex or hold integers): a value nothing reads stays where ``b`` may be a Python int past
2**63 given to a ufunc with no loop for one (``np.sin(2 ** 70)``: ``TypeError``), mixed with
an integer array or a NumPy integer (``OverflowError``), or complex given to a ufunc with no
complex loop (``np.floor``, ``np.arctan2``) or floor-divided (``TypeError``); a ufunc of
constants alone is evaluated. Where ``b`` is of a type the operation takes, the derivative
against central differences and srcad's tape.

Each form at the top level, in a branch, in a loop and in a callee (its forward part), under
grad, value_and_grad, vjp, jvp, jacfwd, jacrev, hessian and has_aux: the exception type of
``f`` itself. Cheap by default (4 cases), every case under SRCAD_LONG_PROPERTIES=1. Imports
itertools, NumPy, pytest, srcad, the tests' helpers and test_sound33_shapes_raise's
places and its check of every transform, `raises_in_every_transform` (other forms)."""

from __future__ import annotations

import itertools

import numpy as np
import pytest
from program_files import module
from sampling import LONG
from test_sound33_shapes_raise import PLACES, X, _want, raises_in_every_transform

import srcad

#: form -> (a dead value reading y, x and the argument b; a b raising, a b not raising)
FORMS = {
    "big_int_ufunc": ("np.sin(b)", 2 ** 70, 3),
    "big_int_sqrt": ("np.sqrt(b) * y", 2 ** 64, 2 ** 40),
    "big_int_int_array": ("np.arange(3) * b", 2 ** 70, 5),
    "big_int_constant": ("b + 18446744073709551616", np.int64(3), 1.5),
    "complex_floor": ("np.floor(b)", np.ones(3) * 1j, np.ones(3)),
    "complex_arctan2": ("np.arctan2(b, x)", np.ones(3) + 2j, np.ones(3)),
    "complex_floordiv": ("b // 2.0", np.ones(3) * 1j, np.ones(3)),
    "complex_made": ("np.floor(b + x)", np.ones(3) * 1j, np.ones(3)),
}
CASES = list(itertools.product(FORMS, PLACES))
CASES = CASES if LONG else [("big_int_ufunc", "top"), ("big_int_int_array", "branch"),
                            ("complex_floor", "loop"), ("complex_arctan2", "callee")]


@pytest.mark.parametrize("form,place", CASES)
def test_a_dead_value_raising_by_value_type_raises_in_every_transform(tmp_path, form, place):
    expression, bad, good = FORMS[form]
    mod, kind = raises_in_every_transform(tmp_path, f"types_{form}_{place}", expression, place,
                                          bad, good)
    with pytest.raises(kind):
        srcad.grad(mod.f_aux, has_aux=True)(X, bad)
    assert np.allclose(srcad.grad(mod.f_aux, has_aux=True)(X, good)[0], _want("grad"))


CONSTANTS = """import numpy as np


def f(x):
    m = {e}
    return np.sum(x * x)
"""


@pytest.mark.parametrize("expression", ["np.sin(2 ** 70)", "np.floor(1.5j)",
                                        "np.arctan2(1j, 2.0)"])
def test_a_dead_ufunc_of_constants_raising_raises(tmp_path, expression):
    """A ufunc of constants alone is evaluated: where it raises, so do the derivatives."""
    mod = module(tmp_path, f"types_const_{abs(hash(expression))}", CONSTANTS.format(
        e=expression))
    with pytest.raises(TypeError):
        mod.f(X)
    for transform in (srcad.grad, srcad.jacfwd, srcad.hessian):
        with pytest.raises(TypeError):
            transform(mod.f)(X)
