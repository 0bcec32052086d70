"""The function ``grad`` returns: the user's signature, and the generated code inside it.

A gradient object is called like the user's function. Its body looks the argument types up in
the transformed function's cache and calls the specialisation found there::

    def f(x, w):
        if x.__class__ is _t0 and w.__class__ is _t1:
            pass                                  # (1) nothing inlined yet
        fn = get((x.__class__, w.__class__))      # (2) one dict lookup
        if fn is None:
            return slow((x, w), {})               # (3) first call with these types
        return fn(x, w)

Once the first specialisation exists, and if its code reads nothing but the user's globals
and closure (plain scalar code: arithmetic and ``math``), its body is compiled *into* (1) and
the function's ``__code__`` is replaced: the common call then costs two type checks on top of
the generated code, instead of a second call and a dict lookup (the difference is a third of
the gradient's time for a small scalar function). Every other call takes (2) as before.
``srcad.clear_cache()`` puts the plain body back.

The replacement code has exactly the free variables the function was made with (its own
private slots and the user's closure cells, in the same order), so the function object, the
one the user holds, stays the same.
"""

from __future__ import annotations

import functools
import inspect
import itertools
import keyword
import linecache
import re
import types

_counter = itertools.count()

#: private names of the dispatcher's own slots; a body using one of them is not inlined
GET, SLOW, FN = "__srcad_get", "__srcad_slow", "__srcad_fn"


class _Never:
    """The guard types before anything is inlined: no argument is ever of this class."""


def _params(user):
    sig = inspect.signature(user)
    params = [p for p in sig.parameters.values()
              if p.kind not in (p.VAR_POSITIONAL, p.VAR_KEYWORD)]
    positional = [p.name for p in params if p.kind != p.KEYWORD_ONLY]
    kwonly = [p.name for p in params if p.kind == p.KEYWORD_ONLY]
    return positional, kwonly


def _names(user):
    positional, kwonly = _params(user)
    return positional + kwonly


def _def_name(user):
    """The name the dispatcher's ``def`` takes: the user's function's, if Python accepts it
    (a decorator may set ``__name__`` to anything); the function object gets it either way."""
    name = user.__name__
    if not name.isidentifier() or keyword.iskeyword(name) or name in (GET, SLOW, FN):
        return "function"
    return name


def _guard_names(names):
    return [f"__srcad_t{i}" for i in range(len(names))]


def _text(user, body=None):
    """The factory source: ``body`` (lines of the generated function's body) inlined, or
    nothing."""
    positional, kwonly = _params(user)
    names = positional + kwonly
    guards = _guard_names(names)
    freevars = list(user.__code__.co_freevars)
    head = ", ".join(positional) + (", *, " + ", ".join(kwonly) if kwonly else "")
    key = "(" + "".join(f"{n}.__class__, " for n in names) + ")"
    call = ", ".join(positional + [f"{k}={k}" for k in kwonly])
    kwargs = "{" + ", ".join(f"{k!r}: {k}" for k in kwonly) + "}"
    test = " and ".join(f"{n}.__class__ is {g}" for n, g in zip(names, guards)) or "False"
    lines = [f"def __srcad_factory__({', '.join([GET, SLOW] + guards + freevars)}):",
             f"    def {_def_name(user)}({head}):",
             f"        if {test}:"]
    lines += ["            " + line for line in (body or ["pass"])]
    lines += [f"        {FN} = {GET}({key})",
              f"        if {FN} is None:",
              f"            return {SLOW}(({''.join(p + ', ' for p in positional)}), {kwargs})",
              f"        return {FN}({call})"]
    if freevars:  # unreachable, but it makes every closure variable a free variable here
        lines.append(f"        ({', '.join(freevars)},)")
    lines.append(f"    return {_def_name(user)}")
    return "\n".join(lines) + "\n"


