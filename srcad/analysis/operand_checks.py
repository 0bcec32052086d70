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

Imports the standard library, NumPy, :mod:`srcad.core`, :mod:`srcad.errors`,
:mod:`srcad.rules.registry`, :mod:`.elems` and :mod:`.user_calls`.
"""

from __future__ import annotations

import operator

import numpy as np

from ..core import functions, ir
from ..core.functions import is_derivative
from ..core.kinds import ARRAY, SCALAR, SEQ
from ..errors import UnsupportedSyntaxError
from ..rules.registry import registry as _registry
from . import elems as lists
from .user_calls import is_user_call

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
    an array (it is a number or an array), or the result of a function of the user's every
    ``return`` of which is such a value (:func:`result_level`), no check is written."""
    if getattr(analysis.callees, "compiles_all", False) or str(getattr(
            fn.source, "filename", "")).startswith("<srcad "):
        return
    facts = _Facts(fn, analysis)
    _block(fn, fn.body, analysis, facts.made, set(), facts.phis, insert=True, facts=facts)


class _Facts:
    """What the finding passes know of ``fn``'s values: ``made`` (see :func:`_block`), the
    merges (phis) taken as no object of the user's, the user calls' results (their level
    asked of the callee when an operand needs it); ``own``: ``(function, key, level)`` of a
    :func:`result_level` being worked out (its recursive calls assumed of that level)."""

    def __init__(self, fn, an, own=None, trust_checks=True):
        self.an, self.own, self.trust_checks = an, own, trust_checks
        self.calls, self.levels = {}, {}
        # the merges whose every source is no object of the user's: the largest such set
        # (a loop's value made from the one before by operators stays a number or an array)
        # (under _NUMERIC + target: those whose every source is a number or an array)
        phis = {p.target: p for stmt in ir.walk(fn.body) for p in getattr(stmt, "phis", ())}
        self.phis = set(phis) | {_NUMERIC + t for t in phis}
        while True:
            self.made = set()
            _block(fn, fn.body, an, self.made, set(), self.phis, insert=False, facts=self)
            names = self.made | self.phis
            kept = {t for t in phis if t in self.phis and all(  # (each source an atom)
                _known_plain(a, an, names) for a in phis[t].sources)}
            kept |= {_NUMERIC + t for t in kept if _NUMERIC + t in self.phis and all(
                _known_numeric(a, an, names, self) for a in phis[t].sources)}
            if kept == self.phis:
                break
            self.phis = kept
        self.made = set()

    def level(self, name):
        """2 when the user call that made ``name`` returns a number or an array, 1 no object
        of the user's, 0 when not known."""
        if name not in self.calls:
            return 0
        if name not in self.levels:
            self.levels[name] = 0  # (asked again while being worked out: not known)
            self.levels[name] = _call_level(self.an, self.calls[name], self.own)
        return self.levels[name]


def _call_level(an, prim, own):
    """The level (see :meth:`_Facts.level`) of the result of the user call ``prim``."""
    callees = an.callees
    call = an._user_call(prim) if callees is not None else None
    if call is None or not hasattr(callees, "result_memory"):
        return 0
    fn, kinds, arity, _ = call
    if own is not None and fn is own[0] and arity is None and kinds == own[1]:
        return own[2]  # a recursive call of the function being worked out: assumed
    return callees.result_memory(fn, kinds, arity, fact=result_level, unknown=0) or 0


def result_level(fn, an):
    """2 when every value the function ``fn`` (analysed as ``an``) returns is a number or an
    array made of such by operators or NumPy (or an item of an array, or a function of the
    user's result of that level), 1 when none is an object of the user's, else 0. A
    recursive call (for the same kinds of arguments) is first assumed of level 2, then of
    the level found, until the two agree: by induction on the depth of the calls, every
    call that returns returns a value of that level. No run-time check is counted on (the
    code it is asked for may write none where nothing is differentiated)."""
    func = getattr(fn.source, "func", None)
    params = [p for p in fn.params if isinstance(p, str)]
    own_kinds = lists.with_elems(an, {p: an.kinds.get(p) for p in params},
                                 {p: ir.Var(p) for p in params})
    returns = [s.value for s in ir.walk(fn.body) if isinstance(s, ir.Return)]
    if func is None or not returns:
        return 0
    level = 2
    while True:
        facts = _Facts(fn, an, own=(func, own_kinds, level), trust_checks=False)
        facts.made = set()
        _block(fn, fn.body, an, facts.made, set(), facts.phis, insert=False, facts=facts)
        found = min(_atom_level(a, an, facts) for a in returns)
        if found >= level:
            return level
        level = found


