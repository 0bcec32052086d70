"""Facts about the Python functions a program calls: which are the user's (srcad reads and
differentiates them), how a call binds to a callee's parameters (``*args`` and ``**kwargs``
items included), which are opaque (and what to write instead), and a cache that lives on the
function it is about. Reads only function objects: imports nothing from srcad's passes.
"""

from __future__ import annotations

import dataclasses
import functools
import inspect
import sys
import types as types_module
import weakref
from dataclasses import dataclass

import numpy as np

from .kinds import duck_array


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
    if str(module or "").startswith(USER_LEVEL):
        return "user"  # srcad.misc: code for users' loops, differentiated like theirs
    return str(module or "").split(".")[0]


#: srcad's modules of code written for users' programs (flatten, optimisers): srcad reads and
#: differentiates their functions like the user's own
USER_LEVEL = "srcad.misc"


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
    code = getattr(fn, "__code__", None)  # None: srcad's own callable (srcad.nested.JvpOf)
    taken = set(code.co_varnames + code.co_names + code.co_freevars + code.co_cellvars) \
        if code is not None else set(sig.parameters)
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
    ``grad`` or ``value_and_grad``, or ``srcad.jvp`` called in code (``srcad.nested.JvpOf``);
    a ``vjp`` pullback is a closure of srcad's own."""
    made = getattr(fn, "__srcad__", None)
    return made is not None and getattr(made, "_mode", None) in ("grad", "value_and_grad",
                                                                   "jvp")


def opaque(fn, name):
    """(message, hint) for a callee srcad cannot see into and that has no rule: a derivative
    srcad made, a callable object, a function without Python source. ``None`` otherwise."""
    if fn is np.float32 or fn is np.float16:  # rounding: flat between floats, not the identity
        return (f"np.{fn.__name__}(x) of a differentiated value: the rounding to "
                f"{fn.__name__} is flat between two {fn.__name__} numbers (finite differences "
                "see steps of about 1e-7), so no derivative matches it",
                "keep the value in float64 where it is differentiated (float(x), "
                "np.float64(x)), and cast after; or srcad.stop_gradient(np."
                f"{fn.__name__}(x)) if no gradient should flow through it")
    if fn is iter:
        return ("iter(xs) of a differentiated value, the iterator used in a form srcad does "
                "not read as items by position (srcad reads next(it), next(it, d), a for loop "
                "over it, enumerate(it), zip(it, it, ...), and list/tuple/sum/dict/sorted/min/"
                "max of it or a comprehension over it, in the function that made it)",
                "loop over xs itself (for v in xs[k:]), or take items = list(xs) and index it; "
                "pass xs and a position to another function, not the iterator")
    if is_derivative(fn):
        return (f"{name} is a derivative made by srcad: srcad differentiates a call of it in "
                "reverse mode (grad, value_and_grad, vjp), not in forward mode",
                "use reverse mode, or take the forward-mode derivative of the function it "
                "was made from")
    if getattr(fn, "__srcad_call_maker__", None) is not None:  # srcad.jvp in another form
        return (f"{name} inside differentiated code in a form srcad does not read: srcad "
                "differentiates srcad.jvp(f, (x, ...), (t, ...), wrt=...) with f a function "
                "named in the call or a lambda made in the function (not a parameter), the "
                "primals and tangents tuples written in the call, wrt and backend constants",
                "write the call in that form, e.g. srcad.jvp(f, (x, w), (t,), wrt=0) with f "
                "defined at module level")
    if getattr(fn, "__srcad_star_call__", False):
        return ("a call with a starred argument (f(*args)) whose length srcad cannot know, "
                "of a function made from differentiated values (a method of a differentiated "
                "array: x.reshape(*shape))",
                "unpack a tuple built in the function (args = (a, b); f(*args)), or pass the "
                "arguments one by one")
    if getattr(fn, "__srcad_derivative_call__", False):
        return ("a call of a derivative srcad made, with keyword arguments, in code "
                "differentiated again: srcad differentiates such calls (to any order) when "
                "their arguments are passed positionally",
                "call the derivative with positional arguments, g(x, w) rather than "
                "g(x, w=w)")
    if isinstance(fn, type) and (dataclasses.is_dataclass(fn) or issubclass(fn, tuple) and
                                 hasattr(fn, "_fields")):
        return (f"a record {name}(...) built in the function and used whole (returned, "
                "passed on, aliased, a method called), or built in a form srcad does not "
                "read: srcad differentiates a named tuple or dataclass built here when the "
                "code reads its fields (p.x) and every assignment of its name builds one",
                f"read the fields where it is built (p = {name}(...); p.x * p.y), pass the "
                "fields on one by one, or return them as a tuple")
    if fn is functools.partial:
        return ("a function holding differentiated values (a lambda reading them, or "
                "functools.partial of them) used other than by calling it",
                "call it where it is made, or pass the function and the values it needs to "
                "the callee as separate arguments; a list of functions a helper makes ("
                "[make(w) for w in ws]): call them where the list is made (for h in fs, "
                "zip(fs, vs), enumerate(fs), fs[i]) and pass the results on, or pass ws and "
                "call make(w) in the callee")
    if getattr(fn, "__srcad__", None) is not None or (callable(fn) and (
            _home(fn) == "srcad" or (getattr(fn, "__module__", "") or "").startswith("srcad")
            and _home(fn) != "user")):
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


