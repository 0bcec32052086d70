"""Which values certainly hold floating-point (or complex) numbers: a must-analysis beside
kinds and activity.

NumPy converts what is written into an array to the array's dtype: ``y[0] = v`` into an
integer or boolean array truncates ``v`` (its derivative is zero there, not one), and
``np.sum(v, dtype=int)``, ``np.array(v, dtype=bool)`` do the same. srcad's rules and its
reading of a write know nothing of dtypes, so :mod:`srcad.analysis.soundness` refuses a
differentiated value written into an array, or converted by a ``dtype=`` argument, unless
this pass shows the dtype is inexact (floating or complex).

After :func:`inexact_values`, a name in the set it returns holds, whenever the function runs
with arguments of the kinds it was made for, an inexact number or array, or (a list, a tuple)
only such items. It is the greatest solution of these facts (loops are assumed inexact until
a statement shows otherwise):

* a ``wrt`` parameter (srcad refuses integer arrays there and turns an int into a float);
* an inexact constant (``1.0``, a float array), a copy or view of an inexact value, an item of
  an inexact array or list, a list or tuple of inexact items;
* arithmetic (operators, ufuncs whose float loop returns floats, rules, an array's ``.dot``)
  with an inexact operand, true division always, unless a ``dtype=`` argument says otherwise;
* ``np.zeros``, ``np.ones``, ``np.empty``, ``np.eye``, ``np.linspace`` and the samplers
  without ``dtype=`` (float by default), ``np.full(shape, v)`` of an inexact ``v``, the
  ``*_like`` of an inexact array, anything with ``dtype=`` an inexact type;
* a write ``y[i] = v`` or ``y += v`` keeps ``y``'s dtype; a merge needs every source.

Anything else (a user function's result, a non-``wrt`` argument, an integer literal) is not
known to be inexact.

Imports ``srcad.core``, ``srcad.rules`` and its neighbour ``srcad.analysis.user_calls``.
"""

from __future__ import annotations

import builtins
import operator

import numpy as np

from ..core import ir
from ..core.kinds import ARRAY, OTHER, SCALAR, SEQ
from ..rules import registry
from .user_calls import bind_call, default_atom, is_user_call

_ARITH = {operator.add, operator.sub, operator.mul, operator.floordiv, operator.mod,
          operator.pow, operator.neg, operator.pos, operator.matmul, builtins.abs,
          builtins.pow, builtins.sum}
#: the operators of ``y op= v`` (``y = y op v`` in the IR)
_AUGMENTED = {operator.add, operator.sub, operator.mul, operator.truediv, operator.floordiv,
              operator.mod, operator.pow, operator.matmul}
#: float by default: inexact unless dtype= says otherwise
_FLOAT_MAKERS = {np.zeros, np.ones, np.empty, np.eye, np.identity, np.linspace, np.logspace,
                 np.geomspace, np.random.rand, np.random.randn, np.random.random,
                 np.random.normal, np.random.uniform, np.random.standard_normal, float,
                 np.float64}
#: the dtype of their first argument unless dtype= says otherwise
_LIKE = {np.zeros_like, np.ones_like, np.empty_like, np.full_like, np.copy}
#: arrays of what they are given: inexact when every array or list given is
_OF_ITEMS = {np.array, np.asarray, np.asanyarray, np.ascontiguousarray, np.asfortranarray,
             np.atleast_1d, np.atleast_2d, np.atleast_3d, np.stack, np.concatenate,
             np.hstack, np.vstack, np.column_stack, np.dstack, list, tuple, sorted,
             reversed, builtins.max, builtins.min}
#: where a function takes its dtype by position
_DTYPE_AT = {np.zeros: 1, np.ones: 1, np.empty: 1, np.full: 2, np.zeros_like: 1,
             np.ones_like: 1, np.empty_like: 1, np.full_like: 2, np.identity: 1, np.eye: 3,
             np.array: 1, np.asarray: 1, np.asanyarray: 1, np.arange: 3, np.linspace: 5}
