"""Closure conversion: a function that a helper makes and returns, called by the caller.

``def make(a): b = 2 * a; def g(x): return b * x; return g`` called as ``make(w)(x)`` (or
``h = make(w); h(x)``, a list of them, a lambda or a ``functools.partial`` returned) makes at
run time a function holding ``make``'s local values; the gradient must reach ``w`` through
them. The call ``make(w)`` is read as two functions srcad reads like any other:

* ``make_env``: ``make`` whose ``return g`` became ``return (b,)``: the values ``g`` reads of
  ``make`` (its *environment*), made as ``make`` makes them;
* ``g_local(b, x)``: ``g`` lifted, those values as its first parameters (as a nested ``def``
  is lifted in the function differentiated, :func:`.lower_calls._lift`).

so that ``h = make(w)`` is ``env = make_env(w)`` and ``h`` is ``functools.partial(g_local,
env[0])`` (:meth:`.lower_callees.FunctionValues.partial_value`): ``h(x)`` is ``g_local(env[0],
x)``, differentiated through both. A value ``g`` reads that is a parameter ``make`` never
rebinds is passed from the call itself (a function passed to a decorator factory stays a
known callee). Python reads a closure's variables when it is called; once ``make`` has
returned they do not change (``nonlocal`` is refused here), so the values at the return are
the values the call reads.

Converted when every ``return`` of ``make`` returns the same function: the name of a nested
``def`` bound once, a ``lambda``, or ``functools.partial(F, ...)`` of such a ``def`` or of a
function ``make``'s module names; or ``make``'s parameter itself, never rebound (an identity
decorator: the call is the function given, when that is known where the code is made).
``make`` may take ``*args``/``**kwargs`` (a decorator
factory's options: ``vmap(f, in_axes=0, **kw)``) that the function it makes does not read.
Anything else keeps the refusal at the call of the value.

Imports: the standard library, gast, :mod:`srcad.core`, :mod:`.source` and
:mod:`.dotted_names`.
"""

from __future__ import annotations

import ast
import copy
import functools
import inspect
import itertools
import linecache
import operator
import sys
import types
import weakref

import gast

from ..core import env, ir
from ..core.functions import ByFunction, is_user_function, run_source
from ..core.walk import walk_nodes
from . import closures_paths
from . import source as source_module
from .blocks import own_blocks
from .dotted_names import name_path
from .lower_calls import enclosing_locals

_MADE = ByFunction()
_count = itertools.count(1)


class Conversion:
    """How a call of ``make`` is read. The whole: ``env_fn`` (None: nothing to make), what
    it returns (``target``: one function's Conversion, or for a tuple a list of parts,
    ``("function", Conversion)`` or ``("value", ("env", i))``) and the environment's length
    (``lead``). One function: ``target`` (the lifted function, or the ``(name, attributes)``
    of a function ``make``'s module names), and where each of its leading arguments comes
    from, ``("env", i)`` or ``("param", name)`` (``lead``), and its fixed keywords
    (``keywords``, ``{keyword: source}``: those of a returned partial)."""

    def __init__(self, env_fn, target, lead, keywords):
        self.env_fn, self.target, self.lead, self.keywords = env_fn, target, lead, keywords


class Passed:
    """``make`` returns its parameter ``name`` itself, on every path (an identity decorator:
    ``def checkpoint(fun, **options): return fun``): the call's value is the argument."""

    def __init__(self, name):
        self.name = name


def conversion(fn):
    """The :class:`Conversion` of a user function ``fn`` returning a function, or None."""
    if not is_user_function(fn) or not inspect.isfunction(fn) or \
            inspect.isgeneratorfunction(fn):
        return None
    key = (fn, fn.__code__, fn.__defaults__, fn.__kwdefaults__)
    known = _MADE.get(key, _MISSING)
    if known is not _MISSING:
        return known
    try:
        made = _convert(fn)
    except (source_module.SourceUnavailableError, SyntaxError, TypeError, ValueError):
        made = None
    _MADE[key] = made
    return made


_MISSING = object()


