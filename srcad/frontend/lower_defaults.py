"""Nested functions whose default values read locals (issue 16): ``lambda v, k=k: v ** k`` made
in a loop (the usual cure for Python's late-binding closures), ``def g(v, k=k): ...``.

Python computes a default when the ``lambda`` (or ``def``) runs, and the function keeps that
value: it is ``make(k)`` for ``def make(k): return lambda v: v ** k``. Before desugaring, each
such function whose body reads no local of the enclosing function that may change after it
is made (its own parameters, globals, builtins, a parameter never assigned, a local one
top-level assignment before it binds, never again: held like a default) is rewritten in place
as that call:

* ``lambda v, k=K, c=C: body`` -> ``srcad_defaults_1(K, C)``, where ``srcad_defaults_1`` is a
  function srcad makes, ``def srcad_defaults_1(k, c): return lambda v: body``, run in the
  module of the enclosing function (its globals);
* ``def g(v, k=K): body`` -> ``g = srcad_defaults_2(K)``, ``srcad_defaults_2`` returning
  ``def g(v): body``;

the defaults computed where Python computes them, in its order. A function a helper makes
(closure conversion, :mod:`.closures`) is one srcad differentiates: called directly, held in a
name, or put in a list (``fs.append(...)`` in a loop, a comprehension) and called from a loop
over it (:mod:`.lower_made_lists`), the gradient flows through the values the defaults held.
Not rewritten (the function is then refused, at its line): a body reading another local of
the enclosing function (Python reads it when the function is called), ``*args``/``**kwargs``, a
decorated ``def``, or a call of the function's name that gives a defaulted parameter.

Imports gast, the standard library, :mod:`srcad.core` and :mod:`.blocks`.
"""

from __future__ import annotations

import copy
import itertools

import gast

from ..core import env, functions
from ..core.walk import walk_nodes
from .blocks import own_blocks

_names = itertools.count(1)


def _name(id_, store=False):
    return gast.Name(id=id_, ctx=gast.Store() if store else gast.Load(), annotation=None,
                     type_comment=None)


def enclosing_locals(fdef, defs=False):
    """The names ``fdef`` binds itself (parameters, names stored or deleted in its own body,
    not those of its nested functions, classes or comprehensions; with ``defs``, its nested
    defs' names too): a nested function reading one reads the local."""
    args = fdef.args
    names = {a.id for a in args.posonlyargs + args.args + args.kwonlyargs}
    names |= {a.id for a in (args.vararg, args.kwarg) if a is not None}
    todo = list(fdef.body)
    while todo:
        node = todo.pop()
        if isinstance(node, gast.FunctionDef):
            if defs:
                names.add(node.name)
            continue
        if isinstance(node, (gast.Lambda, gast.ListComp, gast.GeneratorExp, gast.SetComp,
                             gast.DictComp, gast.ClassDef)):
            continue
        if isinstance(node, gast.Name) and not isinstance(node.ctx, gast.Load):
            names.add(node.id)
        todo.extend(gast.iter_child_nodes(node))
    return names


def _bound_in(node):
    """Names ``node`` binds for itself: the parameters of it and of the functions in it,
    comprehension targets, names it assigns."""
    bound = set()
    for sub in walk_nodes(node):
        if isinstance(sub, (gast.Lambda, gast.FunctionDef)):
            a = sub.args
            bound |= {p.id for p in a.posonlyargs + a.args + a.kwonlyargs}
            bound |= {p.id for p in (a.vararg, a.kwarg) if p is not None}
        if isinstance(sub, gast.FunctionDef):
            bound.add(sub.name)
        if isinstance(sub, gast.Name) and not isinstance(sub.ctx, gast.Load):
            bound.add(sub.id)
    return bound


def _split(args):
    """``(defaulted names, their default nodes, args without defaults)``: the positional
    defaults then the keyword-only ones, as Python computes them."""
    positional = args.posonlyargs + args.args
    first = len(positional) - len(args.defaults)
    names = [a.id for a in positional[first:]]
    values = list(args.defaults)
    kept_kw, kept_kw_defaults = [], []
    for a, d in zip(args.kwonlyargs, args.kw_defaults):
        if d is None:
            kept_kw.append(a)
            kept_kw_defaults.append(None)
        else:
            names.append(a.id)
            values.append(d)
    posonly = args.posonlyargs[:first] if first <= len(args.posonlyargs) else args.posonlyargs
    plain = args.args[:max(0, first - len(args.posonlyargs))]
    rest = gast.arguments(args=plain, posonlyargs=posonly, vararg=None, kwonlyargs=kept_kw,
                          kw_defaults=kept_kw_defaults, kwarg=None, defaults=[])
    return names, values, rest


