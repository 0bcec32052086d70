"""Jacobians and Hessians of numbers compiled like ``grad``'s dispatcher: one frame.

``jacobian(f)`` (and ``jacrev``, ``jacfwd``, ``hessian``) returns a *front*: a function
taking its arguments positionally, whose code, once the Jacobian has made its code for numbers
of some types (a number out; forward mode: one ``wrt`` argument), holds that code's body
itself (reverse mode w.r.t. several arguments: its gradients returned as floats), behind the
tests that the arguments are of those types and that every name the code read still finds the
very object it found::

    def jacobian_of(x=<not given>, /, *__srcad_args):
        if not __srcad_args:
            try:
                __srcad_ok = x.__class__ is __srcad_env[0] and math is __srcad_env[1]
            except (AttributeError, NameError, ValueError):  # gone: the full path
                __srcad_ok = False
            if __srcad_ok:
                dx = x + x + math.sin(x) + x * math.cos(x)   # grad's code for floats
                __srcad_g = dx
                return __srcad_g if __srcad_g.__class__ is __srcad_float else __srcad_float(
                    __srcad_g)
        if x is not __srcad_missing:
            if not __srcad_args:  # the Jacobian's closures for these types (arrays: by ranks)
                __srcad_g = __srcad_numbers.get((__srcad_type(x), ))
                if __srcad_g is not None:
                    return __srcad_g(x)
                return __srcad_call(x)                   # the Jacobian's full path
            return __srcad_fallback(x, *__srcad_args)
        return __srcad_fallback(*[a for a in (x,) if a is not __srcad_missing])

The user's positional parameters are the front's, positional only (a keyword is refused, as
by a function taking ``*args``), each defaulting to a marker: the fallback gets the arguments
as they were given.

Forward mode (``jacfwd``, ``hessian``) sets the tangent parameters to their seeds first and
keeps the value's check (a float or float64 value: its tangent as a float; anything else
goes to ``__srcad_rest``, which does what the Jacobian did with it).

The front's globals are the user's and its closure the user's own cells plus four private
slots, so the code is swapped in place (``__code__``) on the function the user holds, as
:mod:`srcad.backend.dispatch` does for ``grad``. A body is compiled in only when the code
reads nothing but the user's globals and closure (:func:`dispatch.inline`'s condition) and
each name it read is spelled by its name in the front; otherwise the front calls the
fallback, and its cost is one call more than before it existed (none: it *is* the function
called before, :func:`make` takes that function as its fallback).

Imports :mod:`srcad.backend.dispatch` and ``srcad.core``.
"""

from __future__ import annotations

import ast
import functools
import itertools
import linecache
import types
import weakref

import numpy as np

from . import dispatch

_counter = itertools.count()
FALLBACK, ENV, REST, F64 = "__srcad_fallback", "__srcad_env", "__srcad_rest", "__srcad_f64"
MISSING, NUMBERS, CALL = "__srcad_missing", "__srcad_numbers", "__srcad_call"
FLOAT, TYPE = "__srcad_float", "__srcad_type"  # builtins, never the user's names for them
ARGS, OK, G, V = "__srcad_args", "__srcad_ok", "__srcad_g", "__srcad_v"
_SLOTS = [FALLBACK, ENV, REST, F64, MISSING, NUMBERS, FLOAT, TYPE, CALL]


def _positional(user):
    code = user.__code__
    return list(code.co_varnames[:code.co_argcount])


