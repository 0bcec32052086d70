"""Iterators and lists of functions passed to a function of the user's (issue 16):
``consume(iter(xs))``, ``consume(v * x for v in xs)``, ``consume(map(f, xs))``,
``consume(it)``, ``apply_all([np.sin, g], x)``.

An iterator is read once: a second loop over it yields nothing. So a callee given one must
not be read as given a list (``twice(v * x for v in xs)``, looping twice, would count every
item twice). The call is rewritten on the caller's side, before desugaring:

* an argument that makes an iterator where it is passed (a generator expression, ``iter(xs)``,
  ``map``, ``filter``, ``zip``, ``enumerate``, ``reversed``, ``itertools.starmap``, a call of
  a generator function of yours) becomes ``srcad_iterator(list(...))`` (``tuple(xs)`` for
  ``iter(xs)``): its items, taken where Python makes the iterator (the arguments of ``map``
  and of a generator expression's first ``for`` are evaluated there too; what a generator
  expression reads later is checked not to change: see :func:`lazy_reads_fixed`);
* :meth:`srcad.frontend.lower_callees.Callees.call_object` reads ``srcad_iterator(items)``
  as ``tuple(items)`` and the callee is specialised with that parameter marked
  :data:`ITERATED` (:func:`srcad.core.functions.specialised`);
* in the callee (:func:`srcad.frontend.lower_next.lower`) such a parameter ``it`` is an
  iterator over the tuple it is given: a position counter starting at 0, every ``next(it)``
  an item read by position and every ``for v in it`` a loop over what is left, as for
  ``it = iter(xs)`` made there. A use of it that :mod:`.lower_next` does not read so is
  refused at its line (never read as a tuple).

A list or dict display of functions known where the code is made (``apply_all([lambda v: v *
v, np.sin], x)``, or a name bound once to one and only read) is passed the same way, as
``srcad_functions(display)``: the callee is specialised on a :class:`FunctionsPassed` mark and
reads the parameter as the tuple (or a dict) of those functions, as it reads a tuple of
functions passed (:func:`function_tuple`, :func:`fixed_function`: which values a callee is
made for); a use of that parameter other than reading it is refused (:func:`check_reads`).

Imports gast, NumPy, :mod:`srcad.core` and :mod:`srcad.errors`.
"""

from __future__ import annotations

import builtins
import functools
import inspect
import itertools

import gast
import numpy as np

from ..core import functions, ir
from ..core.ir import Const, Var
from ..core.walk import walk_nodes
from ..errors import UnsupportedSyntaxError
from .blocks import own_blocks


class _Iterated:
    """The mark of a parameter given an iterator (its items, as a tuple)."""

    def __repr__(self):
        return "ITERATED"

    def __reduce__(self):
        return "ITERATED"


#: a specialisation's fixed value for a parameter given an iterator
ITERATED = _Iterated()


class FunctionsPassed:
    """The mark of a parameter given a list or dict display of known functions
    (``apply_all([np.sin, g], x)``): the callee is made for them, as for a tuple of
    functions; it may only read the container (checked in the callee: :func:`check_reads`)."""

    def __init__(self, kind, items):
        self.kind, self.items = kind, tuple(items)

    def __eq__(self, other):
        return isinstance(other, FunctionsPassed) and (self.kind, self.items) == (
            other.kind, other.items)

    def __hash__(self):
        return hash((self.kind, self.items))

    def __repr__(self):
        return f"FunctionsPassed({self.kind}, {self.items!r})"

    def value(self):
        """What the callee reads: the tuple of the functions (a list's), or a dict of them."""
        return self.items if self.kind == "list" else dict(self.items)


def srcad_functions(container):
    """A list or dict display of functions passed to a function of yours (lowered as the
    display, the callee made for the functions it holds)."""
    return container


# ---------------------------------------------------------------- functions a callee is made for


def fixed_function(value):
    """Whether an argument of the function differentiated is a function the code is made for
    (a plain function, a builtin or ufunc, a bound method, a ``functools.partial``, a
    derivative srcad made), not an object of the user's class (keyed by its class)."""
    return function_tuple(value) or functions.is_function_value(value) and (
        inspect.isroutine(value) or isinstance(value, (functools.partial, np.ufunc))
        or functions.is_derivative(value))


