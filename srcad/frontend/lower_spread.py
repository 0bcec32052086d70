"""Lowering ``*`` and ``**`` in calls, ``map``, ``filter`` and ``zip``.

A mixin of :class:`srcad.frontend.lower.Lowerer` (see there for the state it shares):

* ``f(*t)`` splices the items of a tuple built in the function, of a constant tuple, or of a
  list display the function never changes (:func:`frozen_names`), and ``f(*t[1:])`` those of
  a slice with literal bounds of such a tuple or of ``*args``; ``f(*t)`` of a length
  srcad cannot know runs as written through :func:`srcad.runtime.spread_calls.star_call`,
  differentiated (where a gradient flows through it) when it runs, for the length met;
* ``f(**{"a": x})`` and ``kw = {"a": x}; f(**kw)`` (a dict display only ever unpacked) pass
  the keywords one by one;
* ``map``/``filter`` whose values are taken at once (``sum(map(f, xs))``, ``list(filter(p,
  xs))``, a ``for`` over them) are list comprehensions; ``zip`` of sequences whose items are
  known (``xs, ys = zip(*pairs)``) is the tuple of tuples it yields. Kept as an iterator
  (consumed later, maybe twice) they are refused.

Imports: gast, the standard library, :mod:`srcad.core`, :mod:`srcad.errors`,
:mod:`.keyword_dicts` (``f(**kw)`` of a dict not built in the function),
:mod:`.dict_spreads` (``{**d, k: v}``),
:mod:`srcad.runtime.spread_calls` (the helper it writes) and :mod:`.source` (to read a callee's
returns).
"""

from __future__ import annotations

import builtins
import inspect
import operator

import gast

from ..core import functions, ir
from ..core.ir import Const, Var
from ..core.walk import walk_nodes
from ..errors import SrcadError
from ..runtime.spread_calls import LIFTED, star_call
from . import dict_spreads, keyword_dicts
from . import source as source_module

CONSUMERS = (sum, min, max, list, tuple, sorted, any, all, set, enumerate, zip, reversed, dict,
             frozenset)
#: the one keyword of a ``zip``/``enumerate`` consumed at once that a loop over it reads
_STEP_KEYWORDS = {zip: "strict", enumerate: "start"}




