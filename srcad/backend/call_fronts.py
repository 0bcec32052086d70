"""``vjp`` and ``jvp`` of numbers compiled in one frame, with their pullbacks.

``srcad.vjp(f, x)`` and ``srcad.jvp(f, (x,), (t,))`` take ``f`` on every call: they look up
the closure kept for ``f``, ``wrt`` and the argument types (:mod:`srcad.fast_calls`), which
then called the code made for them (``value_and_grad``'s, the forward-mode code), one frame
more. For numbers, that closure is compiled here instead, the generated code's body in its
own body, behind the tests that the arguments are of the types the code was made for and that
every name it read still finds the very object it found (:func:`dispatch_fronts._tests`,
as for the Jacobians' fronts)::

    def vjp_of(__srcad_a):                      # vjp(f, 0.7): (value, pullback)
        x, = __srcad_a
        try:
            __srcad_ok = x.__class__ is __srcad_env[0] and math is __srcad_env[1]
        except (AttributeError, NameError, ValueError):
            __srcad_ok = False
        if __srcad_ok:
            sin = math.sin(x)                   # value_and_grad's code for floats
            y = sin * x + x * x
            dx = x + x + sin + x * math.cos(x)
            __srcad_v = y
            __srcad_g = (dx,)
            if __srcad_v.__class__ is __srcad_float or __srcad_v.__class__ is __srcad_f64:
                def __srcad_pullback__(__srcad_dy):
                    nonlocal __srcad_g
                    if __srcad_dy.__class__ is __srcad_float and __srcad_dy == 1.0:
                        if __srcad_g is not None:   # the first time: made with the value
                            __srcad_r = __srcad_g
                            __srcad_g = None
                            return __srcad_r
                        try: ...                    # grad's code, its tests again
                        if __srcad_ok:
                            dx = x + x + math.sin(x) + x * math.cos(x)
                            return dx,
                        return __srcad_grad(*__srcad_a)
                    return __srcad_slow(__srcad_v, __srcad_dy, __srcad_a)
                return __srcad_v, __srcad_pullback__
        return __srcad_lazy(__srcad_a)          # the closure as it was

The pullback is the nested function: one frame, its code (grad's) in its body; what srcad
reads for it in code it differentiates (``__srcad_vjp_of__``) is in its cells
(:func:`pullback_of`). ``jvp``'s closure is the same without the
pullback: the forward-mode code's body, its ``return`` as it is.

A body is compiled in only when the code reads nothing but the user's globals and closure,
has a single ``return`` at its end (``vjp``), assigns none of its parameters, and each name
it reads is spelled by its name here; otherwise nothing is made and the closure stays.

Imports :mod:`srcad.backend.dispatch_fronts` and
:mod:`srcad.backend.keys`.
"""

from __future__ import annotations

import ast
import functools
import itertools
import linecache
import types
import weakref

import numpy as np

from . import dispatch_fronts
from .keys import cache_key

_counter = itertools.count()
ENV, OK = dispatch_fronts.ENV, dispatch_fronts.OK
FLOAT, F64 = "__srcad_float", "__srcad_f64"
LAZY, GRAD, SLOW = "__srcad_lazy", "__srcad_grad", "__srcad_slow"
F, WRT, GIVEN = "__srcad_f", "__srcad_wrt", "__srcad_given"
ARGS, TANGENTS, V, G, R, DY = "__srcad_a", "__srcad_t", "__srcad_v", "__srcad_g", \
    "__srcad_r", "__srcad_dy"
T = "__srcad_tangent"  # (a pass's tangent, in a Jacobian's closure)
PULLBACK = "__srcad_pullback__"  # the pullback's code name: what srcad reads is in its cells
_SLOTS = [ENV, FLOAT, F64, LAZY, GRAD, SLOW, F, WRT]


#: the attributes of a function ``f`` holding the fronts of ``vjp(f, ...)`` and ``jvp(f, ...)``
#: (``wrt`` not given), looked up first by the entry points (:func:`short_vjp`)
VJP, JVP, HVP = "__srcad_vjp_front__", "__srcad_jvp_front__", "__srcad_hvp_front__"
_NONE = {}


