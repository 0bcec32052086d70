"""What :func:`srcad.rules.raising.may_raise` is told of a function's values: each name's
fact, from the kinds the analysis solved and the shape classes of its arrays
(:func:`srcad.analysis.shapes.classes`, with the groups of parameters the specialisation knows
to share a shape). A number is :data:`~srcad.rules.raising.FLOAT` where it is certainly a
float (:func:`srcad.analysis.dtypes.inexact_values`), :data:`~srcad.rules.raising.CNUMBER`
where it may be complex (the analysis' complex values), :data:`~srcad.rules.raising.INT`
where it is certainly a Python int (the analysis' ints), else
:data:`~srcad.rules.raising.NUMBER` (``np.sin(n)`` raises for an int ``n`` past 2**63); an
array an :class:`~srcad.rules.raising.Alike` of its class (two arrays of one class have one
shape, so ``a + b`` of them cannot raise; of two classes it may: shapes (3,) and (4,) do not
broadcast), saying whether it may be complex (``np.floor`` of it raises) and whether it
certainly holds floats (``np.arange(3) * 2 ** 70`` overflows) and whether it certainly holds
numbers (:mod:`srcad.analysis.number_values`: ``o + 1`` of an array of strings raises); a value
of another kind (a string, a list, an object), or a number not known to be one (an item of an
array of strings), :data:`~srcad.rules.raising.UNKNOWN` (``"a" + 1`` raises). Names
the analysis does not hold (the gradients and saved values srcad writes) are
:data:`~srcad.rules.raising.OWN`.

The SSA's dead-code pass (:func:`srcad.frontend.optimise.dead_code`) and the generated
code's (:mod:`srcad.backend.tidy_dead`) ask one :class:`Facts`, made once per
specialisation (:func:`made`, :func:`of`); the classes are worked out at the first question
that needs them (two arrays in one operation).

Imports ``srcad.core`` (kinds), ``srcad.rules.raising``, :mod:`srcad.analysis.shapes`,
:mod:`srcad.analysis.dtypes` and :mod:`srcad.analysis.number_values`.
"""

from __future__ import annotations

from ..core.kinds import ARRAY, SCALAR
from ..rules import raising
from . import shapes
from .dtypes import inexact_values
from .number_values import number_values


class Facts:
    """name -> fact (:meth:`get`), for the values of ``fn`` that ``analysis`` solved."""

    __slots__ = ("fn", "analysis", "alike", "_roots", "shape_of", "_floats", "_numbers")

    def __init__(self, fn, analysis, alike=()):
        self.fn, self.analysis, self.alike, self._roots = fn, analysis, alike, None
        self._floats = self._numbers = None
        self.shape_of = None  # how the generated code spells srcad's shape_of (:func:`of`)

    def get(self, name, default=raising.OWN):
        kind = self.analysis.kinds.get(name, ...)
        if kind is ...:
            return default
        complex_ = name in getattr(self.analysis, "complex", ())
        if kind == SCALAR:
            if name not in self.numbers:  # (an item of an array of strings)
                return raising.UNKNOWN
            if complex_:
                return raising.CNUMBER
            if name in self.floats:
                return raising.FLOAT
            return raising.INT if name in self.analysis.ints else raising.NUMBER
        if kind == ARRAY:
            if self._roots is None:  # (computed before the dead code goes: still true after)
                self._roots = shapes.classes(self.fn, self.analysis, self.alike)
            return raising.Alike(self._roots.get(name, name), complex_, name in self.floats,
                                 name in self.numbers)
        return raising.UNKNOWN

    @property
    def floats(self):
        """The names certainly holding floats (:func:`srcad.analysis.dtypes.inexact_values`,
        the analysis' own, shared with :mod:`srcad.analysis.elems`), once asked."""
        if self._floats is None:
            found = self.analysis.__dict__.get("_inexact_known")
            if found is None:
                found = self.analysis._inexact_known = inexact_values(self.analysis)
            self._floats = found
        return self._floats

    @property
    def numbers(self):
        """The names certainly holding numbers or arrays of them
        (:func:`srcad.analysis.number_values.number_values`), once asked."""
        if self._numbers is None:
            self._numbers = number_values(self.analysis, self.floats)
        return self._numbers

    def __contains__(self, name):
        return name in self.analysis.kinds


def made(fn, analysis, alike=()):
    """The facts of ``fn``'s values, kept on ``analysis`` for :func:`of`."""
    analysis.raise_facts = Facts(fn, analysis, alike)
    return analysis.raise_facts


def of(analysis, spelled=None):
    """The facts :func:`made` kept for ``analysis`` (made now, without parameter groups,
    where none were), knowing how ``spelled`` (helper -> its name in the generated code)
    spells ``shape_of``."""
    found = getattr(analysis, "raise_facts", None)
    found = found if found is not None else made(analysis.fn, analysis)
    found.shape_of = spelled.get("shape_of", "shape_of") if spelled else None
    return found
