"""Tidy, copies: ``dt = dg`` followed by reads of ``dt`` reads ``dg`` directly (when both names
are assigned once and the copy is not inside a loop, or every read follows it), and
``b = e; ...; a = b`` with ``b`` read only there becomes ``a = e``.

Imports: :mod:`.tidy_walk`, :mod:`.tidy_values` (the names changed in place).
"""

from __future__ import annotations

import ast
import collections

from .tidy_values import changed_in_place
from .tidy_walk import (
    _blocks,
    _count_names,
    _loads,
    _nodes,
    _stores,
    _walk,
    bound_names,
    name_counts,
)


def _propagate_copies(fdef, grads):
    stores, loads = _count_names(fdef)
    params = {a.arg for a in fdef.args.args + fdef.args.kwonlyargs}
    returned = {n for stmt in fdef.body if isinstance(stmt, ast.Return) for n in _loads(stmt)}
    touched = set()  # names changed in this sweep: their counts are stale until the next
    renames = {}  # applied in one walk at the end (a walk per copy made this pass quadratic)
    cache = {}  # id(statement) -> (stores, loads) (:func:`.name_counts`), in this sweep
    changed = None  # the names changed in place, found when first needed
    made = False
    for block, in_loop in list(_blocks(fdef)):
        i = 0
        while i < len(block):
            stmt = block[i]
            i += 1
            if not _is_copy(stmt):
                continue
            a, b = stmt.targets[0].id, stmt.value.id
            if a == b or a in params or a in touched or b in touched:
                continue
            if getattr(stmt, "was_new", False):
                # ``dy = x`` stands for a new array (``dy = 1.0 * x`` simplified): where
                # either name is changed in place it stays a copy (copy_aliases makes it one)
                if changed is None:
                    changed = changed_in_place(fdef)
                if a in changed or b in changed:
                    continue
            mixed = (a in grads) != (b in grads)  # dw = a: keep the value's name and the copy
            if not mixed and _coalesce(fdef, block, i - 1, a, b, stores, loads, params):
                touched |= {a, b}
                made = True
                i -= 1
                continue
            if mixed and a in returned:
                continue
            if stores.get(a, 0) != 1 or a in returned:
                continue
            if (in_loop or stores.get(b, 0) > 1) and not _local_uses(block, i - 1, a, b,
                                                                      loads, cache):
                continue
            del block[i - 1]
            i -= 1
            if loads.get(b, 0) == 1 and b not in params and not mixed:
                renames[b] = a  # b was only copied: its definition becomes a's
            else:
                renames[a] = b
            touched |= {a, b}
            made = True
    if renames:
        for node in _walk(fdef):
            if isinstance(node, ast.Name) and node.id in renames:
                node.id = renames[node.id]
        for block, _ in _blocks(fdef):
            _drop_self_copies(block)
    return made


def _drop_copy_backs(fdef):
    """``a = b`` then, before either name is rebound, ``b = a`` or ``a = b`` again (in the same
    block or a branch of an ``if`` below it): the second copy changes nothing and goes."""
    pairs = collections.Counter(
        frozenset((s.targets[0].id, s.value.id)) for s in _nodes(fdef) if _is_copy(s))
    repeated = {pair for pair, n in pairs.items() if n > 1 and len(pair) == 2}
    changed = False
    bound = {}  # id(statement) -> the names it binds; a dropped copy's owners' go
    owner = {}  # id(block) -> (the statement holding it, the block holding that)
    for block, _ in list(_blocks(fdef)) if repeated else ():
        for stmt in block:
            for arm in (getattr(stmt, "body", None), getattr(stmt, "orelse", None)):
                if arm.__class__ is list:
                    owner[id(arm)] = (stmt, block)
    for block, _ in list(_blocks(fdef)) if repeated else ():
        for i, stmt in enumerate(block):
            if _is_copy(stmt):
                pair = frozenset((stmt.targets[0].id, stmt.value.id))
                if pair in repeated:
                    changed |= _drop_repeats(block, i + 1, pair, (bound, owner))
    return changed