#: methods and attributes that keep the dtype of their object
_SAME = {"copy", "reshape", "ravel", "flatten", "transpose", "swapaxes", "squeeze",
         "diagonal", "conj", "conjugate", "sum", "mean", "cumsum", "cumprod", "prod", "max",
         "min", "std", "var", "clip", "round", "dot", "T", "mT", "real", "imag", "trace",
         "pop", "get", "repeat", "take", "view"}


def inexact_type(value):
    """Whether ``value`` (a dtype, a type, a string like ``'f8'``) names an inexact dtype."""
    try:
        return np.dtype(value).kind in "fc"
    except TypeError:
        return False


def inexact_constant(value):
    if isinstance(value, (float, complex, np.inexact)):
        return not isinstance(value, bool)
    if isinstance(value, np.ndarray):
        return value.dtype.kind in "fc"
    if isinstance(value, (list, tuple)):
        return bool(value) and all(inexact_constant(v) for v in value)
    return False


def inexact_atom(atom, known):
    """Whether an operand is certainly inexact: a name in ``known`` (:func:`inexact_values`)
    or an inexact constant."""
    if isinstance(atom, ir.Var):
        return atom.name in known
    return isinstance(atom, ir.Const) and inexact_constant(atom.value)


def inexact_values(analysis):
    """The names of ``analysis.fn`` certainly holding inexact values (see the module)."""
    fn = analysis.fn
    augmented = dict(getattr(fn, "augmented", {}))
    known = defined_names(fn) | set(analysis.wrt) | set(getattr(analysis, "inexact_params", ()))
    builds = {s.target: s.value.args for s in ir.walk(fn.body) if isinstance(s, ir.Assign)
              and isinstance(s.value, ir.Prim) and s.value.fn in (ir.BUILD_LIST,
                                                                  ir.BUILD_TUPLE)}
    for stmt in ir.walk(fn.body):  # ys.append("a"): not the literal's items alone
        value = getattr(stmt, "value", None)
        if isinstance(value, ir.Prim) and isinstance(value.fn, ir.Method) and value.args and (
                isinstance(value.args[0], ir.Var)):
            builds.pop(value.args[0].name, None)
    return must_hold(fn, known, lambda stmt: _facts(stmt, known, analysis, augmented, builds))


def defined_names(fn):
    """Every name ``fn``'s body defines (by a statement or a merge)."""
    names = {n for s in ir.walk(fn.body) for n in ir.defined_by(s)}
    return names | {p.target for s in ir.walk(fn.body) for p in getattr(s, "phis", ())}


def must_hold(fn, known, facts):
    """``known`` (a set, changed in place and returned) less every name some statement of
    ``fn`` does not show to hold the property (``facts(stmt)``: pairs (name, shown), read
    against ``known`` as it shrinks), until no statement removes another: what holds on
    every path."""
    changed = True
    while changed:
        changed = False
        for stmt in ir.walk(fn.body):
            for target, ok in facts(stmt):
                if target in known and not ok:
                    known.discard(target)
                    changed = True
    return known


def _facts(stmt, known, analysis, augmented, builds):
    """(name, whether this statement shows it inexact) for what ``stmt`` defines."""

    def atom(a):
        return inexact_atom(a, known)

    if isinstance(stmt, ir.Assign) and stmt.target is not None:
        value = stmt.value
        if stmt.target in augmented:  # y += v keeps y's dtype (or NumPy raises)
            yield stmt.target, atom(ir.Var(augmented[stmt.target])) or _made_inexact(
                stmt, augmented[stmt.target], atom, analysis)
        elif isinstance(value, ir.Prim):
            yield stmt.target, _prim(value, atom, analysis, stmt.target, builds)
        else:
            yield stmt.target, atom(value)
    elif isinstance(stmt, ir.Assign) and isinstance(stmt.value, ir.Prim) and isinstance(
            stmt.value.fn, ir.Method) and stmt.value.fn.name in ("append", "insert", "extend"):
        lst = stmt.value.args[0]  # a list holding a non-float item is not a float list
        if isinstance(lst, ir.Var) and not all(atom(a) for a in stmt.value.args[-1:]):
            yield lst.name, False
    elif isinstance(stmt, ir.SetItem):
        ok = atom(stmt.obj)
        if analysis.kind(stmt.obj) == SEQ:
            ok = ok and atom(stmt.value)
        yield stmt.target, ok
    elif isinstance(stmt, ir.Loop) and stmt.target:
        it = stmt.iter
        yield stmt.target, isinstance(it, (ir.Var, ir.Const)) and atom(it)
    for phi in getattr(stmt, "phis", ()):
        yield phi.target, all(atom(s) for s in phi.sources if s is not None and s != ir.UNSET)