# ---------------------------------------------------------------- specialised callees


@dataclass(frozen=True)
class Instance:
    """In a specialisation: the parameter holds an instance of exactly ``cls`` (so
    ``self.method(...)`` and ``self.prop`` name code srcad can read); ``held``: the functions
    the object holds in attributes of its own, as ``(name, function)`` pairs (so
    ``self.transform(x)`` calls the one it held when the code was made, checked at run time);
    ``parts``: likewise the classes of the objects it holds."""

    cls: type
    held: tuple = ()
    #: the user objects it holds in attributes of its own, as ``(name, Instance or Items)``
    #: pairs (``self._problem.evaluate(x)``: srcad.frontend.held_objects)
    parts: tuple = ()


class HeldList(tuple):
    """In an :class:`Instance`'s ``held``: the functions a list attribute held when the code
    was made (``self.acts = [np.tanh, relu]``). The code reads the list when it runs and
    calls each item as one of these (checked there: a list may change in place)."""


@dataclass(frozen=True)
class Items:
    """In an :class:`Instance`'s parts: a list, tuple or dict (``kind``) of objects all
    alike, each ``of`` (an :class:`Instance`): ``self.layers[0](x)``, ``for layer in
    self.layers``, ``self.parts["enc"](x)``."""

    kind: type
    of: Instance


def users_code(func):
    """Whether ``func`` is the user's code (or read from it: a lifted function), not code
    srcad generated (``<srcad grad_f ...>``), whose writes into its arguments stay refused."""
    code = getattr(func, "__code__", None)
    return code is not None and not code.co_filename.startswith("<srcad ")


@dataclass(frozen=True)
class Flag:
    """In a specialisation: the parameter is given ``None``, ``True`` or ``False`` (``ax=None``,
    ``verbose=False``), so an ``if`` on it alone takes one way (the others are not read)."""

    value: object = None


def is_function_value(obj):
    """Whether ``obj`` is a function-like value srcad can specialise a callee on (a callee
    calls it): a function, a builtin or ufunc, a bound method, a ``functools.partial``, an
    object with ``__call__``; not a class (calling one builds an object)."""
    if isinstance(obj, type) or not callable(obj):
        return False
    return not isinstance(obj, np.ndarray)


def user_instance_class(obj):
    """The class of ``obj`` when it is an instance of a user's class (its methods are code
    srcad can read), else ``None``."""
    cls = type(obj)
    home = (getattr(cls, "__module__", "") or "").split(".")[0]
    if _not_users(home) or isinstance(obj, (np.ndarray, np.generic)) or duck_array(obj):
        return None  # a Dask or CuPy array is an array, its methods NumPy's (core.kinds)
    if inspect.ismodule(obj) or is_function_value(obj) and not _has_user_call(cls):
        return None
    return cls


def _not_users(home):
    """Whether a class of the module ``home`` is a library's (its methods are not read)."""
    return home in _LIBRARIES + ("srcad",) or home in sys.stdlib_module_names


def _has_user_call(cls):
    return inspect.isfunction(inspect.getattr_static(cls, "__call__", None))


_SPECIALISED = ByFunction()
_MAX_SPECIALISED = 64  # per function: past that the table starts again


