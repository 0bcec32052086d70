"""What srcad reads for a callable it is asked to differentiate: the entry point.

A plain Python function (a ``def`` or a lambda) is read as it is. Other callables are read
through a *shim*: a small function with the callable's parameters whose body calls it, made
once, its text registered in ``linecache`` like any source. The callable is then a callee
like any other: its own source is differentiated, or its rule used.

* a bound method ``obj.loss`` (and a classmethod, bound to its class): ``def loss(x): return
  Model_loss(obj, x)``, the object held by the shim. Its attributes are read by the method's
  code each time it runs, so an attribute changed between calls is seen; they are constants
  (the gradient is with respect to the explicit parameters). The shims of the 64 objects
  used last are kept (each holds its object);
* an instance with a Python ``__call__``: its bound ``__call__``, as above;
* a function with a derivative rule (``np.sqrt``, ``math.sin``, a ``srcad.extend.defvjp``
  function): ``def sqrt(x): return sqrt_rule(x)`` with the rule's parameters, so the rule is
  used (a rule takes precedence over a Python body here as in any call);
* a ``functools.partial`` of a function: ``def f(x, *, k=v): return f_called(x, k=k)``
  with the parameters the partial still takes, the partial itself called (a callee srcad
  takes as in any code), kept like a bound method's shim;
* a decorated function whose wrapper takes ``*args, **kwargs``: see :func:`source.target`.

Imports: the standard library, :mod:`srcad.rules` (which functions have rules) and
:mod:`srcad.frontend.source`.
"""

from __future__ import annotations

import collections
import functools
import inspect
import keyword
import types

from ..core import functions
from ..core.functions import run_source
from ..errors import UnsupportedSyntaxError
from ..rules import registry
from . import held_objects, source

_shims = {}  # a rule function (by identity) -> its shim
#: (method's function, id(object)) -> (object, shim), the most recently used: the shim holds
#: its object, so only a few are kept (an object's id is not reused while it is held here)
_bound = collections.OrderedDict()
_KEEP_BOUND = 64


def target(func):
    """The plain Python function srcad reads for ``func`` (``func`` itself when it is one)."""
    if type(func) is types.FunctionType and "__wrapped__" not in func.__dict__ and (
            not _has_rule(func)):
        return func  # the common case, first
    if source.made_by_srcad(func):
        return func
    plain = functions.plain_form(func)  # a Jacobian or Hessian srcad made
    if plain is not None:
        return plain
    if inspect.ismethod(func) and inspect.isfunction(func.__func__):
        return _bound_shim(func.__func__, func.__self__)
    if type(func) is functools.partial:
        shim = _partial_shim(func)
        if shim is not None:
            return shim
    if _has_rule(func) and not isinstance(func, type):  # a class (dict, float): refused
        return _rule_shim(func)
    if not inspect.isfunction(func) and not inspect.isroutine(func) and not isinstance(
            func, type):
        call = next((vars(k)["__call__"] for k in type(func).__mro__
                     if "__call__" in vars(k)), None)
        if inspect.isfunction(call) and not hasattr(func, "__wrapped__"):
            return _bound_shim(call, func)
    return source.target(func)


def _has_rule(func):
    try:
        return registry.has_rule(func) and bool(registry.rules_for(func))
    except TypeError:
        return False


def _rule_shim(func):
    # the rule taking the fewest arguments (math.log: log(x) rather than log(x, base))
    key = min(registry.rules_for(func), key=lambda r: sum(
        p.default is p.empty for p in r.signature.parameters.values()))
    known = _shims.get(id(func))
    if known is not None and known[0] is func and known[1] is key:
        return known[2]
    # the parameters without a default (the function's own defaults hold for the others:
    # srcad.grad(np.sum) is the gradient of np.sum(a))
    params = [p for p in key.signature.parameters.values()
              if p.default is p.empty and p.kind not in (p.VAR_POSITIONAL, p.VAR_KEYWORD)]
    # ... and those with a default up to the last one with a derivative, which may be wrt
    # (odeint(func, y0, t, args): args, by position), their defaults the rule's own
    positional = [p for p in key.signature.parameters.values()
                  if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]
    last = max((i for i, p in enumerate(positional) if p.name in key.templates), default=-1)
    params += _defaulted(func, [p for p in positional[:last + 1] if p.default is not p.empty])
    shim = _shim(_name_of(func), params, func, None, f"the rule of {_describe(func)}")
    _shims[id(func)] = (func, key, shim)
    return shim


