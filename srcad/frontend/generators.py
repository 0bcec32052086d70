"""A generator function, consumed at once, as the function that returns the list it yields.

``def batches(n): for i in range(n): yield i * 2``, called where its values are all taken
at once (``for b in batches(3)``, ``sum(batches(3))``, ``list(...)``), is read as

    def batches(n):
        items = []
        for i in range(n):
            items.append(i * 2)
        return items

which srcad lowers and differentiates like any callee. Only a generator whose ``yield``
stands alone on its line (``yield v`` or ``yield from xs``), that returns nothing is rewritten (one
that reads variables of its enclosing function keeps them: the same cells, read live, constants
as every closure value is); anything else is refused with the rewrite to make. The values are
made before the loop that takes them runs, which is Python's order unless the loop changes
what the generator reads: a loop changing in place a name passed to the generator is refused
(:func:`refuse_changing_source`), and writes into
arguments, globals and shared objects are refused anyway (:mod:`srcad.analysis.alias`).

Imports: the standard library, gast, :mod:`srcad.core` and :mod:`.source`.
"""

from __future__ import annotations

import ast
import inspect
import types
import weakref

import gast

from ..core.functions import ByFunction, forget_source, run_tree
from ..core.walk import walk_nodes
from ..errors import UnsupportedSyntaxError
from . import source as source_module

_BUILDERS = ByFunction()
_count = 0


def list_builder(fn):
    """The function returning the list ``fn`` (a generator function) yields."""
    known = _BUILDERS.get((fn,))
    if known is not None and known[0] == (fn.__code__, fn.__defaults__, fn.__kwdefaults__):
        return known[1]
    src = source_module.read(fn)
    free = fn.__code__.co_freevars
    if any(_empty(cell) for cell in fn.__closure__ or ()):
        raise _error(src, src.node, "a generator reading a variable of its enclosing "
                     "function that is not assigned yet", "assign it before the generator "
                     "is called, or pass it as an argument")
    fdef = src.node
    names = {n.id for n in walk_nodes(fdef) if isinstance(n, gast.Name)}
    acc = "items"
    while acc in names or acc + "_item" in names:
        acc += "_"
    _refuse_endless(src, fdef)
    _Rewrite(src, acc).visit(fdef)
    fdef.body = [_at(gast.Assign(targets=[_name(acc, gast.Store())], value=gast.List(
        elts=[], ctx=gast.Load()), type_comment=None), fdef)] + fdef.body + [
        _at(gast.Return(value=_name(acc, gast.Load())), fdef)]
    tree = gast.gast_to_ast(gast.Module(body=[fdef], type_ignores=[]))
    if free:  # def maker(free...): def fn(...): ...; return fn -- fn keeps its free names
        tree.body = [ast.FunctionDef(
            name="srcad_closure_maker", args=ast.arguments(
                posonlyargs=[], args=[ast.arg(arg=n) for n in free], kwonlyargs=[],
                kw_defaults=[], defaults=[]),
            body=[tree.body[0], ast.Return(value=ast.Name(id=fdef.name, ctx=ast.Load()))],
            decorator_list=[], returns=None, type_params=[])]
    global _count
    _count += 1
    filename = (f"<srcad: generator {fn.__name__} of {src.filename}:{src.first_line} as a "
                f"list #{_count}>")
    namespace = run_tree(tree, filename, fn.__globals__, src.filename)
    if free:  # the generator's own cells: its enclosing function's values, read live
        code = next(c for c in namespace["srcad_closure_maker"].__code__.co_consts
                    if isinstance(c, types.CodeType) and c.co_name == fdef.name)
        cells = dict(zip(free, fn.__closure__))
        built = types.FunctionType(code, fn.__globals__, fn.__name__, fn.__defaults__,
                                   tuple(cells[n] for n in code.co_freevars))
    else:
        built = types.FunctionType(namespace[fdef.name].__code__, fn.__globals__,
                                   fn.__name__, fn.__defaults__)
    built.__kwdefaults__ = fn.__kwdefaults__
    weakref.finalize(built, forget_source, filename)
    _BUILDERS[(fn,)] = ((fn.__code__, fn.__defaults__, fn.__kwdefaults__), built)
    return built


def rewrite_nested(source):
    """Each generator defined inside ``source``'s function (``def pairs(): for i in
    range(n): yield x[i], x[i + 1]``) rewritten in place, as :func:`list_builder` rewrites a
    module-level one, into the nested function returning the list it yields; its names are
    returned (a call of one must be consumed at once: ``lower_calls._local_call``; a loop
    over one must not change what it reads: :func:`refuse_changing_source`). A generator
    with ``nonlocal``/``global`` is left as it is (refused by the validation)."""
    names = set()
    for fdef in list(_own_nodes(source.node)):  # a generator deeper: when its function is
        if not isinstance(fdef, gast.FunctionDef):  # lowered (:func:`deeper_yields`)
            continue
        own = list(_own_nodes(fdef))
        if not any(isinstance(n, (gast.Yield, gast.YieldFrom)) for n in own) or any(
                isinstance(n, (gast.Nonlocal, gast.Global)) for n in own):
            continue
        names_in = {n.id for n in walk_nodes(fdef) if isinstance(n, gast.Name)}
        acc = "items"
        while acc in names_in or acc + "_item" in names_in:
            acc += "_"
        _refuse_endless(_Nested(source, fdef), fdef)
        _Rewrite(_Nested(source, fdef), acc).visit(fdef)
        fdef.body = [_at(gast.Assign(targets=[_name(acc, gast.Store())], value=gast.List(
            elts=[], ctx=gast.Load()), type_comment=None), fdef)] + fdef.body + [
            _at(gast.Return(value=_name(acc, gast.Load())), fdef)]
        names.add(fdef.name)
    return names


