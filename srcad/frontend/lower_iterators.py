"""Lowering iterators kept in a name, and ``a, b = zip(*rows)`` of rows srcad cannot count.

A mixin of :class:`srcad.frontend.lower.Lowerer` (see there for the state it shares):

* ``it = zip(xs, ys)`` (or ``enumerate``, ``reversed``, ``map``, ``filter``) whose name is
  read once, later in the same block, where all its values are taken at once
  (:func:`deferred_iterators`): the call's arguments are evaluated where it is made and the
  call is written where ``it`` is read (:meth:`Iterators.defer`, :meth:`Iterators.undefer`),
  so a loop over it reads its sequences by position; kept otherwise, it is refused
  (:meth:`srcad.frontend.lower_spread.Spreads.refuse_iterator`);
* what one step of a ``for`` over ``zip``/``enumerate`` (nested) yields, bound to its
  target (:meth:`Iterators.step_pattern`, :meth:`Iterators.bind_pattern`), for
  :meth:`srcad.frontend.lower_loops.Loops.for_loop`;
* ``max(xs, key=k)``: the item Python picks, read by position;
* ``a, b = zip(*rows)`` with ``rows`` of a length srcad cannot know: each name is the tuple
  of the rows' items at its place, after :func:`check_unzip`.

Imports: gast, :mod:`srcad.core`, :mod:`srcad.rules.registry` (to declare the check) and
:mod:`.lower_spread` (its node helpers).
"""

from __future__ import annotations

import operator

import gast

from ..core import ir
from ..core.ir import Const, Var
from ..core.walk import walk_nodes
from ..rules.registry import registry as _registry
from ..runtime import containers
from . import builtin_code, writes
from .blocks import own_blocks
from .lower_spread import Atom, name_node


def check_unzip(rows, n):
    """Raise as ``a, b = zip(*rows)`` (``n`` names) would unless ``rows`` has items, each of
    ``n`` or more values and the shortest of ``n`` exactly (then ``zip`` yields ``n`` tuples)."""
    count = min((len(r) for r in rows), default=0)
    if count != n:
        raise ValueError(f"not enough values to unpack (expected {n}, got {count})"
                         if count < n else f"too many values to unpack (expected {n})")


_registry.nondiff.add(check_unzip)  # a check: no derivative


def check_zip_strict(sizes, *sequences):
    """Raise as ``zip(..., strict=True)`` does unless its arguments have one length:
    ``sequences`` are what the arguments index, ``sizes`` how many belong to each argument
    (an argument's length is the shortest of them: an ``enumerate`` or ``zip`` inside)."""
    lengths, at = [], 0
    for size in sizes:
        lengths.append(min(len(s) for s in sequences[at:at + size]))
        at += size
    short = min(lengths)
    first = lengths.index(short)  # the argument zip finds exhausted first
    if first:
        raise ValueError(f"zip() argument {first + 1} is shorter than argument"
                         f"{'s 1-' + str(first) if first > 1 else ' 1'}")
    longer = [k for k, n in enumerate(lengths) if n != short]
    if longer:
        raise ValueError(f"zip() argument {longer[0] + 1} is longer than argument"
                         f"{'s 1-' + str(longer[0]) if longer[0] > 1 else ' 1'}")


_registry.nondiff.add(check_zip_strict)  # a check: no derivative