class _Rewrite:
    def __init__(self, src):
        self.src, self.fdef = src, src.node
        targets = {n.id for c in walk_nodes(self.fdef) if isinstance(c, gast.comprehension)
                   for n in walk_nodes(c.target) if isinstance(n, gast.Name)}
        self.local = enclosing_locals(self.fdef, defs=True) | targets | set(src.closure)
        self.stores, self.top_store = {}, {}
        for top, stmt in enumerate(self.fdef.body):
            for n in walk_nodes(stmt):
                if isinstance(n, gast.Name) and not isinstance(n.ctx, gast.Load):
                    self.stores[n.id] = self.stores.get(n.id, 0) + 1
                    self.top_store[n.id] = top if isinstance(stmt, gast.Assign) and any(
                        t is n for t in stmt.targets) else None
                elif isinstance(n, (gast.Global, gast.Nonlocal)):
                    self.stores.update((m, 2) for m in n.names)
        args = self.fdef.args
        self.params = {a.id for a in args.posonlyargs + args.args + args.kwonlyargs}

    def stable(self, name, top):
        """Whether the body's read of the local ``name`` sees, when the function is called,
        the value it had when the function was made (``top``: the index of the top-level
        statement making it): a parameter never assigned, or a name one top-level assignment
        before that statement binds, never again."""
        count = self.stores.get(name, 0)
        if name in self.params:
            return count == 0
        return count == 1 and self.top_store.get(name) is not None and \
            self.top_store[name] < top and name not in self.src.closure

    def read_live(self, name):
        """Whether ``name`` is a global whose value code made now reads when it runs (a float,
        an array, a list: :func:`srcad.core.env.fingerprint` does not fix it): a default
        reading it is computed when the function is made, each time, as Python does, not
        once when srcad lifts the function (fuzz22: ``g = lambda u, c=K1: u * c``)."""
        return name not in self.local and name in self.src.globals and \
            env.read_live(self.src.globals[name])

    def candidate(self, fn, body):
        """The locals ``fn``'s body reads (each :meth:`stable`) when ``fn`` (a lambda or a
        nested def) is rewritten: a default reads a local; else None."""
        args = fn.args
        if args.vararg or args.kwarg or getattr(fn, "decorator_list", None):
            return None
        defaults = list(args.defaults) + [d for d in args.kw_defaults if d is not None]
        if not any(isinstance(n, gast.Name) and (n.id in self.local or self.read_live(n.id))
                   for d in defaults for n in walk_nodes(d)):
            return None
        bound = set()
        for part in body:
            bound |= _bound_in(part)
        bound |= {a.id for a in args.posonlyargs + args.args + args.kwonlyargs}
        reads = {n.id for part in body for n in walk_nodes(part)
                 if isinstance(n, gast.Name) and isinstance(n.ctx, gast.Load)}
        late = sorted((reads - bound) & self.local)
        top = next(i for i, stmt in enumerate(self.fdef.body)
                   if any(n is fn for n in walk_nodes(stmt)))
        return late if all(self.stable(n, top) for n in late) else None

    def maker(self, fn, name, body_stmts, late):
        """The function srcad makes for ``fn``: its defaulted parameters (then the locals
        ``late`` its body reads) as parameters, returning ``fn`` without them. Bound in
        ``src.closure``; returns its name."""
        names, _, rest = _split(fn.args)
        names = names + list(late)
        inner = gast.FunctionDef(name=name, args=rest, body=copy.deepcopy(body_stmts),
                                 decorator_list=[], returns=None, type_comment=None,
                                 type_params=[])
        made = f"srcad_defaults_{next(_names)}"
        outer = gast.FunctionDef(
            name=made, args=gast.arguments(
                args=[_name(n, False) for n in names], posonlyargs=[], vararg=None,
                kwonlyargs=[], kw_defaults=[], kwarg=None, defaults=[]),
            body=[inner, gast.Return(value=_name(name))], decorator_list=[], returns=None,
            type_comment=None, type_params=[])
        for arg in outer.args.args:
            arg.ctx = gast.Param()
        gast.copy_location(outer, fn)
        for sub in walk_nodes(outer):
            if getattr(sub, "lineno", None) is None and hasattr(fn, "lineno"):
                gast.copy_location(sub, fn)
        tree = gast.gast_to_ast(gast.Module(body=[outer], type_ignores=[]))
        filename = f"<srcad: defaults of {name} in {self.src.filename}:{fn.lineno} " \
                   f"#{made.rsplit('_', 1)[1]}>"
        namespace = functions.run_tree(tree, filename, self.src.globals, self.src.filename)
        self.src.closure[made] = namespace[made]
        # bound through cells, like a lifted function (see lower_made_lists)
        self.src.bound = {**getattr(self.src, "bound", {}), made: namespace[made]}
        return made

    def call(self, fn, made, late):
        _, values, _ = _split(fn.args)
        values = values + [_name(n) for n in late]
        return gast.copy_location(gast.Call(func=gast.copy_location(_name(made), fn),
                                            args=values, keywords=[]), fn)


