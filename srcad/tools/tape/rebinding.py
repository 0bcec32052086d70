"""``rebind``: a copy of a plain function, and of the user helpers it calls, that sees
stand-ins for the modules, functions and builtins it uses.

The tape runs plain functions on :class:`~.var.Var` values through it, and
:mod:`srcad.compare` runs them on torch tensors and autograd's traced values.

Imports: the standard library only.
"""

from __future__ import annotations

import builtins
import functools
import sys
import types

# ================================================================================================
# Rebinding
# ================================================================================================

# Functions from these top-level packages are called as they are, never rebound.
_LIBRARIES = frozenset(sys.stdlib_module_names) | {
    "srcad", "numpy", "scipy", "torch", "autograd", "jax", "pytest", "_pytest",
}  # fmt: skip
_MISSING = object()


def rebind(f, replacements):
    """A copy of ``f`` that sees ``replacements[obj]`` wherever it used ``obj``.

    Keys are matched by identity: a module (``math``), or a function however it was imported
    (``from math import sin``). The copy has its own copy of ``f``'s globals; the globals it
    references, its defaults and the contents of its closure cells are replaced when they are
    keys. User helper functions it references (plain Python functions not from the standard
    library, NumPy, srcad...) are rebound the same way, recursively; each function is copied once
    per call, so recursion and mutual recursion reach the copies. Closure cells that hold neither
    a key nor a user function are shared with ``f``. Builtins that are keys are replaced through a
    patched ``__builtins__``. ``f`` itself is not changed.

        >>> import math
        >>> def half_turn(x):
        ...     return math.pi * x
        >>> fake = types.SimpleNamespace(pi=180)
        >>> rebind(half_turn, {math: fake})(2), half_turn(2) == 2 * math.pi
        (360, True)
    """
    by_id = {id(key): value for key, value in replacements.items()}
    patched_builtins = {k: by_id[id(v)] for k, v in vars(builtins).items() if id(v) in by_id}
    copies = {}

    def new_value(v):
        new = by_id.get(id(v), _MISSING)
        if new is not _MISSING:
            return new
        if isinstance(v, types.FunctionType) and _is_user_code(v):
            return copy(v)
        if isinstance(v, functools.partial):
            func = new_value(v.func)
            return v if func is v.func else functools.partial(func, *v.args, **v.keywords)
        return v

    def needs_new(v):
        if isinstance(v, functools.partial):
            return needs_new(v.func)
        return id(v) in by_id or (isinstance(v, types.FunctionType) and _is_user_code(v))

    def copy(fn):
        if fn in copies:
            return copies[fn]
        cells, fills = [], []
        for cell in fn.__closure__ or ():
            try:
                content = cell.cell_contents
            except ValueError:  # an empty cell
                content = _MISSING
            if content is not _MISSING and needs_new(content):
                cells.append(types.CellType())
                fills.append((cells[-1], content))
            else:
                cells.append(cell)
        defaults = fn.__defaults__ and tuple(map(new_value, fn.__defaults__))
        env = dict(fn.__globals__)
        if patched_builtins:  # before the function is made: it caches its builtins
            env["__builtins__"] = {**vars(builtins), **patched_builtins}
        new = types.FunctionType(fn.__code__, env, fn.__name__, defaults, tuple(cells) or None)
        copies[fn] = new  # before the helpers, so recursion finds the copy
        new.__qualname__, new.__doc__ = fn.__qualname__, fn.__doc__
        new.__dict__.update(fn.__dict__)
        if fn.__kwdefaults__:
            new.__kwdefaults__ = {k: new_value(v) for k, v in fn.__kwdefaults__.items()}
        for cell, content in fills:
            cell.cell_contents = new_value(content)
        for name in _global_names(fn.__code__) & env.keys():
            env[name] = new_value(env[name])
        return new

    if id(f) in by_id:
        return by_id[id(f)]
    if isinstance(f, types.MethodType):
        return types.MethodType(copy(f.__func__), f.__self__)
    if not isinstance(f, types.FunctionType):
        raise TypeError(f"rebind needs a Python function, not {type(f).__name__}")
    return copy(f)


def _is_user_code(fn):
    """Whether fn lives in a module outside the libraries (by its globals: wraps() can lie)."""
    return str(fn.__globals__.get("__name__")).partition(".")[0] not in _LIBRARIES


def _global_names(code):
    """Names that ``code`` or any code nested in it (lambdas, comprehensions) may read globally."""
    names = set(code.co_names)
    for const in code.co_consts:
        if isinstance(const, types.CodeType):
            names |= _global_names(const)
    return names