class Fronts:
    """The functions holding fronts (weakly), to forget them all (``srcad.clear_cache``)."""

    def __init__(self):
        self.holders = weakref.WeakSet()

    def put(self, f, attr, front):
        try:
            self.holders.add(f)
            f.__dict__[attr] = front
        except (AttributeError, TypeError):  # holds no attributes, or not weakly: never kept
            return

    def clear(self):
        for f in list(self.holders):
            for attr in (VJP, JVP, HVP):
                f.__dict__.pop(attr, None)
        self.holders = weakref.WeakSet()


FRONTS = Fronts()


def short_vjp(slow, attr):
    """``vjp`` (``slow``: srcad.api's, which it wraps) with the front ``f`` holds (its
    ``wrt`` not given) called first, then the lookup of the closure kept for these argument
    types (``attr``: the table's attribute, :data:`srcad.fast_calls.VJPS`), both in the
    frame called. Anything else goes to ``slow``, which looks again."""

    def vjp(f, *args, wrt=None, has_aux=False, backend="python"):
        if wrt is None and has_aux is False and backend == "python":
            try:
                front = f.__dict__.get("__srcad_vjp_front__")  # (VJP)
            except AttributeError:
                front = None
            if front is not None:
                done = front(args, f)
                if done is not None:
                    return done
        if backend == "python" and has_aux.__class__ is bool:  # (has_aux: srcad.aux_calls)
            held = getattr(f, "__dict__", _NONE).get(attr)
            if held is not None and held[0]() is f:
                try:
                    found = held[1].get((("has_aux", wrt) if has_aux else wrt,))
                except TypeError:  # an unhashable wrt (a list): never kept
                    found = None
                if found is not None:
                    known = found.get((type(args[0]),) if len(args) == 1 else tuple(
                        map(type, args)))
                    if known is not None:
                        return known(args)
        return slow(f, *args, wrt=wrt, has_aux=has_aux, backend=backend)

    functools.update_wrapper(vjp, slow)
    return vjp


def short_jvp(slow, attr):
    """``jvp`` (``slow``: srcad.api's) with the front ``f`` holds called first, then the
    lookup of the closure kept for these types of primals and tangents (``attr``:
    :data:`srcad.fast_calls.JVPS`'s), both in the frame called. Anything the closure kept does
    not take (None) goes to ``slow``."""

    def jvp(f, primals, tangents, wrt=None, backend="python"):
        if wrt is None and backend == "python":
            try:
                front = f.__dict__.get("__srcad_jvp_front__")  # (JVP)
            except AttributeError:
                front = None
            if front is not None:  # (primals and tangents not tuples: None)
                done = front(primals, tangents, f)
                if done is not None:
                    return done
        if backend == "python" and type(primals) is tuple and type(tangents) is tuple:
            held = getattr(f, "__dict__", _NONE).get(attr)
            if held is not None and held[0]() is f:
                try:
                    found = held[1].get((wrt,))
                except TypeError:  # an unhashable wrt (a list): never kept
                    found = None
                if found is not None:
                    known = found.get((type(primals[0]), type(tangents[0])) if len(
                        primals) == 1 and len(tangents) == 1 else tuple(
                        map(type, primals)) + tuple(map(type, tangents)))
                    done = known(primals, tangents) if known is not None else None
                    if done is not None:
                        return done
        return slow(f, primals, tangents, wrt, backend)

    functools.update_wrapper(jvp, slow)
    return jvp


def short_hvp(slow, point):
    """``hvp`` (``slow``: srcad.jacobians's, ``point``: its marker of an argument not given)
    with the front ``f`` holds called first, for ``hvp(f, x, v)`` of one number ``x``
    (``wrt`` 0): anything else, or anything the front does not take (None), goes to
    ``slow``."""

    def hvp(f, x=point, v=point, wrt=0):
        if wrt.__class__ is int and wrt == 0:
            try:
                front = f.__dict__.get("__srcad_hvp_front__")  # (HVP)
            except AttributeError:
                front = None
            if front is not None:
                done = front(x, v, f)
                if done is not None:
                    return done
        return slow(f, x, v, wrt)

    functools.update_wrapper(hvp, slow)
    return hvp