class Iterators:
    """Iterators kept in a name; ``zip(*rows)`` unpacked into names."""

    def unzipped(self, target, value_node, node):
        """``a, b = zip(*rows)`` with ``rows`` of a length srcad cannot know (a list made by a
        comprehension, an argument): ``a = tuple(r[0] for r in rows)``, ... after a check
        that ``zip`` yields exactly as many tuples as there are names. Whether it was."""
        if not (isinstance(target, (gast.Tuple, gast.List)) and target.elts and not any(
                isinstance(e, gast.Starred) for e in target.elts)
                and isinstance(value_node, gast.Call) and isinstance(value_node.func, gast.Name)
                and value_node.func.id not in self.env and not value_node.keywords
                and len(value_node.args) == 1 and isinstance(value_node.args[0], gast.Starred)
                and self.lookup(value_node.func.id, value_node) is zip
                and self.known_items(value_node.args[0]) is None):
            return False
        origin = self.consumed(value_node.args[0].value)
        rows = Atom(self.expr(origin))
        rows.origin = origin
        if isinstance(rows.atom, Var) and (rows.atom.name in self.tuples or (
                rows.atom.name in self.lists and isinstance(origin, gast.Name)
                and origin.id in self.frozen)):
            return False  # items known: zip(*pairs) splices them
        check = ir.Prim(check_unzip, [rows.atom, Const(len(target.elts))],
                        spelling=self.bound_name(check_unzip, "check_unzip"))
        self.emit(ir.Assign(None, check, node.lineno, effect=True))
        for k, t in enumerate(target.elts):
            row = self.namer.fresh("row")
            item = gast.Subscript(value=name_node(row, gast.Load()),
                                  slice=gast.Constant(value=k, kind=None), ctx=gast.Load())
            comp = gast.ListComp(elt=item, generators=[gast.comprehension(
                target=name_node(row, gast.Store()), iter=rows, ifs=[], is_async=0)])
            for sub in walk_nodes(comp):
                if getattr(sub, "lineno", None) is None and "lineno" in sub._attributes:
                    gast.copy_location(sub, node)
            column = self.expr(comp)
            self.bind_atom(t, self.assign(ir.Prim(tuple, [column], spelling=self.bound_name(
                tuple, "as_tuple")), None, node), node)
        return True

    def bind_pattern(self, target, pattern, reads, index, node, skip_index=False):
        """Bind ``target`` to what one step of the iteration yields: ``pattern`` is
        ``("item", k)`` (the ``k``-th sequence's element), ``("index",)`` (the counter of an
        ``enumerate``) or ``("tuple", patterns)`` (what ``zip``/``enumerate`` yield), unpacked
        item by item where the target is a tuple of the same length."""
        if pattern[0] == "item":
            self.bind_atom(target, reads[pattern[1]], node)
        elif pattern[0] == "index":
            if not skip_index:
                self.bind_atom(target, index, node)
        elif isinstance(target, (gast.Tuple, gast.List)) and len(target.elts) == len(
                pattern[1]) and not any(isinstance(e, gast.Starred) for e in target.elts):
            for k, (t, p) in enumerate(zip(target.elts, pattern[1])):
                self.bind_pattern(t, p, reads, index, node, skip_index and k == 0)
        else:
            self.bind_atom(target, self.pattern_value(pattern, reads, index, node), node)

    def pattern_value(self, pattern, reads, index, node):
        """The value (a tuple for ``zip``/``enumerate``) one step of the iteration yields."""
        if pattern[0] == "item":
            return reads[pattern[1]]
        if pattern[0] == "index":
            return index
        items = [self.pattern_value(p, reads, index, node) for p in pattern[1]]
        return self.assign(ir.Prim(ir.BUILD_TUPLE, items), None, node)

    def builtin_call(self, node):
        """``(fn, args)`` for a call of a global name (``zip(*pairs)`` of known length
        spliced), else ``(None, None)``."""
        if not (isinstance(node, gast.Call) and isinstance(node.func, gast.Name) and (
                node.func.id not in self.env) and node.func.id not in self.local_functions):
            return None, None
        fn = self.lookup(node.func.id, node)
        args = node.args
        if any(isinstance(a, gast.Starred) for a in args):
            if fn not in (zip, range):
                return None, None
            args = self.spliced(node)  # zip(*pairs): pairs of a known length
        return fn, args

    def step_pattern(self, node, elements, starts, call=None):
        """What one step over ``node`` yields, appending the sequences it indexes to
        ``elements`` (and an ``enumerate``'s start to ``starts``); ``call``: ``node``'s
        :meth:`builtin_call`, when already made."""
        node = self.undefer(node)
        fn, args = call or self.builtin_call(node)
        if fn is zip and args and not node.keywords:
            return ("tuple", [self.step_pattern(a, elements, starts) for a in args])
        strict = self.zip_strict(fn, args, node)
        if strict is not None:
            sizes, patterns = [], []
            for a in args:
                before = len(elements)
                patterns.append(self.step_pattern(a, elements, starts))
                sizes.append(len(elements) - before)
            if strict:  # raises before the loop where zip raises after its last full step
                check = ir.Prim(check_zip_strict, [Const(tuple(sizes))] + elements[
                    len(elements) - sum(sizes):], spelling=self.bound_name(
                        check_zip_strict, "check_zip_strict"))
                self.emit(ir.Assign(None, check, node.lineno, effect=True))
            return ("tuple", patterns)
        if fn is enumerate and 1 <= len(args) + len(node.keywords) <= 2 and all(
                k.arg == "start" for k in node.keywords) and len(args) >= 1 and not starts:
            inner = self.step_pattern(args[0], elements, starts)
            given = args[1] if len(args) == 2 else node.keywords[0].value if \
                node.keywords else None
            start = None if given is None else self.expr(given)
            if isinstance(start, Const) and type(start.value) is int and start.value == 0:
                start = None
            elif start is not None and not (isinstance(start, Const)
                                            and type(start.value) is int):
                start = self.assign(ir.Prim(operator.index, [start], spelling=(
                    writes.callee_name(self, operator.index, "as_index"))), "start", node)
            starts.append(start)
            return ("tuple", [("index",), inner])
        elements.append(self.sequence(node))
        return ("item", len(elements) - 1)

    def zip_strict(self, fn, args, node):
        """For ``zip(xs, ys, strict=s)``: ``s`` (a bool known when the code is made), else
        None."""
        if not (fn is zip and args and [k.arg for k in node.keywords] == ["strict"]):
            return None
        strict = self.expr(node.keywords[0].value)
        if not (isinstance(strict, Const) and isinstance(strict.value, bool)):
            raise self.error(node, "zip(..., strict=s) with s computed in the function",
                             hint="write strict=True or strict=False")
        if strict.value and getattr(self, "zip_leaves_early", False):
            raise self.error(node, "zip(..., strict=True) in a for loop that may leave early "
                             "(break, return): Python checks the lengths only when the loop "
                             "gets to the end", hint="check the lengths before the loop "
                             "(if len(a) != len(b): raise ValueError(...)), then zip(a, b)")
        return strict.value

    def refuse_iterator(self, fn, node):
        """``map``/``filter``/``zip``/``enumerate``/``reversed`` kept as an iterator (consumed
        later, maybe twice): refused unless :meth:`defer` took it."""
        if fn in (zip, enumerate, reversed):
            raise self.error(node, f"{fn.__name__}(...) kept as an iterator and read where "
                             "srcad cannot see its values taken once", hint="take its values "
                             f"where it is made (for ... in {fn.__name__}(...), "
                             f"list({fn.__name__}(...))), or read the name once, in a for "
                             "loop or a call like list(...) or sum(...)")
        if fn in (map, filter):
            raise self.error(node, f"{fn.__name__}(...) kept as an iterator",
                             hint=f"consume it where it is made: list({fn.__name__}(...)), "
                             f"sum({fn.__name__}(...)), or a for loop over it")

    def extreme_by_key(self, fn, node):
        """``max(xs, key=k)`` (or ``min``): ``xs[extreme_index(xs, k, True)]``, the item Python
        returns, read by position, so its gradient goes to that item (the keys, and whatever
        ``k`` reads, carry none: the choice is piecewise constant in them)."""
        seq = self.sequence(node.args[0])  # a list of a generator's values, a dict's keys...
        key = builtin_code.inactive_key(self, self.expr(node.keywords[0].value), node)
        helper = containers.extreme_index
        which = self.assign(ir.Prim(helper, [seq, key, Const(fn is max)], spelling=(
            self.bound_name(helper, helper.__name__))), "which", node)
        return ir.Prim(operator.getitem, [seq, which])

    def defer(self, node):
        """``it = zip(xs, ys)`` whose values are taken at once later (:func:`deferred_iterators`):
        its arguments evaluated here, the call kept for where ``it`` is read
        (:meth:`undefer`). Whether it was."""
        call = node.value
        fn = self.lookup(call.func.id, call)
        if fn not in (zip, enumerate, reversed, map, filter) or call.func.id in self.env or \
                call.func.id in self.local_functions:
            return False
        args = []
        for i, a in enumerate(call.args):
            if fn in (map, filter) and i == 0:
                args.append(a)  # the function, called where the values are taken
                continue
            origin = self.consumed(a)
            atom = Atom(self.expr(origin))
            atom.origin = origin  # what the value is, for a loop over it (Loops.sequence)
            args.append(atom)
        keywords = [gast.keyword(arg=k.arg, value=Atom(self.expr(k.value)))
                    for k in call.keywords]
        kept = gast.copy_location(gast.Call(func=call.func, args=args, keywords=keywords), call)
        for sub in walk_nodes(kept):
            if getattr(sub, "lineno", None) is None and "lineno" in sub._attributes:
                gast.copy_location(sub, call)
        self.deferred[node.targets[0].id] = kept
        return True

    def undefer(self, node):
        """``node``, or the call an iterator kept in the name ``node`` stands for."""
        if isinstance(node, gast.Name) and node.id in self.deferred and node.id not in self.env:
            return self.deferred.pop(node.id)
        return node


