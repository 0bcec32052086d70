"""An operator whose operand may be an object of the user's class, checked when it runs.

``m.v * w``, ``vs[0] * w``, ``helper() * w``: srcad differentiates ``*`` as arithmetic on
numbers and arrays. When the operand is an object of a class of the user's, Python runs its
``__mul__`` (or ``__rmul__``) instead, which srcad does not follow there: a wrong gradient
(:mod:`srcad.frontend.operator_methods` lowers the operator as the method call where the
object's class is known where the code is made: an argument, a global). For an operand whose
kind the analysis does not know (an attribute read, an item of a container of objects, the
result of a call srcad does not read) beside an operand that carries a gradient, the code
checks when it runs that the operand is not such an object (:func:`check_operand`,
inserted before the operation; a constant object of the user's is refused here).

Imports the standard library, NumPy, :mod:`srcad.core`, :mod:`srcad.errors` and
:mod:`srcad.rules.registry`.
"""

from __future__ import annotations

import operator

import numpy as np

from ..core import functions, ir
from ..core.kinds import ARRAY, SCALAR, SEQ
from ..errors import UnsupportedSyntaxError
from ..rules.registry import registry as _registry

_SIGNS = {operator.add: "+", operator.sub: "-", operator.mul: "*", operator.truediv: "/",
          operator.floordiv: "//", operator.mod: "%", operator.pow: "**",
          operator.matmul: "@", operator.neg: "-", operator.pos: "+"}


def insert(fn, analysis):
    """Insert :func:`check_operand` before each arithmetic operation of ``fn`` with an
    operand of a kind not known beside one that carries a gradient; refuse a constant
    object of the user's there. Not for Numba (``callees.compiles_all``), which compiles no
    object of the user's (it refuses one when it compiles), nor in srcad's own code."""
    if getattr(analysis.callees, "compiles_all", False) or str(getattr(
            fn.source, "filename", "")).startswith("<srcad "):
        return
    _block(fn, fn.body, analysis)


def _block(fn, body, an):
    out = []
    for stmt in body:
        for block in ir.blocks_of(stmt):
            _block(fn, block, an)
        prim = getattr(stmt, "value", None) if isinstance(stmt, ir.Assign) else None
        if isinstance(prim, ir.Prim) and prim.fn in _SIGNS and not prim.kwargs and any(
                isinstance(a, ir.Var) and a.name in an.varied for a in prim.args):
            sign = _SIGNS[prim.fn]
            source = fn.source
            line = getattr(stmt, "line", None)
            where = (sign, getattr(source, "filename", None), line,
                     source.line_text(line) if source is not None and line else None)
            for atom in prim.args:
                if isinstance(atom, ir.Const) and functions.user_instance_class(
                        atom.value) is not None:
                    check_operand(atom.value, where)  # (raises: known here)
                elif isinstance(atom, ir.Var) and an.kinds.get(atom.name) not in (
                        SCALAR, ARRAY, SEQ):
                    out.append(ir.Assign(None, ir.Prim(check_operand, [atom, _bound(
                        fn, where, "where")], spelling=_bound(fn, check_operand,
                                                             "check_operand").spelling),
                        line, effect=True))
        out.append(stmt)
    body[:] = out


def _bound(fn, value, hint):
    """A constant read through a name bound in the generated code (``fn.lifted``)."""
    lifted = fn.__dict__.setdefault("lifted", {})
    for name, known in lifted.items():
        if known is value:
            return ir.Const(value, name)
    name = f"_srcad_{hint}_{len(lifted)}"
    while name in lifted:
        name += "_"
    lifted[name] = value
    return ir.Const(value, name)


def check_operand(value, where):
    """Raise :class:`UnsupportedSyntaxError` when ``value`` is an object of a class of the
    user's: Python runs its operator method, which srcad did not differentiate here."""
    if type(value) in _PLAIN:
        return
    cls = functions.user_instance_class(value)
    if cls is None or not isinstance(cls, type) or callable(value) and not any(
            name in vars(k) for k in cls.__mro__[:-1] for name in _DUNDERS):
        return
    sign, filename, lineno, text = where
    raise UnsupportedSyntaxError(
        f"'{sign}' with an object of your class {cls.__name__} as an operand when the code "
        f"ran: Python runs its operator method, which srcad follows only where it knows the "
        "object's class where it makes the code (an argument or a global named in the "
        "expression)", filename=filename, lineno=lineno, construct=text,
        hint="pass the object as an argument and write the operator on its name, or call "
        "the method (obj.__mul__(w)), or compute on the values the object holds")


_DUNDERS = {f"__{p}{n}__" for n in ("add", "sub", "mul", "truediv", "floordiv", "mod", "pow",
                                     "matmul") for p in ("", "r")} | {"__neg__", "__pos__"}
_PLAIN = frozenset({float, int, bool, complex, np.ndarray, np.float64, np.float32, np.int64})
_registry.nondiff.add(check_operand)  # a check: no derivative