def _returned(fdef):
    """The return statements of ``fdef`` itself (not of its nested functions)."""
    out, todo = [], list(fdef.body)
    while todo:
        node = todo.pop()
        if isinstance(node, (gast.FunctionDef, gast.AsyncFunctionDef, gast.Lambda,
                             gast.ClassDef)):
            continue
        if isinstance(node, gast.Return):
            out.append(node)
        if isinstance(node, (gast.Global, gast.Nonlocal, gast.Yield, gast.YieldFrom)):
            return None
        todo.extend(gast.iter_child_nodes(node))
    return out


def _defs(fdef):
    """``{name: def}`` for the functions ``fdef`` defines in its body (at any depth of its
    own blocks), and how many times each name is bound there."""
    defs, bound, todo = {}, {}, list(fdef.body)
    while todo:
        node = todo.pop()
        if isinstance(node, gast.FunctionDef):
            defs[node.name] = node
            bound[node.name] = bound.get(node.name, 0) + 1
            continue
        if isinstance(node, (gast.Lambda, gast.ClassDef, gast.AsyncFunctionDef)):
            continue
        if isinstance(node, gast.Name) and isinstance(node.ctx, (gast.Store, gast.Del)):
            bound[node.id] = bound.get(node.id, 0) + 1
        todo.extend(gast.iter_child_nodes(node))
    return defs, bound


def _form(value, defs, bound, globals_):
    """What a returned expression is: ``("def", name)``, ``("lambda", node)``, ``("partial",
    inner form or function, args, keywords)``; None for anything else."""
    if isinstance(value, gast.Name) and value.id in defs and bound.get(value.id) == 1:
        return ("def", value.id)
    if isinstance(value, gast.Lambda):
        return ("lambda", value)
    if isinstance(value, gast.Call) and _is_partial(value.func, globals_) and value.args \
            and not any(isinstance(a, gast.Starred) for a in value.args) and all(
                k.arg is not None for k in value.keywords):
        first = value.args[0]
        inner = _form(first, defs, bound, globals_)
        if inner is None or inner[0] != "def":
            found = _dotted(first, globals_)
            if found is None:
                return None
            inner = ("global", found)  # (name, attributes): read at each call
        return ("partial", inner, value.args[1:], value.keywords)
    return None


def _dotted(node, globals_):
    """``(name, attributes)`` of a function the module names (``np.multiply``), or None."""
    path = name_path(node)
    if path is None or path[0] not in globals_:
        return None
    return path if callable(_resolve(globals_, path)) else None


def _resolve(globals_, path):
    value = globals_.get(path[0], _MISSING)
    for attr in path[1]:
        value = getattr(value, attr, _MISSING)
    return value


def _is_partial(func, globals_):
    if isinstance(func, gast.Name):
        return globals_.get(func.id) is functools.partial
    return isinstance(func, gast.Attribute) and func.attr == "partial" and isinstance(
        func.value, gast.Name) and globals_.get(func.value.id) is functools


def _same(a, b):
    return ast.dump(gast.gast_to_ast(a)) == ast.dump(gast.gast_to_ast(b))


