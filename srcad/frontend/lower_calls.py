"""Lowering calls: callee resolution, ``*args``/``**kwargs``, nested functions.

A mixin of :class:`srcad.frontend.lower.Lowerer` (see there for the state it shares).
:meth:`Calls.expr_Call` resolves the callee to the Python object it names now (a method of
a local value stays an :class:`srcad.core.ir.Method`), splices ``f(*t)`` when ``t`` is a
tuple of known length, passes on the ``**kwargs`` parameter's items (known in this call),
and hands in-place writes to :mod:`srcad.frontend.writes`. A nested ``def`` (or a named
lambda) is lifted to a real function whose first parameters are the outer values it reads.

Imports: gast, NumPy, the standard library, :mod:`srcad.core`, :mod:`srcad.rules`,
:mod:`srcad.frontend.writes` and :mod:`.lower_exprs` (for its name helpers).
"""

from __future__ import annotations

import functools
import inspect
import operator
import types

import gast
import numpy as np

from ..core import functions, ir
from ..core.ir import Const, Var
from ..core.walk import walk_nodes
from ..rules import registry
from ..runtime import containers, routes
from . import (
    applied_calls,
    builtin_code,
    fixed_lengths,
    iterators_passed,
    keyword_dicts,
    lower_defaults,
    lower_super,
    misfit_calls,
    operator_methods,
    recorded_lists,
    recursive_defs,
    spread_lengths,
    vectorized,
    writes,
)
from .held_objects import type_call
from .lower_defaults import enclosing_locals
from .lower_exprs import dotted, root_name
from .lower_spread import CONSUMERS
from .lower_spread import Atom as _AtomNode