# ---------------------------------------------------------------- iterators kept in a name

#: calls that make an iterator a name may hold until its values are taken
ITERATOR_MAKERS = ("zip", "enumerate", "reversed", "map", "filter")
#: calls that take all the values of an iterable at once (by their usual names)
_TAKERS = ("sum", "min", "max", "list", "tuple", "sorted", "any", "all", "set", "dict",
           "frozenset", "enumerate", "zip")
#: methods that change their object
_CHANGERS = ("append", "extend", "insert", "pop", "remove", "reverse", "sort", "clear",
             "fill", "resize", "put", "update", "setdefault", "popitem", "add", "discard")


def deferred_iterators(fdef):
    """``{id of the statement: name}`` for each ``it = zip(...)`` (or ``enumerate``,
    ``reversed``, ``map``, ``filter``) whose name is bound once and read once, later in the
    same block, where its values are all taken at once and once only: the iterable of a
    ``for`` loop or of a comprehension's first ``for``, or an argument of ``sum``, ``list``,
    ``dict``, ``zip``, ... (not inside a loop body, a later ``for`` of a comprehension, a
    ``lambda`` or a ``def``), with nothing between writing into what the call reads. Such an
    iterator is its call written where its values are taken (its arguments evaluated where
    it is made): :meth:`Spreads.undefer`."""
    stores, loads = {}, {}
    for node in walk_nodes(fdef):
        if isinstance(node, gast.Name):
            into = loads if isinstance(node.ctx, gast.Load) else stores
            into.setdefault(node.id, []).append(node)
    found = {}
    for block in _blocks(fdef):
        for k, stmt in enumerate(block):
            name = _iterator_assignment(stmt)
            if name is None or len(stores.get(name, ())) != 1 or len(loads.get(name, ())) != 1:
                continue
            load = loads[name][0]
            later = [j for j in range(k + 1, len(block))
                     if any(n is load for n in walk_nodes(block[j]))]
            if not later or not _taken_at_once(block[later[0]], load):
                continue
            read = {n.id for a in stmt.value.args + [kw.value for kw in stmt.value.keywords]
                    for n in walk_nodes(a) if isinstance(n, gast.Name)}
            if not any(_changes(s, read) for s in block[k + 1:later[0] + 1]):
                found[id(stmt)] = name
    return found


