"""Reverse mode, whole list gradients: a list gradient known, where it is made, to hold for
each item of its list of arrays an array of the item's shape (what
:func:`~srcad.runtime.items.items_at` checks entry by entry before it places them as they
are). Two things make one: ``zeros_like(xs)`` of a list of arrays (new float64 arrays of
the items' shapes) and ``filled(dxs, xs)`` (:mod:`.sparse`: the same, or the entry itself
where it already is such an array), and a callee's backward part passes the fact on: its
returned gradients that are ``filled(...)`` are recorded with the part
(:func:`returned`, ``Split.whole``), so the caller's ``dxs = predict_bwd(...)`` makes one
too.

A gradient name is whole where every assignment to it in the backward sweep is one of these
or a copy of a whole name, nothing stores into it (no ``dxs[i] = ...``, no augmented
assignment, no loop target), and it held nothing before the sweep (a backward part's seed is
the caller's list, whatever made it).
``items_at((ypred, layers), (1, 0), (dlayers, dypred))`` whose items are then each a whole
array or a whole list becomes the list display ``[dypred, list(dlayers)]``
(:func:`srcad.transform.reverse_data.display_items`): what ``items_at`` returns there, with
no check an entry. Imports ``srcad.core``.
"""

from __future__ import annotations

import ast

from ..core.kinds import ARRAY, SEQ


def returned(fdef, count, spelled):
    """For a backward part ``fdef`` returning ``count`` gradients at its end (and nowhere
    else), a tuple of flags, True where the gradient is ``filled(...)``; else ``()``."""
    returns = [n for n in ast.walk(fdef) if isinstance(n, ast.Return)]
    last = fdef.body[-1] if fdef.body else None
    if not count or len(returns) != 1 or returns[0] is not last or last.value is None:
        return ()
    values = [last.value] if count == 1 else getattr(last.value, "elts", None)
    if values is None or len(values) != count:
        return ()
    filled = spelled.get("filled", "filled")
    return tuple(_calls(v, filled) for v in values)


def whole_names(backward, sweep, outside):
    """The gradient names every assignment in ``backward`` (the sweep's statements) gives a
    whole list, and nothing else stores into (see the module docstring); never one of
    ``outside``, the names holding a value before the sweep (its seed: the caller's)."""
    spell = sweep.helper_names
    filled, zeros = spell.get("filled", "filled"), spell.get("zeros_like", "zeros_like")
    parts = sweep.whole_parts  # backward part's name -> its flags

    def whole(value, k, n):
        if not (isinstance(value, ast.Call) and isinstance(value.func, ast.Name)):
            return False
        fn = value.func.id
        if k is None and fn == filled:
            return True
        if k is None and fn == zeros and len(value.args) == 1 and not value.keywords:
            arg = value.args[0]
            return isinstance(arg, ast.Name) and sweep.an.kinds.get(arg.id) == SEQ and (
                sweep.an.elems.get(arg.id) == ARRAY)
        flags = parts.get(fn, ())
        return len(flags) == (n or 1) and flags[k or 0]

    verdict = dict.fromkeys(outside, False)  # name -> every definition whole so far
    copies = {}  # name -> the names copied into it

    def judge(target, value, k=None, n=None):
        if isinstance(target, ast.Name):
            if isinstance(value, ast.Name) and k is None:  # a copy: whole where its source is
                copies.setdefault(target.id, set()).add(value.id)
                verdict.setdefault(target.id, True)
            else:
                ok = value is not None and whole(value, k, n)
                verdict[target.id] = verdict.get(target.id, True) and ok
        else:  # a store into an item or an attribute, a starred target: not whole
            for node in ast.walk(target):
                if isinstance(node, ast.Name):
                    verdict[node.id] = False

    for stmt in backward:
        for node in ast.walk(stmt):
            if isinstance(node, ast.Assign):
                for target in node.targets:
                    if isinstance(target, (ast.Tuple, ast.List)):
                        n = len(target.elts)
                        for k, elt in enumerate(target.elts):
                            judge(elt, node.value, k, n)
                    else:
                        judge(target, node.value)
            elif isinstance(node, (ast.AugAssign, ast.AnnAssign, ast.For, ast.comprehension,
                                   ast.NamedExpr)):
                judge(ast.Tuple(elts=[node.target]), None)  # every name in it: not whole
            elif isinstance(node, ast.withitem) and node.optional_vars is not None:
                judge(ast.Tuple(elts=[node.optional_vars]), None)
    # the largest set closed under copies (a loop's gradients copy each other in turn):
    # every value a name holds came through copies from a definition that makes a whole list
    changed = True
    while changed:
        changed = False
        for n, sources in copies.items():
            if verdict[n] and not all(verdict.get(m, False) for m in sources):
                verdict[n], changed = False, True
    return {n for n, ok in verdict.items() if ok}


def _calls(value, fn):
    return isinstance(value, ast.Call) and isinstance(value.func, ast.Name) and (
        value.func.id == fn)