def _drop_repeats(block, start, pair, known):
    """Drop copies between the two names of ``pair`` from ``block[start:]`` (and the arms of
    its ``if`` statements) until one of the names is rebound; True if any went. ``known``
    keeps each statement's bound names between calls (a walk of a whole loop for each copy
    made this quadratic), forgotten for the statements holding a copy dropped."""
    bound, owner = known
    changed = False
    i = start
    while i < len(block):
        stmt = block[i]
        if _is_copy(stmt) and frozenset((stmt.targets[0].id, stmt.value.id)) == pair:
            del block[i]
            inner = block
            while id(inner) in owner:
                holder, inner = owner[id(inner)]
                bound.pop(id(holder), None)
            changed = True
            continue
        if isinstance(stmt, ast.If) and not pair & _stores(stmt.test).keys():
            for arm in (stmt.body, stmt.orelse):
                changed |= _drop_repeats(arm, 0, pair, known)
            if not stmt.body:
                stmt.body.append(ast.Pass())
        if pair & bound_names(stmt, bound):
            return changed
        i += 1
    return changed


def _merge_arms(fdef, grads):
    """``if t: b = e1 else: b = e2`` then (after statements that touch neither name) ``a = b``,
    with ``b`` read only by that copy and ``a`` neither read nor rebound in an arm after its
    ``b = ...``: the arms write ``a`` directly (SSA's joins, ``s_7 = s + x ... s = s_7``, read
    as the loop a person writes)."""
    stores, loads = _count_names(fdef)
    changed = False
    for block, _ in list(_blocks(fdef)):
        for i in range(len(block) - 1, 0, -1):
            copy = block[i]
            if not _is_copy(copy):
                continue
            a, b = copy.targets[0].id, copy.value.id
            if a == b or loads.get(b, 0) != 1 or (a in grads) != (b in grads):
                continue
            k = i - 1  # statements between the if and the copy that touch neither name
            while k > 0 and not isinstance(block[k], ast.If) and not {a, b} & (
                    _loads(block[k]).keys() | _stores(block[k]).keys()):
                k -= 1
            branch = block[k]
            if not isinstance(branch, ast.If):
                continue
            found = _ends_with(branch, a, b)
            if found is None or len(found) != stores.get(b, 0):
                continue
            for target in found:
                target.id = a
            del block[i]
            stores[a] = stores.get(a, 0) + len(found) - 1
            changed = True
    return changed


def _ends_with(branch, a, b):
    """The ``b`` targets of the last ``b = ...`` of every path through ``branch`` (an ``if``),
    after which no statement reads or rebinds ``a``; None if some path does not end so."""
    if a in _stores(branch.test):
        return None
    found = []
    for arm in (branch.body, branch.orelse):
        for j in range(len(arm) - 1, -1, -1):
            stmt = arm[j]
            if isinstance(stmt, ast.Assign) and len(stmt.targets) == 1 and isinstance(
                    stmt.targets[0], ast.Name) and stmt.targets[0].id == b:
                found.append(stmt.targets[0])
                break
            if isinstance(stmt, ast.If) and b in _stores(stmt):
                inner = _ends_with(stmt, a, b)
                if inner is None:
                    return None
                found += inner
                break
            if a in _loads(stmt) or a in _stores(stmt) or b in _stores(stmt):
                return None
        else:
            return None  # a path that never assigns b
        if any(b in _stores(s) for s in arm[:j]):
            return None
    return found


def _drop_self_copies(block):
    """``a = a`` goes; whether any went."""
    kept = [s for s in block if not (_is_copy(s) and s.targets[0].id == s.value.id)]
    if len(kept) != len(block):
        block[:] = kept or [ast.Pass()]
        return True
    return False


def _is_copy(stmt):
    return (isinstance(stmt, ast.Assign) and len(stmt.targets) == 1
            and isinstance(stmt.targets[0], ast.Name) and isinstance(stmt.value, ast.Name))