class Spreads:
    """``*``/``**`` in calls, displays only spliced, ``map``/``filter``/``zip`` consumed."""

    # ---------------------------------------------------------------- * and ** displays

    def keyword_display(self, target, value_node):
        """``kw = {"a": x}`` where ``kw`` is only ever spliced (``f(**kw)``): its items are
        kept for the calls, and no dict is built. Whether it was."""
        if not (isinstance(target, gast.Name) and target.id in self.unpacked_only
                and isinstance(value_node, gast.Dict)):
            return False
        self.keyword_displays[target.id] = {k.value: self.expr(v) for k, v in
                                            zip(value_node.keys, value_node.values)}
        return True

    def copied_sequence(self, target, value_node, node):
        """``args = list(args)`` (or ``tuple(...)``) for a name the function changes only
        by ``args[k] = v`` (:func:`frozen_names`), of a sequence whose items are known: a
        display of those items (a new list of the same objects), so that each version's items
        stay known. Whether it was."""
        if not (isinstance(target, gast.Name) and target.id in self.frozen
                and _copy(value_node)):
            return False
        build = self.lookup(value_node.func.id, value_node)
        if build not in (list, tuple):  # list or tuple redefined: an ordinary call
            return False
        atom = self.expr(self.consumed(value_node.args[0]))
        items = self.known_sequence(atom, value_node.args[0])
        if items is None:  # list(t) of a sequence whose items are not known: a plain copy
            self.env[target.id] = self.assign(ir.Prim(build, [atom], spelling=(
                value_node.func.id)), target.id, node)
            return True
        build = ir.BUILD_LIST if value_node.func.id == "list" else ir.BUILD_TUPLE
        self.env[target.id] = self.assign(ir.Prim(build, list(items)), target.id, node)
        return True

    def known_sequence(self, atom, node):
        """The items of the tuple or list ``atom`` (the expression ``node``) when known."""
        if not isinstance(atom, Var):
            return None
        items = self.tuples.get(atom.name)
        if items is None and isinstance(node, gast.Name) and node.id in self.frozen:
            items = self.lists.get(atom.name)
        return items

    def returned_tuple_size(self, value):
        """For ``g(...)`` calling a plain function of the user's each of whose ``return``
        statements returns a tuple display of the same length (no starred item), that length;
        else ``None``."""
        if not (isinstance(value, gast.Call) and isinstance(value.func, gast.Name)) or (
                value.func.id in self.env or value.func.id in self.local_functions):
            return None
        try:
            fn = self.source.lookup(value.func.id)
        except (NameError, KeyError):
            return None
        if not inspect.isfunction(fn) or not functions.is_user_function(fn) or (
                fn.__code__.co_flags & (inspect.CO_GENERATOR | inspect.CO_COROUTINE)):
            return None
        try:
            fdef = source_module.read(fn).node
        except SrcadError:
            return None
        sizes, todo = set(), list(fdef.body)
        while todo:
            sub = todo.pop()
            if isinstance(sub, (gast.FunctionDef, gast.AsyncFunctionDef, gast.Lambda,
                                gast.ClassDef)):
                continue
            if isinstance(sub, gast.Return):
                elts = sub.value.elts if isinstance(sub.value, gast.Tuple) else None
                if elts is None or any(isinstance(e, gast.Starred) for e in elts):
                    return None
                sizes.add(len(elts))
            todo.extend(gast.iter_child_nodes(sub))
        return sizes.pop() if len(sizes) == 1 else None

    def spliced_keywords(self, node):
        """``f(**{"a": x})`` or ``f(**kw)`` with ``kw`` a display only ever spliced: the
        keywords, one by one."""
        keywords = []
        for k in node.keywords:
            if k.arg is not None:
                keywords.append(k)
                continue
            value = k.value
            if isinstance(value, gast.Dict) and _display(value):
                keywords += [gast.keyword(arg=key.value, value=v)
                             for key, v in zip(value.keys, value.values)]
            elif isinstance(value, gast.Name) and value.id in self.keyword_displays and \
                    value.id not in self.env:
                keywords += [gast.keyword(arg=key, value=Atom(atom)) for key, atom in
                             self.keyword_displays[value.id].items()]
            elif keyword_dicts.free_dict(self, value) is not None:
                keywords += keyword_dicts.spliced(self, value)
            else:
                raise self.error(node, "keyword unpacking (**kw) of a dict srcad cannot see "
                                 "whole", hint="pass the keyword arguments one by one, or "
                                 "build the dict just before the call and only unpack it "
                                 "(kw = {'a': x}; f(**kw))")
        names = [k.arg for k in keywords]
        if len(set(names)) != len(names):
            raise self.error(node, "a keyword given twice", hint="pass each keyword once")
        out = gast.copy_location(gast.Call(func=node.func, args=node.args,
                                           keywords=keywords), node)
        out.srcad_consumed = getattr(node, "srcad_consumed", False)
        return out

    def expr_Dict(self, node):
        """``{k: a, j: b}``: a dict built from its keys and values; ``{**d, k: a}`` a copy of
        ``d`` with keys set (:mod:`.dict_spreads`; ``**d`` elsewhere refused)."""
        if any(k is None for k in node.keys):
            return dict_spreads.lower(self, node)
        args = []
        for key, value in zip(node.keys, node.values):
            args += [self.expr(key), self.expr(value)]
        return ir.Prim(ir.BUILD_DICT, args)

    def expr_Atom(self, node):
        return node.atom

    def stmt_Lowered(self, node):
        node.fn()

    def known_items(self, arg):
        """The arguments ``arg`` of a call stands for when srcad knows them at once: itself
        when it is not starred; the items of a starred display; those of a starred slice
        ``*t[i:j]`` of a tuple whose items are known (:meth:`sliced_tuple`). Else ``None``."""
        if not isinstance(arg, gast.Starred):
            return [arg]
        if isinstance(arg.value, (gast.Tuple, gast.List)):
            return arg.value.elts
        return self.sliced_tuple(arg.value)

    def sliced_tuple(self, value):
        """The items (as nodes) of ``t[i:j:k]``, ``t`` a tuple whose items are known (a ``*args``
        parameter, whose length the call fixes, or a tuple built here) and the bounds integer
        literals; else ``None``."""
        if not (isinstance(value, gast.Subscript) and isinstance(value.slice, gast.Slice)
                and isinstance(value.value, gast.Name) and value.value.id in self.env):
            return None
        bounds = []
        for bound in (value.slice.lower, value.slice.upper, value.slice.step):
            negative = isinstance(bound, gast.UnaryOp) and isinstance(bound.op, gast.USub)
            literal = bound.operand if negative else bound
            if bound is None:
                bounds.append(None)
            elif isinstance(literal, gast.Constant) and type(literal.value) is int:
                bounds.append(-literal.value if negative else literal.value)
            else:
                return None
        base = self.env[value.value.id]
        items = self.tuples.get(base.name) if isinstance(base, Var) else None
        if items is None or bounds[2] == 0:
            return None
        return [Atom(item) for item in list(items)[slice(*bounds)]]

    # ---------------------------------------------------------------- map and filter

    def consumed(self, node):
        """``node`` with ``map(...)``/``filter(...)`` (consumed by the call it stands in)
        written as a list comprehension; other nodes as they are."""
        node = self.undefer(node)
        if isinstance(node, gast.Call):
            node.srcad_consumed = True  # a generator called here yields all its values now
        if not (isinstance(node, gast.Call) and isinstance(node.func, gast.Name)
                and node.func.id not in self.env and node.func.id not in self.local_functions):
            return node
        try:
            fn = self.source.lookup(node.func.id)
        except KeyError:
            return node
        if node.keywords:  # zip(..., strict=s), enumerate(xs, start=k): stepped through
            if fn in _STEP_KEYWORDS and [k.arg for k in node.keywords] == [
                    _STEP_KEYWORDS[fn]] and node.args:  # (not f(*a, **kw): its None keyword)
                return _stepped(self, node)
            return node
        if fn is map and len(node.args) >= 2:
            return self._comprehension(node, node.args[0], node.args[1:], keep=False)
        if fn is filter and len(node.args) == 2:
            return self._comprehension(node, node.args[0], node.args[1:], keep=True)
        if fn is zip and node.args:
            zipped = self._zipped(node)
            return zipped if zipped is not node else _stepped(self, node)
        if fn in (enumerate, reversed) and node.args:
            return _stepped(self, node)
        return node

    def _zipped(self, node):
        """``zip(...)`` of sequences whose items srcad knows (tuples built here, displays only
        spliced, ``zip(*pairs)`` of them): the tuple of tuples it yields; else the call."""
        args = node.args
        if any(isinstance(a, gast.Starred) for a in args):
            args = self.spliced(node, strict=False)
            if args is None:
                return node
        columns = []
        for a in args:
            if isinstance(a, (gast.Tuple, gast.List)) and not any(
                    isinstance(e, gast.Starred) for e in a.elts):
                columns.append(list(a.elts))
                continue
            atom = a.atom if isinstance(a, Atom) else None
            if atom is None and isinstance(a, gast.Name) and a.id in self.env:
                atom = self.env[a.id]
            items = None
            if isinstance(atom, Var):
                items = self.tuples.get(atom.name)
                if items is None and isinstance(a, gast.Name) and a.id in self.frozen:
                    items = self.lists.get(atom.name)
            if items is None:
                return node
            columns.append([Atom(i) for i in items])
        rows = [gast.Tuple(elts=list(row), ctx=gast.Load()) for row in zip(*columns)]
        out = gast.Tuple(elts=rows, ctx=gast.Load())
        for sub in walk_nodes(out):
            if "lineno" in sub._attributes:
                gast.copy_location(sub, node)
        return out

    def _comprehension(self, node, func, iterables, keep):
        if any(isinstance(a, gast.Starred) for a in iterables):
            raise self.error(node, "map or filter over a starred argument",
                             hint="write the comprehension: [f(*t) for t in zip(*xs)]")
        items = [self.namer.fresh("item") for _ in iterables]
        loads = [name_node(n, gast.Load()) for n in items]
        if len(items) == 1:
            target, source = name_node(items[0], gast.Store()), iterables[0]
        else:
            if self.source.lookup("zip") is not builtins.zip:
                raise self.error(node, "map over several sequences where zip is redefined",
                                 hint="write the comprehension")
            target = gast.Tuple(elts=[name_node(n, gast.Store()) for n in items], ctx=gast.Store())
            source = gast.Call(func=name_node("zip", gast.Load()), args=list(iterables),
                               keywords=[])
        if keep and isinstance(func, gast.Constant) and func.value is None:
            test, elt = loads[0], loads[0]
        elif keep:
            test, elt = gast.Call(func=func, args=loads, keywords=[]), loads[0]
        else:
            test, elt = None, gast.Call(func=func, args=loads, keywords=[])
        comp = gast.comprehension(target=target, iter=source, ifs=[test] if test else [],
                                  is_async=0)
        out = gast.ListComp(elt=elt, generators=[comp])
        for sub in walk_nodes(out):
            if getattr(sub, "lineno", None) is None and "lineno" in sub._attributes:
                gast.copy_location(sub, node)
        return out

    def star_call_prim(self, fn, spelling, node, lead=(), lead_kw=None, held=False):
        """``fn(*t)`` with ``t`` of a length srcad cannot know: a call of :func:`star_call`,
        differentiated through its form when it runs (:mod:`srcad.runtime.spread_calls`).
        ``lead``/``lead_kw``: atoms a partial (or a function a helper made) holds, passed
        first (outside27: ``h = make(g); h(x, *params)``)."""
        # (corpus31) the arguments before the first starred one are operands of their own
        # (f(data, *params)): each differentiated or not as this code's analysis says
        first = next((i for i, a in enumerate(node.args) if isinstance(a, gast.Starred)),
                     len(node.args))
        heads = list(lead) + [self.expr(a) for a in node.args[:first]]
        rest = node.args[first:]
        positional = []
        pieces = []
        single = len(rest) == 1  # f(*t): t as it is
        for a in rest:
            if isinstance(a, gast.Starred):
                if positional:
                    pieces.append(self.assign(ir.Prim(ir.BUILD_TUPLE, positional), None, node))
                    positional = []
                value = self.starred.pop(id(a.value), None) or self.expr(a.value)
                pieces.append(value if single else self.assign(ir.Prim(tuple, [value], spelling=(
                    self.bound_name(tuple, "as_tuple"))), "args", node))
            else:
                positional.append(self.expr(a))
        if positional:
            pieces.append(self.assign(ir.Prim(ir.BUILD_TUPLE, positional), None, node))
        packed = pieces[0] if pieces else Const((), "()")  # f(**kw): no positional ones
        for piece in pieces[1:]:
            packed = self.assign(ir.Prim(operator.add, [packed, piece]), "args", node)
        if node.keywords or lead_kw:
            if len(node.keywords) == 1 and node.keywords[0].arg is None and not lead_kw:
                keywords = self.expr(node.keywords[0].value)  # f(**d): d itself
            elif any(k.arg is None for k in node.keywords):  # f(a=x, **d): merged
                keywords = keyword_dicts.merged(self, node, lead_kw or {})
            else:  # a dict display, which gradients flow through (f(*t, scale=k))
                pairs = [a for k, v in (lead_kw or {}).items() for a in (Const(k), v)]
                for k in node.keywords:
                    pairs += [Const(k.arg), self.expr(k.value)]
                keywords = self.assign(ir.Prim(ir.BUILD_DICT, pairs), "kwargs", node)
        else:
            keywords = Const({}, "{}")
        if isinstance(fn, (Var, Const)):  # a value made in the code (rs.randn of a parameter)
            callee = fn
        else:
            if lead or lead_kw or held:  # its held values passed here (held: a nested def
                LIFTED.add(fn)  # by name, what it reads first), as for a call srcad counts
            callee = Const(fn, spelling or self.bound_name(fn, "fn"))
        where = (self.source.filename, node.lineno, self.source.line_text(node.lineno))
        return ir.Prim(star_call, [self.bound_const(where, "where"), callee, packed, keywords,
                                   *heads], spelling=self.bound_name(star_call, "star_call"))