def function_tuple(value):
    """Whether ``value`` is a tuple of functions (or of such tuples): a callee given one is
    made for it, as for a function (``for f in fs: f(x)`` calls each as named; a tuple
    cannot change, so the code holds while it is passed)."""
    return type(value) is tuple and 0 < len(value) <= 64 and all(
        function_tuple(v) or fixed_function(v) and not is_instance(v) for v in value)


def is_instance(value):
    return functions.user_instance_class(value) is not None and not inspect.isroutine(value) \
        and not isinstance(value, functools.partial)


def srcad_iterator(items):
    """The items of an iterator passed to a function of yours (lowered as ``tuple(items)``,
    the callee reading the parameter as an iterator over them)."""
    return tuple(items)


#: builtins that make an iterator of their arguments
_MAKERS = ("map", "filter", "zip", "enumerate", "reversed")
#: the names bound in the rewritten function for srcad_iterator, srcad_functions
MARK = "srcad_iterator"
FUNCTIONS = "srcad_functions"


def _resolve(src, node):
    """The object a call's function names, when it is a plain global, closure or builtin
    name (not a local of the function), or ``module.name``; else None."""
    if isinstance(node, gast.Name):
        if node.id in src.closure:
            return src.closure[node.id]
        if node.id in src.globals:
            return src.globals[node.id]
        return getattr(builtins, node.id, None)
    if isinstance(node, gast.Attribute) and isinstance(node.value, gast.Name):
        base = _resolve(src, node.value)
        if inspect.ismodule(base):
            return getattr(base, node.attr, None)
    return None


def own_names(fdef):
    """The names ``fdef`` binds (parameters, assignments, nested ``def``'s, ``for``
    targets), each with how many times it binds it."""
    args = fdef.args
    own = {}
    names = [a.id for a in args.posonlyargs + args.args + args.kwonlyargs]
    names += [a.id for a in (args.vararg, args.kwarg) if a is not None]
    for node in walk_nodes(fdef):
        if isinstance(node, gast.Name) and isinstance(node.ctx, (gast.Store, gast.Del)):
            names.append(node.id)
        elif isinstance(node, gast.FunctionDef) and node is not fdef:
            names.append(node.name)
    for name in names:
        own[name] = own.get(name, 0) + 1
    return own


def _nested_defs(fdef):
    return {s.name for s in walk_nodes(fdef) if isinstance(s, gast.FunctionDef)
            and s is not fdef and not any(isinstance(n, (gast.Yield, gast.YieldFrom))
                                          for n in walk_nodes(s))}


def user_callee(src, call, own):
    """Whether ``call`` calls a function of the user's (a module-level or closure function,
    not a generator function, named by a name the function does not bind; or a nested
    ``def`` of the function, bound once: ``own`` maps the names to how often they are)."""
    func = call.func
    if isinstance(func, gast.Name) and func.id in own:
        return own[func.id] == 1 and func.id in _nested_defs(src.node)
    fn = _resolve(src, func)
    return fn is not None and inspect.isfunction(fn) and functions.is_user_function(fn) \
        and not inspect.isgeneratorfunction(fn)


def may_be_users(src, call, own):
    """Whether ``call`` may call a function of yours: anything but a builtin, a class, or a
    function or object of a library, named where the code is made. A function of yours given
    an iterator reads it as one (:func:`user_callee`; a method, a function passed in, a
    lambda, a partial: the same, once lowering knows the function); a callable that turns out
    not to be one of yours gets the tuple of the items, which it reads as the iterator."""
    func = call.func
    if isinstance(func, gast.Name) and func.id in (MARK, FUNCTIONS):
        return False  # a mark this rewrite wrote
    if user_callee(src, call, own):
        return True
    root = func
    while isinstance(root, gast.Attribute):
        root = root.value
    if not isinstance(root, gast.Name) or root.id in own:
        return True  # a local, a parameter, a lambda called, fs[0](...): maybe yours
    fn = _resolve(src, func)
    if fn is None:  # an attribute of an object (a method); not a name bound nowhere
        return isinstance(func, gast.Attribute)
    return functions.is_user_function(getattr(fn, "__func__", fn)) or isinstance(
        fn, functools.partial) or not inspect.isroutine(fn) and not isinstance(
            fn, type) and functions.user_instance_class(fn) is not None


