"""Which lists' element kinds are certain, so that a callee can be specialised on them.

``Analysis.elems`` joins the kinds of what is put into a list; a list whose contents srcad
does not see (one a callee returns, one made by ``+``) is simply absent from it, and a loop's
phi joins only the sources it knows. That is enough for the caller's own kinds, but a callee
specialised on a list argument's element kind must be able to count on it. A list's element
kind is *certain* when every way the list came to be is seen here: built here
(``[a, b]``, ``[]`` and appends, a slice or copy of a certain list, ``ys[i] = v`` on one), a
parameter whose element kind the caller passed (:data:`ELEMS` in the kinds), an item of a
callee's result that the callee reports as certain, or a phi of certain lists. A list handed
to a callee that may write into it is no longer certain.

The element kinds of a call's certain list arguments go into the callee's kinds under
:data:`ELEMS` (and so into every cache key made of them): a call with other element kinds
gets other code. Imports ``srcad.core``, ``srcad.runtime`` and its neighbours
``srcad.analysis.dtypes``, ``srcad.analysis.doubles`` and ``srcad.analysis.user_calls``.
"""

from __future__ import annotations

import operator

from ..core import ir
from ..core.kinds import ANY, ARRAY, CONTEXT_ELEMS, DOUBLE, INEXACT, SCALAR, SEQ, DictItems
from ..runtime import family_of
from . import doubles
from .dtypes import inexact_values
from .user_calls import DICTS, bind_call, is_dict

#: the key of a kinds dict naming the element kind of list parameters, when certain: a
#: tuple of ``(parameter, kind)`` pairs (absent when none is known)
ELEMS = "*elems"
#: :data:`srcad.core.kinds.INEXACT`: the parameters given values certainly of floats, read off
#: the arguments (``with_dtypes``) or, for a copy writing back what it is given
#: (:mod:`srcad.frontend.written_args`), the caller's arrays certainly of floats (:mod:`.dtypes`):
#: writes of differentiated values into them are exact


def given(an, kinds):
    """Take :data:`ELEMS` out of ``kinds`` (parameter -> kind) into ``an``'s facts."""
    an.listed, an.vague, an.tuple_elems, an.tuple_args = set(), set(), {}, {}
    for param, found in kinds.pop(CONTEXT_ELEMS, ()):
        an.tuple_elems[param] = dict(found)  # a context tuple's lists (a split's backward)
    for param, kind in kinds.pop(ELEMS, ()):
        an.elems[param] = kind
        an.listed.add(param)
    an.inexact_params = frozenset(kinds.pop(INEXACT, ()))
    an.double_params = frozenset(kinds.pop(DOUBLE, ()))
    for param in kinds.pop(DICTS, ()):
        if not isinstance(an.items.get(param), DictItems):
            an.items[param] = DictItems()  # a dict, its keys not known here
    for param, items in an.items.items():
        if items:
            an.listed.add(param)  # an argument's items, read off the value itself


def certain(an, name):
    """The element kind of the list ``name`` if certain (a number or an array), else None."""
    kind = an.elems.get(name)
    if name in an.listed and name not in an.vague and kind in (SCALAR, ARRAY):
        return kind
    return None


def context_kinds(an, ctx, kept):
    """The kinds to record of a split function's context tuple ``ctx`` holding the values
    ``kept`` (for when its backward part is differentiated in turn): a sequence, and the
    certain element kinds of the lists it holds (a gradient popped off the backward part's
    ``dys`` is then known to be a number, not an array another name may hold)."""
    found = tuple((i, kind) for i, k in enumerate(kept) if (kind := certain(an, k)))
    return {ctx: SEQ, **({CONTEXT_ELEMS: ((ctx, found),)} if found else {})}


def with_elems(an, kinds, arguments, fn=None):
    """``kinds`` of a call's arguments with :data:`ELEMS` for its certain list arguments
    (and :data:`INEXACT`, for a call of ``fn``)."""
    found = tuple(sorted((p, k) for p, a in arguments.items() if isinstance(a, ir.Var)
                         and an.kinds.get(a.name) == SEQ and (k := certain(an, a.name))))
    if found:
        kinds = dict(kinds)
        kinds[ELEMS] = found
    return with_dicts(an, kinds, arguments, fn)


def with_dicts(an, kinds, arguments, fn=None):
    """``kinds`` of a call's arguments with :data:`DICTS` for its certain dict arguments
    (and :data:`INEXACT`, for a call of ``fn``: its array arguments, and those a copy
    writing back what it is given is given, certainly of floats)."""
    back = getattr(fn, "__srcad_written_back__", ())
    arrays = [p for p, a in arguments.items() if isinstance(a, ir.Var) and (
        p in back or an.kinds.get(a.name) == ARRAY)] if fn is not None else ()
    if arrays:  # (its arrays certainly of floats: a write into a copy of one is exact)
        known = an.__dict__.get("_inexact_known")
        if known is None:
            known = an._inexact_known = inexact_values(an)
        floats = tuple(sorted(p for p in arrays if arguments[p].name in known))
        if floats:
            kinds = {**kinds, INEXACT: floats}
    if fn is not None:  # its arguments certainly of float64 (srcad.analysis.doubles)
        kinds = doubles.with_doubles(an, kinds, arguments)
    dicts = tuple(sorted(p for p, a in arguments.items() if isinstance(a, ir.Var) and (
        an.kinds.get(a.name) == SEQ and is_dict(an, a.name))))
    if dicts:
        kinds = dict(kinds)
        kinds[DICTS] = dicts
    return kinds


def state(an):
    """What the solver compares between sweeps."""
    return set(an.listed), set(an.vague), dict(an.tuple_elems)