def _coalesce(fdef, block, i, a, b, stores, loads, params):
    """``b = e; ...; a = b`` with ``b`` read only there: write ``a = e`` in place of ``b``."""
    if b in params or stores.get(b, 0) != 1 or loads.get(b, 0) != 1:
        return False
    for j in range(i - 1, -1, -1):
        stmt = block[j]
        if isinstance(stmt, ast.Assign) and len(stmt.targets) == 1 and isinstance(
            stmt.targets[0], ast.Name
        ) and stmt.targets[0].id == b:
            if a in _loads(stmt.value):
                # ``a = f(a)`` is fine: the old ``a`` is read before the new one is written
                pass
            del block[i]
            stmt.targets[0].id = a
            return True
        if a in _loads(stmt) or a in _stores(stmt):
            return False
    return False


def _local_uses(block, i, a, b, loads, cache=None):
    """In a loop: every read of ``a`` follows the copy in this block, ``b`` unchanged till then
    (a copy back, ``b = a``, leaves ``b`` equal to ``a``: it becomes ``b = b`` and goes). An
    ``if`` that may rebind ``b`` is looked into: each arm, up to where that arm rebinds ``b``,
    still reads ``a``'s value as ``b`` (``dbest_2 = dbest_1``, then ``if t_2: dt_1 =
    dbest_2; dbest_1 = 0.0``: ``dt_1 = dbest_1``). Not where the ``if`` tests ``a``: a flag
    the arms set from that test (``if nz_ds_1: ...; nz_dm = True else: nz_dm = False``) is
    then the test's copy, and the two ``if``s on it merge only while the test's name is not
    the one the arms rebind."""
    cache = {} if cache is None else cache
    return _reads_before(block[i + 1:], a, b, cache)[0] == loads.get(a, 0)


def _reads_before(stmts, a, b, cache):
    """``(reads of a, whether b may be rebound)`` over ``stmts``, the reads counted up to
    where ``b`` may change (a read after it is not counted: the caller's count then falls
    short)."""
    seen = 0
    for stmt in stmts:
        stmt_stores, stmt_loads = name_counts(stmt, cache)
        if stmt.__class__ is ast.Delete:
            return seen, True
        if b in stmt_stores and not (_is_copy(stmt) and stmt.value.id == a
                                     and stmt.targets[0].id == b):
            if _assigns_only(stmt, b):
                # ``b = f(a)``: the right side is read before b changes, so a may be b there
                return seen + _loads(stmt.value).get(a, 0), True
            if stmt.__class__ is ast.If and a not in _loads(stmt.test):
                for arm in (stmt.body, stmt.orelse):
                    seen += _reads_before(arm, a, b, cache)[0]
            return seen, True
        seen += stmt_loads.get(a, 0)
    return seen, False


def _assigns_only(stmt, name):
    return (isinstance(stmt, ast.Assign) and len(stmt.targets) == 1
            and isinstance(stmt.targets[0], ast.Name) and stmt.targets[0].id == name)




def fresh_copies(fdef, makers=()):
    """``a = x.copy()``, writes ``a[i] = v``, then ``b = a.copy()`` with ``a`` read nowhere
    else: the second copy is of an array nobody else holds (no view of ``a`` was taken, no
    call was handed it, nothing reads it after), so ``b`` is ``a`` itself, written in place:
    ``b = x.copy(); b[i] = v; ...`` (a callee's forward part writing its argument twice, SSA's
    ``y = x.copy(); y[i] = v`` once a write). ``a`` may also be made by a call of one of
    ``makers`` (the spellings of helpers that return a new array: ``scatter``). The writes,
    and the write right after the copy, ``b[j] = a[j] + w``, may read parts of ``a`` in
    arithmetic (:func:`_item_reads`: computed before the write, ``b[j] = b[j] + w`` in
    place; the second-order forward sweep's ``dx_1 = dx.copy()``), never ``a`` whole. Only
    where ``a`` and ``b`` are each assigned once, in one block, ``b`` is not mentioned from
    ``a``'s assignment to the copy, and every other mention of ``a`` is the target ``a[...]``
    of a plain assignment between the two; where ``a`` is read otherwise (a view, a value
    read later, a save), the copy stays. Whether any went."""
    mentions = collections.defaultdict(list)  # name -> its Name nodes (every context)
    for sub in _nodes(fdef):
        if sub.__class__ is ast.Name:
            mentions[sub.id].append(sub)
        elif sub.__class__ is ast.arg:
            mentions[sub.arg].append(sub)
    made = False
    for block, _ in list(_blocks(fdef)):
        j = 0
        while j < len(block):
            if _fresh_copy_at(block, j, mentions, makers):
                made = True
                del block[j]
            else:
                j += 1
    return made


