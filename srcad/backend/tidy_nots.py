"""Tidy, negations: ``t = not v`` then ``if t:`` is ``if not v:``. The desugared
``continue`` writes ``skip_1 = x[i] < 0.0``, then ``t_2 = not skip_1`` and ``if t_2:``; a
person writes ``if not skip_1:``.

Taken when ``t`` is srcad's own name, assigned once, and every read of ``t`` takes its
truth (the test of an ``if``, a ``while`` or a conditional expression, bare or under
``not``) or saves it (an element of a stack's ``append``, unpacked later into the same
name, as the sweep writes it); and ``v`` is assigned once and read nowhere else, or read
only before the backward sweep unpacks a save of ``t`` (``broke_1``, read by ``if broke_1:
break`` too), or saved beside ``t`` wherever ``t`` is saved (``stack.append((i, t_1,
t_3))``: ``t_3``'s place goes, :class:`.tidy_reads._Saves`), or, at the function's top level,
bound by no later statement (``t_5 = not returned`` after the loop). ``t`` is then renamed ``v``
everywhere, each test negated (``if t:`` -> ``if not v:``, ``if not t:`` -> ``if v:``), and
a save holds ``v``. The first statement after ``t = not v`` is ``if t:``, so the truth of
``v`` is taken where it was (an ambiguous truth, an array, still raises there).

Both rewrites take ``v``'s truth again where the sweep tested ``t`` (or the first ``if``):
they are taken only where ``v`` holds a truth nothing changes (:func:`_truth_flag`: a
comparison, ``not``, ``True``/``False``, an unpacked save), never a list or array that
``ys.append(v)`` or ``ys.pop()`` may change between the two tests.

Two ``if``s in a row testing one flag (``if returned_1: ... else: ...`` then ``if not
returned_1:``, an early ``return`` in a loop) are one (:func:`_merge_ifs`).

Imports: :mod:`srcad.transform.nodes` (the comment node), :mod:`.tidy_reads` (what a
stack's calls are), :mod:`.tidy_walk`.
"""

from __future__ import annotations

import ast

from ..transform.nodes import Comment
from .tidy_reads import _method, _reversed, _Saves
from .tidy_walk import _blocks, _count_names, _stores, _walk


def negated_flags(fdef, temps):
    """Rewrite ``fdef`` in place as the module docstring says; whether anything changed."""
    return _negated(fdef, temps) | _merge_ifs(fdef)


def _merge_ifs(fdef):
    """``if c: A else: B`` then ``if not c: C else: D`` (or ``if c: C else: D``; comments
    between), ``c`` a name neither ``A`` nor ``B`` binds: one ``if c: A; D else: B; C``.
    The same statements in the same order; ``c``'s truth is taken once, at the first test
    (a name, the same at the second; an ambiguous truth raises there, as it did)."""
    changed = False
    flags = None  # read when a pair is found (merging arms binds no name: answers stay true)
    for block, _ in list(_blocks(fdef)):
        k = 0
        while k < len(block):
            first = block[k]
            j = k + 1
            while j < len(block) and block[j].__class__ is Comment:
                j += 1
            second = block[j] if j < len(block) else None
            c, negated = _flag_test(first)
            c2, negated2 = _flag_test(second)
            if c is not None and c == c2 and flags is None:
                flags = _TruthFlags(fdef)
            if c is None or c != c2 or not flags(c) or any(
                    n.__class__ is ast.Name and n.id == c and n.ctx.__class__ is ast.Store
                    for s in first.body + first.orelse for n in _walk(s)):
                k += 1
                continue
            between = block[k + 1:j]
            same = negated == negated2
            yes, no = (second.body, second.orelse) if same else (second.orelse, second.body)
            first.body = _real(first.body) + _comments(between) + _real(yes)
            first.orelse = _real(first.orelse) + _comments(between) + _real(no)
            first.body = first.body or [ast.Pass()]
            del block[k + 1:j + 1]
            changed = True
    return changed


def _flag_test(stmt):
    """``(c, negated)`` of ``if c:`` / ``if not c:``, else ``(None, None)``."""
    if stmt.__class__ is not ast.If:
        return None, None
    test = stmt.test
    if test.__class__ is ast.Name:
        return test.id, False
    if test.__class__ is ast.UnaryOp and test.op.__class__ is ast.Not and (
            test.operand.__class__ is ast.Name):
        return test.operand.id, True
    return None, None