#: the code of pullbacks written by hand that hold ``(f, args, wrt, has_aux, value)`` in
#: their cell ``of`` (:func:`srcad.fast_calls.eager_vjp`'s: no attribute set per call)
HELD = set()


def held_codes(fn, name):
    """Put the code of the functions named ``name`` defined in ``fn`` (at any depth) in
    :data:`HELD`."""
    for const in fn.__code__.co_consts if callable(fn) else fn.co_consts:
        if isinstance(const, types.CodeType):
            if const.co_name == name and "of" in const.co_freevars:
                HELD.add(const)
            held_codes(const, name)


def pullback_of(fn):
    """``(f, args, wrt, has_aux, value)`` of a pullback compiled here (read from its cells)
    or held in its cell ``of`` (:data:`HELD`), else None."""
    code = getattr(fn, "__code__", None)
    if code in HELD:
        return fn.__closure__[code.co_freevars.index("of")].cell_contents
    if getattr(code, "co_name", None) != PULLBACK or not getattr(fn, "__closure__", None):
        return None
    try:
        cells = {v: c.cell_contents for v, c in zip(code.co_freevars, fn.__closure__)}
        return cells[F], cells[ARGS], cells[WRT], False, cells[V]
    except (KeyError, ValueError):  # pragma: no cover - every such pullback holds them
        return None


def _parsed(fn, user, values):
    """``(parameters, body, tests)`` of the generated ``fn`` to compile into a function made
    on ``user``'s globals and closure (the tests' objects appended to ``values``), or None."""
    found = dispatch_fronts.plain_def(fn, user)
    if found is None:
        return None
    node, params, helpers = found
    stored, _ = _names(node.body)
    if stored & set(params) or any(isinstance(n, (ast.Global, ast.Nonlocal))
                                   for n in _walk(node.body)):
        return None
    tests = dispatch_fronts._tests(user, fn.__srcad_reads__ or (), helpers, set(params),
                                   values)
    return None if tests is None else (params, node.body, tests)


def _walk(body):
    """The nodes of ``body``, not those of the functions and classes defined in it."""
    todo = list(body)
    while todo:
        node = todo.pop()
        yield node
        if not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda,
                                 ast.ClassDef)):
            todo.extend(ast.iter_child_nodes(node))


def _names(body):
    """The names ``body`` binds and those it reads (its own scope)."""
    stored, loaded = set(), set()
    for node in _walk(body):
        if isinstance(node, ast.Name):
            (loaded if isinstance(node.ctx, ast.Load) else stored).add(node.id)
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            stored.add(node.name)
        elif isinstance(node, (ast.Import, ast.ImportFrom)):
            stored.update((a.asname or a.name).partition(".")[0] for a in node.names)
        elif isinstance(node, ast.ExceptHandler) and node.name:
            stored.add(node.name)
    return stored, loaded


def _returns(body):
    return [n for n in _walk(body) if isinstance(n, ast.Return)]


def _guard(tests, indent):
    pad = " " * indent
    return [f"{pad}try:",
            f"{pad}    {OK} = {' and '.join(tests)}",
            f"{pad}except (AttributeError, NameError, ValueError):  # a name or cell gone",
            f"{pad}    {OK} = False"]


def _head(unpacked, types_):
    """The front's first lines: ``None`` (the full path) for another function than the one it
    was made for (a wrapper that copied its ``__dict__``), other numbers of arguments or
    other types; else the arguments unpacked from their tuples."""
    lines = [f"        if {GIVEN} is not {F}:",
             "            return None",
             "        try:"]
    lines += [f"            {''.join(n + ', ' for n in names)}= {source}"
              for names, source in unpacked]
    lines += ["        except ValueError:  # other numbers of arguments",
              "            return None"]
    names = [n for names, _ in unpacked for n in names]
    tests = " or ".join(f"{p}.__class__ is not {ENV}[{i}]" for i, p in enumerate(names))
    return lines + [f"        if {tests}:", "            return None"] if tests else lines


