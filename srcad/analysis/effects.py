"""Whether a user function provably changes nothing its caller can see.

A call whose result does not reach the output can still change what does: ``helper(ys)``
may append to ``ys`` or write ``a[0] = ...`` into an array it is given. srcad does not
differentiate such a call (its result is not needed), so :mod:`srcad.analysis.soundness`
refuses it unless the callee *writes nothing*: no statement of it (nor of a user function it
calls, in turn) may change an object its caller owns. Objects are the tokens of
:class:`srcad.analysis.memory.Aliases`: the callee's arguments (``("arg", p)``, and what they
hold) and module-level values (``("global", id)``). A statement may change one when it is

* a write ``y[i] = v``, or an augmented assignment ``y += v`` on an array or a list, into
  (a view of) such an object;
* a method that changes its object (:data:`memory.MUTATORS`) called on one;
* any call with ``out=``;
* a call of anything else whose effect srcad does not know (no rule, not declared piecewise
  constant, not arithmetic, not a known non-mutating method), given such an object;
* a call of a user function that does not itself write nothing.

A draw from a random generator the call made itself (:mod:`.random_generators`) changes only
that generator: it is no write.

A recursive call is assumed to write nothing while its own body is checked: a write happens
at some finite depth, in a statement of one of the bodies, which the check sees.

Imports ``srcad.core``, ``srcad.rules``, ``srcad.runtime.spread_calls`` and ``.derivatives``
(``call_value``; and the analysis
modules beside it).
"""

from __future__ import annotations

import operator

from ..core import functions, ir
from ..core.kinds import SCALAR
from ..rules import registry
from ..runtime.derivatives import call_value
from ..runtime.spread_calls import star_call, user_partial
from . import written_back
from .memory import Aliases
from .memory_tables import (
    _ARITH,
    FRESH_ATTRS,
    FRESH_METHODS,
    MUTATORS,
    VIEW_ATTRS,
    VIEW_FUNCS,
    VIEW_METHODS,
    ir_mutable,
    log_append,
    safe_in,
)
from .random_generators import draws_from_own
from .user_calls import is_user_call, user_callee


def writes_nothing(fn: ir.Function, analysis, callee_writes_nothing, params=False) -> bool:
    """Whether running ``fn`` (its SSA form, analysed for the kinds of one call) provably
    changes no object its caller can see (``params``: none but the objects of its
    arguments). ``callee_writes_nothing(prim, params)`` answers the same for a call ``prim``
    of a user function inside. A callee that changes only its arguments' objects is fine
    when what this call gives it for them is this function's own (``helper(np.dot(a, b))``
    with a ``helper`` that works in place on its argument), as the call's writes say
    (``analysis.callees.written``)."""
    aliases = Aliases(fn, analysis)

    def outside(atom, table):
        if isinstance(atom, ir.Const):
            return ir_mutable(atom.value)
        return any(t[0] == "global" or t[0] == "arg" and not params
                   for t in aliases.mem(atom, table))

    def own_objects_only(prim):
        written = getattr(analysis.callees, "written", None)
        return written is not None and callee_writes_nothing(prim, True) and not any(
            outside(a, aliases.held) for a in written(prim.fn, prim.args, prim.kwargs,
                                                       analysis))

    func = getattr(fn.source, "func", None) if fn.source is not None else None
    fixed = functions.fixed_of(func) if func is not None else {}
    for what, x in _writes(fn, analysis, aliases):
        if what == "into" and outside(x, aliases.own) or what == "out":
            return False
        if what == "unknown" and _plain_read(x, fixed):
            continue  # self.s of an object of a class known here: no effect
        if what == "call" and not _effect_free(x) and not callee_writes_nothing(x) \
                and not own_objects_only(x):
            return False
        if what == "unknown" and any(any(t[0] in ("arg", "global") for t in aliases.mem(
                a, aliases.held)) or isinstance(a, ir.Const) and ir_mutable(a.value)
                for a in x.operands()):
            return False  # a function whose effect srcad does not know, given such an object
            # (an argument's too: what it changes is not among a call's writes)
    return True


