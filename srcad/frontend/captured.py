"""A callee made for a function argument that holds values of the caller.

``apply(lambda t: t * w, x)``, with ``w`` a local value (perhaps differentiated), passes
``apply`` a function that holds ``w``. srcad passes ``w`` itself instead: the callee is read
as a copy with one more keyword-only parameter per held value, whose calls of the function
parameter pass them first::

    def apply(f, x):                      def apply(f, x, *, f__0=None):
        return f(x)             ->            return f(f__0, x)

and the call is ``apply(lam, x, f__0=w)`` where ``lam`` is the lambda lifted with ``w`` as
its first parameter. The gradient of ``w`` flows back through ``f__0`` like any argument's.
Passed on (``other(f, x)``), the parameter is ``functools.partial(f, f__0)`` again (through
the keyword-only ``f__partial``, whose default is ``functools.partial``), which the next
callee takes the same way.

Imports: the standard library, gast, :mod:`srcad.core`, :mod:`srcad.errors` and
:mod:`.source`.
"""

from __future__ import annotations

import functools
import inspect
import types
import weakref

import gast

from ..core.functions import ByFunction, forget_source, run_tree
from ..core.ir import Const, Var
from ..core.walk import walk_nodes
from ..errors import UnsupportedSyntaxError
from . import source as source_module

_MADE = ByFunction()
_count = 0


def with_held(fn, param, n_args, keys):
    """``fn`` read with the function parameter ``param`` called with ``n_args`` held values
    first (and the held keywords ``keys``). Returns ``(copy, names)``: the copy, and the
    names of its new keyword-only parameters, positional ones first."""
    key = (fn, param, n_args, tuple(keys), fn.__code__, fn.__defaults__)
    known = _MADE.get(key)
    if known is not None:
        return known
    src, fdef, taken = _read_copy(fn, "a function that holds local values")
    names = []
    for part in [str(i) for i in range(n_args)] + list(keys) + ["partial"]:
        name = f"{param}__{part}"
        while name in taken:
            name += "_"
        taken.add(name)
        names.append(name)
    names, maker = names[:-1], names[-1]
    _Pass(src, param, names[:n_args], dict(zip(keys, names[n_args:])), maker).visit(fdef)
    return _compiled_copy(fn, src, fdef, names, maker, key, "a function holding values")


class _Pass(gast.NodeTransformer):
    """Every call of ``param`` passes the held values first; any other use is refused."""

    def __init__(self, src, param, positional, keywords, maker):
        self.src, self.param, self.maker = src, param, maker
        self.positional, self.keywords = positional, keywords

    def _held(self):
        args = [_load(n) for n in self.positional]
        keywords = [gast.keyword(arg=k, value=_load(n)) for k, n in self.keywords.items()]
        return args, keywords

    def visit_Call(self, node):
        self.generic_visit(node)
        if isinstance(node.func, _Marked):
            node.func = node.func.name
            args, keywords = self._held()
            node.args = args + node.args
            node.keywords = keywords + node.keywords
        return node

    def visit_Name(self, node):
        if node.id != self.param:
            return node
        if not isinstance(node.ctx, gast.Load):
            raise _error(self.src, node, f"passing a function that holds local values as "
                         f"{self.param!r}, which the callee assigns",
                         "give the new value a name of its own")
        if getattr(node, "_callee", False):
            return _Marked(node)
        # passed on (apply(f, x)): the function with its held values, a partial again
        args, keywords = self._held()
        return gast.copy_location(gast.Call(func=_load(self.maker), args=[node] + args,
                                            keywords=keywords), node)

    def generic_visit(self, node):
        if isinstance(node, gast.Call) and isinstance(node.func, gast.Name):
            node.func._callee = True
        return super().generic_visit(node)

    def visit_Lambda(self, node):
        return self._nested(node)

    def visit_FunctionDef(self, node):
        if node is self.src.node:  # its body: the parameter list names the parameter
            node.body = [self.visit(stmt) for stmt in node.body]
            return node
        return self._nested(node)

    def _nested(self, node):
        if any(isinstance(n, gast.Name) and n.id == self.param for n in walk_nodes(node)):
            raise _error(self.src, node, f"passing a function that holds local values as "
                         f"{self.param!r}, which a nested function of the callee reads",
                         "pass the values the function needs as arguments of their own")
        return node


def _load(name):
    return gast.Name(id=name, ctx=gast.Load(), annotation=None, type_comment=None)


class _Marked(gast.AST):
    _fields = ("name",)

    def __init__(self, name):
        super().__init__()
        self.name = name


def _error(src, node, what, hint):
    line = getattr(node, "lineno", None)
    return UnsupportedSyntaxError(what, filename=src.filename, lineno=line,
                                  construct=src.line_text(line), hint=hint)


# ---------------------------------------------------------------- a list of such functions