def _call(name, args):
    return gast.Call(func=gast.Name(id=name, ctx=gast.Load(), annotation=None,
                                    type_comment=None), args=args, keywords=[])


def _items(src, node):
    """The expression of the items of the iterator ``node`` makes, or None if ``node`` is
    not an expression making an iterator."""
    if isinstance(node, gast.GeneratorExp):
        return node
    if not isinstance(node, gast.Call) or any(isinstance(a, gast.Starred) for a in node.args):
        return None
    fn = _resolve(src, node.func)
    if fn is iter and len(node.args) == 1 and not node.keywords:
        return node.args[0]  # its items: tuple(xs), where iter is called
    if any(fn is getattr(builtins, m) for m in _MAKERS) or fn is itertools.starmap or (
            inspect.isgeneratorfunction(fn) and functions.is_user_function(fn)):
        return _call("list", [node])
    return None


def lazy_reads_fixed(fdef, genexp, stores):
    """Whether a generator expression's items are the same taken where it is made as where
    Python takes them: every name its element, conditions and later ``for``'s read (not its
    own targets) is bound once in the function (or not at all) and changed in place nowhere."""
    targets = {n.id for g in genexp.generators for n in walk_nodes(g.target)
               if isinstance(n, gast.Name)}
    lazy = [genexp.elt] + [c for g in genexp.generators for c in g.ifs] + [
        g.iter for g in genexp.generators[1:]]
    read = {n.id for part in lazy for n in walk_nodes(part) if isinstance(n, gast.Name)
            and isinstance(n.ctx, gast.Load)} - targets
    if any(stores.get(n, 0) > 1 for n in read):
        return False
    for node in walk_nodes(fdef):
        target = None
        if isinstance(node, gast.Subscript) and not isinstance(node.ctx, gast.Load):
            target = node.value
        elif isinstance(node, gast.AugAssign):
            target = node.target
        elif isinstance(node, gast.Call) and isinstance(node.func, gast.Attribute):
            target = node.func.value
        while isinstance(target, (gast.Subscript, gast.Attribute)):
            target = target.value
        if isinstance(target, gast.Name) and target.id in read:
            return False
    return True


def error(src, node, message, hint):
    line = getattr(node, "lineno", None)
    return UnsupportedSyntaxError(message, filename=src.filename, lineno=line,
                                  construct=src.line_text(line), hint=hint)


def mark_arguments(src):
    """Rewrite, in ``src.node``'s own body, every argument of a call of a function of yours
    that makes an iterator there, as above. Binds :data:`MARK` when it does."""
    fdef = src.node
    own = own_names(fdef)
    lists = _function_lists(src, fdef, own)
    done = False
    for block in own_blocks(fdef):
        for stmt in block:
            for call in _calls(stmt):
                if not may_be_users(src, call, own):
                    continue
                for holder, field, index in arguments(call):
                    node = getattr(holder, field) if index is None else \
                        getattr(holder, field)[index]
                    items = _items(src, node)
                    mark = MARK
                    if items is None and (_function_display(node) or isinstance(
                            node, gast.Name) and node.id in lists):
                        items, mark = node, FUNCTIONS
                    if items is None:
                        continue
                    made = gast.copy_location(_call(mark, [items]), node)
                    for sub in walk_nodes(made):
                        if "lineno" in sub._attributes and getattr(sub, "lineno", None) \
                                is None:
                            gast.copy_location(sub, node)
                    if index is None:
                        setattr(holder, field, made)
                    else:
                        getattr(holder, field)[index] = made
                    done = True
    if done:
        bind(src)