def _atom_level(atom, an, facts):
    if isinstance(atom, ir.Const):
        value = atom.value
        if isinstance(value, (int, float, complex, np.generic, np.ndarray)):
            return 2
        return 1 if functions.user_instance_class(value) is None else 0
    if not isinstance(atom, ir.Var):
        return 0
    name = atom.name
    if an.kinds.get(name) in (SCALAR, ARRAY) or _NUMERIC + name in facts.made or \
            facts.level(name) == 2:
        return 2
    plain = an.kinds.get(name) == SEQ or name in facts.made or name in facts.phis
    return 1 if plain or facts.level(name) == 1 else 0


_NUMERIC = "numeric "  # (the key in ``made`` of a name known a number or an array)


def _known_plain(atom, an, names):
    if isinstance(atom, ir.Const):
        return functions.user_instance_class(atom.value) is None
    return isinstance(atom, ir.Var) and (an.kinds.get(atom.name) in (SCALAR, ARRAY, SEQ)
                                         or atom.name in names)


def _known_numeric(atom, an, names, facts):
    """Whether ``atom`` is a number or an array (``names``: those known so, under
    ``_NUMERIC``)."""
    if isinstance(atom, ir.Const):
        return isinstance(atom.value, (int, float, complex, np.generic, np.ndarray))
    return isinstance(atom, ir.Var) and (an.kinds.get(atom.name) in (SCALAR, ARRAY) or
                                         _NUMERIC + atom.name in names or
                                         facts.level(atom.name) == 2)


#: attributes and methods of an array (or a number) that give a number or an array
_ARRAY_ATTRS = frozenset({"T", "real", "imag", "mT"})
_ARRAY_METHODS = frozenset({
    "ravel", "reshape", "sum", "mean", "prod", "dot", "copy", "transpose", "flatten",
    "squeeze", "conj", "conjugate", "cumsum", "cumprod", "max", "min", "std", "var", "clip",
    "round", "swapaxes", "diagonal", "trace", "repeat", "take", "item", "all", "any"})


def _gradient_of(prim, numeric):
    """Whether ``prim`` calls a derivative ``srcad.grad`` made with respect to one parameter,
    given a number or an array there (its gradient is one too)."""
    if not is_derivative(prim.fn):
        return False
    made = prim.fn.__srcad__
    if getattr(made, "_mode", None) != "grad" or not getattr(made, "_single", False):
        return False
    try:
        bound = made._bind(prim.args, prim.kwargs)
    except TypeError:
        return False
    atom = bound.arguments.get(made._wrt[0])
    return isinstance(atom, (ir.Var, ir.Const)) and numeric(atom)


def _plain_maker(func):
    """Whether ``func``'s result is a number or an array when its operands are: an operator,
    a NumPy function or ufunc, a function of ``math``."""
    if func in _SIGNS or isinstance(func, np.ufunc):
        return True
    home = getattr(func, "__module__", None) or ""
    return home == "math" or home == "numpy" or home.startswith("numpy.")


def _block(fn, body, an, made, checked, phis, insert, facts):
    """``made``: names whose value is no object of the user's wherever they are read (their
    statement made them so); ``checked``: names checked in a statement before this block's
    (a copy per block: a check in a branch says nothing after it); ``phis``: merges taken
    as such values; ``insert``: write the checks (else only find ``made``); ``facts``: the
    :class:`_Facts` (user calls' results)."""
    checked = set(checked)

    def plain(atom):  # no object of the user's
        return _known_plain(atom, an, made) or isinstance(atom, ir.Var) and (
            atom.name in checked or atom.name in phis or facts.level(atom.name) >= 1)

    def numeric(atom):  # a number, an array, or what NumPy made of them (not a list)
        return _known_numeric(atom, an, made, facts) or isinstance(atom, ir.Var) and \
            _NUMERIC + atom.name in phis

    out = []
    for stmt in body:
        for block in ir.blocks_of(stmt):
            _block(fn, block, an, made, checked, phis, insert, facts)
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
                    if facts.trust_checks:
                        checked.add(atom.name)
        if not isinstance(stmt.target, str):
            pass
        elif is_user_call(prim):
            facts.calls[stmt.target] = prim  # (its level asked when an operand needs it)
        elif prim.fn is operator.getitem and not prim.kwargs and numeric(prim.args[0]) or (
                isinstance(prim.fn, ir.Attr) and prim.fn.name in _ARRAY_ATTRS or isinstance(
                    prim.fn, ir.Method) and prim.fn.name in _ARRAY_METHODS and all(
                    plain(a) for a in [*prim.args, *(prim.kwargs or {}).values()])) and \
                prim.args and numeric(prim.args[0]) or _gradient_of(prim, numeric):
            made.add(stmt.target)  # an item or a part of an array, a.T, a.ravel(), the
            made.add(_NUMERIC + stmt.target)  # gradient with respect to an array: such
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