def _factory(user, name, body_lines=None):
    """The factory's text: the front takes the user's positional parameters positionally (each
    defaulting to the marker :data:`MISSING`), then ``*__srcad_args``; ``body_lines`` first,
    then the call of the fallback with the arguments given, as they were given."""
    freevars = list(user.__code__.co_freevars)
    names = _positional(user)
    head = "".join(f"{p}, " for p in names) + ("/, " if names else "") + f"*{ARGS}"
    lines = [f"def __srcad_factory__({', '.join(_SLOTS + freevars)}):",
             f"    def {name}({head}):"]
    lines += ["        " + line for line in (body_lines or [])]
    if names:
        given = ", ".join(names)
        key = "".join(f"{TYPE}({p}), " for p in names)
        lines += [f"        if {names[-1]} is not {MISSING}:",
                  f"            if not {ARGS}:  # the Jacobian's closures for these types",
                  f"                {G} = {NUMBERS}.get(({key}))",
                  f"                if {G} is not None:",
                  f"                    return {G}({given})",
                  f"                return {CALL}({given})  # (none: the Jacobian's own path)",
                  f"            return {FALLBACK}({given}, *{ARGS})",
                  f"        return {FALLBACK}(*[a for a in ({given},) if a is not {MISSING}])"]
    else:
        lines.append(f"        return {FALLBACK}(*{ARGS})")
    lines.append(f"        ({', '.join(_SLOTS[1:] + freevars)},)")  # every slot a free variable
    lines.append(f"    return {name}")
    return "\n".join(lines) + "\n"


class _Missing:
    def __repr__(self):
        return "<not given>"


_MISSING = _Missing()


def _code(user, text, filename, name):
    linecache.cache[filename] = (len(text), None, text.splitlines(True), filename)
    namespace = {}
    exec(compile(text, filename, "exec"), {"__builtins__": __builtins__}, namespace)  # noqa: S102
    for const in namespace["__srcad_factory__"].__code__.co_consts:
        if isinstance(const, types.CodeType) and const.co_name == name:
            return const
    raise AssertionError("the front's factory holds no function")  # pragma: no cover


def _cells(front):
    return dict(zip(front.__code__.co_freevars, front.__closure__ or ()))


def make(user, fallback, numbers, call=None):
    """A front for ``user``'s Jacobian: the closure the Jacobian keeps for these argument types
    in ``numbers`` (all given, none of them a keyword), else ``call`` (for arguments all given
    and none found there: what ``fallback`` would call after its own lookup) or ``fallback``
    (the Jacobian's own function, taking ``*args``), until :func:`inline` compiles a body into
    it; None when ``user`` is not a plain function (a builtin, a callable object, a function
    of srcad's)."""
    code = getattr(user, "__code__", None)
    if not isinstance(user, types.FunctionType) or code is None or any(
            v.startswith("__srcad") for v in code.co_freevars):
        return None
    name = "jacobian_of"
    filename = f"<srcad jacobian front of {user.__qualname__} #{next(_counter)}>"
    plain = _code(user, _factory(user, name), filename, name)
    slots = {FALLBACK: fallback, ENV: (), REST: None, F64: np.float64, MISSING: _MISSING,
             NUMBERS: numbers, FLOAT: float, TYPE: type, CALL: call or fallback}
    user_cells = dict(zip(code.co_freevars, user.__closure__ or ()))
    closure = tuple(user_cells[v] if v in user_cells else types.CellType(slots[v])
                    for v in plain.co_freevars)
    defaults = (_MISSING,) * len(_positional(user)) or None
    front = types.FunctionType(plain, user.__globals__, name, defaults, closure or None)
    functools.update_wrapper(front, fallback)
    front.__wrapped__ = getattr(fallback, "__wrapped__", user)
    front.__srcad_front__ = (user, filename, plain)
    front.__srcad_inlined__ = None
    front.__srcad_fallback__ = fallback  # (the path taken before the fronts: for tests)
    weakref.finalize(front, linecache.cache.pop, filename, None)
    return front


class _Returns(ast.NodeTransformer):
    """Each ``return E`` of the generated function's own body (not of a nested function) made
    the statements ``make(E)`` returns."""

    def __init__(self, make):
        self.make = make

    def visit_FunctionDef(self, node):
        return node  # a nested function's returns are its own

    visit_AsyncFunctionDef = visit_Lambda = visit_ClassDef = visit_FunctionDef

    def visit_Return(self, node):
        return self.make(node.value if node.value is not None else ast.Constant(None))


def _stmts(text, **values):
    tree = ast.parse(text)
    for node in ast.walk(tree):
        if isinstance(node, ast.Name) and node.id in values:
            return _replace(tree, values).body
    return tree.body


