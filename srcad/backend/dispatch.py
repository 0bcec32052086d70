"""The function ``grad`` returns: the user's signature, and the generated code inside it.

A gradient object is called like the user's function. Its body looks the argument types up in
the transformed function's cache and calls the specialisation found there::

    def f(x, w):
        if C is not _env[0] or helper is not _env[1]:
            return stale((x, w), {})              # (0) a name means something else now
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
the gradient's time for a small scalar function). The Numba backend's first specialisation
for numbers puts a direct call of its compiled entry point there instead (:func:`inline_call`:
no lookup, and none of Numba's own dispatch on the argument types). Every other call takes (2)
as before.
``srcad.clear_cache()`` puts the plain body back.

Line (0) compares, by identity, each object the specialisations made so far were made for
(the globals, closure cells and paths that :mod:`srcad.env` recorded): when one differs the
transformed function works out whether the code must be made again. A parameter with a default
is filled from the user's ``__defaults__`` as they are at the call (the dispatcher's own
defaults are a marker), so a default changed later is seen like an argument. The text
names the function ``__srcad_dispatch``; its code object takes the user's ``__name__`` (any
string: ``<lambda>``, ``"f-1"``), which is never pasted into the text.

The replacement code has exactly the free variables the function was made with (its own
private slots and the user's closure cells, in the same order), so the function object, the
one the user holds, stays the same.

Imports ``srcad.core`` (and nothing above its layer).
"""

from __future__ import annotations

import functools
import inspect
import itertools
import linecache
import types
import weakref

from ..core import env

_counter = itertools.count()

#: private names of the dispatcher's own slots; a body using one of them is not inlined
GET, SLOW, FN = "__srcad_get", "__srcad_slow", "__srcad_fn"
ENV, STALE, USER, DEFAULT = "__srcad_env", "__srcad_stale", "__srcad_user", "__srcad_default"
TARGET = "__srcad_target"  # a compiled function called directly (see inline_call)
NAME = "__srcad_dispatch"  # the def's name in the text; the code object gets the user's


class _Never:
    """The guard types before anything is inlined: no argument is ever of this class."""


class _Default:
    """The dispatcher's default for every parameter that has one: the user's own default, as
    it is at the call, takes its place."""

    def __repr__(self):
        return "<the function's default>"


_DEFAULT = _Default()


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


def _guard_names(names):
    return [f"__srcad_t{i}" for i in range(len(names))]


def _text(user, body=None, guard=None):
    """The factory source: ``guard`` (the condition of line (0)), ``body`` (lines of the
    generated function's body) inlined, or nothing."""
    positional, kwonly = _params(user)
    names = positional + kwonly
    guards = _guard_names(names)
    freevars = list(user.__code__.co_freevars)
    n_defaults = len(user.__defaults__ or ())
    kwdefaults = sorted(user.__kwdefaults__ or ())
    head = ", ".join(positional) + (", *, " + ", ".join(kwonly) if kwonly else "")
    key = "(" + "".join(f"{n}.__class__, " for n in names) + ")"
    call = ", ".join(positional + [f"{k}={k}" for k in kwonly])
    kwargs = "{" + ", ".join(f"{k!r}: {k}" for k in kwonly) + "}"
    args = f"(({''.join(p + ', ' for p in positional)}), {kwargs})"
    test = " and ".join(f"{n}.__class__ is {g}" for n, g in zip(names, guards)) or "False"
    slots = [GET, SLOW, ENV, STALE, USER, DEFAULT, TARGET] + guards + freevars
    lines = [f"def __srcad_factory__({', '.join(slots)}):",
             f"    def {NAME}({head}):"]
    for i, p in enumerate(positional[len(positional) - n_defaults:]):
        lines += [f"        if {p} is {DEFAULT}:",
                  f"            {p} = {USER}.__defaults__[{i - n_defaults}]"]
    for k in kwonly:
        if k in kwdefaults:
            lines += [f"        if {k} is {DEFAULT}:",
                      f"            {k} = {USER}.__kwdefaults__[{k!r}]"]
    if guard:
        lines += [f"        if {guard}:",
                  f"            return {STALE}{args}"]
    lines.append(f"        if {test}:")
    lines += ["            " + line for line in (body or ["pass"])]
    lines += [f"        {FN} = {GET}({key})",
              f"        if {FN} is None:",
              f"            return {SLOW}{args}",
              f"        return {FN}({call})"]
    # unreachable, but it makes every slot and closure variable a free variable here, so
    # that every version of the code fits the one closure
    lines.append(f"        ({', '.join([ENV, STALE, USER, DEFAULT, TARGET] + freevars)},)")
    lines.append(f"    return {NAME}")
    return "\n".join(lines) + "\n"