def _build(user, name, lines, slots, label):
    """The function ``name`` of ``lines`` (its body, indented by 8), made on ``user``'s
    globals and closure cells, ``slots`` its own; None when its free variables are not
    those."""
    # (a dispatcher's own slots: never read by the code compiled in, which names none)
    freevars = [v for v in user.__code__.co_freevars if not v.startswith("__srcad")]
    text = "\n".join([f"def __srcad_factory__({', '.join(_SLOTS + freevars)}):",
                      *lines, f"    return {name}"]) + "\n"
    filename = f"<srcad {label} of {user.__qualname__} #{next(_counter)}>"
    try:
        code = dispatch_fronts._code(user, text, filename, name)
    except SyntaxError:  # pragma: no cover - the generated text is valid Python
        return None
    user_cells = dict(zip(user.__code__.co_freevars, user.__closure__ or ()))
    if any(v not in slots and (v not in user_cells or v.startswith("__srcad"))
           for v in code.co_freevars):
        return None  # pragma: no cover - every free variable is a slot or the user's
    closure = tuple(types.CellType(slots[v]) if v in slots else user_cells[v]
                    for v in code.co_freevars)  # (a slot: never the user's cell of its name)
    made = types.FunctionType(code, user.__globals__, name, (slots[F],), closure or None)
    weakref.finalize(made, linecache.cache.pop, filename, None)
    return made


def vjp_front(user, f, wrt, types_, vg, gradient, lazy, transformed, check, args):
    """:func:`number_vjp` for ``vjp(f, *args, wrt=wrt)`` (``user``: the function called for
    the value, ``vg`` and ``gradient`` its ``value_and_grad`` and ``grad`` dispatchers, their
    code made for ``args`` here if it is not yet; ``transformed``: the vjp code, for a
    cotangent other than 1.0, after ``check(value, dy, "cotangent")``), or None."""
    if not isinstance(user, types.FunctionType):
        return None
    try:
        vg_fn, grad_fn = _specialised(vg, args), _specialised(gradient, args, made=True)
    except Exception:  # noqa: BLE001 - nothing compiled: the closure as it was says why
        return None

    def slow(value, dy, args):
        check(value, dy, "cotangent")
        return transformed(dy, *args)

    return number_vjp(user, f, wrt, types_, vg_fn, grad_fn, lazy, gradient, slow)


def _specialised(dispatcher, args, made=False):
    """The code ``dispatcher`` (a function ``grad`` or ``value_and_grad`` returned) runs for
    the numbers ``args``, its names checked first
    (:meth:`srcad.specialise.Transformed._check_env`); ``made``: only if it was made before
    (else None: nothing is transformed for a front)."""
    t = dispatcher.__srcad__
    t._check_env()
    if made:
        return t._cache.get(cache_key(list(args)))
    return t._specialise(t._bind(args, {}))


