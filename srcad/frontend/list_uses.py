"""Uses of a list of objects whose length is known, read item by item (issue 16, objlists19).

:mod:`.object_lists` (in the function differentiated) and :mod:`.list_copies` (in the copies
of the functions and classes the list is passed to) replace each read of such a list by a
*marked* list display of its items (``[layers_0, layers_1]``, ``[self.layers__0, ...]``);
:class:`Uses` then rewrites each marked display by where it stands, until none is left:

* ``for l in L`` (over ``enumerate(L)``, ``reversed(L)``, a constant slice;
  ``for i in range(len(L))``): the body once per item, ``l`` (``i``) replaced by the item
  (its index), when the loop's names are bound by it only, read in its body only and not in
  a nested function, and the body has no ``break``/``continue`` of its own;
* ``L[k]`` (a constant): the item; a constant slice, ``list(L)``, ``tuple(L)``: the display
  of those items; ``len(L)``, ``not L``, ``if L:``: constants (an ``if`` on one: the branch
  taken, what follows a ``return`` it ends with dropped: a function recursing down the list);
* ``[e for l in L]``, ``sum(e for l in L)`` (``list``, ``tuple``, ``max``, ``min``, ``any``,
  ``all``; one ``for``, no ``if``): the list of ``e`` for each item;
* ``f(*L)``: the items as arguments; ``f(L)``, ``C(L)``: the call of a copy (``pass_on``);
* in an ``__init__`` (``init_self``): ``self.A = L`` at its top level stores the items as
  ``self.A__0``, ... (``stored``).

Anything else is refused at its line (:class:`~srcad.errors.UnsupportedSyntaxError`).

Imports the standard library, gast, :mod:`srcad.errors` and :mod:`.built_records`.
"""

from __future__ import annotations

import copy

import gast

from ..core.walk import walk_nodes
from ..errors import UnsupportedSyntaxError
from .built_records import resolve_any

SCOPES = (gast.FunctionDef, gast.AsyncFunctionDef, gast.Lambda, gast.ClassDef)
_CONSUMERS = ("sum", "list", "tuple", "max", "min", "any", "all")
HINT = ("loop over the list with a for statement (for layer in layers: ...), index it "
        "with a constant (layers[0]), take its len, or pass it whole to a function or "
        "class of yours; build a new list in a local name for anything else")


def name_node(id_, ctx=None):
    return gast.Name(id=id_, ctx=ctx or gast.Load(), annotation=None, type_comment=None)


def locate(tree, where):
    for node in walk_nodes(tree):
        if "lineno" in node._attributes and not hasattr(node, "lineno"):
            gast.copy_location(node, where)
    return tree


def display(items, where):
    """A list display of the items, marked as a list srcad reads item by item."""
    out = gast.List(elts=[copy.deepcopy(i) for i in items], ctx=gast.Load())
    out._srcad_objlist = True
    return locate(out, where)


def marked(node):
    return isinstance(node, (gast.List, gast.Tuple)) and getattr(node, "_srcad_objlist", False)


def replace(parents, old, new):
    parent = parents[old]
    for field, value in gast.iter_fields(parent):
        if value is old:
            setattr(parent, field, new)
            return
        if isinstance(value, list):
            for k, v in enumerate(value):
                if v is old:
                    value[k] = new
                    return


def body_of(parents, stmt):
    holder = parents.get(stmt)
    for _, value in gast.iter_fields(holder) if holder is not None else ():
        if isinstance(value, list) and any(v is stmt for v in value):
            return value
    return None


def _const_int(node):
    if isinstance(node, gast.Constant) and type(node.value) is int:
        return node.value
    if isinstance(node, gast.UnaryOp) and isinstance(node.op, gast.USub) and \
            isinstance(node.operand, gast.Constant) and type(node.operand.value) is int:
        return -node.operand.value
    return None


def _builtin(src, func, local, *names):
    """Whether ``func`` names one of the builtins ``names`` (not a name the function binds)."""
    import builtins

    return isinstance(func, gast.Name) and func.id in names and func.id not in local and \
        resolve_any(src, func, local) is getattr(builtins, func.id)


# ------------------------------------------------------------------ the rewrite of uses