def deeper_yields(source):
    """The ids of the ``yield`` nodes of generators defined inside functions that
    ``source``'s function defines: read when those functions are lowered in turn (their own
    :func:`rewrite_nested`), not in this one."""
    near = {id(n) for n in _own_nodes(source.node)}
    for fdef in _own_nodes(source.node):
        if isinstance(fdef, (gast.FunctionDef, gast.Lambda)):
            near |= {id(n) for n in _own_nodes(fdef)}
    return {id(n) for n in walk_nodes(source.node)
            if isinstance(n, (gast.Yield, gast.YieldFrom)) and id(n) not in near}


def _refuse_endless(src, fdef):
    """A generator that never ends (``while True:`` with no ``break`` or ``return``): srcad
    takes all its values before the loop over it runs, which would never end."""
    own = list(_own_nodes(fdef))
    if any(isinstance(n, gast.Return) for n in own):
        return
    for loop in own:
        if isinstance(loop, gast.While) and isinstance(loop.test, gast.Constant) and \
                loop.test.value and not any(isinstance(n, gast.Break) for n in _in_loop(loop)):
            raise _error(src, loop, "a generator that never ends (while True with no break "
                         "or return): srcad takes all its values at once",
                         "give it an end (for i in range(n), or a break), and stop there")


def _in_loop(loop):
    """The nodes of ``loop``'s body outside the loops and functions inside it."""
    todo = list(loop.body)
    while todo:
        node = todo.pop()
        yield node
        if not isinstance(node, (gast.FunctionDef, gast.Lambda, gast.For, gast.While)):
            todo.extend(gast.iter_child_nodes(node))


def _own_nodes(fdef):
    """The nodes of ``fdef``'s own body (not of the functions and lambdas defined in it)."""
    todo = list(fdef.body) if isinstance(fdef.body, list) else [fdef.body]
    while todo:
        node = todo.pop()
        yield node
        if not isinstance(node, (gast.FunctionDef, gast.Lambda, gast.AsyncFunctionDef)):
            todo.extend(gast.iter_child_nodes(node))


class _Nested:
    """What :class:`_Rewrite` reads of a source, for a function nested in it."""

    def __init__(self, source, node):
        self.node, self.filename, self.line_text = node, source.filename, source.line_text


def refuse_changing_source(lw, loop):
    """``for v in gen(xs): xs.append(...)``: a generator (or ``map``, ``filter``) reads
    ``xs`` while the loop runs, and would see the change; srcad makes its values before
    the loop (of the lowering ``lw``), so a loop that changes what they read in place is
    refused, and, for a generator defined in the function, one rebinding a name of the
    function it reads."""
    call = loop.iter
    _refuse_changing_lazy(lw, loop)
    if not (isinstance(call, gast.Call) and isinstance(call.func, gast.Name)) or \
            call.func.id in lw.env:
        return
    read = {n.id for a in call.args + [k.value for k in call.keywords]
            for n in walk_nodes(a) if isinstance(n, gast.Name)}
    rebound = set()  # names the generator reads live from this function
    if call.func.id in getattr(lw.source, "nested_generators", ()) and \
            call.func.id in lw.local_functions:
        rebound = set(lw.local_functions[call.func.id][1])
        read |= rebound
    elif call.func.id in lw.local_functions:
        return
    else:
        try:
            fn = lw.source.lookup(call.func.id)
        except KeyError:
            return
        if fn not in (map, filter) and not inspect.isgeneratorfunction(fn):
            return
    for stmt in loop.body:
        for sub in walk_nodes(stmt):
            changed = None
            if isinstance(sub, gast.Name) and isinstance(sub.ctx, gast.Store) and \
                    sub.id in rebound:
                changed = sub.id
            if isinstance(sub, gast.Call) and isinstance(sub.func, gast.Attribute) and \
                    isinstance(sub.func.value, gast.Name):
                changed = sub.func.value.id
            elif isinstance(sub, gast.Subscript) and isinstance(sub.ctx, gast.Store) and \
                    isinstance(sub.value, gast.Name):
                changed = sub.value.id
            elif getattr(sub, "srcad_augmented", False) and isinstance(
                    sub.targets[0], gast.Name):
                changed = sub.targets[0].id
            if changed in read:
                raise lw.error(sub, f"a loop changing {changed!r}, which "
                           f"{call.func.id}(...) reads while the loop runs",
                           hint=f"loop over a list made first: for v in "
                           f"list({call.func.id}(...)), or change a copy of {changed}")