class Calls:
    """``expr_Call``, the ``**kwargs`` parameter, and nested functions lifted to callees."""

    def expr_Call(self, node, hint=None):
        dispatched = operator_methods.length(self, node)  # len(v), v an object of yours
        if dispatched is None:  # type(p), p a list or tuple argument: its type (closures29)
            dispatched = fixed_lengths.known_type(self, node)
        if dispatched is not None:
            return dispatched
        consumed = getattr(node, "srcad_consumed", False)
        func = node.func
        if _is_kwargs_get(self, func, node):
            return _kwargs_get(self, func, node)
        if any(k.arg is None and self.is_kwargs(k.value) for k in node.keywords):
            keywords = []
            for k in node.keywords:
                if k.arg is None and self.is_kwargs(k.value):
                    keywords += [gast.keyword(arg=key, value=_AtomNode(atom)) for key, atom in
                                 self.dicts[k.value.id].items()]
                else:
                    keywords.append(k)
            names = [k.arg for k in keywords if k.arg is not None]
            if len(set(names)) != len(names):
                raise self.error(node, "a keyword given twice (once through **kwargs)",
                                 hint="pass each keyword once")
            node = gast.copy_location(gast.Call(func=node.func, args=node.args,
                                                keywords=keywords), node)
        writes.refuse_keywords(self, node)
        node.srcad_consumed = consumed
        spliced = not keyword_dicts.unseen_keywords(self, node)  # f(**kw): kw when it runs
        if any(k.arg is None for k in node.keywords) and spliced:
            node = self.spliced_keywords(node)
        if spliced and any(isinstance(a, gast.Starred) for a in node.args):
            args = self.spliced(node, strict=False)
            spliced = args is not None
            if spliced:
                node = gast.copy_location(gast.Call(func=node.func, args=args,
                                                    keywords=node.keywords), node)
                node.srcad_consumed = consumed
        func = node.func
        if isinstance(func, gast.Attribute) and isinstance(func.value, gast.Call) and \
                isinstance(func.value.func, gast.Name) and func.value.func.id == "super" and \
                func.value.func.id not in self.env:
            made = lower_super.call(self, node)  # the base class's method, found statically
            if made is not None:
                return made
            raise self.error(node, f"super().{func.attr}(...)",
                             hint=f"call the base class's method with the object: "
                             f"Base.{func.attr}(self, ...)")
        if isinstance(func, gast.Attribute) and root_name(func) in self.env | {None: None}:
            appended = recorded_lists.append(self, node)  # history.append(float(loss))
            if appended is not None:
                return appended
            chosen = self.dict_setdefault(node, node)
            if chosen is not None:
                return chosen
            obj = self.expr(func.value)
            if spliced:
                method = self.method_call(obj, func.attr, node, hint)
                if isinstance(method, Exception):
                    raise method
                if method is not None:
                    return method
            if not spliced:
                bound = self.assign(ir.Prim(ir.Attr(func.attr), [obj]), func.attr, node)
                return self.star_call_prim(bound, None, node)
            if func.attr in _DICT_VIEWS and not node.args and not node.keywords:
                return _dict_view(self, obj, func.attr, node)
            misfit = misfit_calls.lower(self, obj, node)  # xs.append(a, b): raises there
            if misfit is not None:
                return misfit
            args = [obj] + [self.expr(a) for a in node.args]
            kwargs = {k.arg: self.expr(k.value) for k in node.keywords}
            return ir.Prim(ir.Method(func.attr), args, kwargs)
        if isinstance(func, gast.Name) and func.id in self.local_functions:
            return _local_call(self, func.id, node)
        if isinstance(func, gast.Lambda):
            return self.call_atom(self.lambda_value(func), node, hint, spliced, "a lambda")
        if isinstance(func, gast.Name) and func.id in self.env:
            return self.call_atom(self.env[func.id], node, hint, spliced,
                                  f"the local value {func.id!r}")
        if not isinstance(func, (gast.Name, gast.Attribute)):
            made = applied_calls.applied(self, node) if spliced else None  # F(a)(b)
            if made is not None:
                return self.expr(applied_calls.call_node(self, made, node, _AtomNode), hint)
            return self.call_atom(self.expr(func), node, hint, spliced,
                                  "the result of an expression")
        resolved = self.resolve_dotted(func)
        if spliced and isinstance(func, gast.Attribute) and _array_method(resolved):
            return _global_array_method(self, func, node, hint)  # X.dot(w), X global
        fn = routes.original(resolved)  # library_sort (code for Dask arrays): np.sort
        if inspect.isfunction(fn) and fn is resolved:
            # the callee's defaults fill its call: they are read (and guarded) like the name,
            # and so is its code (a function given another __code__ is made again)
            path = dotted(func).split(".")
            for attr in ("__defaults__", "__kwdefaults__", "__code__"):
                if getattr(fn, attr, None) is not None:
                    self.source.lookup(path[0], path[1:] + [attr])
        if not spliced:
            return self.star_call_prim(fn, dotted(func), node)
        if fn is dict and not node.args and node.keywords:  # dict(a=x): {"a": x}
            return _keyword_dict(self, node)
        writes.refuse_in_expression(self, fn, node)
        if fn is functools.partial and node.args:
            return self.partial_value(self.expr(node.args[0]), [self.expr(a) for a in
                                                                node.args[1:]],
                                      {k.arg: self.expr(k.value) for k in node.keywords},
                                      node, hint)
        if fn is vectorized.vectorize_maker:  # np.vectorize(f): calls read as Python
            return vectorized.value(self, node, hint)
        self.refuse_iterator(fn, node)
        if fn in (min, max, sorted):  # key=d.get, key=obj.score: a lambda calling it
            builtin_code.key_as_lambda(node, fn is not sorted)  # max(a, b, key=k) too
        if fn in (min, max) and len(node.args) == 1 and not isinstance(
                node.args[0], gast.Starred) and [k.arg for k in node.keywords] == ["key"]:
            return self.extreme_by_key(fn, node)  # max(xs, key=k): the item it picks
        if fn in _COMPREHENSION_CALLS and len(node.args) == 1 and isinstance(
            node.args[0], (gast.GeneratorExp, gast.ListComp)
        ):
            seq = self.comprehension(node.args[0], hint)
            args, spelling = [seq], dotted(func)
        elif fn in CONSUMERS:
            args, spelling = [self.expr(self.consumed(a)) for a in node.args], dotted(func)
        else:
            _refuse_lazy_to_numpy(self, fn, node)
            args, spelling = [self.expr(a) for a in node.args], dotted(func)
        kwargs = {k.arg: self.expr(k.value) for k in node.keywords}
        if (known := type_call(self, fn, args, kwargs, node)) is not None:  # type(self).f
            return known
        if root_name(func) in self.source.closure and root_name(func) not in \
                self.source.cells:  # a rewrite's constant (an import in the body): bound
            spelling = self.closure_spelling(func, fn)
        if fn is sorted and "key" in kwargs:  # the order: no gradient through the key
            kwargs["key"] = builtin_code.inactive_key(self, kwargs["key"], node)
        if fn in iterators_passed.MARKS:  # f(iter(xs)), f([np.sin, g], x): marked for f
            return iterators_passed.lower_mark(self, fn, args, node)
        if _needs_resolving(fn):
            return self.call_object(fn, spelling, args, kwargs, node, hint)
        if isinstance(fn, type) and functions.user_class(fn):
            # an object built here: its class is known, so its methods are (its attributes
            # are read live; building it from a differentiated value has no rule: refused)
            made = self.assign(ir.Prim(fn, args, kwargs, spelling=spelling), hint, node)
            self.classes[made.name] = fn
            return made
        return ir.Prim(fn, args, kwargs, spelling=spelling)

    def call_atom(self, atom, node, hint, spliced, what):
        """A call whose function is the value ``atom`` (a local, a parameter, a lambda, the
        result of ``srcad.grad(inner)``...)."""
        if isinstance(atom, Var) and atom.name in self.classes and spliced:
            method = self.method_call(atom, "__call__", node, hint, implicit=True)
            if method is not None and not isinstance(method, Exception):
                return method
        if isinstance(atom, Var) and atom.name in self.choices and spliced:
            return self.call_choice(atom, node, hint)
        if spliced:
            chosen = self.call_candidate(atom, node, hint)
            if chosen is not None:
                return chosen
        self.container_refusal(atom, node, what)
        if isinstance(atom, Var) and atom.name in self.merged_partials:
            raise self.error(
                node, f"calling {what}, one of several functions holding values of the "
                "function (made by a helper, make(w), or a lambda reading locals) that an "
                "if/else merges", hint="choose the values, not the function: w = a if c else "
                "b; h = make(w); or make the call inside each branch")
        fn, lead, lead_kw, spelling = self.value_callee(atom, node, what)
        if not spliced:  # f(*t) of a length known when it runs (a partial's values first)
            return self.star_call_prim(fn, spelling, node, lead, lead_kw)
        return self.call_value(fn, spelling, lead, lead_kw, node, hint)

    def spliced(self, node, strict=True):
        """``f(*t)`` with ``t`` a tuple of known length: its elements, one argument each
        (``None``, unless ``strict``, when a length is not known)."""
        args = []
        for a in node.args:
            known = self.known_items(a)  # a plain argument, *(x, y), *args[1:] of known items
            if known is not None:
                args.extend(known)
                continue
            value = a.value
            atom = self.expr(value)
            self.starred[id(value)] = atom  # a call of unknown length passes it as it is
            items = self.tuples.get(atom.name) if isinstance(atom, Var) else None
            if items is None and isinstance(atom, Var) and isinstance(value, gast.Name) and (
                    value.id in self.frozen):
                items = self.lists.get(atom.name)
            if items is None and isinstance(atom, Const) and isinstance(atom.value, tuple):
                items = [self.bound_const(v, "item") for v in atom.value]
            if items is None and isinstance(atom, Var):
                size = self.returned_tuple_size(value)
                if size is not None:  # f(*g(x)) with g returning a tuple display: its items
                    items = [self.assign(ir.Prim(operator.getitem, [atom, Const(i)]),
                                         "item", value) for i in range(size)]
            if items is None and not strict:  # f(x, *s) where f fixes how many s gives
                items = spread_lengths.spread_items(self, node, a, atom)
            if items is None and not strict:
                return None
            if items is None:
                raise self.error(node, "unpacking (*args) of a value whose length srcad "
                                 "cannot know", hint="unpack a tuple built in the function "
                                 "(args = (a, b); f(*args)), or pass the arguments one by one")
            args.extend(_AtomNode(i) for i in items)
        return args

    # ---------------------------------------------------------------- **kwargs

    def is_kwargs(self, node):
        """Whether ``node`` names the ``**kwargs`` parameter (its items known in this call)."""
        return isinstance(node, gast.Name) and node.id in self.dicts and node.id not in self.env

    def keyword_item(self, name_node, key_node, node, default=None):
        """``kwargs['key']`` (or ``kwargs.get('key', default)``): the atom passed for it."""
        items = self.dicts[name_node.id]
        if not (isinstance(key_node, gast.Constant) and isinstance(key_node.value, str)):
            raise self.error(node, f"reading **{name_node.id} with a computed key",
                             hint=f"write the key as a string: {name_node.id}['scale']")
        if key_node.value in items:
            return items[key_node.value]
        if default is not None:
            return self.expr(default)
        raise self.error(node, f"{name_node.id}[{key_node.value!r}]: this call passes no "
                         f"keyword {key_node.value!r} (Python raises KeyError)",
                         hint=f"pass {key_node.value}=... in the call, or read it with "
                         f"{name_node.id}.get({key_node.value!r}, default)")

    def no_rebinding(self, target, node):
        if target.id in self.dicts:
            raise self.error(node, f"assigning to the **{target.id} parameter",
                             hint=f"give the new value a name of its own; srcad reads "
                             f"{target.id} as the keyword arguments of the call")

    def kwargs_error(self, node, name=None):
        name = name or root_name(node) or "kwargs"
        return self.error(node, f"using **{name} other than by {name}['key'], "
                          f"{name}.get('key', default) or passing it on (f(**{name}))",
                          hint=f"read the keyword arguments you need from {name} one by one, "
                          "or name them as parameters")

    # ---------------------------------------------------------------- local functions

    def stmt_FunctionDef(self, node):
        if node.decorator_list:
            raise self.error(node, "a decorated def inside the function",
                             hint="define the decorated helper at module level")
        self.local_function(node.name, node, node)

    def local_function(self, name, fdef, node):
        """Lift a nested ``def`` (or a named lambda) to a function of its own whose
        parameters include the outer values it reads; calls pass those values in, so
        gradients flow through them too."""
        local_names = {a.id for a in fdef.args.posonlyargs + fdef.args.args
                       + fdef.args.kwonlyargs + [fdef.args.vararg, fdef.args.kwarg] if a}
        body = fdef.body if isinstance(fdef.body, list) else [fdef.body]
        assigned, loaded, late = nested_reads(body)
        _check_late(self, name, [n for n in late if n not in assigned | local_names], node)
        for default in fdef.args.defaults + [d for d in fdef.args.kw_defaults if d]:
            for sub in walk_nodes(default):
                if isinstance(sub, gast.Name) and (sub.id in self.env or sub.id in
                                                   self.source.closure):
                    raise lower_defaults.refusal(self, fdef, node, local_names)
        for n in loaded:
            if n in self.dicts and n not in self.env and n not in local_names:
                raise self.kwargs_error(node, n)
        recursive = name in loaded  # (a call of itself: rewritten below, else refused)
        loaded = [n for n in loaded if n != name]
        # Python's scoping: a name the enclosing function assigns anywhere (even after this
        # def) is its local, read when the nested function is called
        outer = set(self.env) | set(self.source.closure) | set(self.local_functions)
        outer |= enclosing_locals(self.source.node)
        captured = [n for n in loaded
                    if n not in local_names and n not in assigned and n in outer]
        # a closure variable of the enclosing function stays one (the same cell, read live, a
        # constant as every closure value is): a function held there is then a known callee
        locals_here = enclosing_locals(self.source.node)
        held = [n for n in captured if n in self.source.cells and n not in self.env
                and n not in locals_here and n not in self.local_functions]
        captured = [n for n in captured if n not in held]
        for n in captured:
            if n in self.local_functions:
                raise self.error(node, f"a nested function calling the nested function {n!r}",
                                 hint="define the helpers at module level")
        if recursive:
            fdef = recursive_defs.self_calls(fdef, name, captured, f"{name}_local")
            if fdef is not None and not recursive_defs.bound_once(self.source.node, name):
                raise self.error(node, f"the nested function {name!r} calls itself by a name "
                                 "the enclosing function binds more than once (its call "
                                 "finds the name's current value, not this function)",
                                 hint="give each nested function a name of its own, bound "
                                 "once, or define it at module level")
            if fdef is None:
                raise self.error(node, f"the nested function {name!r} uses itself other than "
                                 "by calling itself (passed on, or in a function inside it)",
                                 hint="call it by name only, or define it at module level")
        lifted = _lift(fdef, name, captured, self.source, node, held, recursive)
        lifted.__srcad_nests__ = bool(late)  # it may return a function: read as a callee
        self.namer.reserve(lifted.__name__)
        self.local_functions[name] = (lifted, captured)
        self.env.pop(name, None)
        _rebound_as_value(self, name, captured, node)