def _compile(user, text, label):
    filename = f"<srcad {label} #{next(_counter)}>"
    linecache.cache[filename] = (len(text), None, text.splitlines(True), filename)
    namespace = {}
    exec(compile(text, filename, "exec"), {"__builtins__": __builtins__}, namespace)  # noqa: S102
    return namespace["__srcad_factory__"].__code__.co_consts


def _inner_code(user, text, label):
    for const in _compile(user, text, label):
        if isinstance(const, types.CodeType) and const.co_name == _def_name(user):
            return const
    raise AssertionError("the dispatcher's factory holds no function")  # pragma: no cover


def make(t):
    """The gradient function of the Transformed ``t`` (nothing inlined yet)."""
    user = t._user
    code = _inner_code(user, _text(user), f"dispatch of {user.__qualname__}")
    slots = {GET: t._cache.get, SLOW: t._slow_call}
    user_cells = dict(zip(user.__code__.co_freevars, user.__closure__ or ()))
    closure = []
    for var in code.co_freevars:
        if var in user_cells:
            closure.append(user_cells[var])  # the user's own cell: read live, never written
        else:
            closure.append(types.CellType(slots.get(var, _Never)))
    dispatch = types.FunctionType(code, user.__globals__, user.__name__, user.__defaults__,
                                  tuple(closure) or None)
    functools.update_wrapper(dispatch, user)
    dispatch.__kwdefaults__ = user.__kwdefaults__
    dispatch.__srcad__ = t
    dispatch.__srcad_plain__ = code
    return dispatch


def inline(dispatch, key, fn):
    """Compile ``fn``'s body into ``dispatch`` behind a guard on ``key`` (the argument types).
    Returns whether it did; it does not when ``fn`` needs anything but the user's globals and
    closure, or when something else is already inlined."""
    if dispatch.__code__ is not dispatch.__srcad_plain__:
        return False
    user = dispatch.__srcad__._user
    names = _names(user)
    if len(key) != len(names) or not all(isinstance(k, type) for k in key):
        return False
    if not _reads_only_user_names(fn, user):
        return False
    text = getattr(fn, "__srcad_source__", None)
    lines = text.splitlines() if text else []
    if len(lines) < 2 or not lines[0].startswith("def ") or not lines[0].endswith(":"):
        return False
    if re.search(r"\b__srcad_", text):
        return False  # a body using the dispatcher's own names (never generated by srcad)
    body = [line[4:] if line.startswith("    ") else line for line in lines[1:]]
    label = f"{fn.__name__} inlined in the dispatch of {user.__qualname__}"
    code = _inner_code(user, _text(user, body), label)
    if code.co_freevars != dispatch.__code__.co_freevars:
        return False
    cells = dict(zip(code.co_freevars, dispatch.__closure__ or ()))
    for guard, cls in zip(_guard_names(names), key):
        cells[guard].cell_contents = cls
    dispatch.__code__ = code
    return True


def reset(dispatch):
    """Back to the plain body (after ``clear_cache``)."""
    plain = dispatch.__srcad_plain__
    if dispatch.__code__ is not plain:
        dispatch.__code__ = plain
        cells = dict(zip(plain.co_freevars, dispatch.__closure__ or ()))
        for guard in _guard_names(_names(dispatch.__srcad__._user)):
            cells[guard].cell_contents = _Never


def _reads_only_user_names(fn, user):
    """Whether every closure variable of the generated ``fn`` is either the user's own cell
    or a helper the user's module binds to the same object (``math``, ``np``)."""
    user_cells = dict(zip(user.__code__.co_freevars, user.__closure__ or ()))
    if fn.__globals__ is not user.__globals__:
        return False
    for var, cell in zip(fn.__code__.co_freevars, fn.__closure__ or ()):
        if user_cells.get(var) is cell:
            continue
        try:
            value = cell.cell_contents
        except ValueError:
            return False
        if var in user_cells or user.__globals__.get(var, _Never) is not value:
            return False
    return True