def _compile(text, filename):
    linecache.cache[filename] = (len(text), None, text.splitlines(True), filename)
    namespace = {}
    exec(compile(text, filename, "exec"), {"__builtins__": __builtins__}, namespace)  # noqa: S102
    return namespace["__srcad_factory__"].__code__.co_consts


def _inner_code(user, text, filename):
    """The dispatcher's code object, named like the user's function (for tracebacks): the
    name is set on the code object, never written into the text."""
    for const in _compile(text, filename):
        if isinstance(const, types.CodeType) and const.co_name == NAME:
            names = {"co_name": user.__name__}
            if hasattr(const, "co_qualname"):  # Python 3.11 and later
                names["co_qualname"] = user.__qualname__
            return const.replace(**names)
    raise AssertionError("the dispatcher's factory holds no function")  # pragma: no cover


def make(t):
    """The gradient function of the Transformed ``t`` (nothing inlined yet)."""
    user = t._user
    filename = f"<srcad dispatch of {user.__qualname__} #{next(_counter)}>"
    code = _inner_code(user, _text(user), filename)
    slots = {GET: t._cache.get, SLOW: t._slow_call, ENV: (), STALE: t._env_changed,
             USER: user, DEFAULT: _DEFAULT, TARGET: None}
    user_cells = dict(zip(user.__code__.co_freevars, user.__closure__ or ()))
    closure = []
    for var in code.co_freevars:
        if var in user_cells:
            closure.append(user_cells[var])  # the user's own cell: read live, never written
        else:
            closure.append(types.CellType(slots.get(var, _Never)))
    defaults = (_DEFAULT,) * len(user.__defaults__ or ()) or None
    dispatch = types.FunctionType(code, user.__globals__, user.__name__, defaults,
                                  tuple(closure) or None)
    functools.update_wrapper(dispatch, user)
    dispatch.__kwdefaults__ = {k: _DEFAULT for k in user.__kwdefaults__ or ()} or None
    dispatch.__srcad__ = t
    dispatch.__srcad_plain__ = code
    dispatch.__srcad_file__ = filename
    dispatch.__srcad_guard__ = None  # the condition of line (0)
    dispatch.__srcad_inlined__ = None  # (key, body lines) compiled in
    weakref.finalize(dispatch, linecache.cache.pop, filename, None)
    return dispatch


def _cells(dispatch):
    return dict(zip(dispatch.__code__.co_freevars, dispatch.__closure__ or ()))


def _rebuild(dispatch):
    """Compile the dispatcher's code again from its guard and inlined body. An inlined body
    that would need other free variables is dropped. Returns whether a body is inlined."""
    user = dispatch.__srcad__._user
    guard = dispatch.__srcad_guard__
    plain = _inner_code(user, _text(user, None, guard), dispatch.__srcad_file__)
    code = plain
    inlined = dispatch.__srcad_inlined__
    if inlined is not None:
        code = _inner_code(user, _text(user, inlined[1], guard), dispatch.__srcad_file__)
        if code.co_freevars != plain.co_freevars:
            code, inlined = plain, None
            dispatch.__srcad_inlined__ = None
    if plain.co_freevars != dispatch.__code__.co_freevars:  # pragma: no cover
        raise AssertionError("the dispatcher's free variables changed")
    cells = _cells(dispatch)
    for i, guard_name in enumerate(_guard_names(_names(user))):
        cells[guard_name].cell_contents = inlined[0][i] if inlined is not None else _Never
    dispatch.__srcad_plain__ = plain
    dispatch.__code__ = code
    return inlined is not None


def _code_names(code):
    """Every name a code object (and the code nested in it) reads, writes or closes over."""
    names = set(code.co_names + code.co_varnames + code.co_freevars + code.co_cellvars)
    for const in code.co_consts:
        if isinstance(const, types.CodeType):
            names |= _code_names(const)
    return names