def own_objects_only(fn: ir.Function, analysis, prim, kinds, arity) -> bool:
    """Whether the call ``prim`` (in ``fn``) of a function of the user's changes nothing but
    objects ``fn`` made itself (``a = a.copy(); update(a, x)``): the function changes only its
    arguments' objects (``analysis.callees.writes_nothing(..., params=True)``), and those
    the call gives it are no argument's, global's or closure value's of ``fn``, nor hold one
    (``kinds``, ``arity``: the call's, :func:`.user_calls.bind_call`). A call whose result is
    then not read has no effect the output sees (forms35 found it refused, as "called for
    its effect", naming srcad's copy of the function)."""
    callees = analysis.callees
    written = getattr(callees, "written", None)
    if written is None or not callees.writes_nothing(prim.fn, kinds, arity, True):
        return False
    aliases = Aliases(fn, analysis)
    owned = written_back.owned_params(fn)  # (srcad.written_state's copies)
    for atom in written(prim.fn, prim.args, prim.kwargs, analysis):
        items = isinstance(atom, tuple)  # ("items", atom): what it holds changes
        atom = atom[1] if items else atom
        if isinstance(atom, ir.Const) and ir_mutable(atom.value) and id(
                atom.value) not in owned[1] or isinstance(atom, ir.Var) and any(
                t[0] in ("arg", "global") and t[1] not in owned[0] and t[1] not in owned[1]
                for t in aliases.mem(atom, aliases.held if items else aliases.own)):
            return False
    return True


def _plain_read(prim, fixed):
    """Whether ``prim`` is ``p.name`` of a parameter ``p`` the code was made for an object of
    a known class (an :class:`~srcad.core.functions.Instance`, ``fixed``): a property of the
    class is then a call of its getter already (checked as a call), so this reads the
    object's own attribute or a plain class value, with no effect, unless the class has
    ``__getattr__``/``__getattribute__`` of its own or a descriptor of that name."""
    if not (isinstance(prim.fn, ir.Attr) and len(prim.args) == 1 and isinstance(
            prim.args[0], ir.Var)):
        return False
    known = fixed.get(prim.args[0].name)
    if not isinstance(known, functions.Instance):
        return False
    mro = [k for k in known.cls.__mro__ if k is not object]
    if any("__getattr__" in vars(k) or "__getattribute__" in vars(k) for k in mro):
        return False
    return not any(hasattr(vars(k).get(prim.fn.name), "__get__") for k in mro)


def written_params(fn: ir.Function, analysis, callee_written) -> set:
    """The parameters of ``fn`` whose objects its in-place writes may change: ``y[i] = v``,
    ``y += v`` on an array or list, a method that changes its object, ``out=``, into (a view
    of, or an item of) a parameter's object, or a call of a user function changing its own
    (``callee_written(fn, args, kwargs)``: the atoms of the call it changes). A write into a
    global is refused by :mod:`.alias` and not listed; a call whose effect srcad does not know
    is not counted, as :mod:`.alias` does not count it."""
    aliases = Aliases(fn, analysis)
    atoms, items = [], []
    for what, x in _writes(fn, analysis, aliases):
        if what in ("into", "out"):
            atoms.append(x)
        elif what == "call":
            for atom in callee_written(x.fn, x.args, x.kwargs):
                if isinstance(atom, tuple):  # ("items", atom): what it holds changes
                    items.append(atom[1])
                else:
                    atoms.append(atom)
    # (outside26) a write into what a parameter holds, not into its own object (qs =
    # list(ps); qs[i] -= v changes ps's arrays, not the list ps): (name, "items"), which
    # the caller checks against every name holding those objects
    out = {t[1] if len(t) == 2 else (t[1], "items") for atom in atoms if isinstance(
        atom, ir.Var) for t in aliases.mem(atom, aliases.own) if t[0] == "arg"}
    out |= {(t[1], "items") for atom in items if isinstance(atom, ir.Var)
            for t in aliases.mem(atom, aliases.held) if t[0] == "arg"}
    return out