def _overriding_calls(fdef, name, fn):
    """Whether a call ``name(...)`` in ``fdef`` gives a parameter that has a default."""
    names, _, rest = _split(fn.args)
    positional = len(rest.posonlyargs) + len(rest.args)
    for node in walk_nodes(fdef):
        if isinstance(node, gast.Call) and isinstance(node.func, gast.Name) and \
                node.func.id == name:
            if len(node.args) > positional or any(isinstance(a, gast.Starred)
                                                  for a in node.args):
                return True
            if any(k.arg is None or k.arg in names for k in node.keywords):
                return True
    return False


def lower(src):
    """Rewrite ``src.node`` in place, see above."""
    fdef = src.node
    if not any(isinstance(n, (gast.Lambda, gast.FunctionDef)) and n is not fdef and (
            n.args.defaults or any(n.args.kw_defaults)) for n in walk_nodes(fdef)):
        return
    rw = _Rewrite(src)
    for block in own_blocks(fdef):  # nested defs, as statements of the body
        for i, stmt in enumerate(block):
            late = rw.candidate(stmt, stmt.body) if isinstance(stmt, gast.FunctionDef) \
                else None
            if late is not None and not _overriding_calls(fdef, stmt.name, stmt):
                made = rw.maker(stmt, stmt.name, stmt.body, late)
                block[i] = gast.copy_location(gast.Assign(
                    targets=[gast.copy_location(_name(stmt.name, True), stmt)],
                    value=rw.call(stmt, made, late), type_comment=None), stmt)
    _Lambdas(rw, fdef).visit(fdef)


class _Lambdas(gast.NodeTransformer):
    """Every lambda of the function's own body (not of its nested defs) rewritten."""

    def __init__(self, rw, fdef):
        self.rw, self.fdef = rw, fdef
        self.named = {}  # id(lambda) -> the name it is assigned to (its calls checked)
        for node in walk_nodes(fdef):
            if isinstance(node, gast.Assign) and len(node.targets) == 1 and isinstance(
                    node.targets[0], gast.Name) and isinstance(node.value, gast.Lambda):
                self.named[id(node.value)] = node.targets[0].id

    def visit_FunctionDef(self, node):
        return node if node is not self.fdef else self.generic_visit(node)

    def visit_Lambda(self, node):
        node = self.generic_visit(node)
        body = [gast.copy_location(gast.Return(value=node.body), node)]
        name = self.named.get(id(node))
        late = self.rw.candidate(node, body)
        if late is None or name is not None and _overriding_calls(self.fdef, name, node):
            return node
        made = self.rw.maker(node, name or "lam", body, late)
        return self.rw.call(node, made, late)


def refusal(lw, fdef, node, params):
    """The error for a nested function whose default reads a local and that :func:`lower`
    left as it is (``lw`` the lowerer): why, and what to write."""
    body = fdef.body if isinstance(fdef.body, list) else [fdef.body]
    bound = set(params)
    for part in body:
        bound |= _bound_in(part)
    late = sorted({n.id for part in body for n in walk_nodes(part) if isinstance(n, gast.Name)
                   and isinstance(n.ctx, gast.Load) and n.id not in bound and (
                       n.id in lw.env or n.id in lw.source.closure)})
    if late:
        shown = ", ".join(f"{n}={n}" for n in late)
        return lw.error(node, f"a nested function whose default value reads a local variable "
                        f"and whose body reads the local {late[0]!r} (Python reads it when "
                        "the function is called, the default when it is made)",
                        hint=f"give it as a default too ({shown}), or pass it as an argument")
    if fdef.args.vararg or fdef.args.kwarg:
        return lw.error(node, "a nested function with *args or **kwargs whose default value "
                        "reads a local variable", hint="name each parameter")
    return lw.error(node, "a nested function whose default value reads a local variable, "
                    "called with that parameter given", hint="call it without the parameters "
                    "that have defaults, or pass the value as an argument each time")