def _convert(fn):
    src = source_module.read(fn)
    fdef = copy.deepcopy(src.node)
    args = fdef.args
    _named_lambdas(fdef)  # normalizer = lambda d: ...; return normalizer
    defs, bound = _defs(fdef)
    _split_choices(fdef, defs, bound, src.globals)  # return f1 if c else f2: an if
    returns = _returned(fdef)
    if not returns or any(r.value is None for r in returns):
        return None
    first = returns[0].value
    if isinstance(first, gast.Name) and all(_same(r.value, first) for r in returns[1:]) and (
            first.id in {a.id for a in args.posonlyargs + args.args + args.kwonlyargs}) and (
            bound.get(first.id, 0) == 0):
        return Conversion(None, Passed(first.id), 0, None)
    if not all(_same(r.value, first) for r in returns[1:]):
        # f1 here, f2 there (the module reads this one's helpers, handed down)
        return closures_paths.convert_paths(fn, fdef, returns, defs, bound, src,
                                            sys.modules[__name__])
    several = isinstance(first, gast.Tuple)  # return predict, loss (or n, predict)
    elts = first.elts if several else [first]
    if any(isinstance(e, gast.Starred) for e in elts):
        return None
    forms = [_form(e, defs, bound, src.globals) for e in elts]
    if all(f is None for f in forms) or not several and forms[0] is None:
        return None
    outer = enclosing_locals(fdef, defs=True)
    params = {a.id for a in args.posonlyargs + args.args + args.kwonlyargs}
    starred = {a.id for a in (args.vararg, args.kwarg) if a is not None}
    fixed_params = {p for p in params if bound.get(p, 0) == 0}
    env_exprs, parts, dropped = [], [], set()

    def held(expr):
        env_exprs.append(expr)
        return ("env", len(env_exprs) - 1)

    for elt, form in zip(elts, forms):
        if form is None:  # a value returned beside the functions
            parts.append(("value", held(elt)))
            continue
        lead, keywords = [], {}
        inner = form[1] if form[0] == "partial" else form
        if inner[0] == "global":
            target = inner[1]
        else:
            node = copy.deepcopy(defs[inner[1]] if inner[0] == "def" else _lambda_def(
                inner[1]))
            if not _plain_def(node, src.globals):
                return None
            made = _lift_calling(node, outer, defs, bound, src, fn, ())
            if made is None:
                return None
            target, captured = made
            if set(captured) & starred:  # the made function reads make's *args or **kwargs
                return None
            lead = [("param", n) if n in fixed_params else held(gast.Name(
                id=n, ctx=gast.Load(), annotation=None, type_comment=None)) for n in captured]
            if inner[0] == "def":
                dropped.add(inner[1])
        if form[0] == "partial":
            lead += [held(a) for a in form[2]]
            keywords = {k.arg: held(k.value) for k in form[3]}
        parts.append(("function", Conversion(None, target, lead, keywords)))
    env_fn = None
    if env_exprs:
        env_fn = _env_function(fn, fdef, returns, env_exprs, src, dropped)
    return Conversion(env_fn, parts if several else parts[0][1], len(env_exprs), None)


def _split_choices(fdef, defs, bound, globals_):
    """``return f1 if c else f2`` (each a function ``_form`` knows) as ``if c: return f1``
    ``else: return f2``, in ``fdef``'s own blocks (not its nested functions')."""
    todo = [fdef]
    while todo:
        node = todo.pop()
        for field in ("body", "orelse", "finalbody"):
            block = getattr(node, field, None)
            if not isinstance(block, list):
                continue
            i = 0
            while i < len(block):
                stmt = block[i]
                value = getattr(stmt, "value", None) if isinstance(stmt, gast.Return) else None
                if isinstance(value, gast.IfExp) and all(
                        _form(v, defs, bound, globals_) is not None or isinstance(v, gast.IfExp)
                        for v in (value.body, value.orelse)):
                    block[i] = gast.copy_location(gast.If(
                        test=value.test, body=[gast.copy_location(gast.Return(
                            value=value.body), stmt)], orelse=[gast.copy_location(
                                gast.Return(value=value.orelse), stmt)]), stmt)
                    continue  # its branches may hold another choice
                i += 1
        for child in gast.iter_child_nodes(node):
            if isinstance(child, gast.stmt) and not isinstance(child, (
                    gast.FunctionDef, gast.AsyncFunctionDef, gast.ClassDef)):
                todo.append(child)
            elif isinstance(child, gast.ExceptHandler):
                todo.append(child)


def _lift_calling(node, outer, defs, bound, src, fn, seen):
    """``(lifted function, the names of make it reads)`` for ``node``, a def of ``make``; the
    functions ``make`` defines that it calls (``inner(x)``) lifted too, each call passing the
    values the callee reads first (read by the caller too), the lifted callee a closure
    variable of the lifted caller (a known callee). None: not converted (recursion, a callee
    used other than by a call, a name the caller binds that a callee reads of ``make``)."""
    captured = _captured(node, outer - {node.name})
    if captured is None:
        return None
    calls = [c for c in captured if c in defs]
    if not calls:
        return _lift(node, captured, src, fn), captured
    held = [c for c in captured if c not in defs]
    own = {n.id for n in walk_nodes(node) if isinstance(n, gast.Name) and isinstance(
        n.ctx, (gast.Store, gast.Del))} | {a.id for a in node.args.posonlyargs + node.args.args
                                           + node.args.kwonlyargs}
    callees = {}
    for name in calls:
        sub = copy.deepcopy(defs[name])
        if name in seen or name == node.name or bound.get(name) != 1 or \
                not _plain_def(sub, src.globals):
            return None
        made = _lift_calling(sub, outer, defs, bound, src, fn, seen + (node.name,))
        if made is None or own & set(made[1]):
            return None  # the caller's own name would stand for make's
        callees[name] = made
        held += [h for h in made[1] if h not in held]
    for sub in walk_nodes(node):
        if isinstance(sub, gast.Call) and isinstance(sub.func, gast.Name) and \
                sub.func.id in callees:
            name = sub.func.id
            sub.args = [gast.Name(id=h, ctx=gast.Load(), annotation=None, type_comment=None)
                        for h in callees[name][1]] + sub.args
            sub.func.id = f"{name}_local"
    if any(isinstance(n, gast.Name) and n.id in callees for n in walk_nodes(node)):
        return None  # passed on or stored, not called
    return _lift(node, held, src, fn, {f"{c}_local": m[0] for c, m in callees.items()}), held