def _global_array_method(lw, func, node, hint):
    """``X.dot(w)``, ``X.T.dot(w)`` of a global (or closure) array ``X``: the array read
    as any global is (guarded), and the method lowered as that of a local array."""
    obj = lw.expr(func.value)
    method = lw.method_call(obj, func.attr, node, hint)
    if isinstance(method, Exception):
        raise method
    if method is not None:
        return method
    return ir.Prim(ir.Method(func.attr), [obj] + [lw.expr(a) for a in node.args],
                   {k.arg: lw.expr(k.value) for k in node.keywords})


def _local_call(lw, name, node):
    """A call of the nested function ``name`` (lifted): the values it reads passed first."""
    lifted, captured = lw.local_functions[name]
    if name in getattr(lw.source, "nested_generators", ()) and not getattr(
            node, "srcad_consumed", False):
        raise lw.error(node, f"a generator ({name}) kept as an iterator",
                       hint=f"take its values where it is called: for v in {name}(...), "
                       f"list({name}(...)), sum({name}(...))")
    extra = []
    for n in captured:
        if n in lw.env:
            extra.append(lw.env[n])
        elif n in enclosing_locals(lw.source.node) and n not in lw.source.closure:
            raise lw.error(node, f"the nested function {name!r} reads {n!r}, which is "
                           "not assigned yet where it is called",
                           hint=f"assign {n} before calling {name}")
        else:
            extra.append(Const(lw.source.lookup(n), n))
    if getattr(lifted, "__srcad_nests__", False):  # make(w) returning g: converted
        lw.lifted[lifted.__name__] = lifted
        return lw.call_value(lifted, lifted.__name__, extra, {}, node)
    if any(isinstance(a, gast.Starred) for a in node.args):  # f(*w), w's length not known
        lw.lifted[lifted.__name__] = lifted
        spread = gast.copy_location(gast.Call(func=node.func, args=[gast.copy_location(
            gast.Name(id=n, ctx=gast.Load(), annotation=None, type_comment=None), node)
            for n in captured] + node.args, keywords=node.keywords), node)
        return lw.star_call_prim(lifted, lifted.__name__, spread, held=True)
    args = extra + [lw.expr(a) for a in node.args]
    kwargs = {k.arg: lw.expr(k.value) for k in node.keywords}
    if any(isinstance(a, Var) and a.name in lw.passed_iterators
           for a in args + list(kwargs.values())):  # an iterator: read as one there
        return lw.call_object(lifted, None, args, kwargs, node)
    lw.lifted[lifted.__name__] = lifted
    return ir.Prim(lifted, args, kwargs, spelling=lifted.__name__)