def bind(src):
    src.closure[MARK], src.closure[FUNCTIONS] = srcad_iterator, srcad_functions
    src.bound = {**getattr(src, "bound", {}), MARK: srcad_iterator,
                 FUNCTIONS: srcad_functions}


def _function_like(node):
    return isinstance(node, (gast.Name, gast.Attribute, gast.Lambda)) or isinstance(
        node, gast.Call) and isinstance(node.func, (gast.Name, gast.Attribute)) and (
            getattr(node.func, "id", None) == "partial" or getattr(
                node.func, "attr", None) == "partial")


def _function_display(node):
    """Whether ``node`` is a list display of function-like items, or a dict display of
    them under constant keys (which are functions is known when the code is made)."""
    if isinstance(node, gast.List):
        return bool(node.elts) and all(_function_like(e) for e in node.elts)
    if isinstance(node, gast.Dict):
        return bool(node.keys) and all(
            isinstance(k, gast.Constant) and type(k.value) in (int, str) for k in node.keys) \
            and all(_function_like(v) for v in node.values)
    return False


def _function_lists(src, fdef, own):
    """Names bound once to a function display (:func:`_function_display`) and only read:
    passed to a call of a function of yours, looped over, indexed, ``len``."""
    made = {}
    for node in walk_nodes(fdef):
        if isinstance(node, gast.Assign) and len(node.targets) == 1 and isinstance(
                node.targets[0], gast.Name) and own.get(node.targets[0].id) == 1 and \
                _function_display(node.value):
            made[node.targets[0].id] = node
    if not made:
        return set()
    parents = {}
    for node in walk_nodes(fdef):
        for child in gast.iter_child_nodes(node):
            parents[id(child)] = node
    for node in walk_nodes(fdef):
        if not (isinstance(node, gast.Name) and node.id in made and isinstance(
                node.ctx, gast.Load)):
            continue
        parent = parents.get(id(node))
        if isinstance(parent, gast.Call) and node in parent.args and (
                user_callee(src, parent, own) or _resolve(src, parent.func) in (
                    len, enumerate, zip, reversed)):
            continue
        if isinstance(parent, gast.keyword) and user_callee(src, parents.get(id(parent)),
                                                            own):
            continue
        if isinstance(parent, (gast.For, gast.comprehension)) and parent.iter is node or \
                isinstance(parent, gast.Subscript) and parent.value is node and isinstance(
                    parent.ctx, gast.Load):
            continue
        made.pop(node.id, None)
    return set(made)


#: calls reading a container of functions passed in (with it as their first argument)
_READS = (len, enumerate, zip, reversed, sorted, list, tuple)
#: methods reading a dict of functions passed in
_DICT_READS = ("items", "values", "keys", "get")


def check_reads(src):
    """Refuse, at its line, a use of a parameter given a list or dict of functions
    (:class:`FunctionsPassed`) other than reading it: a loop over it, ``p[k]``, ``len(p)``,
    ``zip``/``enumerate``/``reversed`` of it, ``p.items()``, passing it to a function of
    yours. (The callee is made for the functions, holding them in a tuple or a dict of its
    own: a change, or the container itself returned, would not be the caller's.)"""
    fdef = src.node
    marked = [p for p, v in functions.fixed_of(src.func).items()
              if isinstance(v, FunctionsPassed)]
    if not marked:
        return
    parents = {}
    for node in walk_nodes(fdef):
        for child in gast.iter_child_nodes(node):
            parents[id(child)] = node
    own = own_names(fdef)
    for node in walk_nodes(fdef):
        if not (isinstance(node, gast.Name) and node.id in marked) or isinstance(
                node.ctx, gast.Param):
            continue
        parent = parents.get(id(node))
        if isinstance(node.ctx, gast.Load) and (
                isinstance(parent, (gast.For, gast.comprehension)) and parent.iter is node
                or isinstance(parent, gast.Subscript) and parent.value is node and isinstance(
                    parent.ctx, gast.Load)
                or isinstance(parent, gast.Call) and node in parent.args and (
                    _resolve(src, parent.func) in _READS or user_callee(src, parent, own))
                or isinstance(parent, gast.keyword) and user_callee(
                    src, parents.get(id(parent)), own)
                or isinstance(parent, gast.Attribute) and parent.attr in _DICT_READS and
                isinstance(parents.get(id(parent)), gast.Call)):
            continue
        raise error(src, node, f"the parameter {node.id!r} of {fdef.name}, given a list or "
                    "dict of functions by the caller, used other than by reading it (srcad "
                    "makes the code for the functions it holds, in a container of its own)",
                    f"loop over {node.id}, index it, take len({node.id}), or pass it on; "
                    "build a new list for a changed one: [*fs, g]")


