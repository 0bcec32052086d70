"""Tidy's view of a function's tree: name counts, a fast walk, its blocks, renaming.

Shared by the rewrites of :mod:`.tidy`, :mod:`.tidy_copies` and :mod:`.tidy_values`.
Imports: the standard library only.
"""

from __future__ import annotations

import ast
import collections


def added_into(call):
    """The names a call of a backward part's variant adds into (its last arguments, marked
    ``adds_into`` by the sweep: :mod:`srcad.transform.into`): tidy counts each as stored
    there, as it counts ``x`` in ``x += g``, so it is neither propagated nor inlined."""
    n = call.__dict__.get("adds_into", 0)
    return [a.id for a in call.args[len(call.args) - n:] if a.__class__ is ast.Name] if n \
        else ()


def _stores(node):
    if isinstance(node, ast.FunctionDef):
        return _count_names(node)[0]
    names = {}
    for sub in _nodes(node):
        cls = sub.__class__
        if cls is ast.Name:
            if sub.ctx.__class__ is ast.Store:
                names[sub.id] = names.get(sub.id, 0) + 1
        elif cls is ast.AugAssign:
            if sub.target.__class__ is ast.Name:
                names[sub.target.id] = names.get(sub.target.id, 0) + 1
        elif cls is ast.Call:
            if "adds_into" in sub.__dict__:
                for name in added_into(sub):
                    names[name] = names.get(name, 0) + 1
        elif cls is ast.arg:
            names[sub.arg] = names.get(sub.arg, 0) + 1
    return names


def _loads(node):
    if isinstance(node, ast.FunctionDef):
        return _count_names(node)[1]
    names = {}
    for sub in _nodes(node):
        cls = sub.__class__
        if cls is ast.Name:
            if sub.ctx.__class__ is ast.Load:
                names[sub.id] = names.get(sub.id, 0) + 1
        elif cls is ast.AugAssign and sub.target.__class__ is ast.Name:
            names[sub.target.id] = names.get(sub.target.id, 0) + 1
    return names


#: the fields of each node class worth walking into: a ``ctx`` (Load/Store) or an operator
#: (Add, Lt) never holds a name, and skipping them halves the nodes every walk visits; nor do
#: the fields that hold a string or a number in every class that has them (a name's ``id``,
#: an attribute's ``attr``, a comment's ``text``: :class:`srcad.transform.nodes.Comment`),
#: nor a constant's value: a name, half the nodes, has no field to look at
_FIELDS = {}
_NO_NODES = frozenset({"ctx", "op", "ops", "id", "attr", "arg", "name", "asname", "kind",
                       "type_comment", "level", "module", "is_async", "simple", "conversion",
                       "text"})


def _fields(cls):
    fields = _FIELDS.get(cls)
    if fields is None:
        fields = _FIELDS[cls] = () if cls is ast.Constant else tuple(
            f for f in cls._fields if f not in _NO_NODES)
    return fields


def _walk(node):
    """``ast.walk``, same order, without its per-node generators and without the ``ctx`` and
    operator nodes (tidy walks a lot)."""
    todo = collections.deque([node])
    AST = ast.AST
    fields = _FIELDS
    while todo:
        node = todo.popleft()
        names = fields.get(node.__class__)
        if names is None:
            names = _fields(node.__class__)
        for name in names:
            child = getattr(node, name, None)
            if isinstance(child, AST):
                todo.append(child)
            elif child.__class__ is list:
                todo.extend([c for c in child if isinstance(c, AST)])
        yield node


def _nodes(node):
    """The nodes :func:`_walk` gives, in the same order, as a list: for the walks that change
    nothing as they go (counts, tables), without a generator's step per node."""
    out = [node]
    push = out.append
    AST = ast.AST
    fields = _FIELDS
    for node in out:  # (the list grows as it is read)
        names = fields.get(node.__class__)
        if names is None:
            names = _fields(node.__class__)
        for name in names:
            child = getattr(node, name, None)
            if isinstance(child, AST):
                push(child)
            elif child.__class__ is list:
                for c in child:
                    if isinstance(c, AST):
                        push(c)
    return out


class KeptCounts:
    """:func:`_count_names` of a function between tidy's rewrites (held as its
    ``_tidy_counts`` while :func:`srcad.backend.tidy.tidy` runs them): a rewrite that says it
    changed nothing changed nothing, so the counts it took (its first, the tree as it found
    it) are those the next rewrite would take. They are handed (copies: callers change
    them) to the first count of a rewrite that counts before it changes anything
    (``offer``), never to a later count."""

    def __init__(self):
        self.valid = None  # (stores, loads) of the tree as it is, or None
        self.offered = self.first = None
        self.counted = False

    def start(self, offer):
        """A rewrite starts; ``offer``: its first count comes before any change."""
        self.offered = self.valid if offer else None
        self.first, self.counted = None, False

    def end(self, changed):
        """The rewrite returned ``changed``."""
        self.valid = None if changed else self.valid or self.first
        self.offered = self.first = None

    def take(self):
        got, self.offered = self.offered, None
        if self.counted or got is None:
            return None
        self.counted = True
        return dict(got[0]), dict(got[1])

    def record(self, counts):
        if not self.counted:
            self.counted = True
            self.first = dict(counts[0]), dict(counts[1])