def _check_late(lw, name, late, node):
    """The names ``late`` of the enclosing function that a function made inside the nested
    function ``name`` reads (when it is called: Python's value then) must be bound once."""
    top = {t.id for s in lw.source.node.body if isinstance(s, gast.Assign)
           for t in s.targets if isinstance(t, gast.Name)}  # (not in a loop: bound once)
    params = lw.source.node.args
    top |= {a.id for a in params.posonlyargs + params.args + params.kwonlyargs}
    for n in late:
        if lw.stores.get(n, 0) > 1 or n in lw.stores and n not in top:
            raise lw.error(node, f"a function made inside the nested function {name!r} "
                           f"reading {n!r}, which the function assigns more than once or in "
                           "a block (Python reads the value it has when that function is "
                           "called)",
                           hint=f"pass {n} to {name} as an argument, or give each new value "
                           "a name of its own")


def _rebound_as_value(lw, name, captured, node):
    """A nested def (or named lambda) ``name`` bound again elsewhere (another def or lambda
    on another path, ``h = make(w)``): a value of its own, merged as values are (the name is
    not this def everywhere)."""
    if lw.stores.get(name, 0) + sum(isinstance(n, gast.FunctionDef) and n.name == name
                                    for n in walk_nodes(lw.source.node)) <= 1:
        return
    for n in captured:
        if n not in lw.env and n in enclosing_locals(lw.source.node):
            raise lw.error(node, f"a nested function {name!r}, bound more than once, reading "
                           f"{n!r}, which is not assigned yet here", hint=f"assign {n} before "
                           "the def, or give each function a name of its own")
    lw.env[name] = lw.local_function_value(name, node, name, drop=True)


