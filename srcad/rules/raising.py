"""What may raise: the one predicate deciding whether a value nothing reads may be left
uncomputed. The policy: where the function raises, its derivative raises. A value the
function computes and nothing reads (``mean = t / n``, then unused) is dropped from the SSA
form (:func:`srcad.frontend.optimise.dead_code`) and from the generated code
(:mod:`srcad.backend.tidy_dead`) only where computing it cannot raise: Python raises
``ZeroDivisionError`` for ``t / n`` with ``n == 0``, and the derivative must too.

:func:`may_raise` takes the function applied and what is known of its operands, each
:data:`NUMBER` (a Python or NumPy number), :data:`ARRAY` (a NumPy array), :data:`UNKNOWN`, or
a :class:`Known` constant; each caller says what it knows (the SSA pass the kinds of the
analysis, the generated code's pass its literals and the analysis' array names). It cannot
raise:

* ``+``, ``-``, ``*``, unary ``-``/``+``, ``abs``, comparisons: Python numbers never raise
  there (a float overflows to ``inf``), nor do NumPy arrays whose shapes broadcast. The two
  cases taken as not raising though they do: arrays whose shapes do not broadcast
  (``ValueError``), and operands of types the operation does not take (``"a" + 1``,
  ``TypeError``);
* ``/``, ``//``, ``%`` by a nonzero constant, or of a NumPy array (NumPy warns, ``inf``);
* ``**`` of a NumPy array to a constant float or non-negative power, and of a number to a
  constant non-negative power: a number raises ``OverflowError`` there (``1e200 ** 2``),
  which is not a domain error (the function is defined: ``x * x`` is ``inf`` there), so
  W1's discarded ``d ** 2`` is not computed for it; a negative power of a number may
  raise ``ZeroDivisionError`` (``0.0 ** -1``) and is kept;
* NumPy's ufuncs but ``np.power`` (which is ``**``), and NumPy's functions of
  :data:`_NUMPY_SAFE` of one operand;
* ``functools.partial`` (srcad's lifted closures: a callable, never raising);
* what evaluates without raising: an operation of number constants (``(-0.25) ** 2``);
* the runtime helpers of srcad's of :data:`PURE_HELPERS` (pure, never raising);
* the methods of :data:`_SAFE_METHODS` of an array (``a.sum()``, ``a.copy()``).

Anything else may raise: subscripts (``IndexError``, ``KeyError``), ``math`` functions
(``math.log(0.0)``), ``int()`` and ``float()``, other NumPy functions (``np.linalg.inv`` of
a singular matrix, ``np.reshape`` to a wrong size), calls of your functions or of anything
not known pure.

Imports NumPy and the standard library's ``functools`` and ``operator``.
"""

from __future__ import annotations

import functools
import operator

import numpy as np

NUMBER, ARRAY, UNKNOWN = "number", "array", "unknown"


class Known:
    """A constant operand."""

    __slots__ = ("value",)

    def __init__(self, value):
        self.value = value


#: functions that raise on no number and on no arrays of shapes that broadcast
_NEVER = frozenset({operator.add, operator.sub, operator.mul, operator.neg, operator.pos,
                    abs, operator.eq, operator.ne, operator.lt, operator.le, operator.gt,
                    operator.ge, operator.not_})
#: Python's divisions: ZeroDivisionError for a Python zero divisor
_DIVISIONS = frozenset({operator.truediv, operator.floordiv, operator.mod, divmod})
#: srcad's runtime helpers that are pure and raise for no value they are given
PURE_HELPERS = frozenset({"unbroadcast", "unbroadcast_to", "broadcast_as", "zeros_like", "add",
                          "fill", "total", "expand", "scatter", "cleared", "like", "sign",
                          "shape_of", "zeros_array", "items_at"})
#: NumPy functions (not ufuncs) that raise for no array or number
_NUMPY_SAFE = frozenset({np.sum, np.mean, np.prod, np.zeros_like, np.ones_like, np.copy,
                         np.asarray, np.shape, np.ndim, np.size, np.ravel, np.real, np.imag,
                         np.all, np.any})
#: methods of an array that raise for no array when called with no argument
_SAFE_METHODS = frozenset({"sum", "copy", "mean", "prod", "ravel", "conj", "flatten"})


def _nonzero(fact):
    return isinstance(fact, Known) and type(fact.value) in (int, float, complex) and (
        fact.value != 0)


def may_raise(fn, operands=()):
    """Whether applying ``fn`` to operands of which ``operands`` is known may raise.
    ``fn`` is the function (``operator.truediv`` for ``/``, ``operator.getitem`` for a
    subscript, ``np.sin``, ``math.log``), a runtime helper's name, or ``("method", name)``."""
    if isinstance(fn, str):
        return fn not in PURE_HELPERS
    if isinstance(fn, tuple) and fn[0] == "method":
        return not (fn[1] in _SAFE_METHODS and operands[:1] == [ARRAY] and len(operands) == 1)
    if operands and all(isinstance(o, Known) for o in operands) and (
            fn in _DIVISIONS or fn is operator.pow) and all(
            type(o.value) in (int, float) and abs(o.value) < 64 for o in operands):
        try:  # (small numbers: no time, no memory)
            fn(*(o.value for o in operands))
        except Exception:
            return True
        return False
    try:
        if fn in _NEVER or fn is functools.partial:
            return False
        if fn in _DIVISIONS:
            return not (len(operands) == 2 and (_nonzero(operands[1]) or ARRAY in operands))
        if fn is operator.pow or fn is np.power or fn is pow:
            exponent = operands[1] if len(operands) == 2 else None
            if operands[0] == ARRAY:
                return not (isinstance(exponent, Known) and (
                    type(exponent.value) is float or type(exponent.value) is int
                    and exponent.value >= 0))
            # a number to a constant power >= 0 raises only OverflowError (1e200 ** 2):
            # not a domain error (x * x is inf there), so the derivative is returned
            return not (isinstance(exponent, Known) and type(exponent.value) in (int, float)
                        and exponent.value >= 0)
        if fn in _NUMPY_SAFE:
            return len(operands) != 1  # (np.sum(a, 5): an axis a may not have)
    except TypeError:  # (an unhashable callable)
        return True
    return not isinstance(fn, np.ufunc)
