"""Guards of :mod:`.numba_scalars`' code: each the value it is given, where its type is one
the replaced array's element would have been; otherwise a typing error (the code is then
compiled as it was, its arrays arrays).

``numba_sr_float(e)``: an item of ``np.array([...])`` held as a number: a float64 only (an
int, a bool or a complex item would make another array type). ``numba_sr_number(e)``: a
number operand of an elementwise expression of float64 arrays: a float64 or an int64 (the
elements then float64, as NumPy's). ``numba_sr_store(e)``: a value written into an element
(``N[c] = e``, srcad's ``scatter``): a float64, int or bool, made a float64 as a float64
array's element is.

Imports ``functools``; ``numba`` (this module is imported only where Numba compiles).
"""

from __future__ import annotations

import functools

from numba import types
from numba.core.errors import TypingError
from numba.extending import overload


def _stub(name):
    def stub(value):
        raise NotImplementedError

    stub.__name__ = stub.__qualname__ = f"numba_sr_{name}"
    stub.__srcad_numba_helper__ = f"sr_{name}"  # what the cache on disk keys it by
    return stub


def _float_only(value):
    if value == types.float64:
        return lambda value: value
    raise TypingError(f"srcad's numba backend: not a float64 item ({value})")


def _number(value):
    if value in (types.float64, types.int64):
        return lambda value: value
    raise TypingError(f"srcad's numba backend: not a float64 or int64 operand ({value})")


def _store(value):
    if value == types.float64:
        return lambda value: value
    if isinstance(value, (types.Integer, types.Boolean)):
        return lambda value: float(value)
    raise TypingError(f"srcad's numba backend: not a real number to store ({value})")


_TYPERS = {"float": _float_only, "number": _number, "store": _store}


@functools.cache  # one stub and overload a kind, a process
def guard(kind):
    """The guard ``numba_sr_<kind>`` (see the module docstring)."""
    stub = _stub(kind)
    overload(stub)(_TYPERS[kind])
    return stub