def _refuse_changing_lazy(lw, loop):
    """``for v in (t * s for t in xs): s = s + v``: a generator expression looped over (also
    inside ``zip``/``enumerate``) computes each item when the loop asks for it, reading the
    names its items read then; srcad makes its items before the loop, so a loop (its target
    or its body) binding or changing such a name is refused (fuzz22: it gave the gradient of
    the items made with the first value). The first iterable (``xs``) is read at once, as
    Python reads it."""
    lazy = [loop.iter]
    if isinstance(loop.iter, gast.Call) and isinstance(loop.iter.func, gast.Name) and \
            loop.iter.func.id in ("zip", "enumerate"):
        lazy = list(loop.iter.args)
    for gen in lazy:
        if not isinstance(gen, gast.GeneratorExp):
            continue
        first = set(map(id, walk_nodes(gen.generators[0].iter)))
        bound = {n.id for c in gen.generators for n in walk_nodes(c.target)
                 if isinstance(n, gast.Name)}
        read = {n.id for n in walk_nodes(gen) if isinstance(n, gast.Name) and
                isinstance(n.ctx, gast.Load) and id(n) not in first} - bound
        for sub in [loop.target] + [n for stmt in loop.body for n in walk_nodes(stmt)]:
            for changed in _changed_names(sub):
                if changed in read:
                    raise lw.error(sub, f"a loop changing {changed!r}, which the generator "
                                   "expression it loops over reads while the loop runs",
                                   hint="loop over a list made first: for v in [...], or "
                                   f"give the new value of {changed} another name")


def _changed_names(node):
    """The names ``node`` binds (a name, a target) or changes in place (``xs.append``,
    ``xs[i] = v``, ``xs += v``)."""
    if isinstance(node, gast.Name) and isinstance(node.ctx, (gast.Store, gast.Del)):
        return [node.id]
    if not isinstance(node, gast.Name):
        return [n for n in _changed_by(node) if n is not None]
    return []


def _changed_by(sub):
    if isinstance(sub, gast.Call) and isinstance(sub.func, gast.Attribute) and \
            isinstance(sub.func.value, gast.Name):
        return [sub.func.value.id]
    if isinstance(sub, gast.Subscript) and isinstance(sub.ctx, gast.Store) and \
            isinstance(sub.value, gast.Name):
        return [sub.value.id]
    if getattr(sub, "srcad_augmented", False) and isinstance(sub.targets[0], gast.Name):
        return [sub.targets[0].id]
    return []


class _Rewrite(gast.NodeTransformer):
    """``yield v`` -> ``items.append(v)``; ``yield from xs`` -> a loop appending;
    ``return`` -> ``return items``; anything else with ``yield`` refused."""

    def __init__(self, src, acc):
        self.src, self.acc = src, acc

    def visit_FunctionDef(self, node):
        if node is self.src.node:
            self.generic_visit(node)
        return node  # a nested def's yields are its own

    def visit_Lambda(self, node):
        return node

    def visit_Expr(self, node):
        value = node.value
        if isinstance(value, gast.YieldFrom):  # for item in xs: items.append(item)
            item = self.acc + "_item"
            append = self._append(_name(item, gast.Load()), node)
            return _at(gast.For(target=_name(item, gast.Store()), iter=self.visit(value.value),
                                body=[append], orelse=[], type_comment=None), node)
        if isinstance(value, gast.Yield):
            arg = value.value if value.value is not None else gast.Constant(value=None,
                                                                             kind=None)
            return self._append(self.visit(arg), node)
        return self.generic_visit(node)

    def _append(self, value, node):
        call = gast.Call(func=gast.Attribute(value=_name(self.acc, gast.Load()),
                                             attr="append", ctx=gast.Load()),
                         args=[value], keywords=[])
        return _at(gast.Expr(value=call), node)

    def visit_Return(self, node):
        if node.value is not None:
            raise _error(self.src, node, "a generator that returns a value",
                         "end it with a bare return")
        return _at(gast.Return(value=_name(self.acc, gast.Load())), node)

    def visit_Yield(self, node):
        raise _error(self.src, node, "a yield whose value is used (a coroutine)",
                     "write the yield on a line of its own: yield value")

    visit_YieldFrom = visit_Yield


def _empty(cell):
    try:
        return cell.cell_contents is _EMPTY
    except ValueError:
        return True


_EMPTY = object()


def _error(src, node, what, hint):
    line = getattr(node, "lineno", None)
    return UnsupportedSyntaxError(f"srcad cannot differentiate {what}", filename=src.filename,
                                  lineno=line, construct=src.line_text(line), hint=hint)


def _name(name, ctx):
    return gast.Name(id=name, ctx=ctx, annotation=None, type_comment=None)


def _at(new, old):
    gast.copy_location(new, old)
    for sub in walk_nodes(new):
        if "lineno" in sub._attributes and getattr(sub, "lineno", None) is None:
            gast.copy_location(sub, old)
    return new
