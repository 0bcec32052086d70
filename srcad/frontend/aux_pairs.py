"""``has_aux=True`` read in the function itself: a function whose every ``return`` gives a
pair display, ``return value, aux`` or ``r = (value, aux)`` ... ``return r``, is
differentiated with ``value`` as its output and ``aux`` carried through to the derivative's
return, untouched (no second function, no wrapper).

:func:`returns_pairs` tells, from the parsed source, whether the form may apply: the body ends
with a ``return`` of a value (no path falls off its end), and every ``return`` of the
function's own body (not of a function defined in it) has a value and sits in the body, in
``if`` branches or in ``for``/``while`` loops (not in a ``with``, ``try`` or ``match``). Which
returned values are pairs is :func:`splits`' to tell, on the lowered form; any other function
keeps the general form (:mod:`srcad.aux_calls`: a shim calling it, whose pair is checked
where it runs).

:func:`split` then rewrites the lowered (SSA) function: each display ``r = (E, A)`` reaching
the return through copies and merges (of ``if`` branches, and of loops: a ``return`` in a
loop is a flag and a loop-carried result once lowered) becomes ``r = E`` followed by
``aux = A`` (a fresh name); a merge of such ``r`` gets the merge of their ``aux`` beside it
(a path that has not returned yet merges ``None`` for both: its flag keeps it from the
return; so does a name a loop has not bound yet, whose test raises). Every name of the chain
must be read by the chain alone: a pair read elsewhere (``len(r)``, ``r[0]``) is not split.
After it, the function returns ``E`` (what is differentiated) and ``fn.aux`` names the atom
holding ``A`` at the return (what the generated code returns beside the gradient:
:func:`srcad.backend.assemble.assemble`), which ``srcad.analysis.alias`` reads as read at the
return: a write into ``A``'s object after the display (``r = (loss, y); y[0] = 0.0``) changes
what Python returns, and is refused as any write into a value read afterwards. ``A`` is the
very object the function computes, in the order it computes it: the statements are the
function's own, run once.
(:mod:`srcad.aux_calls` also splits a copy first: a form the split does not read keeps the
shim.)

Imports :mod:`srcad.core` (ir), :mod:`srcad.errors` and gast.
"""

from __future__ import annotations

import gast

from ..core import ir
from ..errors import SrcadError

_NESTED = (gast.FunctionDef, gast.AsyncFunctionDef, gast.Lambda, gast.ClassDef)


def returns_pairs(fdef):
    """Whether ``fdef`` (a gast FunctionDef) may return pairs the SSA form reads apart: the
    body ends with a ``return`` of a value, and every ``return`` of its own has a value and
    sits in the body, ``if`` branches or loops (not in a ``with``, ``try`` or ``match``,
    whose lowering :func:`split` does not follow). Which values are pairs is
    :func:`splits`' to tell, on the lowered function."""
    body = fdef.body
    if not body or not isinstance(body[-1], gast.Return) or body[-1].value is None:
        return False
    return _all_returns(body)


def _all_returns(stmts):
    for stmt in stmts:
        if isinstance(stmt, gast.Return):
            if stmt.value is None:
                return False
        elif isinstance(stmt, (gast.If, gast.For, gast.While)):
            if not (_all_returns(stmt.body) and _all_returns(stmt.orelse)):
                return False
        elif not isinstance(stmt, _NESTED) and any(
                isinstance(n, gast.Return) for n in _own_nodes(stmt)):
            return False  # a return in a with, a try or a match: the general form
    return True


def _own_nodes(node):
    """The nodes under ``node``, not entering functions or classes defined in it."""
    for child in gast.iter_child_nodes(node):
        if isinstance(child, _NESTED):
            continue
        yield child
        yield from _own_nodes(child)


def split(fn, namer):
    """Rewrite ``fn`` (lowered from a function :func:`returns_pairs` accepts) as described in
    the module's docstring; refused when the returned value is not reached from pair displays
    through copies and ``if`` merges alone (:mod:`srcad.api` asks it only of those)."""
    if not _split(fn, namer):
        raise SrcadError(f"has_aux=True: {fn.name}'s returned pairs could not be read apart",
                         filename=fn.source.filename, lineno=fn.source.first_line,
                         hint="return value, aux at the end of the function")


def splits(fn, namer):
    """Whether :func:`split` rewrites ``fn`` (a copy, changed: see there)."""
    return _split(fn, namer)