def _comments(between):
    return [Comment(b.text, b.line) for b in between]


def _real(block):
    return [s for s in block if s.__class__ is not ast.Pass]


def _negated(fdef, temps):
    found = []
    for block, _ in _blocks(fdef):
        for k, stmt in enumerate(block):
            if _not_of_name(stmt) and stmt.targets[0].id in temps:
                j = k + 1
                while j < len(block) and block[j].__class__ is Comment:
                    j += 1
                nxt = block[j] if j < len(block) else None
                if nxt.__class__ is ast.If and nxt.test.__class__ is ast.Name and (
                        nxt.test.id == stmt.targets[0].id):
                    found.append((block, stmt))
    if not found:
        return False
    changed = False
    facts = None  # read again only where a change touched what a candidate asks about
    for block, stmt in found:
        t, v = stmt.targets[0].id, stmt.value.operand.id
        if facts is None or facts.stale(t, v):
            facts = _Facts(fdef, {s.targets[0].id for _, s in found})
        stores, loads, saves = facts.stores, facts.loads, facts.saves
        if not facts.flags(v):
            continue
        uses = facts.uses.get(t) if t != v else None
        if uses is None or stores.get(t) != 1 + uses[1]:
            continue
        unpacked = saves.unpacked.get(v, 0)
        if block is fdef.body and not uses[1] and not any(
                v in _stores(later) for later in block[block.index(stmt) + 1:]):
            pass  # at the top level, v bound for the last time before: its final value
        elif stores.get(v) != 1 + unpacked:
            continue
        elif unpacked:  # saved beside t (i, s, t_1, t_3): t's place in the save goes
            if not saves.merge(v, t):
                continue
        elif loads.get(v) != 1 and not _read_before_unpacks(fdef, v, t, stmt):
            continue
        block.remove(stmt)
        for parent, field, negated in uses[0]:
            value = ast.Name(id=v, ctx=ast.Load())
            setattr(parent, field, value if negated else ast.UnaryOp(op=ast.Not(),
                                                                     operand=value))
        for node in facts.names.get(t, ()):
            if node.id == t:
                node.id = v
        changed = True
        facts.touched(t, v)
    return changed


class _Facts:
    """What :func:`_negated` asks of ``fdef``, from one walk: the counts of every name, the
    truth flags, the saves, the uses of each candidate ``t`` and every ``Name`` node by
    name. A change (``t = not v`` gone, ``t`` renamed ``v``, ``t``'s place in a save
    dropped) changes the answers about ``t``, ``v``, the names copying them and the stacks
    saving them only: :meth:`stale` says when a later candidate asks about one of those
    (then the walk is made again, as it was after every change: one walk a candidate made
    tidy quadratic in the number of ``continue``s)."""

    def __init__(self, fdef, candidates):
        self.stores, self.loads = _count_names(fdef)
        self.flags = _TruthFlags(fdef)
        self.saves = _Saves(fdef)
        self.names, self.stacks_of = {}, {}
        for node in _walk(fdef):
            cls = node.__class__
            if cls is ast.Name:
                self.names.setdefault(node.id, []).append(node)
            elif cls is ast.Call and _method(node, "append", 1):
                self._on_stack(node.func.value.id, node.args[0])
            elif cls is ast.For and _reversed(node.iter):
                self._on_stack(node.iter.args[0].id, node.target)
            elif cls is ast.Assign and len(node.targets) == 1 and _method(node.value, "pop", 0):
                self._on_stack(node.value.func.value.id, node.targets[0])
        self.uses = _uses(fdef, candidates, self.names)
        self.dirty_names, self.dirty_stacks = set(), set()

    def _on_stack(self, stack, node):
        for n in _walk(node):
            if n.__class__ is ast.Name:
                self.stacks_of.setdefault(n.id, set()).add(stack)

    def touched(self, t, v):
        self.dirty_names |= {t, v}
        self.dirty_stacks |= self.stacks_of.get(t, set()) | self.stacks_of.get(v, set())

    def stale(self, t, v):
        if not self.dirty_names:
            return False
        reached, todo = set(), [v, t]  # v's truth follows its copies (:class:`_TruthFlags`)
        while todo:
            name = todo.pop()
            if name not in reached:
                reached.add(name)
                todo.extend(self.flags.copies.get(name, ()))
        return bool(reached & self.dirty_names) or any(
            self.stacks_of.get(name, set()) & self.dirty_stacks for name in (t, v))