def _defaulted(func, params):
    """Those of the rule's parameters with a default that the function's own signature
    gives the same default, in order, up to the first that it does not (or all none, when the
    function has no signature): the shim passes them, so they must mean what they mean there."""
    try:
        own = inspect.signature(func).parameters
    except (TypeError, ValueError):
        return []
    kept = []
    for p in params:
        q = own.get(p.name)
        if q is None or q.kind != p.kind and q.kind != q.POSITIONAL_OR_KEYWORD or not (
                q.default is p.default or type(q.default) is type(p.default) and type(
                    p.default) in (int, float, bool, str, tuple) and q.default == p.default):
            break
        kept.append(p)
    return kept


def _bound_shim(function, obj):
    key = (function, id(obj))
    known = _bound.get(key)
    # what the code is made for: the functions the object holds and the classes of its
    # parts (obj.f = other after a derivative was made: a new shim, so new code)
    made_for = _made_for(obj)
    if known is not None and known[0] is obj and _same(known[2], made_for):
        _bound.move_to_end(key)
        return known[1]
    sig = inspect.signature(function)
    params = list(sig.parameters.values())[1:]  # the object is passed by the shim
    shim = _shim(function.__name__, params, function, obj,
                 f"{_describe(function)} bound to a {type(obj).__name__}")
    shim.__qualname__ = function.__qualname__
    shim.__doc__ = function.__doc__
    _bound[key] = (obj, shim, made_for)
    while len(_bound) > _KEEP_BOUND:
        _bound.popitem(last=False)
    return shim


def _made_for(obj):
    try:
        return held_objects.instance_of(obj)
    except (TypeError, ValueError):  # an attribute srcad cannot read so: the object alone
        return None


def _same(a, b):
    try:
        return bool(a == b)
    except Exception:  # noqa: BLE001 - a held value whose == fails: made again
        return False


def _partial_shim(func):
    key = (functools.partial, id(func))
    known = _bound.get(key)
    if known is not None and known[0] is func:
        _bound.move_to_end(key)
        return known[1]
    try:
        params = list(inspect.signature(func).parameters.values())
    except (TypeError, ValueError):  # no signature: refused where it is read
        return None
    if _has_rule(func.func):  # as _rule_shim: the function's own defaults hold (out=None)
        params = [p for p in params if p.default is p.empty or p.name in func.keywords]
    shim = _shim(_name_of(func.func), params, func, None,
                 f"functools.partial of {_describe(func.func)}")
    _bound[key] = (func, shim)
    while len(_bound) > _KEEP_BOUND:
        _bound.popitem(last=False)
    return shim


def aux_shim(func, keep):
    """For ``has_aux=True``: ``def name(params): out = func(params); keep(out); return
    out[0]``. ``keep`` is a function with no derivative that the forward sweep runs (it checks
    ``out`` is a pair and hands ``out[1]`` to the caller); the gradient is that of ``out[0]``."""
    params = list(inspect.signature(func).parameters.values())
    return _shim(getattr(func, "__name__", "f"), params, func, None,
                 f"{_describe(func)} with has_aux=True", (keep, where_of(func)))


def where_of(func):
    """``(file, line, name)`` of ``func`` (a plain function, a shim of srcad's, or another
    callable: ``None`` where it has no code), as ``srcad.aux_calls.check_pair`` names it."""
    code = getattr(inspect.unwrap(getattr(func, "__srcad_entry__", func)), "__code__", None)
    name = getattr(func, "__name__", "f")
    name = name if isinstance(name, str) and name.isidentifier() else "f"
    return (getattr(code, "co_filename", None), getattr(code, "co_firstlineno", None), name)


def takes_star_args(func):
    """Whether ``func`` (a plain function) takes ``*args`` or ``**kwargs``."""
    code = getattr(func, "__code__", None)
    if isinstance(code, types.CodeType) and not hasattr(func, "__wrapped__"):
        return bool(code.co_flags & (inspect.CO_VARARGS | inspect.CO_VARKEYWORDS))
    try:
        params = inspect.signature(func).parameters.values()
    except (TypeError, ValueError):
        return False
    return any(p.kind in (p.VAR_POSITIONAL, p.VAR_KEYWORD) for p in params)


