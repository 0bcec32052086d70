"""Tuples of objects built in the function and read item by item (issue 16, outside24).

``layers = (Layer(W1, b1), Layer(W2, b2))`` then ``for l in layers: h = l(h)`` (or a tuple a
function of the user's returns, ``layers = make(w)`` with ``return (Layer(...), ...)`` or
``return a, b``, which :mod:`.returned_records` rewrites to such a tuple written in the
function) is read as the list ``[Layer(W1, b1), Layer(W2, b2)]`` that :mod:`.record_lists`
takes apart field by field. Exact: every read :mod:`.record_lists` follows (``for`` over it,
over ``reversed``/``enumerate``/``zip``/a constant slice of it, ``L[k]``, ``len(L)``, a
comprehension over it) yields the same items of a tuple as of a list holding them. Only
when :mod:`.record_lists` takes the whole list apart (tried first on a copy of the
function): any other use (the tuple returned, passed on, added to, compared; an
``append``, which a tuple does not have) leaves the tuple as it is written, and nothing of
the trial is kept.

Imports the standard library (``copy``), gast, :mod:`.plain_lists` (``stores_of``) and
:mod:`.record_lists` (the trial).
"""

from __future__ import annotations

import copy

import gast

from ..core.walk import walk_nodes
from .plain_lists import stores_of


def _candidates(fdef):
    """Top-level statements ``L = (a, b, ...)`` (no starred item), ``L`` bound once and
    never an ``append``'s object."""
    stores = stores_of(fdef)
    appended = {n.value.id for n in walk_nodes(fdef) if isinstance(n, gast.Attribute) and
                isinstance(n.value, gast.Name) and n.attr in ("append", "extend", "insert")}
    return [k for k, stmt in enumerate(fdef.body) if
            isinstance(stmt, gast.Assign) and len(stmt.targets) == 1 and
            isinstance(stmt.targets[0], gast.Name) and
            len(stores.get(stmt.targets[0].id, ())) == 1 and
            stmt.targets[0].id not in appended and
            isinstance(stmt.value, gast.Tuple) and stmt.value.elts and
            all(isinstance(e, gast.Call) for e in stmt.value.elts)]


def _as_list(stmt):
    stmt.value = gast.copy_location(gast.List(elts=stmt.value.elts, ctx=gast.Load()),
                                    stmt.value)


def prepare(src, fdef):
    """Each tuple of objects that :mod:`.record_lists` would take apart as a list, written
    as that list (see above); the others left as they are."""
    from . import record_lists

    places = _candidates(fdef)
    if not places:
        return
    for k in places:
        trial = copy.deepcopy(fdef)
        stmt = trial.body[k]
        _as_list(stmt)
        stmt._srcad_tuple_trial = True
        saved = dict(src.__dict__.get("record_refusals", {}))
        record_lists.prepare(src, trial)
        taken = any(getattr(n, "_srcad_tuple_trial", False) and
                    isinstance(n.targets[0], gast.Tuple) for n in walk_nodes(trial)
                    if isinstance(n, gast.Assign))
        src.__dict__["record_refusals"] = saved
        if not saved:
            src.__dict__.pop("record_refusals")
        if taken:
            _as_list(fdef.body[k])