def inline(dispatch, key, fn):
    """Compile ``fn``'s body into ``dispatch`` behind a guard on ``key`` (the argument types).
    Returns whether it did; it does not when ``fn`` needs anything but the user's globals and
    closure, or when something else is already inlined."""
    if dispatch.__srcad_inlined__ is not None:
        return False
    user = dispatch.__srcad__._user
    names = _names(user)
    if len(key) != len(names) or not all(isinstance(k, type) for k in key):
        return False
    helpers = _reads_only_user_names(fn, user)
    if helpers is None:
        return False
    text = getattr(fn, "__srcad_source__", None)
    lines = text.splitlines() if text else []
    if len(lines) < 2 or not lines[0].startswith("def ") or not lines[0].endswith(":"):
        return False
    if any(name.startswith("__srcad_") for name in _code_names(fn.__code__)):
        return False  # a body using the dispatcher's own names (never generated by srcad)
    body = [line[4:] if line.startswith("    ") else line for line in lines[1:]]
    dispatch.__srcad_inlined__ = (key, body)
    if helpers:
        # the inlined body reads srcad's helpers (math, np) as the user's globals: guard them
        dispatch.__srcad__._add_reads([
            env.Read(user.__globals__, None, h, (), user.__globals__[h]) for h in helpers])
    return _rebuild(dispatch)


def inline_call(dispatch, key, target):
    """Behind a guard on ``key`` (the argument types), call ``target`` with the arguments
    positionally, skipping the lookup: for a compiled function that takes exactly these types
    (the Numba backend's entry point for them). Returns whether it did."""
    if dispatch.__srcad_inlined__ is not None:
        return False
    positional, kwonly = _params(dispatch.__srcad__._user)
    if kwonly or len(key) != len(positional) or not all(isinstance(k, type) for k in key):
        return False
    _cells(dispatch)[TARGET].cell_contents = target
    dispatch.__srcad_inlined__ = (key, [f"return {TARGET}({', '.join(positional)})"])
    return _rebuild(dispatch)


def guard(dispatch, reads):
    """Make line (0) compare ``reads`` (env.Read objects, all the specialisations'), or drop it
    when there are none."""
    user = dispatch.__srcad__._user
    names = set(_names(user))
    user_cells = dict(zip(user.__code__.co_freevars, user.__closure__ or ()))
    values, tests, others = [], [], []
    for read in reads:
        if read.name == USER and read.namespace.get(USER) is user:
            # the function's own code object (srcad.specialise.Transformed._own_reads)
            tests.append(f"{read.spelling()} is not {ENV}[{len(values)}]")
            values.append(read)
            continue
        if read.name in names or read.name.startswith("__srcad") or getattr(
                read, "by_items", False) or (
                read.cell is not None and user_cells.get(read.name) is not read.cell) or (
                read.cell is None and (read.namespace is not user.__globals__
                                       or read.name in user_cells)):
            others.append(read)  # not spelled by its name in the dispatcher
            continue
        tests.append(f"{read.spelling()} is not {ENV}[{len(values)}]")
        values.append(read)
    if others:
        tests.append(f"not {ENV}[{len(values)}]()")
    dispatch.__srcad_reads__ = (values, others)
    dispatch.__srcad_guard__ = " or ".join(tests) or None
    refresh(dispatch)
    _rebuild(dispatch)


def refresh(dispatch):
    """Line (0)'s objects, after the reads took new ones of the same fingerprints."""
    values, others = getattr(dispatch, "__srcad_reads__", ((), ()))
    expected = tuple(r.value for r in values)
    if others:
        expected += (env.checker(others),)
    _cells(dispatch)[ENV].cell_contents = expected


def reset(dispatch):
    """Back to the plain body, nothing guarded (after ``clear_cache`` or when the code must be
    made again)."""
    if dispatch.__srcad_inlined__ is None and dispatch.__srcad_guard__ is None:
        return
    dispatch.__srcad_inlined__ = None
    dispatch.__srcad_guard__ = None
    dispatch.__srcad_reads__ = ((), ())
    _cells(dispatch)[TARGET].cell_contents = None
    refresh(dispatch)
    _rebuild(dispatch)


def _reads_only_user_names(fn, user):
    """The helpers (``math``, ``np``) ``fn`` reads that the user's module binds to the same
    objects, when every other closure variable of the generated ``fn`` is the user's own
    cell; None when ``fn`` reads anything else."""
    user_cells = dict(zip(user.__code__.co_freevars, user.__closure__ or ()))
    if fn.__globals__ is not user.__globals__:
        return None
    helpers = []
    for var, cell in zip(fn.__code__.co_freevars, fn.__closure__ or ()):
        if user_cells.get(var) is cell:
            continue
        try:
            value = cell.cell_contents
        except ValueError:
            return None
        if var in user_cells or user.__globals__.get(var, _Never) is not value:
            return None
        helpers.append(var)
    return helpers