def assigned(an, stmt, same_items):
    """Update what is listed and vague for ``stmt`` (an ``ir.Assign`` with a target)."""
    value, target = stmt.value, stmt.target
    if not isinstance(value, ir.Prim):
        return
    call = an._user_call(value)
    if call is not None:
        _called(an, stmt, value, call)
    args = value.args
    if value.fn in (ir.BUILD_LIST, ir.BUILD_TUPLE, ir.BUILD_DICT) or value.fn == ir.Attr("shape"):
        an.listed.add(target)
        if value.fn is ir.BUILD_TUPLE:
            an.tuple_args[target] = args
        return
    if same_items(value) and args and isinstance(args[0], ir.Var) or dict_copy(an, value):
        _follow(an, target, args[0].name)
        return
    if value.fn is range:
        an.listed.add(target)  # ints
        return
    helper = getattr(value.fn, "__name__", None) if family_of(value.fn) == "runtime" else None
    if helper in _GRADIENT_LISTS and an.kinds.get(target) == SEQ:
        # add(dys, fill(v, ys)), added_at(dys, i, dv), seq_grad(dvs, ys): lists made of the
        # items of their list arguments (and of the numbers or arrays added in)
        sources = [a.name for a in args if isinstance(a, ir.Var) and an.kinds.get(a.name) == SEQ]
        if sources and all(s in an.listed for s in sources):
            an.listed.add(target)
        if any(s in an.vague for s in sources):
            an.vague.add(target)
        return
    if value.fn is operator.add and len(args) == 2 and all(
            isinstance(a, ir.Var) and an.kinds.get(a.name) == SEQ for a in args):
        # ys + zs: what both hold (a list never seen whole holds anything)
        an._put(target, [an.elems.get(a.name) if a.name in an.listed else ANY for a in args])
        an.listed.add(target)
        for a in args:
            _follow(an, target, a.name)
        return
    repeated = [a for a in args if isinstance(a, ir.Var) and an.kinds.get(a.name) == SEQ]
    if value.fn is operator.mul and len(args) == 2 and len(repeated) == 1 and an.kind(
            args[1] if args[0] is repeated[0] else args[0]) == SCALAR:
        # [row] * m (outside25): what ys holds, repeated (so M[i] of [[0.0] * n] * m is a
        # list, whose sharing frontend.nested_rows checks when the code runs)
        source = repeated[0].name
        an._put(target, [an.elems.get(source) if source in an.listed else ANY])
        an.listed.add(target)
        _follow(an, target, source)
        return
    if value.fn is operator.getitem and len(args) == 2 and isinstance(args[0], ir.Var) and (
            isinstance(args[1], ir.Const) and type(args[1].value) is int):
        made = an.tuple_elems.get(args[0].name)
        if made is None:
            return
        kind = made.get(args[1].value)
        if kind is None:
            an.vague.add(target)
        else:
            an._put(target, [kind])
        an.listed.add(target)


def dict_copy(an, prim):
    """Whether ``prim`` is ``dict(d)`` (``{**d}``) of a dict ``d``: the same items."""
    args = prim.args
    return prim.fn is dict and len(args) == 1 and not prim.kwargs and isinstance(
        args[0], ir.Var) and is_dict(an, args[0].name)


#: srcad's helpers whose list result holds what their list arguments' items are (analyse's
#: ``_items_put`` works out the kinds)
_GRADIENT_LISTS = frozenset({"add", "added_at", "cleared", "seq_grad", "fill"})


def set_item(an, stmt):
    if isinstance(stmt.obj, ir.Var):
        _follow(an, stmt.target, stmt.obj.name)
    if an.rank(stmt.obj) is not None:  # y_1[i] = v keeps the array's shape: y's rank
        an.ranks[stmt.target] = an.rank(stmt.obj)


def phi(an, phi_):
    """A phi of lists: certain if every source is; a source whose contents are not seen
    makes the target's element kind unknown (ANY), for the function's own code too."""
    an.listed.add(phi_.target)
    for s in phi_.sources:
        if not isinstance(s, ir.Var):
            continue
        kind = an.kinds.get(s.name)
        if kind == SEQ and (s.name not in an.listed or s.name in an.vague):
            an.vague.add(phi_.target)
        if kind == SEQ and s.name not in an.listed:
            an._put(phi_.target, [ANY])


def written(an, arguments):
    """A call that may write into its list arguments: their element kinds are no longer
    certain."""
    for a in arguments.values():
        if isinstance(a, ir.Var) and an.kinds.get(a.name) == SEQ:
            an.vague.add(a.name)
            an._put(a.name, [ANY])


def returned(an):
    """``{position: kind}`` of the certain lists in the tuple every return builds, or None."""
    found = []
    for ret in an.returns:
        args = an.tuple_args.get(ret.value.name) if isinstance(ret.value, ir.Var) else None
        if args is None:
            return None
        found.append({i: k for i, a in enumerate(args) if isinstance(a, ir.Var)
                      and (k := certain(an, a.name))})
    return found[0] if found and all(f == found[0] for f in found) else None


def _follow(an, target, source):
    if source in an.listed:
        an.listed.add(target)
    if source in an.vague:
        an.vague.add(target)


def _called(an, stmt, value, call):
    """A user call: the certain lists of its result tuple; its list arguments are vague after
    it unless it provably writes into nothing."""
    callees = an.callees
    made = callees.result_elems(*call) if hasattr(callees, "result_elems") else None
    if made is not None:
        an.tuple_elems[stmt.target] = made
    else:
        an.tuple_elems.pop(stmt.target, None)
    if any(k == SEQ for k in call[1].values()) and not (
            hasattr(callees, "writes_nothing") and callees.writes_nothing(*call[:3])):
        written(an, bind_call(value, an.kind).arguments)