def _named_lambdas(fdef):
    """``name = lambda args: e`` in ``fdef``'s own blocks becomes ``def name(args): return
    e``, what Python makes of both but the function's ``__name__``: a maker that binds its
    lambda to a name and returns the name is one returning a nested ``def``."""
    for body in own_blocks(fdef):
        for i, stmt in enumerate(body):
            if isinstance(stmt, gast.Assign) and len(stmt.targets) == 1 and isinstance(
                    stmt.targets[0], gast.Name) and isinstance(stmt.value, gast.Lambda):
                made = _lambda_def(stmt.value)
                made.name = stmt.targets[0].id
                body[i] = gast.copy_location(made, stmt)


def _lambda_def(node):
    fdef = gast.FunctionDef(name="lam", args=node.args, body=[gast.copy_location(
        gast.Return(value=node.body), node)], decorator_list=[], returns=None,
        type_comment=None, type_params=[])
    return gast.copy_location(fdef, node)


def _plain_def(node, globals_):
    """A def srcad lifts as it is: no ``*args``/``**kwargs``, no decorator but
    ``functools.wraps``, no ``nonlocal``, no default reading a name of the enclosing
    function (its defaults are made where it is lifted)."""
    for deco in node.decorator_list:
        call = deco.func if isinstance(deco, gast.Call) else deco
        if not (isinstance(call, gast.Attribute) and call.attr == "wraps" and isinstance(
                call.value, gast.Name) and globals_.get(call.value.id) is functools):
            return False
    node.decorator_list = []
    for sub in walk_nodes(node):
        if isinstance(sub, (gast.Global, gast.Nonlocal, gast.Yield, gast.YieldFrom)):
            return False
    for default in node.args.defaults + [d for d in node.args.kw_defaults if d]:
        if any(isinstance(n, gast.Name) and n.id not in globals_ and n.id not in dir(
                __builtins__ if isinstance(__builtins__, dict) else __builtins__)
               for n in walk_nodes(default)):
            return False
    return True


def _captured(node, outer):
    """The names of the enclosing function ``node`` reads (in order), or None when it reads a
    function the enclosing function defines (not converted)."""
    own = {a.id for a in node.args.posonlyargs + node.args.args + node.args.kwonlyargs}
    assigned = {n.id for n in walk_nodes(node) if isinstance(n, gast.Name)
                and isinstance(n.ctx, (gast.Store, gast.Del))}
    out = []
    for sub in walk_nodes(node):
        if isinstance(sub, gast.Name) and isinstance(sub.ctx, gast.Load) and sub.id in outer \
                and sub.id not in own and sub.id not in assigned and sub.id not in out:
            out.append(sub.id)
    if node.name in out:
        return None  # calls itself
    return out


def _lift(node, captured, src, fn, cells=None):
    """The lifted function: ``captured`` first, then its own parameters; ``cells`` (name ->
    function): its closure variables (the lifted functions of make it calls)."""
    tree = gast.gast_to_ast(gast.Module(body=[node], type_ignores=[]))
    func = tree.body[0]
    func.name = f"{node.name}_local"
    func.args.args = [ast.arg(arg=n) for n in captured] + func.args.args
    filename = (f"<srcad: {node.name} made by {fn.__name__} ({src.filename}:"
                f"{getattr(node, 'lineno', src.first_line)}) #{next(_count)}>")
    lifted = _run_def(tree, filename, src, cells=cells, free=_free(fn))
    lifted.__srcad_shown__ = node.name  # messages name the user's g, not srcad's g_local
    return lifted


