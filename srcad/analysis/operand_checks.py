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
    object of the user's (it refuses one when it compiles), nor in srcad's own code.

    A name is checked once: after its check (in the statements its check comes before, the
    SSA form's names having one value each) and for a value an operator or a NumPy or
    ``math`` function made of operands known not to be such objects, or an item or part of
    an array (it is a number or an array), no check is written."""
    if getattr(analysis.callees, "compiles_all", False) or str(getattr(
            fn.source, "filename", "")).startswith("<srcad "):
        return
    # the merges (phis) whose every source is no object of the user's: the largest such set
    # (a loop's value made from the one before by operators stays a number or an array)
    phis = {p.target: p for stmt in ir.walk(fn.body) for p in getattr(stmt, "phis", ())}
    plain_phis = set(phis)
    while True:
        made = set()
        _block(fn, fn.body, analysis, made, set(), plain_phis, insert=False)
        kept = {t for t in plain_phis if all(_known_plain(a, analysis, made | plain_phis)
                                             for a in ir.atoms_in(phis[t].sources))}
        if kept == plain_phis:
            break
        plain_phis = kept
    _block(fn, fn.body, analysis, set(), set(), plain_phis, insert=True)


_NUMERIC = "numeric "  # (the key in ``made`` of a name known a number or an array)


def _known_plain(atom, an, names):
    if isinstance(atom, ir.Const):
        return functions.user_instance_class(atom.value) is None
    return isinstance(atom, ir.Var) and (an.kinds.get(atom.name) in (SCALAR, ARRAY, SEQ)
                                         or atom.name in names)


def _plain_maker(func):
    """Whether ``func``'s result is a number or an array when its operands are: an operator,
    a NumPy function or ufunc, a function of ``math``."""
    if func in _SIGNS or isinstance(func, np.ufunc):
        return True
    home = getattr(func, "__module__", None) or ""
    return home == "math" or home == "numpy" or home.startswith("numpy.")


def _block(fn, body, an, made, checked, phis, insert):
    """``made``: names whose value is no object of the user's wherever they are read (their
    statement made them so); ``checked``: names checked in a statement before this block's
    (a copy per block: a check in a branch says nothing after it); ``phis``: merges taken
    as such values; ``insert``: write the checks (else only find ``made``)."""
    checked = set(checked)

    def plain(atom):  # no object of the user's
        return _known_plain(atom, an, made) or isinstance(atom, ir.Var) and (
            atom.name in checked or atom.name in phis)

    def numeric(atom):  # a number, an array, or what NumPy made of them (not a list)
        if isinstance(atom, ir.Const):
            return isinstance(atom.value, (int, float, complex, np.generic, np.ndarray))
        return isinstance(atom, ir.Var) and (an.kinds.get(atom.name) in (SCALAR, ARRAY) or
                                             _NUMERIC + atom.name in made)

    out = []
    for stmt in body:
        for block in ir.blocks_of(stmt):
            _block(fn, block, an, made, checked, phis, insert)
        prim = getattr(stmt, "value", None) if isinstance(stmt, ir.Assign) else None
        if not isinstance(prim, ir.Prim):
            out.append(stmt)
            continue
        if prim.fn in _SIGNS and not prim.kwargs and any(
                isinstance(a, ir.Var) and a.name in an.varied for a in prim.args):
            sign = _SIGNS[prim.fn]
            source = fn.source
            line = getattr(stmt, "line", None)
            where = (sign, getattr(source, "filename", None), line,
                     source.line_text(line) if source is not None and line else None)
            for atom in prim.args:
                if isinstance(atom, ir.Const) and functions.user_instance_class(
                        atom.value) is not None:
                    if insert:
                        check_operand(atom.value, where)  # (raises: known here)
                elif isinstance(atom, ir.Var) and not plain(atom):
                    if insert:
                        out.append(ir.Assign(None, ir.Prim(check_operand, [atom, _bound(
                            fn, where, "where")], spelling=_bound(fn, check_operand,
                                                                 "check_operand").spelling),
                            line, effect=True))
                    checked.add(atom.name)
        if not isinstance(stmt.target, str):
            pass
        elif prim.fn is operator.getitem and not prim.kwargs and numeric(prim.args[0]):
            made.add(stmt.target)  # an item or a part of an array: a number or an array
            made.add(_NUMERIC + stmt.target)
        elif _plain_maker(prim.fn):
            operands = [*prim.args, *(prim.kwargs or {}).values()]
            if all(plain(a) for a in operands):
                made.add(stmt.target)
            if all(numeric(a) for a in operands):  # (an operator on lists makes a list)
                made.add(_NUMERIC + stmt.target)
        out.append(stmt)
    if insert:
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
    if type(value) in _PLAIN or hasattr(type(value), "__array_namespace__"):
        return  # (an array of the array API standard: its operators are array arithmetic)
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
# it reads only the operand's Python type: a backend writing the code in another array
# namespace (srcad.backend.standard) runs it as it is
check_operand.any_namespace = True