def _prim(prim, atom, analysis, target, builds):
    fn, args, kwargs = prim.fn, prim.args, prim.kwargs
    if isinstance(fn, ir.Build):
        return all(atom(a) for a in (args[1::2] if fn is ir.BUILD_DICT else args))
        # (an empty list has no item that is not a float; np.array([]) is a float array)
    if isinstance(fn, (ir.Method, ir.Attr)):
        if fn.name == "astype":
            dtype = kwargs.get("dtype", args[1] if len(args) > 1 else None)
            return _dtype_ok(dtype, analysis)
        if fn.name in ("get", "pop") and len(args) > 2:
            return atom(args[0]) and atom(args[2])
        if fn.name == "dot" and len(args) == 2 and not kwargs:  # (its one argument: no dtype)
            return atom(args[0]) or analysis.kind(args[0]) == ARRAY and atom(args[1])
        # x.sum(0, int), x.view(np.int64): a type among the arguments may change the dtype
        return fn.name in _SAME and bool(args) and atom(args[0]) and "dtype" not in kwargs \
            and not any(_may_name_a_type(a, analysis) for a in args[1:])
    dtype = kwargs.get("dtype")
    at = _DTYPE_AT.get(fn) if _in(fn, _DTYPE_AT) else None
    if dtype is None and at is not None and len(args) > at:
        dtype = args[at]
    if dtype is None and registry.has_rule(fn):  # np.sum(v, 0, int): bound by position
        _, bound = registry.find(fn, args, kwargs)
        dtype = (bound or {}).get("dtype")
    if dtype is not None and not (isinstance(dtype, ir.Const) and dtype.value is None):
        return _dtype_ok(dtype, analysis)
    operands = list(args) + list(kwargs.values())
    if fn is operator.getitem:
        return atom(args[0])
    if fn is operator.truediv:
        return True
    if fn is np.arange:
        return any(atom(a) for a in args[:3])
    if _in(fn, _FLOAT_MAKERS):
        return True
    if fn is np.full:
        fill = args[1] if len(args) > 1 else kwargs.get("fill_value")
        return fill is not None and atom(fill)
    if _in(fn, _LIKE):
        return bool(args) and atom(args[0])
    if _in(fn, _OF_ITEMS):
        arrays = args[:1] if fn in (np.array, np.asarray, np.asanyarray) else args
        return bool(arrays) and all(atom(a) or _promoted(a, atom, builds, analysis)
                                    for a in arrays)
    user = _user_result(prim, atom, analysis)
    if user is not None:
        return user
    if analysis.kinds.get(target) == SEQ:
        return bool(operands) and all(atom(a) for a in operands)
    if isinstance(fn, np.ufunc):  # (signature='ll->l' picks an integer loop)
        return _float_loop(fn) and any(atom(a) for a in operands) and not (
            {"signature", "sig"} & set(kwargs))
    if _in(fn, _ARITH) or registry.has_rule(fn) and not registry.is_nondiff(fn):
        return any(atom(a) for a in operands)
    return False


def _made_inexact(stmt, before, atom, analysis):
    """``y += v`` (an operator) with ``v`` inexact: an inexact result, as ``y`` is then a
    number (``y + v`` is new) or an array that is not of integers or booleans (where it may
    be one, :func:`may_hold_ints` says so and :mod:`srcad.analysis.soundness` refuses)."""
    value = stmt.value
    return isinstance(value, ir.Prim) and _in(value.fn, _AUGMENTED) and analysis.kinds.get(
        before) != SEQ and any(atom(a) for a in augmented_operands(value, before))


def augmented_operands(prim, before):
    """What ``before op= ...`` adds into ``before``: its operands other than ``before``."""
    return [a for a in list(prim.args) + list(prim.kwargs.values())
            if not (isinstance(a, ir.Var) and a.name == before)]