def number_vjp(user, f, wrt, types_, vg_fn, grad_fn, lazy, gradient, slow):
    """``vjp``'s closure for numbers of ``types_`` (``vjp_of(args)``, as
    :func:`srcad.fast_calls.eager_vjp`'s): ``vg_fn`` (``value_and_grad``'s code for them)
    compiled in, the pullback's code ``grad_fn`` (grad's code) compiled into the pullback.
    ``lazy`` takes anything the tests refuse (the closure as it was), ``gradient`` (grad's
    dispatcher) a pullback whose tests fail, ``slow(value, dy, args)`` any other cotangent.
    None when a body cannot be compiled in."""
    values = list(types_)
    vg = _parsed(vg_fn, user, values)
    if vg is None or len(vg[0]) != len(types_):
        return None
    params, body, tests = vg
    rets = _returns(body)
    if len(rets) != 1 or body[-1] is not rets[0] or rets[0].value is None:
        return None
    stored, _ = _names(body)
    pad = " " * 12
    grad = _parsed(grad_fn, user, values) if grad_fn is not None else None
    if grad is not None:
        g_stored, g_loaded = _names(grad[1])
        if grad[0] != params or (g_loaded - g_stored - set(params)) & stored:
            grad = None  # grad's code reads a global the value's code binds: called
    in_pullback = [] if grad is None else [
        *_guard(grad[2], 24),
        f"{pad}            if {OK}:",
        f"{pad}                {''.join(p + ', ' for p in params)}= {ARGS}",
        *(pad + " " * 16 + line for line in ast.unparse(ast.Module(grad[1], [])).splitlines())]
    value = rets[0].value
    if isinstance(value, ast.Tuple) and len(value.elts) == 2 and not any(
            isinstance(e, ast.Starred) for e in value.elts):
        tail = [f"{V} = {ast.unparse(value.elts[0])}", f"{G} = {ast.unparse(value.elts[1])}"]
    else:
        tail = [f"{V}, {G} = {ast.unparse(value)}"]
    lines = [f"    def vjp_of({ARGS}, {GIVEN}={F}):",
             *_head([(params, ARGS)], types_),
             *_guard(tests, 8),
             f"        if {OK}:",
             f"{pad}try:  # (an error: the closure as it was, whose pullback raises it)",
             *(pad + "    " + line for line in ast.unparse(ast.Module(body[:-1], [])).splitlines()),
             *(pad + "    " + line for line in tail),
             f"{pad}except Exception:",
             f"{pad}    return {LAZY}({ARGS})",
             f"{pad}if {V}.__class__ is {FLOAT} or {V}.__class__ is {F64}:",
             f"{pad}    def {PULLBACK}({DY}):",
             f"{pad}        nonlocal {G}",
             f"{pad}        if {DY}.__class__ is {FLOAT} and {DY} == 1.0:",
             f"{pad}            if {G} is not None:  # the first time: made with the value",
             f"{pad}                {R} = {G}",
             f"{pad}                {G} = None",
             f"{pad}                return {R}",
             *in_pullback,
             f"{pad}            return {GRAD}(*{ARGS})",
             f"{pad}        return {SLOW}({V}, {DY}, {ARGS})",
             f"{pad}        ({F}, {WRT})  # (what srcad reads for it: its cells)",
             f"{pad}    return {V}, {PULLBACK}",
             f"        return {LAZY}({ARGS})"]
    slots = {ENV: tuple(values), FLOAT: float, F64: np.float64, LAZY: lazy, GRAD: gradient,
             SLOW: slow, F: f, WRT: wrt}
    made = _build(user, "vjp_of", lines, slots, "vjp")
    if made is not None:
        made.eager = True  # (srcad.fast_calls.eager: the first call makes nothing more)
    return made


def hvp_front(f, grad_f, types_, fn):
    """``hvp``'s front for ``hvp(f, x, v)`` of one number ``x`` of the type ``types_[0]``
    and ``v`` of ``types_[1]`` (``wrt`` 0): the forward-mode code ``fn`` of ``grad_f``
    compiled in, its tangent returned; None (``hvp``'s own path) for anything else or when
    a name the code read is rebound. None when it cannot be compiled."""
    values = list(types_)
    parsed = _parsed(fn, grad_f, values) if len(types_) == 2 else None
    if parsed is None or len(parsed[0]) != 2:
        return None
    params, body, tests = parsed
    if not _returns(body):
        return None

    def tangent(node):
        value = node.value
        if isinstance(value, ast.Tuple) and len(value.elts) == 2 and isinstance(
                value.elts[0], ast.Name) and not isinstance(value.elts[1], ast.Starred):
            return ast.Return(value.elts[1])
        return ast.Return(ast.Subscript(value, ast.Constant(1), ast.Load()))

    body = ast.fix_missing_locations(_Tangents(tangent).visit(ast.Module(body, [])))
    return _build(grad_f, "hvp_of", [
        f"    def hvp_of({ARGS}, {TANGENTS}, {GIVEN}={F}):",
        f"        if {GIVEN} is not {F}:",
        "            return None",
        f"        {params[0]} = {ARGS}",
        f"        {params[1]} = {TANGENTS}",
        f"        if {params[0]}.__class__ is not {ENV}[0] or {params[1]}.__class__ is not "
        f"{ENV}[1]:",
        "            return None",
        *_guard(tests, 8),
        f"        if {OK}:",
        *("            " + line for line in ast.unparse(body).splitlines()),
        "        return None"], {ENV: tuple(values), F: f}, "hvp")