_TRUTH_FORMS = (ast.Compare, ast.UnaryOp)


class _TruthFlags:
    """:func:`_truth_flag` of every name of ``fdef``, from one walk (a walk a question, and
    one more for each copy followed, made tidy quadratic in the number of ``continue``s):
    ``flags(name)``. A name is one when nothing :func:`_truth_flag` rejects binds it or
    reads it, and every name it copies is one; a copy that comes back to itself is not."""

    def __init__(self, fdef):
        self.bad, self.copies, self.known = set(), {}, {}
        bad, copies = self.bad, self.copies
        for node in _walk(fdef):
            cls = node.__class__
            if cls is ast.Assign:
                names = {n.id for target in node.targets for n in _walk(target)
                         if n.__class__ is ast.Name}
                if not names or _method(node.value, "pop", 0):
                    continue
                if len(node.targets) != 1 or node.targets[0].__class__ is not ast.Name:
                    bad.update(names)
                    continue
                value, name = node.value, node.targets[0].id
                if value.__class__ is ast.Name:
                    copies.setdefault(name, []).append(value.id)
                elif not _truth_value(value):
                    bad.add(name)
            elif cls is ast.For:
                if not _reversed(node.iter):
                    bad.update(n.id for n in _walk(node.target) if n.__class__ is ast.Name)
            elif cls in (ast.AugAssign, ast.AnnAssign, ast.NamedExpr, ast.With, ast.Delete):
                bad.update(n.id for n in _walk(node) if n.__class__ is ast.Name
                           and n.ctx.__class__ is not ast.Load)
            elif cls in (ast.Subscript, ast.Attribute):
                if node.value.__class__ is ast.Name:
                    bad.add(node.value.id)
            elif cls is ast.Call and not _method(node, "append", 1):
                bad.update(n.id for arg in node.args + [k.value for k in node.keywords]
                           for n in _walk(arg) if n.__class__ is ast.Name)

    def __call__(self, name, seen=()):
        known = self.known.get(name)
        if known is not None:
            return known
        if name in seen:
            return False  # (a cycle: every name on it, and every name reaching it, is not)
        ok = name not in self.bad and all(self(source, seen + (name,))
                                          for source in self.copies.get(name, ()))
        self.known[name] = ok
        return ok


def _truth_value(value):
    """A comparison, a ``not``, ``True`` or ``False``."""
    return (value.__class__ in _TRUTH_FORMS and (
        value.__class__ is ast.Compare or value.op.__class__ is ast.Not)
            or value.__class__ is ast.Constant and value.value in (True, False)
            and value.value.__class__ is bool)


def _truth_flag(fdef, name, seen=()):
    """Whether ``name`` holds a truth its statements cannot change after it is bound: every
    binding an assignment of a comparison, a ``not``, ``True``/``False`` or another such
    flag, or an unpacking of a save (a tuple or name unpacked from a stack's ``pop()`` or a
    ``for ... in reversed(stack)``), and ``name`` never written through (``name[i] = v``,
    ``name.attr``, an augmented assignment, a call given it). A list or array tested for
    its truth (``if not ys:``) may change between two tests (``ys.append(v)``), so its
    test is neither moved nor merged. (Asked of many names: :class:`_TruthFlags`.)"""
    if name in seen:
        return False
    for node in _walk(fdef):
        cls = node.__class__
        if cls is ast.Assign and any(n.__class__ is ast.Name and n.id == name
                                     for target in node.targets for n in _walk(target)):
            if _method(node.value, "pop", 0):
                continue
            if len(node.targets) != 1 or node.targets[0].__class__ is not ast.Name:
                return False
            value = node.value
            if value.__class__ is ast.Name:
                if not _truth_flag(fdef, value.id, seen + (name,)):
                    return False
            elif not (value.__class__ in _TRUTH_FORMS and (
                    value.__class__ is ast.Compare or value.op.__class__ is ast.Not)
                      or value.__class__ is ast.Constant and value.value in (True, False)
                      and value.value.__class__ is bool):
                return False
        elif cls is ast.For and any(n.__class__ is ast.Name and n.id == name
                                    for n in _walk(node.target)):
            if not _reversed(node.iter):
                return False
        elif cls in (ast.AugAssign, ast.AnnAssign, ast.NamedExpr, ast.With, ast.Delete):
            if any(n.__class__ is ast.Name and n.id == name and n.ctx.__class__ is not ast.Load
                   for n in _walk(node)):
                return False
        elif cls in (ast.Subscript, ast.Attribute) and node.value.__class__ is ast.Name and (
                node.value.id == name):
            return False
        elif cls is ast.Call and not _method(node, "append", 1) and any(
                n.__class__ is ast.Name and n.id == name
                for arg in node.args + [k.value for k in node.keywords] for n in _walk(arg)):
            return False
    return True