def _env_function(fn, fdef, returns, env_exprs, src, dropped):
    """``make`` returning the tuple of ``env_exprs`` where it returned the function; the defs
    ``dropped`` (the returned ones) removed where nothing else reads them."""
    for at, r in enumerate(returns):  # one tuple, or one per return (its path's values)
        elts = env_exprs[at] if env_exprs and isinstance(env_exprs[0], list) else env_exprs
        r.value = gast.Tuple(elts=copy.deepcopy(elts), ctx=gast.Load())
    while True:  # the defs returned, and undecorated ones, that nothing left reads
        defs = _defs(fdef)[0]
        unread = [name for name, node in defs.items() if (
            name in dropped or not node.decorator_list) and not any(
                isinstance(n, gast.Name) and isinstance(n.ctx, gast.Load) and n.id == name
                for other in fdef.body for n in walk_nodes(other) if other is not node)]
        if not unread:
            break
        for name in unread:
            _drop_def(fdef, name)
    fdef.decorator_list = []
    fdef.name = f"{fn.__name__}_env"
    tree = gast.gast_to_ast(gast.Module(body=[fdef], type_ignores=[]))
    filename = (f"<srcad: {fn.__name__} of {src.filename}:{src.first_line} returning the "
                f"values the function it makes reads #{next(_count)}>")
    return _run_def(tree, filename, src, defaults_of=fn, free=_free(fn))


def _free(fn):
    """``{name: cell}`` of ``make``'s closure (a helper nested in a function, a builder's)."""
    return dict(zip(fn.__code__.co_freevars, fn.__closure__ or ()))


def _run_def(tree, filename, src, defaults_of=None, cells=None, free=None):
    """The function the one ``def`` of ``tree`` (an ``ast.Module``) defines, run under
    ``filename`` in the user's globals, with the defaults of ``defaults_of`` (else its own);
    its text leaves linecache when it goes. ``cells`` (name -> value) are closure variables
    of its own; ``free`` (name -> cell) the cells of ``make``'s closure it may read (the same
    cells: read live, as ``make``'s code reads them)."""
    func = tree.body[0]
    name = func.name
    names = list(cells or {}) + [n for n in free or {} if n not in (cells or {})]
    if names:  # a function defining them, so that the def reads them as closure variables
        maker = ast.FunctionDef(name="srcad_cells", args=ast.arguments(
            posonlyargs=[], args=[ast.arg(arg=n) for n in names], vararg=None, kwonlyargs=[],
            kw_defaults=[], kwarg=None, defaults=[]), body=[func, ast.Return(value=ast.Name(
                id=name, ctx=ast.Load()))], decorator_list=[], returns=None, type_params=[])
        tree = ast.Module(body=[maker], type_ignores=[])
    ast.fix_missing_locations(tree)
    made = run_source(ast.unparse(tree) + "\n", filename, src.globals)
    made = made["srcad_cells"](*[(cells or {}).get(n) for n in names]) if names else made[name]
    like = made if defaults_of is None else defaults_of
    closure = None
    if made.__closure__:
        closure = tuple((free or {}).get(n, cell) if n not in (cells or {}) else cell
                        for n, cell in zip(made.__code__.co_freevars, made.__closure__))
    out = types.FunctionType(made.__code__, src.globals, name, like.__defaults__, closure)
    out.__kwdefaults__ = like.__kwdefaults__
    weakref.finalize(out, linecache.cache.pop, filename, None)
    return out


def _drop_def(fdef, name):
    for node in walk_nodes(fdef):
        for field in ("body", "orelse", "finalbody"):
            block = getattr(node, field, None)
            if isinstance(block, list) and node is not None:
                kept = [s for s in block if not (isinstance(s, gast.FunctionDef)
                                                 and s.name == name)]
                if len(kept) != len(block):
                    setattr(node, field, kept or [gast.Pass()])


