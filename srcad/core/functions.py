"""Facts about the Python functions a program calls: which are the user's (srcad reads and
differentiates them), how a call binds to a callee's parameters (``*args`` and ``**kwargs``
items included), which are opaque (and what to write instead), and a cache that lives on the
function it is about. Reads only function objects: imports nothing from srcad's passes.
"""

from __future__ import annotations

import inspect
import weakref
from dataclasses import dataclass

import numpy as np


class ByFunction:
    """A cache keyed by ``(function, ...)`` whose entries live *on the function* (in its
    ``__dict__``, under a name private to this cache), so they go when the function goes.

    A weak-keyed dict would not do: an entry's value is generated code whose globals are the
    function's module, which holds the function, so the entry would keep its own key alive
    (finding 19). Stored on the function, the entry is part of that cycle and is collected
    with it. A callable whose attributes cannot be set (a builtin, a bound method) is never
    cached. ``_holders`` (weak) finds the entries again for ``clear`` and ``values``.
    """

    _count = 0

    def __init__(self):
        ByFunction._count += 1
        self._attr = f"__srcad_cache_{ByFunction._count}__"
        self._holders = weakref.WeakSet()

    def _entries(self, fn, create=False):
        try:
            held = fn.__dict__.get(self._attr)
        except AttributeError:
            return None
        # functools.wraps copies __dict__: a wrapper would carry the entries of the function
        # it wraps, so each holds a weak reference to its owner and answers only to it
        if held is not None and held[0]() is fn:
            return held[1]
        if not create:
            return None
        try:
            held = fn.__dict__[self._attr] = (weakref.ref(fn), {})
            self._holders.add(fn)
        except TypeError:  # not weakly referable: never cached
            fn.__dict__.pop(self._attr, None)
            return None
        return held[1]

    def get(self, key, default=None):
        entries = self._entries(key[0])
        if not entries:
            return default
        try:
            return entries.get(key[1:], default)
        except TypeError:  # an unhashable part of the key: never cached
            return default

    def __contains__(self, key):
        return self.get(key, _MISSING) is not _MISSING

    def __getitem__(self, key):
        value = self.get(key, _MISSING)
        if value is _MISSING:
            raise KeyError(key)
        return value

    def __setitem__(self, key, value):
        entries = self._entries(key[0], create=True)
        if entries is not None:
            try:
                entries[key[1:]] = value
            except TypeError:
                pass

    def __delitem__(self, key):
        entries = self._entries(key[0])
        if entries:
            entries.pop(key[1:], None)

    def clear(self):
        for fn in list(self._holders):
            fn.__dict__.pop(self._attr, None)
        self._holders = weakref.WeakSet()

    def values(self):
        return [v for fn in list(self._holders) for v in (self._entries(fn) or {}).values()]


_MISSING = object()


def is_user_function(fn):
    """A plain Python function srcad can read and differentiate (not a rule, not a builtin)."""
    if not inspect.isfunction(fn) or getattr(fn, "__srcad__", None) is not None:
        return False  # a derivative srcad made: see is_derivative
    return _home(fn) not in ("srcad", "numpy", "math") and not is_library_function(fn)


#: top-level packages of installed third-party numerical libraries, whose functions srcad
#: never differentiates by reading their source: a call of one without a rule is refused (its
#: internals use constructs srcad refuses or, worse, differentiates with a meaning the library
#: did not intend). Decided by the package the function's code belongs to, not by where it is
#: installed: a user's own package is read as user code even from site-packages.
LIBRARY_PACKAGES = frozenset({
    "numpy", "scipy", "pandas", "sklearn", "statsmodels", "torch", "jax", "jaxlib",
    "tensorflow", "numba", "cupy", "xarray", "dask", "skimage", "sympy", "networkx",
    "matplotlib", "pymc", "pytensor", "theano", "cvxpy", "emcee", "numexpr", "h5py"})


def is_library_function(fn):
    """Is ``fn`` (a function, or a method bound to a library's object) code of one of the
    :data:`LIBRARY_PACKAGES`?"""
    return _home(getattr(fn, "__func__", fn)) in LIBRARY_PACKAGES


def _home(fn):
    """The package whose code ``fn`` runs: by its globals (functools.wraps copies
    ``__module__``, so ``srcad.hessian(f)`` claims to live in ``f``'s module)."""
    module = getattr(fn, "__globals__", {}).get("__name__") or getattr(fn, "__module__", "")
    return str(module or "").split(".")[0]


@dataclass(frozen=True)
class Arity:
    """How one call fills a callee's ``*args`` and ``**kwargs``: the callee is differentiated
    for that many items and those keys, each item a parameter of its own (named ``args_0``,
    ``kwargs_scale``: ``items`` and ``keys`` hold the names, ``keys`` as (key, name) pairs)."""

    star: str | None
    items: tuple
    kwstar: str | None
    keys: tuple

    @property
    def names(self):
        return self.items + tuple(name for _, name in self.keys)