class Uses:
    """Every marked list display of ``fdef`` (see :func:`display`) read item by item, or
    refused (:meth:`run`). ``bind(entry)`` names a copy where it is called;
    ``pass_on(src, call, bind, local, fdef, node)`` rewrites a call passing the list ``node``
    on (:func:`.list_copies.passed_on`, handed down), returning whether it did."""

    def __init__(self, src, fdef, bind, pass_on, init_self=None):
        self.src, self.fdef, self.bind, self.pass_on = src, fdef, bind, pass_on
        self.local = bound(fdef)
        self.init_self = init_self  # __init__'s self: self.A = L stores the items
        self.stored = {}  # attribute -> number of items (self.A = L in __init__)

    def error(self, node, what, hint=HINT):
        line = getattr(node, "lineno", None)
        return UnsupportedSyntaxError(
            f"a list of {len(node.elts) if marked(node) else 'several'} objects of yours "
            f"passed on (its length known where it is built) {what}", filename=self.src.filename,
            lineno=line, construct=self.src.line_text(line), hint=hint)

    def run(self):
        while True:
            parents = {c: n for n in walk_nodes(self.fdef) for c in gast.iter_child_nodes(n)}
            found = [n for n in walk_nodes(self.fdef) if marked(n)]
            if not found:
                return
            node = min(found, key=lambda n: (getattr(n, "lineno", 0) or 0,
                                             getattr(n, "col_offset", 0) or 0))
            self.one(node, parents)

    def one(self, node, parents):
        parent = parents.get(node)
        grand = parents.get(parent)
        n = len(node.elts)
        if isinstance(parent, gast.Call) and node in parent.args and not parent.keywords \
                and len(parent.args) == 1:
            if _builtin(self.src, parent.func, self.local, "len"):
                for_range = parents.get(grand) if isinstance(grand, gast.Call) and \
                    _builtin(self.src, grand.func, self.local, "range") and \
                    grand.args == [parent] and not grand.keywords else None
                if isinstance(for_range, gast.For) and for_range.iter is grand and \
                        isinstance(for_range.target, gast.Name):
                    return self.unroll(for_range, parents, [
                        {for_range.target.id: gast.Constant(value=k, kind=None)}
                        for k in range(n)], node)
                return replace(parents, parent, gast.copy_location(
                    gast.Constant(value=n, kind=None), parent))
            if _builtin(self.src, parent.func, self.local, "list", "tuple"):
                return replace(parents, parent, gast.copy_location(node, parent))
            if _builtin(self.src, parent.func, self.local, "reversed") and (
                    isinstance(grand, gast.For) and grand.iter is parent or
                    isinstance(grand, gast.comprehension) and grand.iter is parent):
                node.elts.reverse()
                return replace(parents, parent, gast.copy_location(node, parent))
            if _builtin(self.src, parent.func, self.local, "enumerate") and \
                    isinstance(grand, gast.For) and grand.iter is parent and \
                    isinstance(grand.target, gast.Tuple) and len(grand.target.elts) == 2 and \
                    all(isinstance(e, gast.Name) for e in grand.target.elts):
                i, t = grand.target.elts
                return self.unroll(grand, parents, [
                    {i.id: gast.Constant(value=k, kind=None), t.id: item}
                    for k, item in enumerate(node.elts)], node)
        if isinstance(parent, gast.UnaryOp) and isinstance(parent.op, gast.Not):
            constant = gast.copy_location(gast.Constant(value=n == 0, kind=None), parent)
            replace(parents, parent, constant)  # not L: its length's
            return _fold(parents, grand, constant)
        if isinstance(parent, (gast.If, gast.IfExp, gast.While)) and parent.test is node:
            constant = gast.copy_location(gast.Constant(value=n > 0, kind=None), node)
            replace(parents, node, constant)  # if L:
            return _fold(parents, parent, constant)
        if isinstance(parent, gast.Subscript) and parent.value is node and \
                isinstance(parent.ctx, gast.Load):
            k = _const_int(parent.slice)
            if k is not None:
                if not -n <= k < n:
                    raise self.error(node, f"indexed past its end ([{k}] of {n} items)",
                                     hint="index an item the list holds")
                return replace(parents, parent, gast.copy_location(
                    copy.deepcopy(node.elts[k]), parent))
            if isinstance(parent.slice, gast.Slice) and all(
                    p is None or _const_int(p) is not None
                    for p in (parent.slice.lower, parent.slice.upper, parent.slice.step)):
                bounds = [None if p is None else _const_int(p) for p in (
                    parent.slice.lower, parent.slice.upper, parent.slice.step)]
                if bounds[2] == 0:
                    raise self.error(node, "sliced with step 0", hint="give a step")
                node.elts = node.elts[slice(*bounds)]
                return replace(parents, parent, gast.copy_location(node, parent))
            raise self.error(node, "indexed by something other than a constant",
                             hint="loop over the list (for i, layer in enumerate(layers)), "
                             "or index it with a constant")
        if isinstance(parent, gast.For) and parent.iter is node and \
                isinstance(parent.target, gast.Name):
            return self.unroll(parent, parents, [{parent.target.id: item}
                                                 for item in node.elts], node)
        if isinstance(parent, gast.comprehension) and parent.iter is node:
            return self.comprehension(node, parent, parents)
        if isinstance(parent, gast.Starred) and isinstance(grand, gast.Call) and \
                parent in grand.args:
            k = grand.args.index(parent)
            grand.args[k:k + 1] = [gast.copy_location(copy.deepcopy(e), parent)
                                   for e in node.elts]
            return self.pass_on(self.src, grand, self.bind, self.local, self.fdef)
        call = grand if isinstance(parent, gast.keyword) else parent
        if isinstance(call, gast.Call) and call.func is not node and (
                node in call.args or isinstance(parent, gast.keyword)):
            if self.pass_on(self.src, call, self.bind, self.local, self.fdef, node):
                return None
            raise self.error(node, "given to something srcad does not follow with it (only a "
                             "function or a class of yours, the list bound to a named "
                             "parameter, is given its items one by one)")
        if self.init_self is not None and isinstance(parent, gast.Assign) and \
                parent.value is node and len(parent.targets) == 1 and \
                isinstance(parent.targets[0], gast.Attribute) and \
                isinstance(parent.targets[0].value, gast.Name) and \
                parent.targets[0].value.id == self.init_self and \
                parent in self.fdef.body and parent.targets[0].attr not in self.stored:
            attr = parent.targets[0].attr
            self.stored[attr] = n
            body = self.fdef.body
            k = body.index(parent)
            body[k:k + 1] = [locate(gast.Assign(targets=[gast.Attribute(
                value=name_node(self.init_self), attr=f"{attr}__{j}", ctx=gast.Store())],
                value=copy.deepcopy(e), type_comment=None), parent)
                for j, e in enumerate(node.elts)]
            return None
        raise self.error(node, "used whole (aliased, returned, stored, written, a method "
                         "called, compared)")

    def unroll(self, loop, parents, bindings, node):
        """The loop's body once per binding (name -> the expression read for it)."""
        names = set(bindings[0]) if bindings else {
            t.id for t in walk_nodes(loop.target) if isinstance(t, gast.Name)}
        for sub in _own(loop.body):
            if isinstance(sub, (gast.Break, gast.Continue)):
                raise self.error(node, "iterated by a loop with break or continue",
                                 hint="keep break and continue out of the loop over the "
                                 "list (a flag tested in the body)")
        stores = [n for n in walk_nodes(self.fdef) if isinstance(n, gast.Name) and
                  n.id in names and not isinstance(n.ctx, gast.Load)]
        inner = {id(n) for n in walk_nodes(loop)}
        loads = [n for n in walk_nodes(self.fdef) if isinstance(n, gast.Name) and
                 n.id in names and isinstance(n.ctx, gast.Load)]
        nested = {id(n) for s in walk_nodes(loop) if isinstance(s, SCOPES)
                  for n in walk_nodes(s)}
        declared = any(isinstance(n, (gast.Global, gast.Nonlocal)) and set(n.names) & names
                       for n in walk_nodes(self.fdef))
        if declared or any(id(s) not in {id(t) for t in walk_nodes(loop.target)}
                           for s in stores) or \
                any(id(n) not in inner or id(n) in nested for n in loads):
            raise self.error(node, f"iterated by a loop whose name "
                             f"({', '.join(sorted(names))}) is bound elsewhere too or read "
                             "after the loop or in a nested function",
                             hint="give the loop's item a name of its own, read only in "
                             "the loop's body")
        body = body_of(parents, loop)
        out = []
        for binding in bindings:
            for stmt in loop.body:
                new = copy.deepcopy(stmt)
                up = {c: n for n in walk_nodes(new) for c in gast.iter_child_nodes(n)}
                for sub in list(walk_nodes(new)):
                    if isinstance(sub, gast.Name) and sub.id in binding:
                        value = gast.copy_location(copy.deepcopy(binding[sub.id]), sub)
                        if sub is new:
                            new = value
                        else:
                            replace(up, sub, value)
                out.append(new)
        out += loop.orelse  # (no break: the else runs)
        if not out:
            out = [gast.copy_location(gast.Pass(), loop)]
        k = next(j for j, s in enumerate(body) if s is loop)
        body[k:k + 1] = out

    def comprehension(self, node, gen, parents):
        comp = parents.get(gen)
        target = gen.target
        if not isinstance(comp, (gast.ListComp, gast.GeneratorExp)) or \
                len(comp.generators) != 1 or gen.ifs or gen.is_async or \
                not isinstance(target, gast.Name):
            raise self.error(node, "iterated by a comprehension srcad does not take apart "
                             "(only [e for x in L] and sum(e for x in L), one for, no if)",
                             hint="write the loop as a for statement")
        if isinstance(comp, gast.GeneratorExp):
            call = parents.get(comp)
            if not (isinstance(call, gast.Call) and call.args == [comp] and
                    not call.keywords and _builtin(self.src, call.func, self.local,
                                                   *_CONSUMERS)):
                raise self.error(node, "iterated by a generator expression not given at "
                                 "once to sum, list, tuple, max, min, any or all",
                                 hint="write the loop as a for statement")
        if any(isinstance(s, SCOPES) and any(
                isinstance(n, gast.Name) and n.id == target.id for n in walk_nodes(s))
               for s in walk_nodes(comp.elt)):
            raise self.error(node, f"iterated by a comprehension whose {target.id!r} is read "
                             "in a function defined in it (which reads the last item)",
                             hint="call the items in the comprehension itself "
                             "([l(x) for l in layers])")
        elts = []
        for item in node.elts:
            new = copy.deepcopy(comp.elt)
            if isinstance(new, gast.Name) and new.id == target.id:
                elts.append(gast.copy_location(copy.deepcopy(item), new))
                continue
            up = {c: n for n in walk_nodes(new) for c in gast.iter_child_nodes(n)}
            for sub in list(walk_nodes(new)):
                if isinstance(sub, gast.Name) and sub.id == target.id:
                    replace(up, sub, gast.copy_location(copy.deepcopy(item), sub))
            elts.append(new)
        out = gast.List(elts=elts, ctx=gast.Load())
        if isinstance(comp.elt, gast.Name) and comp.elt.id == target.id:
            out._srcad_objlist = True  # [l for l in L]: the same list
        replace(parents, comp, locate(gast.copy_location(out, comp), comp))