def refusal_hint(fn):
    """What to write instead of calling a function ``fn`` returned that is not converted, when
    the reason is one of the forms users meet (``nonlocal`` state); None: the general hint."""
    try:
        fdef = source_module.read(fn).node
    except (source_module.SourceUnavailableError, SyntaxError, TypeError, ValueError):
        return None
    written = sorted({name for node in walk_nodes(fdef) if isinstance(node, gast.Nonlocal)
                      for name in node.names})
    counts = set()
    defs = _defs(fdef)[0]
    for r in _returned(fdef) or ():
        value = r.value
        made = defs.get(value.id) if isinstance(value, gast.Name) else value if isinstance(
            value, gast.Lambda) else None
        if made is not None:
            counts.add(len(made.args.posonlyargs + made.args.args + made.args.kwonlyargs))
    starred = {a.id: stars for a, stars in ((fdef.args.vararg, "*"), (fdef.args.kwarg, "**"))
               if a is not None}
    read = {n.id for r in _returned(fdef) or () for made in [defs.get(r.value.id) if isinstance(
        r.value, gast.Name) else r.value] if made is not None for n in walk_nodes(made)
        if isinstance(n, gast.Name)}
    if not written and set(starred) & read:
        name = sorted(set(starred) & read)[0]
        return (f"the function {fn.__name__} returns reads {fn.__name__}'s "
                f"{starred[name]}{name}: srcad passes it the values it reads one by one. "
                f"Name what it "
                f"reads as parameters of {fn.__name__} (def {fn.__name__}(f, scale=1.0))")
    if not written and len(counts) > 1:
        return (f"{fn.__name__} returns functions with different parameters on different "
                "paths: srcad reads a call of what it returns as one function. Give them the "
                "same parameters (lambda t, s=0.0: ...), or return each path's value: call "
                f"the function inside {fn.__name__}")
    if written:
        state = ", ".join(written)
        return (f"the function {fn.__name__} returns keeps state between its calls ("
                f"nonlocal {state}): srcad passes the values a made function reads, not cells "
                f"it writes. Pass the state in and return it: def g(x, {written[0]}): ... "
                f"return y, {written[0]} + 1, called as y, {written[0]} = g(x, {written[0]}); "
                "or compute the value inside " + fn.__name__)
    return None


def call(lw, fn, args, kwargs, node, hint):
    """The value of the call ``fn(*args, **kwargs)`` (atoms) in the lowering ``lw`` when
    ``fn`` returns a function (or a tuple holding functions): a partial of the lifted function
    over the environment ``fn``'s env function makes; None when ``fn`` is not converted."""
    conv = conversion(fn)
    if conv is None:
        return None
    try:
        bound = inspect.signature(fn).bind(*args, **kwargs)
    except TypeError:
        return None
    bound.apply_defaults()
    if isinstance(conv.target, Passed):  # the function given, when it is known here
        value = bound.arguments[conv.target.name]
        known = value.value if isinstance(value, ir.Const) else value
        return ir.Const(known, value.spelling) if isinstance(value, ir.Const) and callable(
            known) else None
    items = []
    if conv.env_fn is not None:
        made = lw.assign(lw.call_object(conv.env_fn, None, list(args), dict(kwargs), node),
                         f"{fn.__name__}_values", node)
        items = [lw.assign(ir.Prim(operator.getitem, [made, ir.Const(i)]), "held", node)
                 for i in range(conv.lead)]

    def atom(where):
        kind, key = where
        if kind == "env":
            return items[key]
        value = bound.arguments[key]
        return value if isinstance(value, (ir.Var, ir.Const)) else lw.bound_const(value, key)

    def function(part):
        target = part.target
        if isinstance(target, tuple):  # a function make's module names: read, guarded, now
            target = _resolve(fn.__globals__, target)
            env.record(env.Read(fn.__globals__, None, part.target[0], part.target[1], target))
            if not callable(target):
                raise lw.error(node, f"a function {fn.__name__} returns: "
                               f"{'.'.join((part.target[0],) + part.target[1])} is not one")
        spelled = ir.Const(target, lw.bound_name(target, getattr(target, "__name__", "fn")))
        return lw.partial_value(spelled, [atom(w) for w in part.lead],
                                {k: atom(w) for k, w in part.keywords.items()}, node, hint)

    if isinstance(conv.target, Conversion):
        return function(conv.target)
    parts = [function(p) if kind == "function" else atom(p) for kind, p in conv.target]
    return ir.Prim(ir.BUILD_TUPLE, parts)
