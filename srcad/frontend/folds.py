"""``functools.reduce`` as srcad reads it: a plain Python loop.

A call ``functools.reduce(f, xs)`` (or ``reduce(f, xs, initial)``) in code srcad differentiates
is a call of :func:`reduce_code`'s function for that many arguments, written out here as Python
source and read like the user's own code (its globals name a module of
:data:`srcad.core.functions.USER_LEVEL`): ``acc = initial; for item in xs: acc = f(acc, item)``.
The callee is made for the function ``f`` passed (as ``apply(np.sin, x)`` is), so the sweeps
differentiate each call of ``f`` on the way, whatever ``f`` is (a lambda, ``operator.mul``,
``np.dot``, a function of the user's).

``itertools.accumulate`` and ``itertools.starmap`` are rewritten in the parsed function
(:func:`itertools_calls`, before desugaring): ``accumulate(xs)``, ``accumulate(xs, f)``,
``accumulate(xs, f, initial=c)`` a call of a generator function written out here
(:func:`accumulate_code`: ``total = f(total, item); yield total``), which srcad reads like a
generator of the user's (its values taken at once: the list it yields; passed to a function
of yours: an iterator over them); ``starmap(f, pairs)`` the generator expression ``(f(a0, a1)
for a0, a1 in pairs)`` when ``f`` takes a fixed number of positional arguments (a lambda, a
function of yours, a ufunc), whose unpacking raises as ``f(*t)`` would on a tuple of another
length. When ``f`` has defaults (``def term(a, b, c=2.0)``), each item may give two or three
arguments: ``(f(t[0], t[1]) if starmap_length(t, 2, 3, where) == 2 else f(t[0], t[1], t[2])
for t in pairs)``, :func:`starmap_length` checking that the item is a list, tuple or array of
such a length (Python's TypeError otherwise; a dict, whose ``*`` gives its keys, refused).

Imports the standard library, gast, NumPy, :mod:`srcad.core`, :mod:`srcad.errors` and
:mod:`srcad.rules.registry` (to declare :func:`starmap_length` constant).
"""

from __future__ import annotations

import builtins
import inspect
import itertools

import gast
import numpy as np

from ..core.functions import USER_LEVEL, run_source
from ..core.walk import walk_nodes
from ..errors import UnsupportedSyntaxError
from ..rules.registry import registry as _registry

_TEXT = {
    3: '''def reduce(function, iterable, initial):
    """functools.reduce with an initial value, as a loop srcad differentiates."""
    value = initial
    for item in iterable:
        value = function(value, item)
    return value
''',
    2: '''def reduce(function, iterable):
    """functools.reduce without an initial value, as a loop srcad differentiates."""
    items = list(iterable)
    if len(items) == 0:
        raise TypeError("reduce() of empty iterable with no initial value")
    value = items[0]
    for item in items[1:]:
        value = function(value, item)
    return value
''',
}
_MADE = {}


def reduce_code(count):
    """The plain function standing for ``functools.reduce`` called with ``count`` (2 or 3)
    positional arguments, or ``None`` for another count."""
    if count not in _TEXT:
        return None
    made = _MADE.get(count)
    if made is None:
        namespace = run_source(_TEXT[count], f"<srcad: functools.reduce of {count} arguments>",
                               {"__name__": f"{USER_LEVEL}.folds"})
        made = _MADE[count] = namespace["reduce"]
    return made


_ACCUMULATE = {
    (False, False): '''def accumulate(iterable):
    """itertools.accumulate(xs): running sums, as a generator srcad reads."""
    items = list(iterable)
    if len(items) > 0:
        total = items[0]
        yield total
        for item in items[1:]:
            total = total + item
            yield total
''',
    (True, False): '''def accumulate(iterable, func):
    """itertools.accumulate(xs, func), as a generator srcad reads."""
    items = list(iterable)
    if len(items) > 0:
        total = items[0]
        yield total
        for item in items[1:]:
            total = func(total, item)
            yield total
''',
    (False, True): '''def accumulate(iterable, initial):
    """itertools.accumulate(xs, initial=c), as a generator srcad reads."""
    total = initial
    yield total
    for item in iterable:
        total = total + item
        yield total
''',
    (True, True): '''def accumulate(iterable, func, initial):
    """itertools.accumulate(xs, func, initial=c), as a generator srcad reads."""
    total = initial
    yield total
    for item in iterable:
        total = func(total, item)
        yield total
''',
}