def _iterator_assignment(stmt):
    """The name ``stmt`` binds if it is ``name = zip(...)`` (or another iterator maker)."""
    if not (isinstance(stmt, gast.Assign) and len(stmt.targets) == 1 and isinstance(
            stmt.targets[0], gast.Name) and isinstance(stmt.value, gast.Call)):
        return None
    call = stmt.value
    if not (isinstance(call.func, gast.Name) and call.func.id in ITERATOR_MAKERS and call.args
            and not any(isinstance(a, gast.Starred) for a in call.args)
            and all(k.arg == "start" for k in call.keywords)):
        return None
    return stmt.targets[0].id


def _blocks(fdef):
    """Every statement list of ``fdef``'s own body (not of nested functions or classes)."""
    return list(own_blocks(fdef))


def _taken_at_once(stmt, load):
    """Whether ``load`` (inside ``stmt``) is read once, where all its values are taken."""
    parents = {}
    for node in walk_nodes(stmt):
        for child in gast.iter_child_nodes(node):
            parents[id(child)] = node
    parent = parents.get(id(load))
    if isinstance(parent, (gast.For, gast.comprehension)) and parent.iter is load:
        pass
    elif not (isinstance(parent, gast.Call) and isinstance(parent.func, gast.Name)
              and parent.func.id in _TAKERS and load in parent.args):
        return False
    child, node = parent, parents.get(id(parent))
    if isinstance(parent, gast.comprehension):
        if node.generators[0] is not parent:
            return False  # a later for: its iterable is read once per outer item
        child, node = node, parents.get(id(node))
    while node is not None:
        if isinstance(node, (gast.While, gast.Lambda, gast.FunctionDef, gast.AsyncFunctionDef)):
            return False
        if isinstance(node, gast.For) and child is not node.iter:
            return False
        if isinstance(node, (gast.ListComp, gast.SetComp, gast.GeneratorExp, gast.DictComp)) \
                and child is not node.generators[0]:
            return False
        if isinstance(node, gast.comprehension) and child is not node.iter:
            return False
        child, node = node, parents.get(id(node))
    return True


def _changes(stmt, names):
    """Whether ``stmt`` may change in place an object one of ``names`` holds."""
    for sub in walk_nodes(stmt):
        target = None
        if isinstance(sub, gast.Subscript) and isinstance(sub.ctx, (gast.Store, gast.Del)):
            target = sub.value
        elif isinstance(sub, gast.AugAssign) or getattr(sub, "srcad_augmented", False):
            target = sub.target if isinstance(sub, gast.AugAssign) else sub.targets[0]
        elif isinstance(sub, gast.Call) and isinstance(sub.func, gast.Attribute) and (
                sub.func.attr in _CHANGERS):
            target = sub.func.value
        while isinstance(target, (gast.Subscript, gast.Attribute)):
            target = target.value
        if isinstance(target, gast.Name) and target.id in names:
            return True
    return False