def _fold(parents, stmt, constant):
    """``if <constant>:`` (``stmt``, when an ``if`` statement whose test is ``constant``): the
    branch taken in its place, and the statements after a ``return`` or ``raise`` it ends
    with dropped (never reached): ``if not layers: return x`` in the copy for the empty list
    is ``return x``, and what follows, which reads ``layers[0]``, is not made."""
    if not isinstance(stmt, gast.If) or stmt.test is not constant:
        return
    body = body_of(parents, stmt)
    if body is None:
        return
    k = next(j for j, s in enumerate(body) if s is stmt)
    taken = stmt.body if constant.value else stmt.orelse
    body[k:k + 1] = taken
    for j in range(k, k + len(taken)):
        if isinstance(body[j], (gast.Return, gast.Raise)):
            del body[j + 1:]
            break
    if not body:
        body.append(gast.copy_location(gast.Pass(), stmt))


def _own(body):
    """The nodes of ``body`` (statements) not inside a nested loop or scope."""
    todo, out = list(body), []
    while todo:
        node = todo.pop()
        out.append(node)
        if isinstance(node, (gast.For, gast.While, gast.AsyncFor) + SCOPES):
            todo.extend(node.orelse if hasattr(node, "orelse") and not isinstance(
                node, SCOPES) else [])
            continue
        todo.extend(gast.iter_child_nodes(node))
    return out


def bound(fdef):
    from .passed_calls import bound_names

    return bound_names(fdef)


# ------------------------------------------------------------------ calls passing them on