def _copy_of(stmt):
    """``x`` of ``t = x.copy()`` (one name target, no arguments), else None."""
    if stmt.__class__ is not ast.Assign or len(stmt.targets) != 1 or (
            stmt.targets[0].__class__ is not ast.Name):
        return None
    value = stmt.value
    if value.__class__ is ast.Call and not value.args and not value.keywords and (
            value.func.__class__ is ast.Attribute and value.func.attr == "copy" and (
            value.func.value.__class__ is ast.Name)):
        return value.func.value.id
    return None


def _written(stmt, name):
    """The ``name`` node of ``stmt`` if it is ``name[...] = value``, else None."""
    target = stmt.targets[0] if stmt.__class__ is ast.Assign and len(
        stmt.targets) == 1 else None
    if target.__class__ is ast.Subscript and target.value.__class__ is ast.Name and (
            target.value.id == name):
        return target.value
    return None


def _fresh_copy_at(block, j, mentions, makers):
    """Whether ``block[j]`` is a second copy :func:`fresh_copies` drops; if so, ``a`` is
    renamed ``b`` (``mentions`` kept up to date) and the caller deletes the copy."""
    a = _copy_of(block[j])
    if a is None:
        return False
    b = block[j].targets[0].id
    own = mentions[a]
    stores = [n for n in own if n.__class__ is ast.Name and n.ctx.__class__ is ast.Store]
    if a == b or len(stores) != 1 or len([n for n in mentions[b] if (
            n.__class__ is not ast.Name or n.ctx.__class__ is not ast.Load)]) != 1:
        return False  # each assigned once (b by the copy; a parameter is the caller's)
    i = next((k for k in range(j) if block[k].__class__ is ast.Assign and len(
        block[k].targets) == 1 and block[k].targets[0] is stores[0]), None)
    if i is None or not (_copy_of(block[i]) is not None or (
            block[i].value.__class__ is ast.Call and block[i].value.func.__class__ is ast.Name
            and block[i].value.func.id in makers)) or b in _names_in(block[i].value):
        return False  # a not made new in this block: it may be shared
    allowed = {id(stores[0]), id(block[j].value.func.value)}
    for stmt in block[i + 1:j]:
        if b in _names_in(stmt):
            return False
        node = _written(stmt, a)
        if node is not None:  # a[k] = a[m] + w: its items read before the write
            allowed |= {id(node)} | _item_reads(stmt, a)
    if j + 1 < len(block) and _written(block[j + 1], b) is not None:
        # b[k] = a[k] + w: a's items read before the write (then b's, in place)
        allowed |= _item_reads(block[j + 1], a)
    if any(id(n) not in allowed for n in own):
        return False  # a read otherwise: the copy stays
    for n in own:
        if n is not block[j].value.func.value:
            n.id = b
            mentions[b].append(n)
    mentions[a] = []
    mentions[b] = [n for n in mentions[b] if n is not block[j].targets[0]]
    return True


def _item_reads(stmt, a):
    """The ids of the ``a`` nodes of ``a[...]`` read by the value of ``stmt`` (``x[k] =
    v``) when that value is arithmetic (``a[k] + w``: a new array or number, computed before
    the write, sharing no memory with ``a``); else none. Never ``a`` itself (a list given
    ``a`` as an item would hold the array the copy stood for), nor a part read by the index
    or as the value itself (a view of what the write changes: overlapping memory, which not
    every library's writes copy first)."""
    value = stmt.value
    if value.__class__ is not ast.BinOp and value.__class__ is not ast.UnaryOp:
        return set()
    return {id(n.value) for n in _nodes(value) if n.__class__ is ast.Subscript and (
        n.ctx.__class__ is ast.Load and n.value.__class__ is ast.Name and n.value.id == a)}


def _names_in(node):
    return {n.id for n in _nodes(node) if n.__class__ is ast.Name}