def counts_changed(fdef):
    """A rewrite that counts once more after changing the tree says so first (its next
    count is not offered the kept one)."""
    kept = fdef.__dict__.get("_tidy_counts")
    if kept is not None:
        kept.offered, kept.counted = None, True


def _count_names(fdef, nodes=None):
    """Stores and loads of every name of a function, in one walk (``nodes``: its
    :func:`_nodes`, when the caller has them); kept between tidy's rewrites
    (:class:`KeptCounts`)."""
    kept = fdef.__dict__.get("_tidy_counts")
    if kept is not None:
        got = kept.take()
        if got is not None:
            return got
    stores, loads = {}, {}
    for sub in _nodes(fdef) if nodes is None else nodes:
        cls = sub.__class__
        if cls is ast.Name:
            table = stores if sub.ctx.__class__ is ast.Store else loads
            table[sub.id] = table.get(sub.id, 0) + 1
        elif cls is ast.AugAssign:
            if sub.target.__class__ is ast.Name:
                stores[sub.target.id] = stores.get(sub.target.id, 0) + 1
                loads[sub.target.id] = loads.get(sub.target.id, 0) + 1
        elif cls is ast.Call:
            if "adds_into" in sub.__dict__:
                for name in added_into(sub):
                    stores[name] = stores.get(name, 0) + 1
        elif cls is ast.arg:
            stores[sub.arg] = stores.get(sub.arg, 0) + 1
    if kept is not None:
        kept.record((stores, loads))
    return stores, loads


def _blocks(node, in_loop=False):
    """Every statement list, with whether it lies inside a loop."""
    for field in ("body", "orelse"):
        block = getattr(node, field, None)
        if isinstance(block, list) and block and isinstance(block[0], ast.stmt):
            inner = in_loop or isinstance(node, (ast.For, ast.While))
            if isinstance(node, ast.FunctionDef):
                inner = False
            yield block, inner
            for stmt in block:
                yield from _blocks(stmt, inner)


def _rename(node, old, new):
    for sub in _walk(node):
        if isinstance(sub, ast.Name) and sub.id == old:
            sub.id = new



def bound_names(stmt, known):
    """The names ``stmt`` binds (:func:`_stores`' keys), a compound statement's from its
    parts', each kept in ``known`` by id beside the statement that keeps the id alive: the
    ``if``s nested in one another's arms are walked once, not once a level (the caller
    forgets a statement whose names it changes, and the statements holding it)."""
    got = known.get(id(stmt))
    if got is not None:
        return got[1]
    cls = stmt.__class__
    if cls is ast.If or cls is ast.While or cls is ast.For:
        names = set(_stores(stmt.test if cls is not ast.For else ast.Tuple(
            elts=[stmt.target, stmt.iter])))
        for s in stmt.body + stmt.orelse:
            names |= bound_names(s, known)
    else:
        names = set(_stores(stmt))
    known[id(stmt)] = (stmt, names)
    return names


def name_counts(stmt, known):
    """``(_stores(stmt), _loads(stmt))``, a compound statement's summed from its parts', each
    kept in ``known`` by id (as :func:`bound_names`)."""
    got = known.get(id(stmt))
    if got is not None:
        return got[1]
    cls = stmt.__class__
    if cls is ast.If or cls is ast.While or cls is ast.For:
        head = stmt.test if cls is not ast.For else ast.Tuple(elts=[stmt.target, stmt.iter])
        stores, loads = _stores(head), _loads(head)
        for s in stmt.body + stmt.orelse:
            for total, part in zip((stores, loads), name_counts(s, known)):
                for name, n in part.items():
                    total[name] = total.get(name, 0) + n
        counts = stores, loads
    else:
        counts = _stores(stmt), _loads(stmt)
    known[id(stmt)] = (stmt, counts)
    return counts


def same_tree(a, b):
    """Whether ``ast.dump(a) == ast.dump(b)`` (trees, lists of them, or values), stopping at
    the first difference (``if``s nested in one another's arms dumped each arm again at
    every level: tidy was quadratic in the depth)."""
    if a.__class__ is not b.__class__:
        return False
    if isinstance(a, ast.AST):
        return all(same_tree(getattr(a, f, None), getattr(b, f, None)) for f in a._fields)
    if a.__class__ is list:
        return len(a) == len(b) and all(map(same_tree, a, b))
    return a is b or repr(a) == repr(b)


def _header(stmt):
    """The part of a statement evaluated before any nested block: where a value may go."""
    if isinstance(stmt, (ast.If, ast.While)):
        return stmt.test
    if isinstance(stmt, ast.For):
        return stmt.iter
    if isinstance(stmt, (ast.Assign, ast.AugAssign, ast.Expr, ast.Return)):
        return stmt
    return ast.Pass()


