"""``f(**kw)`` of a dict that is not a display built in the function (corpus27).

A closure or global dict of at most 64 names (an enclosing function's ``**kwargs`` read by
a closure, dtak/rrr's ``input_gradients(params, **input_grad_kwargs)``) has its keys spliced as
keywords reading it when the code runs (``scale=kw['scale']``), the code guarded by its items
(:class:`srcad.core.env.ItemsRead`: the same keys holding the same objects, else made again).
Any other dict (an argument, a value computed) given to a module-level function of the
user's makes the call :func:`srcad.runtime.spread_calls.star_call`'s, made for the keywords met
when it runs (:meth:`srcad.frontend.lower_spread.Spreads.star_call_prim`); given to a library
function (whose rule takes fixed forms), a method or a nested function it stays refused.

``f(a=x, **d)`` of such a dict into such a function (corpus28): the keywords merged into
``dict(d)`` when the code runs (:func:`merged`), Python's ``TypeError`` for a keyword given
twice.

Imports the standard library, gast and :mod:`srcad.core` (and nothing above its layer).
"""

from __future__ import annotations

import operator

import gast

from ..core import env, functions, ir

#: at most this many keys are spliced
MOST = 64


def _display(node):
    """A dict display with string keys (spliced key by key by ``spliced_keywords``)."""
    return all(isinstance(k, gast.Constant) and isinstance(k.value, str) for k in node.keys)


def unseen_keywords(lw, node):
    """Whether ``node`` unpacks (``**kw``) a dict whose keys srcad cannot see where it makes
    the code (an argument, a call's result) into a module-level function of the user's
    named directly: the call is then :func:`star_call`'s (as ``f(*t)`` of an unknown
    length), beside other keywords (``f(a=x, **d)``, corpus28) the dict :func:`merged`
    makes. Into anything else (a library function, whose rule takes fixed forms; a method;
    a nested function), or with two ``**``, it stays refused at the call's line."""
    stars = [k for k in node.keywords if k.arg is None]
    return len(stars) == 1 and all(
        not (isinstance(k.value, gast.Dict) and _display(k.value))
        and not (isinstance(k.value, gast.Name) and k.value.id in lw.keyword_displays
                 and k.value.id not in lw.env)
        and free_dict(lw, k.value) is None for k in stars) and _user_named(lw, node.func)


def merged(lw, node, lead_kw):
    """The keywords of ``f(a=x, **d)`` as one dict, as Python passes them: the values in the
    order written, then, when the code runs, ``d`` checked to be a dict (another mapping is
    refused at the call's line) holding none of the keywords written (Python's
    ``TypeError``: "got multiple values for keyword argument"), then ``dict(d)`` with each
    keyword written into it (a dict srcad's rules differentiate: gradients flow through
    ``d``'s values and each keyword's)."""
    stars = [k for k in node.keywords if k.arg is None]
    if len(stars) != 1:
        raise lw.error(node, "two keyword unpackings (**) in one call",
                       hint="merge the dicts first (kw = dict(d1); kw.update(d2)), then f(**kw)")
    named = dict(lead_kw)
    star = None
    for k in node.keywords:
        if k.arg is None:
            star = lw.expr(k.value)
        else:
            named[k.arg] = lw.expr(k.value)
    line = node.lineno
    is_dict = lw.assign(ir.Prim(isinstance, [star, ir.Const(dict, "dict")]), None, node)
    not_dict = lw.assign(ir.Prim(operator.not_, [is_dict]), None, node)
    refusal = lw.error(node, "keyword unpacking (**kw) of a mapping that is not a dict, "
                       "beside other keywords", hint="pass dict(kw)")
    lw.emit(ir.If(not_dict, [ir.Raise(ir.Const(refusal, lw.bound_name(
        refusal, "refusal")), line)], [], [], line))
    called = getattr(node.func, "id", "the function")
    for key in named:
        twice = lw.assign(ir.Prim(operator.contains, [star, ir.Const(key)]), None, node)
        error = TypeError(f"{called}() got multiple values for keyword argument {key!r}")
        lw.emit(ir.If(twice, [ir.Raise(ir.Const(error, lw.bound_name(
            error, "call_error")), line)], [], [], line))
    out = lw.assign(ir.Prim(dict, [star], spelling=lw.bound_name(dict, "dict")), "kwargs",
                    node)
    for key, value in named.items():
        target = lw.namer.fresh("kwargs")
        lw.emit(ir.SetItem(target, out, ir.Const(key), value, line))
        out = ir.Var(target)
    return out


def _user_named(lw, func):
    if not isinstance(func, gast.Name) or func.id in lw.env or func.id in lw.local_functions:
        return False
    try:
        return functions.is_user_function(lw.source.lookup(func.id))
    except (NameError, KeyError):
        return False


def free_dict(lw, value):
    """``kw`` of ``f(**kw)`` when it is a closure or global dict of at most :data:`MOST`
    names, its items recorded as a guard; else None."""
    if not isinstance(value, gast.Name) or value.id in lw.env or (
            value.id in lw.keyword_displays):
        return None
    try:
        found = lw.source.lookup(value.id)
    except (NameError, KeyError):
        return None
    if type(found) is not dict or len(found) > MOST or not all(
            type(k) is str and k.isidentifier() for k in found):
        return None
    src = lw.source
    cell, namespace = (src.cells.get(value.id), None) if value.id in src.closure else (
        None, src.globals)
    env.record(env.ItemsRead(namespace, cell, value.id, (), found))
    return found


def spliced(lw, value):
    """The keywords ``key=kw['key']`` of the dict :func:`free_dict` found."""
    def at(node):
        return gast.copy_location(node, value)

    return [gast.keyword(arg=key, value=at(gast.Subscript(
        value=at(gast.Name(id=value.id, ctx=gast.Load(), annotation=None, type_comment=None)),
        slice=at(gast.Constant(value=key, kind=None)), ctx=gast.Load())))
        for key in free_dict(lw, value)]