def _writes(fn, analysis, aliases):
    """The statements of ``fn`` that may change an object, in order, as ``(what, x)``:
    ``("into", atom)`` for a write into ``atom``'s object (``y[i] = v``, ``y += v`` on an
    array or list, a method of :data:`MUTATORS`), ``("out", atom)`` for ``out=atom``,
    ``("call", prim)`` for a call of a user function, ``("unknown", prim)`` for a call whose
    effect srcad does not know. What each means is the caller's to decide: the one list
    serves :func:`writes_nothing` and :func:`written_params`."""
    for stmt in ir.walk(fn.body):
        if isinstance(stmt, ir.SetItem):
            yield "into", stmt.obj
            continue
        if not isinstance(stmt, ir.Assign) or not isinstance(stmt.value, ir.Prim):
            continue
        prim = stmt.value
        if stmt.target in aliases.augmented:
            old = ir.Var(aliases.augmented[stmt.target])
            if analysis.kind(old) != SCALAR:
                yield "into", old
        out = prim.kwargs.get("out")
        if out is not None and not (isinstance(out, ir.Const) and out.value is None):
            yield "out", out
        if isinstance(prim.fn, ir.Method) and prim.fn.name in MUTATORS:
            if prim.args and not log_append(prim, aliases.defs):  # self.log.append("x")
                yield "into", prim.args[0]
        elif is_user_call(prim):
            yield "call", prim
        elif draws_from_own(prim, aliases.defs, analysis):
            continue  # a draw from a generator this call made: only that one changes
        elif not _effect_free(prim):
            yield "unknown", prim


def _effect_free(prim):
    """A call known to change none of its arguments, or srcad's code (a derivative, whose
    writes are refused in it), or ``f(*xs)`` of a length known at run time whose function is
    one of the user's (checked to change nothing when it runs:
    :mod:`srcad.runtime.spread_calls`) or, given no keywords (no ``out=``), one known to
    change nothing; or a call of a function met only when it runs (``call_value``: checked
    there to change nothing before it is called, closures29)."""
    if prim.fn is call_value:
        return True
    if prim.fn is star_call and len(prim.args) >= 4 and isinstance(prim.args[1], ir.Const):
        called, keywords = prim.args[1].value, prim.args[3]
        return user_callee(called) or user_partial(called) or (
            isinstance(keywords, ir.Const) and keywords.value == {}
            and _known_effect_free(ir.Prim(called, [*prim.args[4:], prim.args[2]])))
    return _known_effect_free(prim) or functions.is_derivative(prim.fn)


def _known_effect_free(prim):
    """A call that changes none of its arguments (``out=`` aside, checked before)."""
    fn = prim.fn
    if fn is ir.BUILD_LIST or fn is ir.BUILD_TUPLE or isinstance(fn, ir.Build):
        return True
    if fn is operator.getitem or fn in (list, tuple, sorted, dict, len, isinstance):
        return True
    if isinstance(fn, ir.Attr):
        return fn.name in FRESH_ATTRS or fn.name in VIEW_ATTRS or fn.name in registry.attributes
    if isinstance(fn, ir.Method):
        return fn.name not in MUTATORS and (fn.name in FRESH_METHODS or fn.name in VIEW_METHODS
                                            or fn.name in registry.methods)
    if isinstance(fn, ir.BoolOp) or safe_in(fn, _ARITH) or safe_in(fn, VIEW_FUNCS):
        return True
    if getattr(fn, "__module__", None) == "math":
        return True
    if safe_in(fn, registry.impure):
        return False
    return registry.has_rule(fn) or registry.is_nondiff(fn)