def _read_before_unpacks(fdef, v, t, defined):
    """Whether every read of ``v`` lies in a top-level statement before the first that
    unpacks a save into ``t`` (the backward sweep's loop): once renamed ``v``, those
    unpackings bind ``v`` again, after the forward sweep read it."""
    first, own = None, defined.targets[0]
    for k, stmt in enumerate(fdef.body):
        for node in _walk(stmt):
            if node.__class__ is ast.Name and node.id == t and (
                    node.ctx.__class__ is ast.Store) and node is not own:
                first = k if first is None else first
        if first is not None:
            break
    if first is None:
        return True
    return not any(node.__class__ is ast.Name and node.id == v for stmt in fdef.body[first:]
                   for node in _walk(stmt))


def _not_of_name(stmt):
    return (stmt.__class__ is ast.Assign and len(stmt.targets) == 1
            and stmt.targets[0].__class__ is ast.Name and stmt.value.__class__ is ast.UnaryOp
            and stmt.value.op.__class__ is ast.Not
            and stmt.value.operand.__class__ is ast.Name)


def _uses(fdef, names, nodes):
    """``{name: (truth reads, unpackings)}`` for each of ``names`` (``nodes``: every ``Name``
    node by name), from one walk: the tests ``(parent, "test", negated)`` that read ``name``
    (``negated``: as ``not name``) for its truth, and how many times a save is unpacked into
    it; ``None`` when it is read otherwise, or saved on a stack whose appends and unpackings
    do not name the same values once each (only then is the value unpacked into ``name``
    the one appended as ``name``)."""
    truth = {name: [] for name in names}
    saved = {name: set() for name in names}
    truth_reads = dict.fromkeys(names, 0)  # the reads that take its truth or save it
    pushed, popped = {}, {}
    for node in _walk(fdef):
        cls = node.__class__
        if cls in (ast.If, ast.While, ast.IfExp):
            test = node.test
            if test.__class__ is ast.Name and test.id in truth:
                truth[test.id].append((node, "test", False))
                truth_reads[test.id] += 1
            if test.__class__ is ast.UnaryOp and test.op.__class__ is ast.Not and (
                    test.operand.__class__ is ast.Name and test.operand.id in truth):
                # if not t: (``not t`` read for its truth) is ``if v:``
                truth[test.operand.id].append((node, "test", True))
                truth_reads[test.operand.id] += 1
        elif cls is ast.Call and _method(node, "append", 1):
            stack = node.func.value.id
            items = node.args[0].elts if node.args[0].__class__ is ast.Tuple else node.args
            for item in items:
                if item.__class__ is ast.Name:
                    pushed.setdefault(stack, []).append(item.id)
                    if item.id in truth:
                        saved[item.id].add(stack)
                        truth_reads[item.id] += 1
        elif cls is ast.For and _reversed(node.iter):
            popped.setdefault(node.iter.args[0].id, []).extend(_names(node.target))
        elif cls is ast.Assign and len(node.targets) == 1 and _method(node.value, "pop", 0):
            popped.setdefault(node.value.func.value.id, []).extend(_names(node.targets[0]))
    out = {}
    for name in names:
        reads = sum(1 for node in nodes.get(name, ()) if node.ctx.__class__ is ast.Load)
        if reads != truth_reads[name]:  # counted by place: one node may stand in two places
            out[name] = None  # read as a value
            continue
        unpacked = 0
        for stack in saved[name]:
            if sorted(pushed.get(stack, ())) != sorted(popped.get(stack, ())) or len(
                    set(pushed[stack])) != len(pushed[stack]):
                unpacked = None
                break
            unpacked += popped[stack].count(name)
        out[name] = None if unpacked is None else (truth[name], unpacked)
    return out


def _names(target):
    if target.__class__ is ast.Name:
        return [target.id]
    if target.__class__ is ast.Tuple and all(e.__class__ is ast.Name for e in target.elts):
        return [e.id for e in target.elts]
    return ["?"]  # a pattern the check above does not follow: no match