def _split(fn, namer):
    ret = fn.body[-1] if fn.body and isinstance(fn.body[-1], ir.Return) else None
    if ret is None or not isinstance(ret.value, ir.Var):
        return False
    defs, reads = {}, {}
    for stmt in ir.walk(fn.body):
        if isinstance(stmt, ir.Assign) and stmt.target is not None:
            defs[stmt.target] = stmt
        elif isinstance(stmt, ir.If):
            for phi in stmt.phis:
                defs[phi.target] = (phi, stmt)
        elif isinstance(stmt, ir.Loop):
            for phi in stmt.phis:
                defs[phi.target] = (phi, stmt)
        for var in _reads(stmt):
            reads[var] = reads.get(var, 0) + 1
    chain, todo = {}, [ret.value.name]
    while todo:  # the names whose values flow, unchanged, to the return
        name = todo.pop()
        if name in chain:
            continue
        found = defs.get(name)
        if isinstance(found, ir.Assign):
            value = found.value
            if isinstance(value, ir.Var) and not found.effect:
                chain[name] = ("copy", found)
                todo.append(value.name)
                continue
            if isinstance(value, ir.Prim) and value.fn in (ir.BUILD_TUPLE, ir.BUILD_LIST) and (
                    len(value.args) == 2 and not value.kwargs and all(
                        isinstance(a, (ir.Var, ir.Const)) for a in value.args)):
                chain[name] = ("pair", found)
                continue
            return False
        if isinstance(found, tuple) and all(
                isinstance(s, ir.Var) or _none(s) for s in found[0].sources):
            chain[name] = ("merge", found)  # an if's or a loop's merge (None: a path that
            todo.extend(s.name for s in found[0].sources if isinstance(s, ir.Var))  # has
            continue  # not returned yet, whose flag says so, or a name not yet bound, whose
        return False  # test raises: the body ends with a return, so None is never returned)
    # each name of the chain read by the chain alone (or the return): nothing else sees a pair
    uses = {}
    for kind, found in chain.values():
        sources = [found.value] if kind == "copy" else found[0].sources if kind == "merge" \
            else []
        for s in sources:
            if isinstance(s, ir.Var):
                uses[s.name] = uses.get(s.name, 0) + 1
    uses[ret.value.name] = uses.get(ret.value.name, 0) + 1
    if any(reads.get(name, 0) != uses.get(name, 0) for name in chain):
        return False
    aux = {name: namer.fresh("aux") for name in chain}
    spellings = getattr(fn, "spellings", None)
    if isinstance(spellings, dict):  # (messages: "y shares memory with the aux ...")
        spellings.update({a: "the aux value returned (has_aux=True)" for a in aux.values()})
    for name, (kind, found) in chain.items():
        if kind == "merge":  # (beside it: an if's merges, or a loop's entry and latches)
            phi, branch = found
            branch.phis.append(ir.Phi(aux[name], [ir.Var(aux[s.name]) if isinstance(
                s, ir.Var) else s for s in phi.sources]))
            continue
        stmt = found
        if kind == "copy":
            kept = ir.Assign(aux[name], ir.Var(aux[stmt.value.name]), stmt.line)
        else:
            value, held = stmt.value.args
            stmt.value = value
            kept = ir.Assign(aux[name], held, stmt.line)
        block = _block_of(fn.body, stmt)
        block.insert(next(i for i, s in enumerate(block) if s is stmt) + 1, kept)
    fn.aux = ir.Var(aux[ret.value.name])
    return True


def _none(atom):
    """Whether a merge's source is ``None`` (a name not set on that path, or the constant)."""
    return atom is None or isinstance(atom, ir.Const) and atom.value is None


def _reads(stmt):
    """The names ``stmt`` reads itself, merges included (not the statements nested in it,
    which :func:`ir.walk` visits)."""
    names = [v.name for v in ir.reads_of(stmt)]
    if isinstance(stmt, ir.If):
        names += [v.name for p in stmt.phis for s in p.sources for v in ir.atoms_in(s)]
    elif isinstance(stmt, ir.Loop):  # (reads_of has the entries: the latches and tests here)
        names += [v.name for p in stmt.phis for s in p.sources[1:] for v in ir.atoms_in(s)]
        names += [v.name for a in (stmt.test, stmt.exit) for v in ir.atoms_in(a)]
    return names


def _block_of(stmts, target):
    """The statement list holding ``target``."""
    for stmt in stmts:
        if stmt is target:
            return stmts
        for block in ir.blocks_of(stmt):
            found = _block_of(block, target)
            if found is not None:
                return found
    return None