def bind(fn, args, kwargs):
    """Bind a call of the user function ``fn`` to its parameters, as srcad differentiates it.

    Returns ``(arguments, passed, arity)``: ``arguments`` maps each parameter to its atom
    (defaults applied), with the items of ``*args`` and ``**kwargs`` as parameters of their
    own (see :class:`Arity`; ``None`` when ``fn`` has neither); ``passed`` is the same for the
    arguments the call gives. The signature is ``fn``'s own: ``__wrapped__`` is not followed
    (a decorator's wrapper is called with its own parameters). Raises ``TypeError`` when the
    call does not fit.
    """
    sig = inspect.signature(fn, follow_wrapped=False)
    bound = sig.bind(*args, **kwargs)
    given = set(bound.arguments)
    bound.apply_defaults()
    code = fn.__code__
    taken = set(code.co_varnames + code.co_names + code.co_freevars + code.co_cellvars)
    arguments, passed = {}, {}
    star = kwstar = None
    items, keys = [], []

    def fresh(base):
        while base in taken:
            base += "_"
        taken.add(base)
        return base

    for name, param in sig.parameters.items():
        value = bound.arguments[name]
        if param.kind is param.VAR_POSITIONAL:
            star = name
            for i, item in enumerate(value):
                items.append(fresh(f"{name}_{i}"))
                arguments[items[-1]] = passed[items[-1]] = item
        elif param.kind is param.VAR_KEYWORD:
            kwstar = name
            for key, item in value.items():
                keys.append((key, fresh(f"{name}_{key}")))
                arguments[keys[-1][1]] = passed[keys[-1][1]] = item
        else:
            arguments[name] = value
            if name in given:
                passed[name] = value
    arity = None
    if star is not None or kwstar is not None:
        arity = Arity(star, tuple(items), kwstar, tuple(keys))
    return arguments, passed, arity


_LIBRARIES = ("numpy", "math", "scipy", "builtins")


def is_derivative(fn):
    """A derivative srcad made whose generated code srcad can differentiate in turn: made by
    ``grad`` or ``value_and_grad`` (a ``vjp`` pullback is a closure of srcad's own)."""
    made = getattr(fn, "__srcad__", None)
    return made is not None and getattr(made, "_mode", None) in ("grad", "value_and_grad")


def opaque(fn, name):
    """(message, hint) for a callee srcad cannot see into and that has no rule: a derivative
    srcad made, a callable object, a function without Python source. ``None`` otherwise."""
    if is_derivative(fn):
        return (f"{name} is a derivative made by srcad: srcad differentiates a call of it in "
                "reverse mode (grad, value_and_grad, vjp), not in forward mode",
                "use reverse mode, or take the forward-mode derivative of the function it "
                "was made from")
    if getattr(fn, "__srcad_derivative_call__", False):
        return ("a call of a derivative srcad made, differentiated once already: srcad "
                "does not differentiate it again",
                "differentiate the derivative itself to the order you need: "
                "srcad.grad(srcad.grad(f))")
    if getattr(fn, "__srcad__", None) is not None or (callable(fn) and (
            _home(fn) == "srcad" or (getattr(fn, "__module__", "") or "").startswith("srcad"))):
        return (f"{name} is a function made by srcad (a pullback, a Jacobian, a Hessian, a "
                "tape gradient): srcad does not differentiate through it inside other code",
                "differentiate the function it was made from instead, e.g. "
                "srcad.grad(srcad.grad(f)), or write the derivative you need as a function "
                "of your own")
    if is_library_function(fn) and inspect.isfunction(getattr(fn, "__func__", fn)):
        home = _home(getattr(fn, "__func__", fn))
        try:
            params = [p for p in inspect.signature(fn).parameters
                      if p not in ("args", "kwargs", "kwds")]
        except (TypeError, ValueError):
            params = []
        first = params[0] if params else "x"
        return (f"{name} is a function of the library {home} with no derivative rule: srcad "
                "does not differentiate a library's internals by reading its source",
                f'give it a rule: srcad.extend.defvjp({name}, "{", ".join(params) or first}", '
                f'{first}="<the gradient flowing into {first}, in g, ans and the parameters>") '
                "(docs/extending.md), or wrap the value in srcad.stop_gradient(...) if no "
                "gradient should flow through it")
    library = (getattr(fn, "__module__", "") or "").split(".")[0] in _LIBRARIES
    if inspect.ismethod(fn) and inspect.isfunction(fn.__func__) and not library:
        owner = type(fn.__self__).__name__
        return (f"{name} is a method bound to an object: srcad differentiates functions, and "
                "cannot see what the object holds",
                f"call the function on the class with the object as first argument: "
                f"{owner}.{fn.__func__.__name__}(obj, ...)")
    if hasattr(fn, "__wrapped__") and not inspect.isfunction(fn) and not library:
        return (f"{name} is a decorated function whose wrapper is not a Python function "
                f"({type(fn).__name__}): srcad cannot see what it does",
                "call the undecorated function, or write the decorator's wrapper as a def")
    if not inspect.isroutine(fn) and callable(fn) and not isinstance(fn, (type, np.ufunc)):
        return (f"{name} is a callable object ({type(fn).__name__}): srcad cannot see what "
                "it computes",
                f"call a plain function instead, e.g. its method: "
                f"{type(fn).__name__}.__call__(obj, ...), or give it a rule with "
                "@srcad.extend.defvjp")
    return None