def star_shim(func, n, keys=()):
    """For ``def f(x, *args, **kwargs)`` called with ``n`` positional arguments and the
    keywords ``keys`` that ``**kwargs`` takes: ``def f(x, args_0, args_1, ..., *, k): return
    f(x, args_0, args_1, ..., k=k)``, whose parameters name the gradients (position ``k`` of
    ``wrt`` is the ``k``-th positional argument)."""
    params = list(inspect.signature(func).parameters.values())
    named = [p for p in params if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]
    star = next((p for p in params if p.kind is p.VAR_POSITIONAL), None)
    taken = {p.name for p in params} | set(keys)
    items = []
    for k in range(max(0, n - len(named)) if star is not None else 0):
        item = f"{star.name}_{k}"
        while item in taken:
            item += "_"
        taken.add(item)
        items.append(inspect.Parameter(item, inspect.Parameter.POSITIONAL_OR_KEYWORD))
    rest = [p for p in params if p.kind is p.KEYWORD_ONLY]
    rest += [inspect.Parameter(k, inspect.Parameter.KEYWORD_ONLY) for k in keys]
    if items:  # the items come after every named one: those with defaults lose them
        named = [p.replace(default=p.empty) for p in named]
    called = f"{n} positional arguments" + (f" and keywords {', '.join(keys)}" if keys else "")
    shim = _shim(getattr(func, "__name__", "f"), named + items + rest, func, None,
                 f"{_describe(func)} with {called}")
    shim.__qualname__ = getattr(func, "__qualname__", shim.__name__)
    return shim


def star_keys(func, kwargs):
    """The keywords of a call that ``func``'s ``**kwargs`` takes, in a fixed order; each must
    be a name (it becomes a parameter of the function :func:`star_shim` makes)."""
    params = inspect.signature(func).parameters
    keys = tuple(sorted(k for k in kwargs if k not in params or params[k].kind in (
        inspect.Parameter.VAR_POSITIONAL, inspect.Parameter.VAR_KEYWORD)))
    for k in keys:
        if not k.isidentifier() or keyword.iskeyword(k):
            raise UnsupportedSyntaxError(
                f"the keyword {k!r} passed to **kwargs is not a Python name",
                construct=f"**{{{k!r}: ...}}", hint="pass keywords that are names")
    return keys


def _shim(name, params, callee, obj, what, keep=None):
    """``def name(params): return callee([obj,] params)``, its text in ``linecache`` (with
    ``keep``, a pair (function, (file, line, name)), see :func:`aux_shim`)."""
    if not isinstance(name, str) or not name.isidentifier() or keyword.iskeyword(name) or (
            name.startswith("__srcad")):
        name = "f"
    taken = {p.name for p in params}

    def fresh(base):
        while base in taken or base == name:
            base += "_"
        taken.add(base)
        return base

    callee_name, self_name = fresh(f"{name}_called"), fresh("bound_object")
    value_name, keep_name = fresh("value_and_aux"), fresh("keep_aux")
    head, passed = [], [self_name] if obj is not None else []
    star = False
    for i, p in enumerate(params):
        if p.kind == p.KEYWORD_ONLY and not star:
            head.append("*")
            star = True
        if p.kind == p.VAR_POSITIONAL:
            head.append(f"*{p.name}")
            passed.append(f"*{p.name}")
            star = True
            continue
        if p.kind == p.VAR_KEYWORD:
            head.append(f"**{p.name}")
            passed.append(f"**{p.name}")
            continue
        head.append(p.name)
        if p.kind == p.POSITIONAL_ONLY and (i + 1 == len(params) or params[i + 1].kind
                                            != p.POSITIONAL_ONLY):
            head.append("/")
        passed.append(p.name if p.kind != p.KEYWORD_ONLY else f"{p.name}={p.name}")
    text = f"def {name}({', '.join(head)}):\n"
    if keep is None:
        text += f"    return {callee_name}({', '.join(passed)})\n"
    else:
        text += (f"    {value_name} = {callee_name}({', '.join(passed)})\n"
                 f"    {keep_name}({value_name}, {keep[1]!r})\n"
                 f"    return {value_name}[0]\n")
    filename = f"<srcad: {what}>"
    module = getattr(callee, "__module__", None) if obj is not None else None
    namespace = {callee_name: callee, "__name__": module or "srcad_entry_point"}
    if obj is not None:
        namespace[self_name] = obj
    if keep is not None:
        namespace[keep_name] = keep[0]
    shim = run_source(text, filename, namespace, namespace)[name]
    positional = [p.default for p in params
                  if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]
    defaults = []
    for d in reversed(positional):
        if d is inspect.Parameter.empty:
            break
        defaults.insert(0, d)
    shim.__defaults__ = tuple(defaults) or None
    shim.__kwdefaults__ = {p.name: p.default for p in params if p.kind == p.KEYWORD_ONLY
                           and p.default is not p.empty} or None
    shim.__srcad_entry__ = callee
    return shim


def _name_of(func):
    name = getattr(func, "__name__", None)
    return name if isinstance(name, str) else "f"


def _describe(func):
    name = getattr(func, "__qualname__", None) or _name_of(func)
    module = getattr(func, "__module__", None)
    return f"{module}.{name}" if module and module != "builtins" else name