def accumulate_code(func, initial):
    """The generator function standing for ``itertools.accumulate`` called with (or without)
    a function and an initial value."""
    key = ("accumulate", func, initial)
    made = _MADE.get(key)
    if made is None:
        namespace = run_source(_ACCUMULATE[func, initial], f"<srcad: itertools.accumulate "
                               f"func={func} initial={initial}>",
                               {"__name__": f"{USER_LEVEL}.folds"})
        made = _MADE[key] = namespace["accumulate"]
    return made


def _resolve(src, node, stored=None):
    """What ``node`` names (``stored``: :func:`_stored` of ``src.node``, if known)."""
    if isinstance(node, gast.Name) and node.id not in (
            _stored(src.node) if stored is None else stored):
        return src.closure.get(node.id, src.globals.get(node.id, getattr(
            builtins, node.id, None)))
    if isinstance(node, gast.Attribute) and isinstance(node.value, gast.Name):
        base = _resolve(src, node.value, stored)
        if inspect.ismodule(base):
            return getattr(base, node.attr, None)
    return None


def _stored(fdef):
    args = fdef.args
    names = {a.id for a in args.posonlyargs + args.args + args.kwonlyargs}
    return names | {n.id for n in walk_nodes(fdef) if isinstance(n, gast.Name)
                    and isinstance(n.ctx, gast.Store)}


def _arity(src, node, stored=None):
    """``(fewest, most)`` positional arguments the function ``node`` names takes (``most -
    fewest`` of them have defaults; no ``*args``, every keyword-only parameter a default),
    else None."""
    if isinstance(node, gast.Lambda):
        args = node.args
        if args.vararg or args.kwarg or any(d is None for d in args.kw_defaults):
            return None
        n = len(args.posonlyargs + args.args)
        return n - len(args.defaults), n
    fn = _resolve(src, node, stored)
    if isinstance(fn, np.ufunc):
        return fn.nin, fn.nin
    if inspect.isfunction(fn):
        code = fn.__code__
        if code.co_flags & inspect.CO_VARARGS or set(code.co_varnames[
                code.co_argcount:code.co_argcount + code.co_kwonlyargcount]) - set(
                fn.__kwdefaults__ or {}):
            return None
        return code.co_argcount - len(fn.__defaults__ or ()), code.co_argcount
    return None


def starmap_length(item, fewest, most, where):
    """``len(item)`` after checking that ``item`` is what ``itertools.starmap(f, items)``
    spreads into ``f`` by position as srcad reads it (a list, tuple or array of ``fewest`` to
    ``most`` items: Python's TypeError for another length); ``where``: file, line, text."""
    if not (isinstance(item, (list, tuple)) or isinstance(item, np.ndarray) and item.ndim):
        filename, lineno, text = where
        raise UnsupportedSyntaxError(
            f"itertools.starmap of an item that is a {type(item).__name__}: srcad spreads "
            "each item by position", filename=filename, lineno=lineno, construct=text,
            hint="give starmap lists or tuples (pairs = [(a, b), ...])")
    if not fewest <= len(item) <= most:
        raise TypeError(f"starmap's function takes from {fewest} to {most} positional "
                        f"arguments but {len(item)} were given")
    return len(item)


_registry.nondiff.add(starmap_length)  # a check and a count: no derivative