def specialised(fn, fixed):
    """``fn`` made for a call that passes the fixed values ``fixed`` (``(parameter, value)``
    pairs: a function value, or an :class:`Instance`): a copy of ``fn`` (same code, globals,
    closure, defaults) that srcad reads with those parameters known, so a function parameter
    calls the function passed and ``self.method`` the method of its class. Every cache srcad
    keeps on a callee is keyed on the function object, so each copy (one per ``fixed``) has
    code of its own, and a call passing another function uses another copy."""
    fixed = tuple(sorted(fixed, key=lambda pair: pair[0]))
    if not fixed:
        return fn
    key = (fn, fixed, fn.__code__, fn.__defaults__, tuple(sorted(
        (fn.__kwdefaults__ or {}).items(), key=lambda kv: kv[0])))
    try:
        known = _SPECIALISED.get(key)
    except TypeError:
        known = None
    if known is not None:
        return known
    name = fn.__name__
    if name.startswith("__") and name.endswith("__"):  # __call__: its part is call_fwd
        name = name.strip("_")
    copy = types_module.FunctionType(fn.__code__, fn.__globals__, name,
                                     fn.__defaults__, fn.__closure__)
    copy.__kwdefaults__ = fn.__kwdefaults__
    copy.__qualname__, copy.__module__ = fn.__qualname__, fn.__module__
    copy.__srcad_fixed__, copy.__srcad_original__ = dict(fixed), fn
    if hasattr(fn, "__srcad_shown__"):  # a copy srcad made (sgd_fields): its origin's name
        copy.__srcad_shown__ = fn.__srcad_shown__
    held = _SPECIALISED._entries(fn)
    if held is not None and len(held) >= _MAX_SPECIALISED:
        held.clear()
    _SPECIALISED[key] = copy
    return copy


def fixed_of(fn):
    """The fixed parameters ``fn`` was specialised for (see :func:`specialised`)."""
    return getattr(fn, "__srcad_fixed__", None) or {}


def splits_again(fn):
    """One of the helpers through which a derivative's code runs a derivative it calls
    (``derivative_fwd``, ``derivative_bwd``, ``derivative_jvp``, ``form_fwd``, ``form_jvp``):
    each has a *form*, a plain function made at run time, which both modes differentiate
    (``srcad.runtime.derivatives``), to any order."""
    return getattr(fn, "__srcad_form__", None) is not None and getattr(
        fn, "__srcad_derivative_call__", False) and (
        getattr(fn, "__module__", "") or "").startswith("srcad.")


def as_positional(fn, args, kwargs):
    """``(args, kwargs)`` of a call of ``fn`` with the keyword arguments passed by position
    where every parameter is given and takes a position (a derivative's code called in code
    is differentiated again through forms taking positional arguments); else as they are."""
    if not kwargs:
        return list(args), dict(kwargs)
    try:
        params = inspect.signature(fn, follow_wrapped=False).parameters
        bound = inspect.signature(fn, follow_wrapped=False).bind(*args, **kwargs)
    except (TypeError, ValueError):
        return list(args), dict(kwargs)
    if set(bound.arguments) != set(params) or any(
            p.kind not in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD) for p in params.values()):
        return list(args), dict(kwargs)
    return [bound.arguments[p] for p in params], {}


#: ``[srcad.nested_vjp.PulledBack, srcad.nested_vjp.made_of]``: what srcad reads for a pullback
#: ``srcad.vjp`` made (from what it was made of), called in code srcad differentiates
PULLED_BACK = []
WITH_AUX = []  # srcad.nested_aux.plain_with_aux_maker, set there


def plain_form(fn):
    """For a Jacobian, Hessian or ``hvp`` srcad made (``srcad.jacobians``), the plain function
    srcad reads for it (by ``srcad.jvp``: ``srcad.nested.plain_jacobian``,
    ``srcad.nested_vjp.plain_hvp``), and for a pullback ``srcad.vjp`` made
    (``srcad.nested_vjp.PulledBack``); else None."""
    try:
        plain = vars(fn).get("__srcad_plain__")
    except TypeError:
        return None
    if plain is None and PULLED_BACK and (of := PULLED_BACK[1](fn)):
        plain = fn.__srcad_plain__ = PULLED_BACK[0](*of)  # a pullback
    if plain is None and WITH_AUX and "__srcad_aux_made__" in vars(fn):  # grad(f, has_aux)
        plain = fn.__srcad_plain__ = WITH_AUX[0](*fn.__srcad_aux_made__)
    if plain is None or getattr(plain, "__module__", None) not in (
            "srcad.jacobians", "srcad.nested_vjp", "srcad.nested_aux"):
        return None
    return plain()