def columns_front(user, types_, fn, seeds, general, single):
    """The Jacobian's closure for numbers of ``types_`` whose output is a number (``jacfwd``
    of ``user``, a function of numbers): ``fn``, the code of the tangent alone (its value
    None), compiled in once per one of ``seeds``, each pass's tangent tested to be a float;
    ``general`` (the closure as it was) takes anything else. None when it cannot be
    compiled (a body with another return than ``return None, tangent`` at its end)."""
    values, n = list(types_), len(types_)
    parsed = _parsed(fn, user, values)
    if parsed is None or len(parsed[0]) != n + len(seeds[0]):
        return None
    params, body, tests = parsed
    last = body[-1] if body else None
    if _returns(body) != [last] or not (isinstance(last.value, ast.Tuple) and len(
            last.value.elts) == 2 and isinstance(last.value.elts[0], ast.Constant) and (
            last.value.elts[0].value is None)):
        return None
    given = ", ".join(params[:n])
    other = " or ".join(f"{p}.__class__ is not {ENV}[{i}]" for i, p in enumerate(params[:n]))
    lines = [f"    def numbers_of({given}, {GIVEN}={F}):", f"        if {other}:",
             f"            return {LAZY}({given})",
             *_guard(tests, 8), f"        if {OK}:"]
    pad, rest = "            ", ast.unparse(ast.Module(body[:-1], [])).splitlines()
    for c, seed in enumerate(seeds):  # (each pass: the tangents set, the body, its tangent)
        lines += [f"{pad}{p} = {float(t)!r}" for p, t in zip(params[n:], seed)]
        lines += [pad + line for line in rest]
        lines += [f"{pad}{T}{c} = {ast.unparse(last.value.elts[1])}",
                  f"{pad}if {T}{c}.__class__ is {FLOAT}:"]
        pad += "    "
    lines += [pad + "return " + (f"{T}0" if single else "(" + "".join(
        f"{T}{c}, " for c in range(len(seeds))) + ")"), f"        return {LAZY}({given})"]
    return _build(user, "numbers_of", lines, {ENV: tuple(values), LAZY: general, F: user,
                                                FLOAT: float}, "jacfwd")


class _Tangents(ast.NodeTransformer):
    """Each ``return`` of the function's own body made by ``make`` (not a nested one's)."""

    def __init__(self, make):
        self.make = make

    def visit_FunctionDef(self, node):
        return node

    visit_AsyncFunctionDef = visit_Lambda = visit_ClassDef = visit_FunctionDef

    def visit_Return(self, node):
        return self.make(node) if node.value is not None else node


def jvp_front(user, types_, n, fn, fallback):  # (user: the f given to jvp)
    """``jvp``'s closure for numbers of ``types_`` (``n`` primals then tangents), taking
    ``(primals, tangents)``: the forward-mode code ``fn`` compiled in; ``fallback`` (the
    closure as it was) takes a call whose tests fail. None when it cannot be compiled."""
    values = list(types_)
    parsed = _parsed(fn, user, values)
    if parsed is None or len(parsed[0]) != len(types_):
        return None
    params, body, tests = parsed
    if not _returns(body):
        return None
    made = _build(user, "jvp_of", [
        f"    def jvp_of({ARGS}, {TANGENTS}, {GIVEN}={F}):",
        *_head([(params[:n], ARGS), (params[n:], TANGENTS)], types_),
        *_guard(tests, 8),
        f"        if {OK}:",
        *("            " + line for line in ast.unparse(ast.Module(body, [])).splitlines()),
        f"        return {LAZY}({ARGS}, {TANGENTS})"],
        {ENV: tuple(values), LAZY: fallback, F: user}, "jvp")
    if made is not None:
        made.fn = fn  # (for hvp's front)
    return made