def _by_length(src, node, name, fewest, most):
    """The target and the element of ``starmap(f, items)`` read as a generator expression
    when ``f`` takes ``fewest`` to ``most`` positional arguments: each item ``name`` spread
    by its length (:func:`starmap_length`)."""
    check = f"srcad_starmap_length_{name}"
    where = f"srcad_starmap_where_{name}"
    src.closure[check] = starmap_length
    src.closure[where] = (src.filename, node.lineno, src.line_text(node.lineno))
    src.bound = {**getattr(src, "bound", {}), check: starmap_length, where: src.closure[where]}

    def length():
        return gast.Call(func=_load(check), args=[_load(name), gast.Constant(
            value=fewest, kind=None), gast.Constant(value=most, kind=None), _load(where)],
            keywords=[])

    def call(k):
        return gast.Call(func=node.args[0], args=[gast.Subscript(
            value=_load(name), slice=gast.Constant(value=i, kind=None), ctx=gast.Load())
            for i in range(k)], keywords=[])

    elt = call(most)
    for k in range(most - 1, fewest - 1, -1):
        test = gast.Compare(left=length(), ops=[gast.Eq()], comparators=[gast.Constant(
            value=k, kind=None)])
        elt = gast.IfExp(test=test, body=call(k), orelse=elt)
    target = gast.Name(id=name, ctx=gast.Store(), annotation=None, type_comment=None)
    return target, elt


def _load(id_):
    return gast.Name(id=id_, ctx=gast.Load(), annotation=None, type_comment=None)


def itertools_calls(src):
    """Rewrite ``itertools.accumulate`` and ``itertools.starmap`` calls in ``src.node``, see
    above (a form not listed is left: no rule, refused)."""
    fdef = src.node
    count = 0
    parents = {}
    for node in walk_nodes(fdef):
        for field, value in gast.iter_fields(node):
            if isinstance(value, gast.AST):
                parents[id(value)] = (node, field, None)
            elif isinstance(value, list):
                for i, item in enumerate(value):
                    parents[id(item)] = (node, field, i)
    stored = _stored(fdef)  # one walk, made again after a rewrite that stores names
    for node in list(walk_nodes(fdef)):
        if not isinstance(node, gast.Call) or any(isinstance(a, gast.Starred)
                                                  for a in node.args):
            continue
        fn = _resolve(src, node.func, stored)
        keys = {k.arg: k.value for k in node.keywords}
        if fn is itertools.accumulate and 1 <= len(node.args) <= 2 and set(keys) <= {
                "func", "initial"} and not ("func" in keys and len(node.args) == 2):
            func = node.args[1] if len(node.args) == 2 else keys.get("func")
            if isinstance(func, gast.Constant) and func.value is None:
                func = None
            initial = keys.get("initial")
            if isinstance(initial, gast.Constant) and initial.value is None:
                initial = None
            made = accumulate_code(func is not None, initial is not None)
            name = f"srcad_accumulate_{func is not None:d}{initial is not None:d}"
            src.closure[name] = made
            src.bound = {**getattr(src, "bound", {}), name: made}
            node.func = gast.copy_location(_load(name), node.func)
            node.args = [node.args[0]] + [a for a in (func, initial) if a is not None]
            node.keywords = []
        elif fn is itertools.starmap and len(node.args) == 2 and not node.keywords:
            arity = _arity(src, node.args[0], stored)
            if arity is None:
                continue
            fewest, n = arity
            count += 1
            taken = {m.id for m in walk_nodes(fdef) if isinstance(m, gast.Name)}
            suffix = "" if count == 1 else f"_{count}"
            while any(f"arg{i}{suffix}" in taken for i in range(n)) or f"args{suffix}" in taken:
                suffix += "_"
            if fewest == n:
                names = [f"arg{i}{suffix}" for i in range(n)]
                target = gast.Tuple(elts=[gast.Name(id=v, ctx=gast.Store(), annotation=None,
                                                    type_comment=None) for v in names],
                                    ctx=gast.Store())
                elt = gast.Call(func=node.args[0], args=[_load(v) for v in names], keywords=[])
            else:
                target, elt = _by_length(src, node, f"args{suffix}", fewest, n)
            made = gast.GeneratorExp(elt=elt, generators=[gast.comprehension(
                target=target, iter=node.args[1], ifs=[], is_async=0)])
            for sub in walk_nodes(made):
                if "lineno" in sub._attributes and getattr(sub, "lineno", None) is None:
                    gast.copy_location(sub, node)
            parent, field, index = parents[id(node)]
            if index is None:
                setattr(parent, field, made)
            else:
                getattr(parent, field)[index] = made
            stored = _stored(fdef)