def nested_reads(body):
    """``(assigned, loaded, late)`` of the statements ``body`` of a nested function: the names
    it binds, the names it reads (in order; those the functions defined in it read of the
    outside too), and those the latter read of the outside (read when they are called)."""
    assigned, loaded, late = set(), [], []
    todo = list(reversed(body))
    while todo:
        sub = todo.pop()
        if isinstance(sub, (gast.FunctionDef, gast.Lambda)):
            if isinstance(sub, gast.FunctionDef):
                assigned.add(sub.name)
            args = sub.args
            own = {a.id for a in args.posonlyargs + args.args + args.kwonlyargs} | {
                a.id for a in (args.vararg, args.kwarg) if a is not None}
            inner = sub.body if isinstance(sub.body, list) else [sub.body]
            inner_assigned, inner_loaded, _ = nested_reads(inner)
            free = [n for n in inner_loaded if n not in own and n not in inner_assigned]
            for n in free + [n.id for d in args.defaults + [
                    k for k in args.kw_defaults if k] + getattr(sub, "decorator_list", [])
                    for n in walk_nodes(d) if isinstance(n, gast.Name)]:
                if n not in loaded:
                    loaded.append(n)
                if n not in late and n in free:
                    late.append(n)
            continue
        if isinstance(sub, gast.Name) and isinstance(sub.ctx, gast.Store):
            assigned.add(sub.id)
        elif isinstance(sub, gast.Name) and sub.id not in loaded:
            loaded.append(sub.id)
        todo.extend(reversed(list(gast.iter_child_nodes(sub))))
    return assigned, loaded, late