def _stepped(lw, node):
    """``zip(...)``, ``enumerate(...)`` or ``reversed(...)`` consumed at once: the list
    ``[t for t in zip(...)]`` of what it yields (a loop over it reads its sequences by
    position, :meth:`srcad.frontend.lower_loops.Loops.iteration`)."""
    item = lw.namer.fresh("step")
    comp = gast.comprehension(target=name_node(item, gast.Store()), iter=node, ifs=[],
                              is_async=0)
    out = gast.ListComp(elt=name_node(item, gast.Load()), generators=[comp])
    for sub in walk_nodes(out):
        if getattr(sub, "lineno", None) is None and "lineno" in sub._attributes:
            gast.copy_location(sub, node)
    return out


class Lowered(gast.AST):
    """A statement lowered by calling ``fn`` (a nested ``if`` made while lowering)."""

    _fields = ()

    def __init__(self, fn):
        super().__init__()
        self.fn = fn
        self.lineno = None


class Atom(gast.AST):
    """An already-lowered operand standing where an expression node is expected."""

    _fields = ()

    def __init__(self, atom):
        super().__init__()
        self.atom = atom
        self.lineno = None


def name_node(name, ctx):
    return gast.Name(id=name, ctx=ctx, annotation=None, type_comment=None)


def frozen_names(fdef):
    """The local names bound only to list, tuple or dict displays or copies
    (``list(args)``), changed only by ``name[k] = v`` (the items stay known when ``k`` is a
    constant), and read only as ``*name``/``**name`` in calls, ``name[i]``, ``len(name)`` or
    ``list(name)``: no other
    name, call or function sees the object, so the items of each version are known (each is
    a name of its own in SSA form) and a call can splice them. Returns those names, and
    those bound once to a display and only read as ``**name``."""
    good, bad_store, ok, unpacked, stored = {}, set(), set(), set(), set()
    for node in walk_nodes(fdef):
        if isinstance(node, gast.Assign):
            for t in node.targets:
                if isinstance(t, gast.Name) and len(node.targets) == 1 and (
                        _display(node.value) or _copy(node.value)):
                    good[t.id] = good.get(t.id, 0) + 1
                elif isinstance(t, gast.Name):
                    bad_store.add(t.id)
                elif _starred_unpacking(t, node.value) and len(node.targets) == 1:
                    ok.add(id(node.value))  # (corpus31) a, *rest, z = t: t's items read,
                    for e in t.elts:  # rest a new list of them (lower_stmts.bind_starred)
                        if isinstance(e, gast.Starred):
                            good[e.value.id] = good.get(e.value.id, 0) + 1
                        else:
                            bad_store.update(n.id for n in walk_nodes(e)
                                             if isinstance(n, gast.Name))
                elif isinstance(t, gast.Subscript) and isinstance(t.value, gast.Name) and \
                        len(node.targets) == 1:
                    ok.add(id(t.value))  # name[k] = v: a new version (items known if k is)
                    stored.add(t.value.id)
        elif isinstance(node, (gast.AugAssign, gast.AnnAssign, gast.For, gast.comprehension,
                               gast.NamedExpr, gast.Delete)):
            for sub in walk_nodes(node.target if not isinstance(node, gast.Delete) else node):
                if isinstance(sub, gast.Name):
                    bad_store.add(sub.id)
        elif isinstance(node, (gast.FunctionDef, gast.Lambda)) and node is not fdef:
            for sub in walk_nodes(node):
                if isinstance(sub, gast.Name):
                    bad_store.add(sub.id)  # read by a nested function: not followed
        if isinstance(node, gast.Starred) and isinstance(node.value, gast.Name):
            ok.add(id(node.value))
        if isinstance(node, gast.keyword) and node.arg is None and isinstance(node.value,
                                                                            gast.Name):
            ok.add(id(node.value))
            unpacked.add(id(node.value))
        if isinstance(node, gast.Subscript) and isinstance(node.value, gast.Name) and \
                isinstance(node.ctx, gast.Load):
            ok.add(id(node.value))
        if isinstance(node, gast.Call) and isinstance(node.func, gast.Name) and \
                node.func.id in ("len", "list", "tuple") and len(node.args) == 1 and \
                isinstance(node.args[0], gast.Name) and not node.keywords:
            ok.add(id(node.args[0]))
    bad, read = set(), set()
    for node in walk_nodes(fdef):
        if isinstance(node, gast.Name) and isinstance(node.ctx, gast.Load) and \
                id(node) not in ok:
            bad.add(node.id)
        if isinstance(node, gast.Name) and isinstance(node.ctx, gast.Load) and \
                id(node) not in unpacked:
            read.add(node.id)
        if isinstance(node, gast.Name) and isinstance(node.ctx, gast.Del):
            bad.add(node.id)
    params = {a.id for a in fdef.args.posonlyargs + fdef.args.args + fdef.args.kwonlyargs}
    if fdef.args.vararg is not None:  # *args: a tuple of known items (then list(args)...)
        good[fdef.args.vararg.id] = good.get(fdef.args.vararg.id, 0) + 1
    frozen = {n for n in good if n not in bad_store and n not in bad and n not in params}
    return frozen, {n for n in frozen if n not in read and n not in stored and good[n] == 1}


def _starred_unpacking(target, value):
    """``a, *rest, z = t``: a tuple or list target with one starred name, from a name."""
    return isinstance(target, (gast.Tuple, gast.List)) and isinstance(value, gast.Name) and \
        sum(isinstance(e, gast.Starred) for e in target.elts) == 1 and all(
            isinstance(e.value, gast.Name) for e in target.elts if isinstance(e, gast.Starred))


def _copy(node):
    """``list(x)`` or ``tuple(x)``: a new sequence of ``x``'s items."""
    return isinstance(node, gast.Call) and isinstance(node.func, gast.Name) and \
        node.func.id in ("list", "tuple") and len(node.args) == 1 and not node.keywords \
        and not isinstance(node.args[0], gast.Starred)


def _display(node):
    if isinstance(node, (gast.List, gast.Tuple)):
        return not any(isinstance(e, gast.Starred) for e in node.elts)
    if isinstance(node, gast.Dict):
        return all(isinstance(k, gast.Constant) and isinstance(k.value, str)
                   for k in node.keys)
    return False
