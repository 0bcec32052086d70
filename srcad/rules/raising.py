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
not known pure.

Values of other types: a complex value given to a ufunc with no complex loop (``np.floor``,
``np.arctan2``) raises ``TypeError``, as do ``//`` and ``%`` of a complex value and ``<`` of a
Python complex; a Python int past 2**63 given to most ufuncs (``np.sin(2 ** 70)``: NumPy makes
an object array and looks for an ``int.sin`` method) raises, and mixed with a NumPy integer or
an integer array (``np.int64(3) + 2 ** 70``) overflows. So a number is :data:`FLOAT`
(certainly a float: :mod:`srcad.analysis.dtypes`), :data:`CNUMBER` (may be complex: the
analysis' complex values) or :data:`NUMBER` (any other: an int of any size), and an
:class:`Alike` says whether its array may be complex. A ufunc given a :data:`NUMBER` is kept
unless it takes a Python int of any size (:func:`_big_int_loop`: ``np.floor``, ``np.square``),
given a complex value unless it has a complex loop; a ufunc of constants alone is evaluated; a
Python int (:data:`INT`, a constant past 2**63) in an operation with a value that may be a
NumPy integer (:data:`NUMBER`) or an integer array (an array not known to hold floats), and a
:data:`NUMBER` with such an array, are kept. Known gaps (taken as not raising): two
:data:`NUMBER` values, one a huge Python int, the other a NumPy integer (``n * d`` of two
numbers of unknown type is taken as not raising: mostly sizes); ``-`` of a NumPy bool. An
array not known to hold floats may hold booleans or objects (the code is made for its kind,
not its dtype: session 35): ``-`` of it, ``a - b`` with it, and a ufunc that raises for a
boolean or an object array of ints (:func:`_other_loops`: ``np.sign`` of booleans, ``np.sin``
of objects) given it are kept. An array not known to hold numbers (an :class:`Alike` whose
``numbers`` is false: strings, ``None``, lists, :mod:`srcad.analysis.number_values`) takes
part in no operation that cannot raise: ``o + 1``, ``o * o``, ``np.add(o, 1.0)``, ``o.sum()``
of it are kept (session 36).

Imports NumPy and the standard library's ``functools``, ``itertools``, ``operator`` and
``warnings``.
"""

from __future__ import annotations

import functools
import itertools
import operator
import warnings

import numpy as np

NUMBER, ARRAY, UNKNOWN, OWN = "number", "array", "unknown", "own"
#: a real float (Python's or NumPy's), never an int nor complex
FLOAT = "float"
#: a number that may be complex
CNUMBER = "complex number"
#: a Python int (of any size)
INT = "int"


class Known:
    """A constant operand."""

    __slots__ = ("value",)

    def __init__(self, value):
        self.value = value


class Alike:
    """An array of the shape class ``root`` (the arrays of one class have one shape), whether
    it may hold complex numbers, whether it certainly holds floats (or complex numbers) and
    whether it certainly holds numbers (not strings nor Python objects)."""

    __slots__ = ("root", "complex", "floats", "numbers")

    def __init__(self, root, complex=False, floats=False, numbers=True):
        self.root, self.complex, self.floats = root, complex, floats
        self.numbers = numbers or floats


def _array(fact):
    return fact == ARRAY or isinstance(fact, Alike)


def _broadcast(operands):
    """Whether ``operands`` are of types element-wise operations take and their shapes
    broadcast: numbers, srcad's values and arrays, the arrays one or all of one class."""
    roots = set()
    for o in operands:
        if isinstance(o, Alike):
            if not o.numbers:
                return False  # (an array of strings or objects: their own operators)
            roots.add(o.root)
        elif o == ARRAY:
            roots.add(object())  # (a class of its own)
        elif not (o in _NUMBERS or isinstance(o, Known) and type(o.value) in (
                int, float, complex, bool)):
            return False
    return len(roots) <= 1


#: the facts of numbers of the types element-wise operations take
_NUMBERS = (NUMBER, FLOAT, CNUMBER, INT, OWN)
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
        return not (fn[1] in _SAFE_METHODS and len(operands) == 1 and _array(operands[0])
                    and _broadcast(operands))
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
        if (fn in _NEVER or fn in _DIVISIONS or fn is operator.pow or fn is pow) and (
                _typed_out(fn, operands)):
            return True
        if fn in _NEVER:
            return not _broadcast(operands)
        if fn is operator.not_:
            return not (len(operands) == 1 and (operands[0] in _NUMBERS or isinstance(
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
                and len(operands) == fn.nin and _broadcast(operands) and _takes(fn, operands))


def _complex(fact):
    return fact == CNUMBER or isinstance(fact, Alike) and fact.complex or isinstance(
        fact, Known) and isinstance(fact.value, complex)


def _big(fact):
    """Whether ``fact`` is a constant int no NumPy integer holds."""
    return isinstance(fact, Known) and type(fact.value) is int and not (
        -2 ** 63 <= fact.value < 2 ** 63)


def _typed_out(fn, operands):
    """Whether an operator's operands may be of types it does not take together: a complex
    value ordered or floor-divided, a constant int past 2**63 with a value that may be a
    NumPy integer or an integer array (``np.arange(3) * n``, ``np.int64(3) + n``)."""
    if fn in (operator.lt, operator.le, operator.gt, operator.ge, operator.floordiv,
              operator.mod, divmod) and any(_complex(o) for o in operands):
        return True
    if fn in _ORDERS:  # (NumPy compares integers with a Python int of any size)
        return False
    if fn in (operator.neg, operator.sub) and any(_int_array(o) for o in operands):
        return True  # (a boolean array: TypeError)
    for k, o in enumerate(operands):
        others = operands[:k] + operands[k + 1:]
        if (o == INT or _big(o)) and any(p == NUMBER or _int_array(p) for p in others) or (
                o == NUMBER and any(_int_array(p) for p in others)):
            return True
    return False


def _big_int(fact):
    """Whether ``fact`` may be a Python int past 2**63."""
    return fact == NUMBER or fact == INT or _big(fact)


def _int_array(fact):
    """Whether ``fact`` may be an array of integers."""
    return fact == ARRAY or isinstance(fact, Alike) and not fact.floats


def _takes(ufunc, operands):
    """Whether ``ufunc`` takes operands of these types (operands that broadcast): a loop for
    complex values where one may be complex, a Python int of any size where a number may be
    one; a ufunc of constants alone is evaluated."""
    if all(isinstance(o, Known) for o in operands) and all(
            type(o.value) is not int or abs(o.value) < 2 ** 256 for o in operands):
        try:
            with np.errstate(all="ignore"), warnings.catch_warnings():
                warnings.simplefilter("ignore")
                ufunc(*(o.value for o in operands))
        except Exception:
            return False
        return True
    if any(_complex(o) for o in operands) and not _complex_loop(ufunc):
        return False
    if any(_int_array(o) for o in operands) and not _other_loops(ufunc):
        return False
    return not any(_big_int(o) for o in operands) or _big_int_loop(ufunc)


@functools.cache
def _complex_loop(ufunc):
    """Whether ``ufunc`` takes complex128 operands (``np.floor``, ``np.arctan2`` do not)."""
    return any(t.startswith("D" * ufunc.nin + "->") for t in ufunc.types)


@functools.cache
def _big_int_loop(ufunc):
    """Whether ``ufunc`` takes a Python int past 2**63 in any of its places, floats in the
    others (``np.floor``, ``np.square``, comparisons; not ``np.sin`` nor ``np.maximum``)."""
    for places in itertools.product((False, True), repeat=ufunc.nin):
        if any(places):
            try:
                with np.errstate(all="ignore"), warnings.catch_warnings():
                    warnings.simplefilter("ignore")
                    ufunc(*(2 ** 70 if p else 1.5 for p in places))
            except Exception:
                return False
    return True


@functools.cache
def _other_loops(ufunc):
    """Whether ``ufunc`` takes boolean arrays and object arrays of ints in every place (an
    array not known to hold floats may be either): ``np.add``, ``np.maximum`` do; ``np.sign``
    (no boolean loop), ``np.sin``, ``np.exp`` (an object's method looked for) do not."""
    for made in (np.array([True, False]), np.array([1, 2], dtype=object)):
        try:
            with np.errstate(all="ignore"), warnings.catch_warnings():
                warnings.simplefilter("ignore")
                ufunc(*(made,) * ufunc.nin)
        except Exception:
            return False
    return True


#: reductions whose result is a bool or a count
_COUNTS = frozenset({np.all, np.any, np.ndim, np.size})
#: comparisons: their result is a bool
_ORDERS = frozenset({operator.eq, operator.ne, operator.lt, operator.le, operator.gt,
                     operator.ge})
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
            if any(_complex(o) for o in operands):
                return CNUMBER
            return FLOAT if fn not in _COUNTS and any(
                isinstance(o, Alike) and o.floats for o in operands) else NUMBER
    except TypeError:
        return UNKNOWN
    if not elementwise:
        return ARRAY if isinstance(fn, tuple) and fn[1] in ("copy", "conj") and _array(
            operands[0]) else UNKNOWN
    arrays = [o for o in operands if _array(o)]
    complex_ = any(_complex(o) for o in operands)
    if not arrays:
        if complex_:
            return CNUMBER
        return FLOAT if fn not in _ORDERS and any(o == FLOAT or isinstance(o, Known) and type(
            o.value) is float for o in operands) else NUMBER
    roots = {o.root if isinstance(o, Alike) else None for o in arrays}
    floats = all(isinstance(o, Alike) and o.floats for o in arrays) or any(
        o == FLOAT or isinstance(o, Alike) and o.floats for o in operands) and (
        fn not in _ORDERS)
    numbers = all(not isinstance(o, Alike) or o.numbers for o in arrays) or fn in _ORDERS
    if len(roots) == 1 and None not in roots:
        return Alike(roots.pop(), complex_, floats, numbers)
    if not numbers:
        return Alike(object(), complex_, floats, numbers)
    return Alike(object(), complex_, floats) if complex_ or floats else ARRAY  # (its own class)


@functools.cache
def _float_loop(ufunc):
    """Whether ``ufunc`` takes float64 operands (``np.bitwise_and``, ``np.isnat`` do not)."""
    return any(t.startswith("d" * ufunc.nin + "->") for t in ufunc.types)
