"""The Numba overload of :func:`.numba_index_checks.checked_index`: NumPy's checks of an
advanced index (a boolean mask's shape against the axes it indexes; each int of an int array
in range after counting negatives from the end), each with NumPy's message, generated per type
of array and index when Numba types the call; nothing for an index without arrays.

Imports ``numba`` and :mod:`.numba_index_checks`; imported by :mod:`.numba_masks` (only once
the Numba backend is used: ``import srcad`` imports no Numba).
"""

from __future__ import annotations

from numba import types
from numba.extending import overload

from .numba_index_checks import checked_index


def _axes(array, index):
    """``[(k, axis, is_mask, ndim)]`` for the arrays of ``index`` (a type, or a tuple of
    types): which axes of ``array`` each indexes."""
    elts = list(index.types) if isinstance(index, types.BaseTuple) else [index]
    width = [0 if isinstance(e, types.NoneType) or isinstance(e, types.EllipsisType)
             else e.ndim if isinstance(e, types.Array) and isinstance(e.dtype, types.Boolean)
             else 1 for e in elts]
    found, axis = [], 0
    for k, e in enumerate(elts):
        if isinstance(e, types.EllipsisType):
            axis = array.ndim - sum(width[k + 1:])
            continue
        if isinstance(e, types.Array):
            found.append((k, axis, isinstance(e.dtype, types.Boolean), e.ndim))
        axis += width[k]
    return found, isinstance(index, types.BaseTuple)


_MASK = ("    if {item}.shape[{j}] != array.shape[{axis}]:\n"
         "        raise IndexError('boolean index did not match indexed array along axis "
         "{axis}; size of axis is ' + str(array.shape[{axis}]) + ' but size of "
         "corresponding boolean axis is ' + str({item}.shape[{j}]))\n")
_INTS = ("    for v in {item}.ravel():\n"
         "        if v < -array.shape[{axis}] or v >= array.shape[{axis}]:\n"
         "            raise IndexError('index ' + str(v) + ' is out of bounds for axis {axis}"
         " with size ' + str(array.shape[{axis}]))\n")


@overload(checked_index)
def _checked_index(array, index):
    if not isinstance(array, types.Array):
        return lambda array, index: index
    found, is_tuple = _axes(array, index)
    if not found or any(axis + ndim > array.ndim for _, axis, _, ndim in found):
        return lambda array, index: index  # (too many indices: Numba's typing refuses)
    lines = []
    for k, axis, is_mask, ndim in found:
        item = f"index[{k}]" if is_tuple else "index"
        lines += [_MASK.format(item=item, j=j, axis=axis + j) for j in range(ndim)] \
            if is_mask else [_INTS.format(item=item, axis=axis)]
    source = "def check(array, index):\n" + "".join(lines) + "    return index\n"
    space = {}
    exec(compile(source, "<srcad checked_index>", "exec"), space)  # noqa: S102
    return space["check"]