_lift_count = 0


def _lift(fdef, name, captured, source, node, held=(), recursive=False):
    """A real function for a nested def: the captured outer values become its first
    parameters; the ``held`` names (closure variables of the enclosing function) stay free
    variables, given the enclosing function's own cells; ``recursive``: its own name (its
    calls of itself, :mod:`.recursive_defs`) a closure variable holding it. Its text is
    registered in linecache, so srcad can read it like any other."""
    import ast
    import types
    import weakref

    global _lift_count
    _lift_count += 1
    tree = gast.gast_to_ast(gast.Module(body=[fdef], type_ignores=[]))
    func_ast = tree.body[0]
    func_ast.name = f"{name}_local"
    func_ast.args.args = [ast.arg(arg=n) for n in captured] + func_ast.args.args
    if held or recursive:  # def maker(held...): def name_local(...): ...; return name_local
        tree.body = [ast.FunctionDef(
            name="srcad_closure_maker", args=ast.arguments(
                posonlyargs=[], args=[ast.arg(arg=n) for n in held], kwonlyargs=[],
                kw_defaults=[], defaults=[]),
            body=[func_ast, ast.Return(value=ast.Name(id=func_ast.name, ctx=ast.Load()))],
            decorator_list=[], returns=None, type_params=[])]
    filename = f"<srcad: {name} defined in {source.filename}:{node.lineno} #{_lift_count}>"
    namespace = functions.run_tree(tree, filename, source.globals, source.filename)
    if held or recursive:  # the defaults are made as the def makes them (no local read)
        made = namespace["srcad_closure_maker"](*(source.cells[n].cell_contents for n in held))
        own = dict(zip(made.__code__.co_freevars, made.__closure__ or ()))
        cells = tuple(own[n] if n == func_ast.name else source.cells[n]
                      for n in made.__code__.co_freevars)
        lifted = types.FunctionType(made.__code__, source.globals, func_ast.name,
                                    made.__defaults__, cells)
        if func_ast.name in own:  # it calls itself: the lifted function
            own[func_ast.name].cell_contents = lifted
    else:
        lifted = namespace[func_ast.name]
        lifted = types.FunctionType(lifted.__code__, source.globals, func_ast.name,
                                    lifted.__defaults__)
    weakref.finalize(lifted, functions.forget_source, filename)  # its lines go with it
    lifted.__srcad_site__ = (source.filename, node.lineno)  # for messages (specialise)
    lifted.__srcad_shown__ = name  # messages name the user's m, not srcad's m_local
    return lifted


