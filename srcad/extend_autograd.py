"""autograd's form of a derivative rule, as :func:`srcad.extend.defvjp` and
:func:`srcad.extend.defjvp` take it: ``defvjp(fn, vjp_maker_0, vjp_maker_1, ..., argnums=None)``
with ``maker(ans, *args, **kwargs)`` returning the function ``g -> gradient`` of its argument,
and ``defjvp(fn, jvp_maker_0, ...)`` with ``maker(t, ans, *args, **kwargs)`` returning the
tangent that argument adds to the result's.

The rule made is an ordinary srcad rule whose templates call the makers. A vjp maker written
as autograd's documentation writes them (``def m(ans, x): ...; return lambda g: E``, or with a
nested ``def``) is also read as one function ``m(g, ans, x)`` returning ``E`` (its *applied*
form, made from its source with the maker's own globals), which is what the templates call:
the generated code reads ``dx = m(g, ans, x)``, and srcad can differentiate that code again
(second order) as any function's. A maker of another shape is called as it is, ``m(ans,
x)(g)``: first order works, a second derivative is refused (the function a call returns is
not known when srcad transforms the code).

Imports :mod:`srcad.errors`, :mod:`srcad.rules` (the names templates read) and
:mod:`srcad.backend.emit` (srcad's helpers' names); :mod:`srcad.extend` registers the rule.
"""

from __future__ import annotations

import ast
import builtins
import inspect
import itertools
import keyword
import linecache
import textwrap
import types
import weakref

from .core.walk import walk_nodes
from .errors import RuleError
from .rules import GENERIC

_BUILTIN_NAMES = set(dir(builtins))


def template_names():
    """The names a rule's template reads as something other than the rule's own: ``g``,
    ``ans``, ``t``, srcad's generic functions, Python's builtins and srcad's helpers."""
    from .backend.emit import HELPER_OBJECTS

    return {"g", "ans", "t"} | set(GENERIC) | _BUILTIN_NAMES | set(HELPER_OBJECTS)

_counter = itertools.count()


#: fn -> {"vjp": {param: maker}, "jvp": {param: maker}}: autograd-form rules given so far
_MAKERS = {}


def autograd_rule(fn, mode, makers, argnums):
    """``(templates, namespace, jvp templates)`` of one rule for ``fn`` from its
    autograd-form makers (``mode`` "vjp" or "jvp"), merged with those given before for the
    other mode. The templates call the makers where the
    generated code needs them: ``maker(ans, x, y)(g)`` (reverse), ``maker(t, ans, x, y)``
    (forward); the makers are read from the rule, never from the caller's globals."""
    name = getattr(fn, "__qualname__", repr(fn))
    if not callable(fn):
        raise RuleError(f"a rule is for a function, got {fn!r}",
                        hint="pass the function itself: defvjp(fn, vjp_maker)")
    try:
        params = inspect.signature(fn).parameters.values()
    except (TypeError, ValueError):
        raise RuleError(f"cannot read the parameters of {name}",
                        hint="give the rule as templates: defvjp(fn, \"x, y\", x=..., y=...)"
                        ) from None
    argnums = range(len(makers)) if argnums is None else argnums
    star = star_items(fn, params, max(argnums, default=-1) + 1)
    if star is None:
        raise RuleError(f"rule for {name}: an autograd-form rule needs named parameters, and "
                        f"{name} takes **kwargs, or keyword-only parameters beside *args",
                        hint="wrap it: def f(x, y): return fn(x, y), and give f the rule")
    positional, keywords = (star, []) if star is not False else rule_parameters(fn, params)
    if len(argnums) != len(makers) or any(not 0 <= i < len(positional) for i in argnums):
        raise RuleError(f"rule for {name}: {len(makers)} makers for argument numbers "
                        f"{list(argnums)}, but {name} takes {len(positional)} positional "
                        "parameters", hint="one maker (or None) per argument, in order")
    for maker in makers:
        if maker is not None and not callable(maker):
            raise RuleError(f"rule for {name}: {maker!r} is not a function",
                            hint="each maker is a function (or None for no derivative)")
    table = _MAKERS.setdefault(fn, {"vjp": {}, "jvp": {}})
    table[mode].update({positional[i]: m for i, m in zip(argnums, makers) if m is not None})
    args = ", ".join(positional + [f"{k}={k}" for k in keywords])
    namespace, vjps, jvps = {}, {}, {}
    taken = set(positional) | set(keywords)
    for kind, out, form in (("vjp", vjps, "{f}(ans, {args})(g)"),
                            ("jvp", jvps, "{f}(t, ans, {args})")):
        for param, maker in table[kind].items():
            spelled = _maker_name(maker, fn, kind, param, taken | set(namespace))
            applied = applied_form(maker) if kind == "vjp" else None
            namespace[spelled] = applied or maker
            out[param] = (form if applied is None else "{f}(g, ans, {args})").format(
                f=spelled, args=args)
    return vjps, namespace, jvps or None, ", ".join(positional) if star is not False else None


