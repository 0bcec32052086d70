"""Extending srcad: your own derivative rules, ``stop_gradient``, non-differentiable functions.

A rule is written like the built-in ones (see :mod:`srcad.rules.registry`): for each
parameter, a Python expression giving the gradient that flows into it, in terms of ``g`` (the
gradient of the result), ``ans`` (the result) and the parameters. Names the expression uses
are looked up where the rule is defined, so it may call your own helpers.

    import numpy as np
    import srcad

    @srcad.extend.defvjp(x="g / (1 + np.exp(-x))")
    def softplus(x):
        return np.log1p(np.exp(x))

A rule takes precedence over the function's source: srcad inlines the template into the
generated code instead of differentiating the body. It also works for functions that have no
source at all (C extensions, NumPy functions without a built-in rule):

    srcad.extend.defvjp(np.i0, "x", x="g * scipy.special.i1(x)")
"""

from __future__ import annotations

import ast
import inspect
import sys

from .core.walk import walk_nodes
from .errors import RuleError
from .extend_autograd import autograd_rule, forward_only, rule_parameters, template_names
from .rules import registry
from .rules.registry import Rule

__all__ = ["defjvp", "defvjp", "nondiff", "notrace_primitive", "primitive", "stop_gradient"]


def defvjp(fn=None, signature=None, *makers, broadcast=False, jvp=None, shape_only=(),
           uniform=None, ranks=None, zero=(), argnums=None, **templates):
    """Register a derivative rule for ``fn`` (also usable as a decorator).

    Two forms. srcad's: expressions (templates), written into the generated code. autograd's
    (``defvjp(fn, vjp_maker_0, vjp_maker_1, ..., argnums=None)``, each maker called as
    ``maker(ans, *args, **kwargs)`` and returning the function ``g -> gradient`` of its
    argument; ``None`` for an argument without one): see :mod:`srcad.extend_autograd`.

    ``signature``: the parameters as a string (``"x, axis=None"``); taken from ``fn`` when it
    can be read. ``templates``: one expression per differentiable parameter; ``None`` (or
    naming the parameter in ``zero=``) declares a zero derivative; a parameter left out takes
    no differentiated value (srcad refuses one there rather than assume zero). Raises
    :class:`srcad.RuleError` for a rule that cannot be right:
    a template for a parameter that does not exist, a signature that does not match ``fn``, a
    template that is not an expression or names something undefined. ``ranks``: templates
    for arguments that are arrays of exactly these ranks, ``{(2, 1): {"a": ..., "b": ...}}``.
    """
    caller = sys._getframe(1)
    namespace = caller.f_globals
    where = (caller.f_code.co_filename, caller.f_lineno)  # a bad rule's error points here
    if makers or argnums is not None or (callable(signature) and not isinstance(
            signature, str)):
        _at(where, _autograd_form, fn, "vjp", (signature,) + makers, argnums)
        return fn
    if fn is None or isinstance(fn, str):
        if isinstance(fn, str):
            signature, fn = fn, None

        def decorate(func):
            _at(where, _register, func, signature, broadcast, templates, namespace, jvp,
                shape_only, uniform, ranks, zero)
            return func

        return decorate
    _at(where, _register, fn, signature, broadcast, templates, namespace, jvp, shape_only,
        uniform, ranks, zero)
    return fn


def _at(where, register, *args):
    """``register(*args)``; a :class:`RuleError` it raises names the file and line of the
    ``defvjp`` call, with that line's text."""
    try:
        register(*args)
    except RuleError as exc:
        if exc.filename is None:
            import linecache

            exc.filename, exc.lineno = where
            exc.construct = exc.construct or linecache.getline(*where).strip() or None
            exc.args = (exc._format(),)
        raise


def defjvp(fn, *makers, argnums=None):
    """autograd's forward-mode rule: ``defjvp(fn, jvp_maker_0, ...)``, each maker called as
    ``maker(t, ans, *args, **kwargs)`` with ``t`` its argument's tangent, returning the tangent
    that argument adds to the result's (``None``: an argument without one). Works with
    :func:`defvjp`'s autograd form on the same function, in either order."""
    caller = sys._getframe(1)
    _at((caller.f_code.co_filename, caller.f_lineno), _autograd_form, fn, "jvp", makers,
        argnums)
    return fn