_COMPREHENSION_CALLS = (sum, min, max, list, tuple, any, all)
#: d.keys(), d.values(), d.items(): lists made by these helpers (a view cannot be indexed)
_DICT_VIEWS = {"keys": containers.dict_keys, "values": containers.dict_values,
               "items": containers.dict_items}


def _needs_resolving(fn):
    """Whether a named callee is a value :meth:`Callees.call_object` rewrites (a bound
    method, a partial, a callable object, ``srcad.grad``, ``srcad.jvp``, a user function
    specialised on the functions or objects passed to it)."""
    if inspect.ismethod(fn) or isinstance(fn, functools.partial) or fn is functools.reduce:
        return True
    if builtin_code.stands_for(fn):  # divmod, math.prod: read as Python
        return True
    if functions.is_derivative_maker(fn) or functions.is_user_function(fn):
        return True
    if getattr(fn, "__srcad_call_maker__", None) is not None or getattr(
            fn, "__srcad_vjp_maker__", None) is not None:  # srcad.jvp, srcad.vjp: nested*
        return True
    if functions.plain_form(fn) is not None:  # a Jacobian or Hessian srcad made
        return True
    if getattr(fn, "__srcad_for_count__", None) is not None:  # the derivative of a *args
        return True  # function: the one made for the call's count (Callees.call_object)
    return not inspect.isroutine(fn) and not isinstance(fn, type) and \
        functions.user_instance_class(fn) is not None


#: NumPy's functions that take the values of a generator expression given them (``np.sum``
#: calls Python's ``sum``, with a warning)
_NUMPY_ITERATING = {"sum", "fromiter"}


def _refuse_lazy_to_numpy(lw, fn, node):
    """``np.stack(v * x for v in xs)``: NumPy does not read a generator as a sequence
    (``np.stack``/``np.concatenate`` raise, ``np.array`` makes an object array holding it,
    ``np.max`` returns it), where srcad would read its values; refused."""
    module = getattr(fn, "__module__", None) or type(fn).__module__ or ""
    if not (module == "numpy" or module.startswith("numpy.")) or getattr(
            fn, "__name__", None) in _NUMPY_ITERATING:
        return
    for a in list(node.args) + [k.value for k in node.keywords]:
        if isinstance(a, gast.GeneratorExp):
            name = dotted(node.func) or getattr(fn, "__name__", "the function")
            raise lw.error(a, f"a generator expression passed to {name}: NumPy does not read "
                           "its values (it takes a generator for one object, or raises)",
                           hint=f"pass a list: {name}([... for v in xs])")


def _is_kwargs_get(lw, func, node):
    return isinstance(func, gast.Attribute) and func.attr == "get" and lw.is_kwargs(
        func.value) and 1 <= len(node.args) <= 2 and not node.keywords


def _kwargs_get(lw, func, node):
    """``kwargs.get("k", d)`` on the ``**kwargs`` parameter: the keyword's value or ``d``."""
    default = node.args[1] if len(node.args) == 2 else gast.Constant(value=None, kind=None)
    return lw.keyword_item(func.value, node.args[0], node, default)


def _array_method(value):
    """Whether ``value`` is a method with a rule bound to an array (``X.dot`` of a global
    array ``X``): called, it is lowered as the method of a local array is."""
    return type(value) is types.BuiltinMethodType and isinstance(
        getattr(value, "__self__", None), np.ndarray) and value.__name__ in registry.methods


def _dict_view(lw, obj, attr, node):
    """``d.items()`` (``values``, ``keys``): a list (the loops index it), made by a helper
    with a rule."""
    helper = _DICT_VIEWS[attr]
    return lw.assign(ir.Prim(helper, [obj], spelling=writes.callee_name(
        lw, helper, f"{attr}_of")), attr, node)


def _keyword_dict(lw, node):
    """``dict(a=x, b=y)``: the dict display ``{"a": x, "b": y}``."""
    return ir.Prim(ir.BUILD_DICT, [a for k in node.keywords
                                   for a in (Const(k.arg), lw.expr(k.value))])