def _calls(stmt):
    """The calls of ``stmt`` outside nested functions and lambdas (those are lifted and
    rewritten when they are read)."""
    todo = [stmt]
    while todo:
        node = todo.pop()
        if isinstance(node, (gast.FunctionDef, gast.Lambda, gast.ClassDef)):
            continue
        if isinstance(node, gast.Call):
            yield node
        if isinstance(node, gast.stmt) and node is not stmt:
            continue  # a nested block: visited as a block of its own
        todo.extend(gast.iter_child_nodes(node))


def arguments(call):
    for i, a in enumerate(call.args):
        if not isinstance(a, gast.Starred):
            yield call, "args", i
    for k in call.keywords:
        if k.arg is not None:
            yield k, "value", None


# ---------------------------------------------------------------- while lowering


#: the marks the rewrite writes around an argument
MARKS = (srcad_iterator, srcad_functions)


def lower_mark(lw, fn, args, node):
    """``srcad_iterator(items)``: ``tuple(items)``, noted as an iterator's items;
    ``srcad_functions(display)``: the display, noted with the functions it holds when each
    item is a function a callee is made for (:func:`function_tuple`), not one holding
    values of the function."""
    if fn is srcad_iterator:
        made = lw.assign(ir.Prim(tuple, args, spelling="tuple"), "items", node)
        lw.passed_iterators.add(made.name)
        return made
    atom = args[0]
    if not isinstance(atom, Var):
        return atom
    if atom.name in lw.lists:
        kind, pairs = "list", [(None, a) for a in lw.lists[atom.name]]
    elif atom.name in lw.dict_displays:
        kind, pairs = "dict", list(lw.dict_displays[atom.name].items())
    else:
        return atom
    if all(isinstance(a, Const) and function_tuple((a.value,)) for _, a in pairs):
        items = [a.value for _, a in pairs] if kind == "list" else [
            (k, a.value) for k, a in pairs]
        lw.function_lists[atom.name] = FunctionsPassed(kind, items)
    return atom


def mark_of(lw, atom):
    """The mark of the parameter a call gives ``atom``: :data:`ITERATED`, a
    :class:`FunctionsPassed`, or None."""
    if isinstance(atom, Var) and atom.name in lw.passed_iterators:
        return ITERATED
    if isinstance(atom, Var):
        return lw.function_lists.get(atom.name)
    return None


def refuse_untaken(lw, fn, args, kwargs, node):
    """Refuse an iterator's items given where no parameter of a function of yours reads
    them as an iterator: to ``*args``, ``**kwargs``, or a callable that is not a function of
    yours (the iterator is not made for it)."""
    given = [a for a in list(args) + list(kwargs.values())
             if isinstance(a, Var) and a.name in lw.passed_iterators]
    if not given:
        return
    try:  # (fn None: no parameter of a function of yours takes them)
        bound = inspect.signature(fn, follow_wrapped=False).bind(*args, **kwargs)
        taken = [bound.arguments.get(p) for p, v in functions.fixed_of(fn).items()
                 if v is ITERATED]
    except (TypeError, ValueError):
        taken = []
    if any(all(a is not t for t in taken) for a in given):
        raise lw.error(node, "an iterator passed where srcad cannot read it as one (to *args "
                       "or **kwargs, to a helper returning a function, or to a callable that "
                       "is not a plain function of yours)",
                       hint="pass list(...) of it, or pass it to a parameter of a function of "
                       "yours by name or position")
