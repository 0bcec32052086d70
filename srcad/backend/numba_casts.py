"""``y op= v`` under the Numba backend: :func:`srcad.frontend.augmented_casts.kept_dtype`
given a Numba implementation, chosen by type when Numba compiles (``numba.extending.overload``),
so the compiled code keeps ``y``'s dtype as Python's ``y op= v`` does (a float32 array times a
float64 number is float32) for every type the dispatcher compiles for.

Where NumPy's ``same_kind`` rule allows the cast back, the value is ``y op v`` cast to ``y``'s
dtype (the plain run's, bit for bit); where it does not (a float into an integer or boolean
array, a complex value into a real one), NumPy raises in the plain run, and Numba's typing
error here makes the compilation fail: :func:`srcad.backend.numba_backend.jit` reports it as a
SrcadError naming the line (a refusal where Python raises). ``y`` not an array (a number):
Python rebinds it, the value is ``y op v``. :func:`spelled`: the names the code calls it by,
for :mod:`.numba_update`'s in-place form of ``y += v``.

Imports NumPy, ``numba``, :mod:`srcad.frontend.augmented_casts` and :mod:`.numba_helpers`
(the registry of the helpers' Numba forms).
"""

from __future__ import annotations

import numpy as np
from numba import types
from numba.core.errors import TypingError
from numba.extending import overload
from numba.np.numpy_support import as_dtype

from ..frontend.augmented_casts import kept_dtype


@overload(kept_dtype)
def _kept_dtype(new, old, op):
    if not isinstance(old, types.Array):
        return lambda new, old, op: new  # a number: Python rebinds it
    got = new.dtype if isinstance(new, types.Array) else new
    if got == old.dtype:
        return lambda new, old, op: new
    source, target = as_dtype(got), as_dtype(old.dtype)
    if not np.can_cast(source, target, "same_kind"):
        raise TypingError(f"y op= v with y an array of {target} and y op v of {source}: NumPy "
                          "raises in place (UFuncTypeError: no same_kind cast), srcad's Numba "
                          "code refuses it")
    if not isinstance(new, types.Array):  # (y a 0-d array, v a number: NumPy gives a number)
        return lambda new, old, op: np.asarray(new).astype(target)
    return lambda new, old, op: new.astype(target)


def spelled(helper_of, cells):
    """``helper_of`` (spelling -> srcad helper) with the names ``cells`` (name -> cell of
    the generated code) bind :func:`kept_dtype` to: :mod:`.numba_update` writes a user's
    ``y += v`` carrying the cast into ``y``'s array where it may."""
    found = dict(helper_of)
    for name, cell in dict(cells or {}).items():
        try:
            held = cell.cell_contents
        except (AttributeError, ValueError):  # (not a cell; a cell not filled yet: recursion)
            continue
        if held is kept_dtype:
            found[name] = "kept_dtype"
    return found