def may_hold_ints(analysis, known, name, phis):
    """Whether ``name`` may be an array of integers or booleans, which ``name += v`` changes
    in place: not where it is certainly inexact (``known``), a number, a list or another
    object, nor where it merges only such values and Python numbers (``total = 0`` before a
    loop's ``total += row``: a Python number is rebound, not changed). ``phis`` maps a merge's
    target to its sources."""
    seen, todo = set(), [name]
    while todo:
        n = todo.pop()
        if n in seen or n in known or analysis.kinds.get(n) in (SCALAR, SEQ, OTHER):
            continue
        seen.add(n)
        if n not in phis or len(seen) > 64:
            return True
        for src in phis[n]:
            if src is None or src == ir.UNSET:
                continue  # (unbound there: Python raises)
            if isinstance(src, ir.Var):
                todo.append(src.name)
            elif isinstance(src, ir.Const) and not isinstance(
                    src.value, (bool, int, float, complex, np.generic)):
                return True
    return False


def _promoted(a, atom, builds, analysis):
    """Whether ``a`` is a list or tuple literal that NumPy makes an inexact array of: an
    inexact item among integers, booleans and numbers of a type not known
    (``np.array([1, x0])``, ``np.array([a, b, 1.0])`` are float arrays)."""
    return _leaves(a, atom, builds, 0, analysis) is True


def _leaves(a, atom, builds, depth, analysis):
    """True: a literal (of literals) of numbers with an inexact one among them; False: of
    integers, booleans and numbers (kind SCALAR) only; None: anything else."""
    if atom(a):
        return True
    if isinstance(a, ir.Const) and type(a.value) in (int, bool) or isinstance(
            a, ir.Var) and analysis.kinds.get(a.name) == SCALAR and a.name not in builds:
        return False  # (a number: an int at worst, made a float by an inexact item)
    items = builds.get(a.name) if isinstance(a, ir.Var) and depth < 8 else None
    found = [_leaves(i, atom, builds, depth + 1, analysis) for i in items or ()]
    if not found or None in found:
        return None
    return any(found)


def _user_result(prim, atom, analysis):
    """For a call of a function of yours: whether what it returns is certainly inexact, read
    from it (its parameters given inexact arguments taken as inexact); None for other calls."""
    callees = getattr(analysis, "callees", None)
    if callees is None or not is_user_call(prim):
        return None
    call = bind_call(prim, analysis.kind)
    given = {p: default_atom(a) for p, a in call.arguments.items()} if call else {}
    if call is None or None in given.values():  # a default srcad cannot tell: not known
        return False
    inexact = [p for p, a in given.items() if atom(a)]
    return callees.result_inexact(prim.fn, call.kinds, call.arity, inexact)


def inexact_result(analysis):
    """Whether every ``return`` of ``analysis.fn`` gives a certainly inexact value."""
    known = inexact_values(analysis)
    values = [s.value for s in ir.walk(analysis.fn.body) if isinstance(s, ir.Return)]
    return bool(values) and all(
        isinstance(v, ir.Var) and v.name in known
        or isinstance(v, ir.Const) and inexact_constant(v.value) for v in values)


def _may_name_a_type(atom, analysis):
    """Whether an argument may be a dtype (a type, a string, a dtype; a name of a kind
    that is not a number, an array or a tuple of ints)."""
    if isinstance(atom, ir.Const):
        return isinstance(atom.value, (type, str, np.dtype))
    return isinstance(atom, ir.Var) and analysis.kinds.get(atom.name) not in (
        SCALAR, ARRAY, SEQ)


def _dtype_ok(dtype, analysis):
    if isinstance(dtype, ir.Const):
        return inexact_type(dtype.value)
    return False


def _float_loop(ufunc):
    """Whether ``ufunc`` of float64 arguments gives float64 (not a comparison's bool)."""
    loop = "d" * ufunc.nin + "->"
    return any(t.startswith(loop) and set(t[len(loop):]) <= set("efdgFDG")
               for t in ufunc.types)


def _in(fn, group):
    try:
        return fn in group
    except TypeError:
        return False
