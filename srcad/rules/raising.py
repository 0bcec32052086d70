"""What may raise: the one predicate deciding whether a value nothing reads may be left
uncomputed. The policy: where the function raises, its derivative raises. A value the
function computes and nothing reads (``mean = t / n``, then unused) is dropped from the SSA
form (:func:`srcad.frontend.optimise.dead_code`) and from the generated code
(:mod:`srcad.backend.tidy_dead`) only where computing it cannot raise: Python raises
``ZeroDivisionError`` for ``t / n`` with ``n == 0``, and the derivative must too.

Python raises ``TypeError`` for operands of types an operation does not take (``"a" + 1``,
``np.sin("a")``) and NumPy ``ValueError`` for arrays whose shapes do not broadcast (``a + b``
of shapes (3,) and (4,)), so what is known of the operands decides. :func:`may_raise` takes
the function applied and, for each operand, :data:`NUMBER` (a Python or NumPy number), an
:class:`Alike` (a NumPy array of a shape class: arrays of one class have one shape, as the
specialisation knows them, :mod:`srcad.analysis.raise_facts`), :data:`ARRAY` (an array of a
shape nothing else is known to share), :data:`OWN` (a value srcad's generated code made: a
gradient, a saved value, of the types its operations take), :data:`UNKNOWN`, or a
:class:`Known` constant. Operands *broadcast* when each is a number, a number constant, an
array or srcad's, and the arrays among them are one, or all of one class. It cannot raise:

* ``+``, ``-``, ``*``, unary ``-``/``+``, ``abs``, comparisons, of operands that broadcast
  (Python numbers never raise there: a float overflows to ``inf``); ``not`` of a number;
  ``is``, ``is not``; ``==``, ``!=`` with a constant string, number, bool or None;
* ``/``, ``//``, ``%`` of operands that broadcast, by a nonzero constant, or with an array
  (NumPy warns, ``inf``);
* ``**`` of a NumPy array to a constant float or non-negative power, and of a number to a
  constant non-negative power: a number raises ``OverflowError`` there (``1e200 ** 2``),
  which is not a domain error (the function is defined: ``x * x`` is ``inf`` there), so
  W1's discarded ``d ** 2`` is not computed for it; a negative power of a number may
  raise ``ZeroDivisionError`` (``0.0 ** -1``) and is kept;
* NumPy's element-wise ufuncs with a loop for float64 operands (``np.sin``, ``np.add``; not
  ``np.bitwise_and``, ``np.isnat``, nor ``np.matmul``, whose core sizes must agree) of
  operands that broadcast, and NumPy's functions of :data:`_NUMPY_SAFE` of one number or
  array;
* ``functools.partial`` (srcad's lifted closures: a callable, never raising);
* what evaluates without raising: an operation of number constants (``(-0.25) ** 2``);
* the runtime helpers of srcad's of :data:`PURE_HELPERS` (pure, never raising);
* the methods of :data:`_SAFE_METHODS` of an array (``a.sum()``, ``a.copy()``).

Anything else may raise: subscripts (``IndexError``, ``KeyError``), ``math`` functions
(``math.log(0.0)``), ``int()`` and ``float()``, ``a @ b`` and ``np.dot`` (inner sizes),
other NumPy functions (``np.linalg.inv`` of a singular matrix, ``np.reshape`` to a wrong
size, ``np.concatenate`` of arrays of other ranks), calls of your functions or of anything
not known pure. Known gaps: a complex number given to a ufunc with float loops only
(``np.floor``) and a Python int past 2**64 given to a ufunc raise ``TypeError`` and are taken
as not raising.

Imports NumPy and the standard library's ``functools`` and ``operator``.
"""

from __future__ import annotations

import functools
import operator

import numpy as np

NUMBER, ARRAY, UNKNOWN, OWN = "number", "array", "unknown", "own"


class Known:
    """A constant operand."""

    __slots__ = ("value",)

    def __init__(self, value):
        self.value = value


class Alike:
    """An array of the shape class ``root`` (the arrays of one class have one shape)."""

    __slots__ = ("root",)

    def __init__(self, root):
        self.root = root


def _array(fact):
    return fact == ARRAY or isinstance(fact, Alike)


def _broadcast(operands):
    """Whether ``operands`` are of types element-wise operations take and their shapes
    broadcast: numbers, srcad's values and arrays, the arrays one or all of one class."""
    roots = set()
    for o in operands:
        if isinstance(o, Alike):
            roots.add(o.root)
        elif o == ARRAY:
            roots.add(object())  # (a class of its own)
        elif not (o == NUMBER or o == OWN or isinstance(o, Known) and type(o.value) in (
                int, float, complex, bool)):
            return False
    return len(roots) <= 1