def _replace(tree, values):
    class Sub(ast.NodeTransformer):
        def visit_Name(self, node):
            return values.get(node.id, node)

    return ast.fix_missing_locations(Sub().visit(tree))


_AS_FLOAT = f"return {G} if {G}.__class__ is {FLOAT} else {FLOAT}({G})"


def _rev(expr, outs=None):
    """``return E`` of grad's code (a tuple of gradients) as the Jacobian's return: its one
    gradient as a float, or (``outs``: how many ``wrt`` arguments) a tuple of ``outs`` floats."""
    display = isinstance(expr, ast.Tuple) and not any(
        isinstance(e, ast.Starred) for e in expr.elts)
    if outs is None:
        if display and expr.elts:
            return _stmts(f"{G} = E\n{_AS_FLOAT}\n", E=expr.elts[0])  # no tuple made
        return _stmts(f"{G} = E[0]\n{_AS_FLOAT}\n", E=expr)
    names = [f"{G}{k}" for k in range(outs)]
    if display and len(expr.elts) == outs:  # each item a name of its own: no tuple made
        head = ast.Assign([ast.Tuple([ast.Name(n, ast.Store()) for n in names], ast.Store())],
                          ast.Tuple(expr.elts, ast.Load()))
    else:
        head = ast.Assign([ast.Tuple([ast.Name(n, ast.Store()) for n in names], ast.Store())],
                          expr)
    floats = ", ".join(f"{n} if {n}.__class__ is {FLOAT} else {FLOAT}({n})" for n in names)
    return [head, *_stmts(f"return ({floats},)\n")]


def _fwd(expr, given):
    check = (f"if {V}.__class__ is float or {V}.__class__ is {F64}:\n"
             f"    {_AS_FLOAT}\n"
             f"return {REST}({given}, {V}, {G})\n")
    if isinstance(expr, ast.Tuple) and len(expr.elts) == 2 and not any(
            isinstance(e, ast.Starred) for e in expr.elts):  # no tuple made
        return _stmts(f"{V} = E\n{G} = T\n" + check, E=expr.elts[0], T=expr.elts[1])
    return _stmts(f"{V}, {G} = E\n" + check, E=expr)


def _tests(user, reads, helpers, params, values):
    """The identity tests of ``reads`` and ``helpers`` spelled by name (their objects
    appended to ``values``), or None when one cannot be (then nothing is compiled in)."""
    user_cells = dict(zip(user.__code__.co_freevars, user.__closure__ or ()))
    tests, done = [], set()
    for read in reads:
        if read.cell is None and read.name.startswith("__srcad") and read.attrs and (
                read.namespace.get(read.name) is not None):
            # a function's own code object (srcad.specialise.Transformed._own_reads), in a
            # private namespace of srcad's that holds that one function
            spelled = ".".join((f"{ENV}[{len(values)}]",) + read.attrs)
            values.append(read.namespace[read.name])
            tests.append(f"{spelled} is {ENV}[{len(values)}]")
            values.append(read.value)
            continue
        if read.cell is not None and user_cells.get(read.name) is not read.cell and not getattr(
                read, "by_items", False):  # another function's cell (a callee's, srcad's own)
            spelled = ".".join((f"{ENV}[{len(values)}].cell_contents",) + read.attrs)
            values.append(read.cell)
            tests.append(f"{spelled} is {ENV}[{len(values)}]")
            values.append(read.value)
            continue
        if read.name in params or read.name.startswith("__srcad") or getattr(
                read, "by_items", False) or (
                read.cell is not None and user_cells.get(read.name) is not read.cell) or (
                read.cell is None and (read.namespace is not user.__globals__
                                       or read.name in user_cells)):
            return None
        if read.spelling() not in done:  # (a name read on several paths: tested once)
            done.add(read.spelling())
            tests.append(f"{read.spelling()} is {ENV}[{len(values)}]")
            values.append(read.value)
    for h in helpers:
        if h not in done:
            tests.append(f"{h} is {ENV}[{len(values)}]")
            values.append(user.__globals__[h])
    return tests