def is_derivative_maker(fn):
    """``srcad.grad``, ``srcad.value_and_grad``, ``srcad.jacobian`` (``jacfwd``, ``jacrev``,
    ``hessian``, ``hvp``): called with constant arguments inside differentiated code, srcad
    makes the derivative while it transforms the caller (a Jacobian, a Hessian or an ``hvp``
    as the plain function it reads for one, ``__srcad_plain__``)."""
    if getattr(fn, "__srcad_derivative_maker__", None) is not None:
        return True  # a wrapper declaring itself one (see lower_callees.make_derivative)
    module, name = getattr(fn, "__module__", None), getattr(fn, "__name__", None)
    return module == "srcad.api" and name in ("grad", "value_and_grad") or (
        module == "srcad.jacobians" and name in ("jacobian", "jacfwd", "jacrev", "hessian",
                                                 "hvp")) or (
        module == "srcad.curried" and name in ("make_vjp", "make_jvp"))


def user_class(cls):
    """Whether calling the class ``cls`` builds an instance of exactly ``cls`` whose methods
    are the user's (no ``__new__`` of its own, not a library's class)."""
    home = (getattr(cls, "__module__", "") or "").split(".")[0]
    if _not_users(home) or not isinstance(cls, type):
        return False
    return all(k.__new__ is object.__new__ for k in cls.__mro__ if "__new__" in vars(k)) or \
        cls.__new__ is object.__new__


class ClassNamespace:
    """A class's own attributes as a namespace :class:`srcad.core.env.Read` can read (one
    object per class, so reads of it share a key): code made for ``obj.method(...)``, resolved
    on the class, is made again when a class on the way to the method gains or loses it."""

    ABSENT = object()  # read where the class does not define the name (no builtin fallback)
    _known = weakref.WeakKeyDictionary()

    def __init__(self, cls):
        self._cls = weakref.ref(cls)

    @classmethod
    def of(cls, klass):
        known = cls._known.get(klass)
        if known is None:
            known = cls._known[klass] = cls(klass)
        return known

    def get(self, name, default=None):
        klass = self._cls()
        if klass is None:
            return default
        return vars(klass).get(name, self.ABSENT)


def method_reads(cls, name):
    """``(namespace, value)`` for each class of ``cls``'s MRO up to the one defining
    ``name``: what resolving ``obj.name`` on the class depended on."""
    out = []
    for klass in cls.__mro__:
        space = ClassNamespace.of(klass)
        value = space.get(name)
        out.append((space, value))
        if value is not ClassNamespace.ABSENT:
            break
    return out


def shown_name(fn):
    """The name the generated code's comments give the user's function ``fn``: its own
    (``sigmoid``), ``Class.method`` for a method, and for a copy srcad made of it (a function
    taking an object's fields, say) the name of the function it was made from."""
    shown = getattr(fn, "__srcad_shown__", None)
    if shown:
        return shown
    return getattr(fn, "__qualname__", fn.__name__).rsplit(".<locals>.", 1)[-1]


def run_tree(tree, filename, globals_, user_file):
    """Run ``tree`` (an ``ast.Module`` srcad made from a user's function, its nodes at the
    user's lines) as the text it unparses to, under ``filename``; an error srcad raises at a
    line of that text names the user's file and line (:func:`srcad.errors.note_origin`).
    Returns the namespace it filled."""
    import ast

    from .. import errors

    ast.fix_missing_locations(tree)
    text = ast.unparse(tree) + "\n"
    lines = {}  # the text's lines -> the user's (ast.walk meets a statement before its parts)
    for old, new in zip(ast.walk(tree), ast.walk(ast.parse(text))):
        if getattr(new, "lineno", None) and getattr(old, "lineno", None):
            lines.setdefault(new.lineno, old.lineno)
    errors.note_origin(filename, user_file, lines)
    return run_source(text, filename, globals_)


def forget_source(filename):
    """Drop what :func:`run_tree` and :func:`run_source` kept of ``filename``."""
    import linecache

    from .. import errors

    linecache.cache.pop(filename, None)
    errors.forget_origin(filename)


def run_source(text, filename, globals_, namespace=None):
    """Run source text srcad wrote, under ``filename`` registered in :mod:`linecache` (so
    tracebacks and ``inspect`` show it), with these globals; return the namespace it filled."""
    import linecache

    linecache.cache[filename] = (len(text), None, text.splitlines(True), filename)
    namespace = {} if namespace is None else namespace
    exec(compile(text, filename, "exec"), globals_, namespace)  # noqa: S102
    return namespace