#: functions that raise on no number and on no arrays of shapes that broadcast
_NEVER = frozenset({operator.add, operator.sub, operator.mul, operator.neg, operator.pos,
                    abs, operator.eq, operator.ne, operator.lt, operator.le, operator.gt,
                    operator.ge})
#: the constants of no shape (``==`` of them never raises)
_ATOMS = (str, bytes, type(None), bool, int, float, complex)
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
        return not (fn[1] in _SAFE_METHODS and len(operands) == 1 and _array(operands[0]))
    if operands and all(isinstance(o, Known) for o in operands) and (
            fn in _DIVISIONS or fn is operator.pow) and all(
            type(o.value) in (int, float) and abs(o.value) < 64 for o in operands):
        try:  # (small numbers: no time, no memory)
            fn(*(o.value for o in operands))
        except Exception:
            return True
        return False
    try:
        if fn is functools.partial or fn is operator.is_ or fn is operator.is_not:
            return False
        if fn in (operator.eq, operator.ne) and any(isinstance(o, Known) and type(
                o.value) in _ATOMS for o in operands):
            return False  # (a constant of no shape: ``k == "a"``, ``x == 0.0``)
        if fn in _NEVER:
            return not _broadcast(operands)
        if fn is operator.not_:
            return not (len(operands) == 1 and (operands[0] in (NUMBER, OWN) or isinstance(
                operands[0], Known)))
        if fn in _DIVISIONS:
            return not (len(operands) == 2 and _broadcast(operands) and (
                _nonzero(operands[1]) or any(_array(o) for o in operands)))
        if fn is operator.pow or fn is np.power or fn is pow:
            exponent = operands[1] if len(operands) == 2 else None
            if not (len(operands) == 2 and _broadcast(operands)):
                return True
            if _array(operands[0]):
                return not (isinstance(exponent, Known) and (
                    type(exponent.value) is float or type(exponent.value) is int
                    and exponent.value >= 0))
            # a number to a constant power >= 0 raises only OverflowError (1e200 ** 2):
            # not a domain error (x * x is inf there), so the derivative is returned
            return not (isinstance(exponent, Known) and type(exponent.value) in (int, float)
                        and exponent.value >= 0)
        if fn in _NUMPY_SAFE:  # (np.sum(a, 5): an axis a may not have)
            return not (len(operands) == 1 and _broadcast(operands))
    except TypeError:  # (an unhashable callable)
        return True
    return not (isinstance(fn, np.ufunc) and fn.signature is None and _float_loop(fn)
                and len(operands) == fn.nin and _broadcast(operands))


#: NumPy's functions of :data:`_NUMPY_SAFE` whose result for one array is a number
_REDUCERS = frozenset({np.sum, np.mean, np.prod, np.all, np.any, np.ndim, np.size})
#: those whose result has the shape of their operand
SAME_SHAPE = frozenset({np.zeros_like, np.ones_like, np.copy, np.asarray, np.real, np.imag})


def result(fn, operands):
    """What is known of the result of ``fn`` applied to ``operands`` where that did not raise
    (:func:`may_raise` said it cannot): for a generated expression's parts (``3.0 * f - o``:
    ``3.0 * f`` is a number). An element-wise operation's is a number, or an array of the
    class of its arrays, or srcad's; a reduction's a number; anything else's unknown."""
    if any(o == OWN for o in operands):
        return OWN
    try:
        elementwise = fn in _NEVER or fn in _DIVISIONS or fn is operator.pow or (
            isinstance(fn, np.ufunc) and fn.signature is None) or fn in SAME_SHAPE
        if fn in _REDUCERS or fn in (operator.not_, operator.is_, operator.is_not) or isinstance(
                fn, tuple) and fn[1] in ("sum", "mean", "prod"):
            return NUMBER
    except TypeError:
        return UNKNOWN
    if not elementwise:
        return ARRAY if isinstance(fn, tuple) and fn[1] in ("copy", "conj") and _array(
            operands[0]) else UNKNOWN
    arrays = [o for o in operands if _array(o)]
    if not arrays:
        return NUMBER
    roots = {o.root if isinstance(o, Alike) else None for o in arrays}
    return Alike(roots.pop()) if len(roots) == 1 and None not in roots else ARRAY


@functools.cache
def _float_loop(ufunc):
    """Whether ``ufunc`` takes float64 operands (``np.bitwise_and``, ``np.isnat`` do not)."""
    return any(t.startswith("d" * ufunc.nin + "->") for t in ufunc.types)