def plain_def(fn, user):
    """``(node, parameters, helpers)`` of the generated ``fn`` (its source parsed: one
    ``def`` with positional parameters only, reading only ``user``'s names and srcad's
    ``helpers``), or None when it is not such code."""
    text = getattr(fn, "__srcad_source__", None)
    helpers = dispatch._reads_only_user_names(fn, user) if text else None
    if helpers is None or any(n.startswith("__srcad") for n in dispatch._code_names(
            fn.__code__)):
        return None
    try:
        tree = ast.parse(text)
    except SyntaxError:  # pragma: no cover - generated code parses
        return None
    node = tree.body[0] if len(tree.body) == 1 else None
    if not isinstance(node, ast.FunctionDef) or node.args.vararg or node.args.kwarg or (
            node.args.kwonlyargs or node.args.posonlyargs or node.args.defaults):
        return None
    try:  # the fronts write the code out again: an expression too deep for that stays out
        ast.unparse(node)
    except RecursionError:
        return None
    return node, [a.arg for a in node.args.args], helpers


def inline(front, key, fn, mode, seeds=(), rest=None, outs=None):
    """Compile the body of ``fn`` (grad's code for numbers of the types ``key``, ``mode``
    "rev", ``outs`` its number of gradients for a tuple ``wrt``; or the forward-mode code,
    "fwd", its tangent parameters set to ``seeds``, ``rest`` taking a value that is not a
    float) into ``front``. Returns whether it did; it does not when something is already
    compiled in or the code reads anything it cannot test."""
    if front is None or front.__srcad_inlined__ not in (None, (key, mode)):
        return False  # (the same types again: code made again after a name was rebound)
    user, filename, plain = front.__srcad_front__
    text = getattr(fn, "__srcad_source__", None)
    if not text or not all(isinstance(k, type) for k in key):
        return False
    found = plain_def(fn, user)
    if found is None:
        return False
    node, params, helpers = found
    n = len(key)
    if len(params) != n + len(seeds) or params[:n] != _positional(user):
        return False  # (a function with *args: its Jacobian's lookup, as before)
    values = list(key)
    tests = _tests(user, fn.__srcad_reads__ or (), helpers, set(params), values)
    if tests is None:
        return False
    type_tests = [f"{p}.__class__ is {ENV}[{i}]" for i, p in enumerate(params[:n])]
    body = ast.fix_missing_locations(_Returns(functools.partial(_rev, outs=outs) if (
        mode == "rev") else functools.partial(
        _fwd, given="(" + "".join(p + ", " for p in params[:n]) + ")")).visit(
        ast.Module(body=node.body, type_ignores=[])))
    seed_lines = [f"{p} = {seed!r}" if type(seed) is float and seed in (0.0, 1.0) else (
        f"{p} = {ENV}[{len(values) + k}]") for k, (p, seed) in enumerate(zip(params[n:], seeds))]
    values += list(seeds)
    lines = [f"if not {ARGS}:",
             "    try:",
             f"        {OK} = {' and '.join(type_tests + tests)}",
             "    except (AttributeError, NameError, ValueError):  # a name, attribute, cell gone",
             f"        {OK} = False",
             f"    if {OK}:"]
    lines += ["        " + line for line in seed_lines + ast.unparse(body).splitlines()]
    code = _code(user, _factory(user, "jacobian_of", lines), filename, "jacobian_of")
    if code.co_freevars != plain.co_freevars:  # the body needs other free variables
        return False
    cells = _cells(front)
    cells[ENV].cell_contents = tuple(values)
    cells[REST].cell_contents = rest
    front.__srcad_inlined__ = (key, mode)
    front.__code__ = code
    return True


def reset(front):
    """Back to calling the fallback alone."""
    if front is not None and front.__srcad_inlined__ is not None:
        front.__code__ = front.__srcad_front__[2]
        front.__srcad_inlined__ = None
        _cells(front)[ENV].cell_contents = ()
