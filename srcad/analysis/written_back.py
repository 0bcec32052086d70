"""The caller's side of a call of a function of the user's that writes into what it is given
(``alias.check``), and of the copy :mod:`srcad.frontend.written_args` makes of such a function,
which returns the objects it writes into after its result: ``update_1 = update_fields(a, x);
r = update_1[0]; a_1 = update_1[1]``.

* :func:`settle`: ``a_1`` (and ``r``) are the values the call leaves, read after it in place
  of the object Python changed: the alias analysis does not count them as other names for the
  old object. Where the kinds show the copy does not change ``a`` in place (a number given to
  ``p += v``), ``a_1 = a``: Python's caller keeps its number. Refused: ``p += v`` where srcad
  cannot tell the object given is an array (an array is changed, a number rebound).
* :func:`given_back`: for ``analysis.memory``, ``a_1`` is the object given for ``a`` (not
  any object the copy's result holds).
* :func:`refuse_shared`: any call of a function of the user's that writes into an argument is
  refused where another argument of the call may share memory with it (``update(a, a)``,
  ``update(a[:2], a[1:])``: the callee's code reads the two as separate values; a wrong
  gradient before session 33), and where the object written is a global or closure value
  (Python changes it; srcad's code would not).

Imports ``srcad.core`` and its neighbour ``srcad.analysis.memory_tables``.
"""

from __future__ import annotations

import inspect
import operator

from ..core import ir
from ..core.kinds import ARRAY
from .memory_tables import ir_mutable


def _params(fn, prim):
    """parameter -> the atom the call gives it, or None."""
    try:
        return dict(inspect.signature(fn).bind(*prim.args, **prim.kwargs).arguments)
    except (TypeError, ValueError):
        return None


def given_back(defs, base, index):
    """For ``base[index]``, ``base`` bound to a call of a copy srcad made (see above) and
    ``index`` the place of a parameter it returns: the atom the call gives that parameter
    (what the item is, as the call leaves it), else None."""
    stmt = defs.get(base.name) if isinstance(base, ir.Var) else None
    prim = getattr(stmt, "value", None)
    back = getattr(getattr(prim, "fn", None), "__srcad_written_back__", None)
    if not back or not isinstance(stmt, ir.Assign) or stmt.target != base.name or not (
            isinstance(index, ir.Const) and type(index.value) is int):
        return None
    k = index.value - (0 if getattr(prim.fn, "__srcad_written_void__", 0) else 1)
    given = _params(prim.fn, prim) if 0 <= k < len(back) else None
    atom = given.get(back[k]) if given else None
    return atom if isinstance(atom, ir.Var) else None


def settle(body, stmt, atoms, analysis, refuse, label):
    """For ``stmt``, a call of a copy srcad made (see above): the names bound to what the call
    leaves (not other names for the objects it writes into); ``atoms``: the arguments whose
    objects it writes into (``Callees.written``)."""
    prim = stmt.value
    back = getattr(prim.fn, "__srcad_written_back__", None)
    if not back:
        return frozenset()
    given = _params(prim.fn, prim)
    if given is None:
        return frozenset()
    written = {a.name for a in (t[1] if isinstance(t, tuple) else t for t in atoms)
               if isinstance(a, ir.Var)}  # (("items", ys): what ys holds changes: ys too)
    bare = getattr(prim.fn, "__srcad_bare_written__", ())
    name = getattr(prim.fn, "__srcad_shown__", None) or prim.fn.__name__
    fresh, kept = set(), False
    for later in ir.walk(body):
        value = getattr(later, "value", None)
        if not (isinstance(later, ir.Assign) and isinstance(value, ir.Prim) and
                value.fn is operator.getitem and value.args[0] == ir.Var(stmt.target) and
                isinstance(value.args[1], ir.Const) and isinstance(value.args[1].value, int)):
            continue
        fresh.add(later.target)
        k = value.args[1].value - (0 if getattr(prim.fn, "__srcad_written_void__", 0) else 1)
        if not 0 <= k < len(back):
            continue
        atom = given.get(back[k])
        if not isinstance(atom, ir.Var) or atom.name not in written:
            if isinstance(atom, (ir.Var, ir.Const)):  # not changed in place (a constant:
                later.value, kept = atom, True  # t = 1.5 folded in): the caller keeps it
        elif back[k] in bare and analysis.kind(atom) != ARRAY:
            refuse(stmt, f"{name}(...) writes {back[k]} op= ... into {label(atom.name)}, "
                   "which srcad cannot tell is an array: Python changes an array in place "
                   "and binds a new number", f"pass an array (np.asarray({label(atom.name)}))"
                   f", or write {back[k]}[...] op= ... in {name} if an array is meant")
    if kept:  # which values vary, read again: a_1 = a does not vary with what the call does
        analysis.varied, analysis.useful = set(analysis.wrt), set()
        analysis._varied()
        analysis._useful()
    return frozenset(fresh)


def refuse_shared(stmt, atoms, aliases, refuse, label):
    """Refuse the call ``stmt`` writing into ``atoms`` where another of its arguments may share
    memory with one of them, or one is a global or closure value (see above)."""
    prim = stmt.value
    name = getattr(prim.fn, "__srcad_shown__", None) or getattr(prim.fn, "__name__", "f")
    args = list(prim.args) + list(prim.kwargs.values())
    for atom in atoms:
        items = isinstance(atom, tuple)  # ("items", atom): what atom holds changes
        atom = atom[1] if items else atom
        if isinstance(atom, ir.Const) and ir_mutable(atom.value):
            what = f"what the global (or closure) value {atom} holds" if items else \
                f"the global (or closure) value {atom}"
            refuse(stmt, f"{name}(...) changes {what} in place: srcad's code would not change "
                   "it", f"pass a copy ({atom}.copy()) and use what {name} returns, or build "
                   "the value in the function")
        if not isinstance(atom, ir.Var) or not aliases.may_alias(atom.name):
            continue
        mine = aliases.mem(atom, aliases.own)
        seen = 0
        for other in args:
            if other == atom:
                seen += 1
                if seen == 1:
                    continue
            elif not isinstance(other, (ir.Var, ir.Const)):
                continue
            theirs = aliases.mem(other, aliases.own) | aliases.mem(other, aliases.held)
            if theirs & mine or aliases.mem(atom, aliases.held) & aliases.mem(
                    other, aliases.own):
                shown = label(other.name) if isinstance(other, ir.Var) else other
                refuse(stmt, f"{name}(...) changes {label(atom.name)} in place, and another "
                       f"of its arguments ({shown}) may be the same object or share memory "
                       "with it: srcad reads the two as separate values", "pass a copy "
                       "for one of them (write .copy() after it), or pass the object once")