def held_items(lw, fn, args, kwargs):
    """A list or tuple display passed to ``fn`` (a function of yours) whose items are known
    functions and functions holding values of the caller (``[lambda v: v * w, np.sin]``):
    ``fn`` read as :func:`with_held_items` makes it, each item and each value held passed as
    a keyword-only argument of its own, the display itself not passed (``None``: the callee
    builds its own). Returns ``(fn, args, kwargs)``, changed or not."""
    try:
        sig = inspect.signature(fn, follow_wrapped=False)
        bound = sig.bind(*args, **kwargs)
    except (TypeError, ValueError):
        return fn, args, kwargs
    for param, atom in list(bound.arguments.items()):
        items = (lw.lists.get(atom.name) or lw.tuples.get(atom.name)) if isinstance(
            atom, Var) and sig.parameters[param].kind not in (
                inspect.Parameter.VAR_POSITIONAL, inspect.Parameter.VAR_KEYWORD) else None
        if not items or not any(isinstance(a, Var) and a.name in lw.partials for a in items) \
                or not all(isinstance(a, Var) and a.name in lw.partials or isinstance(
                    a, Const) and callable(a.value) for a in items):
            continue
        layout, given = [], []
        for a in items:
            if isinstance(a, Const):
                layout.append(None)
                given.append(a)
                continue
            inner, lead, lead_kw, spelling = lw.partials[a.name]
            layout.append((len(lead), tuple(lead_kw)))
            given += [Const(inner, spelling or lw.bound_name(
                inner, getattr(inner, "__name__", None) or "fn"))] + list(lead) + list(
                    lead_kw.values())
        fn, names = with_held_items(fn, param, tuple(layout))
        sig = inspect.signature(fn, follow_wrapped=False)
        bound.arguments[param] = Const(None)  # the callee builds the tuple of its own
        args, kwargs = list(bound.args), {**bound.kwargs, **dict(zip(names, given))}
        bound = sig.bind(*args, **kwargs)
    return fn, list(bound.args), dict(bound.kwargs)


def with_held_items(fn, param, layout):
    """``fn`` read with its parameter ``param`` given a sequence of functions, some holding
    values (``layout``: per item ``None``, or how many values it holds first and the keywords
    it holds): a copy taking each item's function (``param__f0``) and values (``param__0_0``)
    as keyword-only parameters, whose body starts with ``param = (functools.partial(
    param__f0, param__0_0), param__f1)``, a display srcad reads calls of items of. Returns
    ``(copy, names)``, the new parameters' names in order, item by item."""
    key = (fn, param, layout, fn.__code__, fn.__defaults__, "items")
    known = _MADE.get(key)
    if known is not None:
        return known
    src, fdef, taken = _read_copy(fn, "a list of functions holding local values")

    def fresh(part):
        name = f"{param}__{part}"
        while name in taken:
            name += "_"
        taken.add(name)
        return name

    names, elts = [], []
    maker = fresh("partial")
    for k, item in enumerate(layout):
        f = fresh(f"f{k}")
        names.append(f)
        if item is None:
            elts.append(_load(f))
            continue
        n_args, keys = item
        held = [fresh(f"{k}_{j}") for j in range(n_args)]
        named = {key_: fresh(f"{k}_{key_}") for key_ in keys}
        names += held + list(named.values())
        elts.append(gast.Call(func=_load(maker), args=[_load(f)] + [_load(h) for h in held],
                              keywords=[gast.keyword(arg=key_, value=_load(v))
                                        for key_, v in named.items()]))
    start = gast.Assign(targets=[gast.Name(id=param, ctx=gast.Store(), annotation=None,
                                           type_comment=None)],
                        value=gast.Tuple(elts=elts, ctx=gast.Load()), type_comment=None)
    for sub in walk_nodes(start):
        if "lineno" in sub._attributes:
            gast.copy_location(sub, fdef.body[0])
    fdef.body.insert(0, start)
    return _compiled_copy(fn, src, fdef, names, maker, key, "functions holding values")


def _read_copy(fn, what):
    """``fn``'s source, its tree (a copy to change) and the names the tree uses; refused when
    ``fn`` reads variables of an enclosing function (``what``: what is passed to it)."""
    src = source_module.read(fn)
    fdef = src.node
    if fn.__closure__:
        raise _error(src, fdef, f"passing {what} to {fn.__name__}, which reads variables of "
                     "an enclosing function", f"define {fn.__name__} at module level")
    taken = {n.id for n in walk_nodes(fdef) if isinstance(n, gast.Name)}
    taken |= {a.id for a in fdef.args.posonlyargs + fdef.args.args + fdef.args.kwonlyargs}
    return src, fdef, taken


def _compiled_copy(fn, src, fdef, names, maker, key, what):
    """``fdef`` (a copy of ``fn``'s tree) given ``names`` and ``maker`` as keyword-only
    parameters, compiled as a function of ``fn``'s globals; remembered under ``key``."""
    for name in names + [maker]:
        fdef.args.kwonlyargs.append(gast.Name(id=name, ctx=gast.Param(), annotation=None,
                                              type_comment=None))
        fdef.args.kw_defaults.append(gast.Constant(value=None, kind=None))
    tree = gast.gast_to_ast(gast.Module(body=[fdef], type_ignores=[]))
    global _count
    _count += 1
    filename = (f"<srcad: {fn.__name__} of {src.filename}:{src.first_line} called with "
                f"{what} #{_count}>")
    namespace = run_tree(tree, filename, fn.__globals__, src.filename)
    made = namespace[fdef.name]
    copy = types.FunctionType(made.__code__, fn.__globals__, fn.__name__, fn.__defaults__)
    copy.__kwdefaults__ = {**(fn.__kwdefaults__ or {}), **(made.__kwdefaults__ or {}),
                           maker: functools.partial}
    weakref.finalize(copy, forget_source, filename)
    _MADE[key] = (copy, names)
    return copy, names