def _autograd_form(fn, mode, makers, argnums):
    """Register the rule :func:`srcad.extend_autograd.autograd_rule` makes of the makers.

    Forward-mode makers alone (``defjvp`` without ``defvjp``), for a function srcad has its
    own rules for, give those rules with these tangents: autograd keeps a primitive's
    reverse mode when ``defjvp`` gives its forward mode (a library that re-states the
    tangents of ``gammaln`` or ``np.linalg.inv``, as paragami does, keeps their gradients).
    Only ``None`` makers for a function srcad knows has no derivative: nothing to add."""
    if mode == "jvp" and all(m is None for m in makers) and registry.is_nondiff(fn):
        return None
    templates, namespace, jvp, items = autograd_rule(fn, mode, makers, argnums)
    positional, keywords = rule_parameters(fn)
    own = [r for r in registry.rules_for(fn) if not r.user]
    if mode == "jvp" and forward_only(fn) and own and not keywords and all(
            r.params == positional for r in own):
        merged = [r.with_forward(jvp, _names_used(fn, jvp, namespace)) for r in own]
        for rule in reversed(merged):  # srcad's own templates: instantiated as its own
            registry.add(rule)
        return merged[0]
    if items is not None:  # fn(f, lb, ub, *args): a rule naming the items (args_0, ...)
        return _register(fn, items, False, templates, namespace, jvp=jvp, star=True)
    signature = ", ".join(positional) if isinstance(getattr(fn, "nin", None), int) else None
    return _register(fn, signature, False, templates, namespace, jvp=jvp)


def _names_used(fn, templates, namespace):
    """The names of ``namespace`` the templates (strings) read; a name defined nowhere is a
    :class:`srcad.RuleError`, as in :func:`_register`."""
    known = set(inspect.signature(fn).parameters) | template_names() | {"t"}
    used = {}
    for text in templates.values():
        for node in walk_nodes(ast.parse(text, mode="eval")):
            if isinstance(node, ast.Name) and node.id not in known:
                if node.id not in namespace:
                    raise RuleError(f"rule for {getattr(fn, '__qualname__', fn)}: {node.id!r} "
                                    "is not defined where the rule is",
                                    hint="import it in the module defining the rule")
                used[node.id] = namespace[node.id]
    return used


def primitive(fn):
    """autograd's ``@primitive``: ``fn`` itself. srcad differentiates a call of ``fn`` by the
    rule :func:`defvjp` gives it; without one, by reading ``fn``'s source, as any function's
    (or refuses, saying why). Kept so that code written for autograd runs unchanged."""
    return fn


def notrace_primitive(fn):
    """autograd's ``@notrace_primitive``: ``fn``, whose result carries no gradient
    (:func:`nondiff`)."""
    nondiff(fn)
    return fn


def nondiff(*fns):
    """Declare functions with zero derivative (their results carry no gradient)."""
    for fn in fns:
        registry.nondiff.add(fn)
    return fns[0] if len(fns) == 1 else fns


def stop_gradient(x):
    """``x`` itself, but no gradient flows through it (like ``jax.lax.stop_gradient``)."""
    return x


registry.nondiff.add(stop_gradient)


def _register(fn, signature, broadcast, templates, namespace, jvp=None, shape_only=(),
              uniform=None, ranks=None, zero=(), star=False):
    """``star``: the signature names items of the function's ``*args`` after its named
    parameters (an autograd-form rule: :func:`srcad.extend_autograd.star_items`)."""
    name = getattr(fn, "__qualname__", repr(fn))
    if not callable(fn):
        raise RuleError(f"a rule is for a function, got {fn!r}",
                        hint="pass the function itself: defvjp(np.i0, \"x\", x=...)")
    real = None
    try:
        real = inspect.signature(fn)
    except (TypeError, ValueError):
        pass
    if signature is None:
        if real is None:
            raise RuleError(f"cannot read the parameters of {name}",
                            hint='pass them: defvjp(fn, "x, y", x=..., y=...)')
        signature = real
    rule = Rule(fn, signature, templates, broadcast=broadcast, name=name, jvp=jvp,
                shape_only=shape_only, uniform=uniform, ranks=ranks, zero=zero)
    nin = getattr(fn, "nin", None)  # a NumPy ufunc: its inputs are positional, named x1, x2..
    if nin is not None:
        if len(rule.params) != nin:
            raise RuleError(f"rule for {name}: {len(rule.params)} parameters, but the ufunc "
                            f"takes {nin} inputs", hint="give one name per input")
        real = None
    if real is not None:
        theirs = [p.name for p in real.parameters.values()
                  if p.kind not in (p.VAR_POSITIONAL, p.VAR_KEYWORD)]
        ours = [p for p in rule.params][:len(theirs) if star else None]
        if ours != theirs[: len(ours)] or len(theirs) > len(ours) and any(
            real.parameters[p].default is inspect.Parameter.empty for p in theirs[len(ours):]
        ):
            raise RuleError(f"rule for {name}: signature ({', '.join(ours)}) does not match "
                            f"the function's ({', '.join(theirs)})",
                            hint="name the parameters as the function does")
    known = set(rule.params) | template_names()
    used = {}
    extra = [rule.uniform] if rule.uniform is not None else []
    extra += [t for by_param in rule.ranks.values() for t in by_param.values()]
    for template in list(rule.templates.values()) + list(rule.jvp.values()) + extra:
        for node in walk_nodes(template):
            if isinstance(node, ast.Name) and node.id not in known | {"t"}:
                if node.id not in namespace:
                    raise RuleError(f"rule for {name}: {node.id!r} is not defined where the "
                                    "rule is", hint="import it in the module defining the rule")
                used[node.id] = namespace[node.id]
    rule.namespace = used
    rule.user = True  # not one of srcad's own rules
    registry.add(rule)
    return rule