def star_items(fn, params, count):
    """The positional parameters of a rule for ``fn`` taking ``*args`` (``fsolve(f, lb, ub,
    *args)``) whose makers are for its first ``count`` positional arguments: the named ones,
    then one per item of ``*args`` up to ``count`` (``args_0, args_1, ...``; more if makers
    given before named more), as autograd gives makers by argument number. The rule is for
    calls passing exactly that many positional arguments (another number of items does not
    fit it: such a call is refused, never given another item's maker). False for a
    function without ``*args``; None for one taking ``**kwargs``, or keyword-only
    parameters beside ``*args``, which no positional rule describes."""
    params = list(params)
    var = [p for p in params if p.kind == p.VAR_POSITIONAL]
    if any(p.kind == p.VAR_KEYWORD for p in params) or var and any(
            p.kind == p.KEYWORD_ONLY for p in params):
        return None
    if not var:
        return False
    named = [p.name for p in params if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]
    taken = set(named)
    known = [q for q in (_MAKERS.get(fn) or {}).get("vjp", {}) | (
        _MAKERS.get(fn) or {}).get("jvp", {}) if q not in taken]
    items = []
    while len(named) + len(items) < max(count, len(named) + len(known)):
        item = f"{var[0].name}_{len(items)}"
        while item in taken or item in ("g", "ans", "t"):
            item += "_"
        items.append(item)
    return named + items


def rule_parameters(fn, params=None):
    """The positional and keyword-only parameters of ``fn`` a rule names: a NumPy ufunc's
    inputs only (``out=``, ``where=``... are not differentiated), else those of its
    signature."""
    params = inspect.signature(fn).parameters.values() if params is None else params
    positional = [p.name for p in params if p.kind != p.KEYWORD_ONLY]
    keywords = [p.name for p in params if p.kind == p.KEYWORD_ONLY]
    nin = getattr(fn, "nin", None)
    if isinstance(nin, int):  # a ufunc: (x1, x2, /, out=None, *, where=True, ...)
        return positional[:nin], []
    return positional, keywords


def forward_only(fn):
    """Whether only forward-mode makers were given for ``fn`` so far (``defjvp`` without
    ``defvjp``)."""
    table = _MAKERS.get(fn)
    return table is not None and not table["vjp"]


def _maker_name(maker, fn, kind, param, taken):
    """The name a maker has in the templates: its own, or ``<fn>_<kind>_<param>`` for a
    lambda, never a name templates read otherwise (a parameter, ``g``, a builtin, one of
    srcad's helpers or generic functions: ``exp`` there would be NumPy's, not the maker)."""
    reserved = taken | template_names()
    own = getattr(maker, "__name__", "")
    if not own.isidentifier() or keyword.iskeyword(own):
        base = getattr(fn, "__name__", "")
        own = f"{base if base.isidentifier() else 'fn'}_{kind}_{param}"
    while own in reserved:
        own += "_"
    return own




def applied_form(maker):
    """``maker`` (``def m(ans, x): S; return lambda g: E``, or ``S; def v(g): B; return v``)
    as one function ``m(g, ans, x)`` running ``S`` then ``E`` (or ``B``), with the maker's
    globals and defaults and its source in ``linecache``; None for a maker of another shape
    (a lambda, a closure, a decorated maker, a return before the last statement)."""
    if not isinstance(maker, types.FunctionType) or maker.__code__.co_freevars:
        return None
    try:
        tree = ast.parse(textwrap.dedent(inspect.getsource(maker)))
    except (OSError, TypeError, SyntaxError):
        return None
    fdef = tree.body[0] if len(tree.body) == 1 else None
    if not isinstance(fdef, ast.FunctionDef) or fdef.decorator_list or not fdef.body:
        return None
    *head, last = fdef.body
    if not isinstance(last, ast.Return) or last.value is None or any(
            isinstance(n, (ast.Return, ast.Yield, ast.YieldFrom, ast.Global, ast.Nonlocal))
            for stmt in head for n in _own_nodes(stmt)):
        return None
    inner = last.value
    if isinstance(inner, ast.Lambda):
        params, tail = inner.args, [ast.Return(value=inner.body)]
    elif isinstance(inner, ast.Name) and head and isinstance(head[-1], ast.FunctionDef) and (
            head[-1].name == inner.id) and not head[-1].decorator_list:
        params, tail = head[-1].args, head[-1].body
        head = head[:-1]
    else:
        return None
    if params.posonlyargs or params.kwonlyargs or params.vararg or params.kwarg or len(
            params.args) != 1 or params.defaults:
        return None
    g = params.args[0].arg
    theirs = {a.arg for a in fdef.args.posonlyargs + fdef.args.args + fdef.args.kwonlyargs}
    if g in theirs or any(isinstance(n, ast.Name) and n.id in (g, _name(inner))
                          for stmt in head for n in walk_nodes(stmt)):
        return None  # the head reads a global g (the new parameter would hide it)
    fdef.args.args.insert(0, ast.arg(arg=g))
    fdef.body = head + tail
    fdef.name = f"{maker.__name__}_applied"
    ast.fix_missing_locations(fdef)
    text = ast.unparse(fdef) + "\n"
    filename = f"<srcad applied form of {maker.__qualname__} #{next(_counter)}>"
    linecache.cache[filename] = (len(text), None, text.splitlines(True), filename)
    code = compile(text, filename, "exec")
    fcode = next(c for c in code.co_consts if isinstance(c, types.CodeType))
    applied = types.FunctionType(fcode, maker.__globals__, fdef.name, maker.__defaults__)
    applied.__kwdefaults__ = dict(maker.__kwdefaults__ or {}) or None
    applied.__module__ = maker.__module__
    weakref.finalize(applied, linecache.cache.pop, filename, None)
    return applied


def _name(node):
    return node.id if isinstance(node, ast.Name) else None


def _own_nodes(stmt):
    """The nodes of ``stmt`` outside nested functions and lambdas (their returns are theirs)."""
    nested = (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)
    todo = [] if isinstance(stmt, nested) else [stmt]
    while todo:
        node = todo.pop()
        yield node
        todo += [c for c in ast.iter_child_nodes(node) if not isinstance(c, nested)]
