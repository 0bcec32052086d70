"""The short paths of ``vjp`` and ``jvp`` (and so of ``hvp``; the lookups in the frame called:
:func:`short_vjp`, :func:`short_jvp`): per function and ``wrt``, a table from the types of
the arguments to a closure made at the first call with them, which
does only what calls of those types need.

A closure is made only for types whose values need no check of their own (numbers and NumPy
arrays, :data:`PLAIN`): for them ``vjp``'s check for arrays of the array API standard and its
dict of the arguments are skipped, and everything that was resolved at the first call (the
function called for the value, its transformed functions, ``wrt``) is held by the closure.
The transformed functions it calls keep their own guards (kinds, dtypes, the names their code
read, defaults, the code object); a forward-mode function found here for numbers is called
while no name its code read is rebound (:func:`srcad.core.env.stale`), as ``jvp``'s lookup by
kinds does, and the closure is dropped otherwise.

Also the pullbacks ``vjp`` returns and the checks of tangents and cotangents. A closure
is kept for containers and records too (:func:`vjp_closure`): ``vjp``'s full path checks them
by their classes alone, once, and the transformed functions the closure calls key them by
their structure; ``jvp``'s by a test compiled for their structure and floats.

Imports ``srcad.core``, ``srcad.errors``, :mod:`srcad.backend.keys` (the rank lookup's key),
:mod:`srcad.backend.dispatch_fronts` (the Jacobians' fronts), :mod:`srcad.backend.call_fronts`
(``vjp``'s and ``jvp``'s of numbers), :mod:`srcad.jacobian_leaves` (a tuple of numbers out),
:mod:`srcad.tree_keys` (which classes are containers), :mod:`srcad.number_columns` (a tuple
out's passes), :mod:`srcad.tree_jvps`/:mod:`srcad.tree_vjps` (``jvp``'s closure, ``vjp``'s
front: containers of floats), :mod:`srcad.fast_checks` (the tests of what the code read).
"""

from __future__ import annotations

import numpy as np

from . import tree_jvps, tree_keys, tree_vjps
from .backend import call_fronts, dispatch_fronts
from .backend.keys import MAX_COMPARED, first_of
from .core import env, functions
from .errors import SrcadError
from .fast_checks import checks, fresh, number_jvp, one_array, unchanged  # noqa: F401
from .jacobian_leaves import number_columns, two_columns
from .number_columns import columns as number_columns_of
from .runtime import HELPERS

#: argument types that are never arrays of the array API standard or duck arrays (Dask,
#: CuPy): ``check_arrays`` finds nothing to refuse in them
PLAIN = frozenset({float, int, np.float64, np.ndarray})
_NUMBERS = frozenset({float, np.float64})
_F64 = np.float64

#: (f, wrt as given) -> {argument types -> vjp's closure for them}
VJPS = functions.ByFunction()
#: (f, wrt as given) -> {types of the primals and of the tangents -> jvp's closure}; the
#: same for ``jvp(..., backend="numba")``; by backend
JVPS, NUMBA_JVPS = functions.ByFunction(), functions.ByFunction()
JVP_TABLES = {"python": JVPS, "numba": NUMBA_JVPS}
#: (f, wrt) -> {types of the arguments and of v -> the jvp closure of grad(f)}, for hvp
HVPS = functions.ByFunction()
_NONE = {}
#: every table and front here, for ``srcad.clear_cache``
TABLES = (VJPS, HVPS, JVPS, NUMBA_JVPS, call_fronts.FRONTS)


def table(cache, f, wrt):
    """``cache.get((f, wrt))`` without its calls: the dict ``cache`` keeps on ``f`` (a
    :class:`srcad.core.functions.ByFunction` entry: its owner checked, as it checks it)."""
    held = getattr(f, "__dict__", _NONE).get(cache._attr)
    if held is not None and held[0]() is f:
        try:
            return held[1].get((wrt,))
        except TypeError:  # an unhashable wrt (a list): never kept
            return None
    return None


def jvp_call(f, wrt, primals, tangents, backend):
    """``jvp``'s result by the closure kept for these types of primals and tangents
    (:func:`jvp_closure`), or None: :func:`table`'s lookup and :func:`types_of` in one frame
    (a call of ``jvp`` on a small function costs little more than its code)."""
    cache = JVP_TABLES.get(backend)
    held = getattr(f, "__dict__", _NONE).get(cache._attr) if cache is not None else None
    if held is None or held[0]() is not f:
        return None
    try:
        found = held[1].get((wrt,))
    except TypeError:  # an unhashable wrt (a list): never kept
        return None
    if found is None:
        return None
    if len(primals) == 1 and len(tangents) == 1:
        known = found.get((type(primals[0]), type(tangents[0])))
    else:
        known = found.get(types_of(primals) + types_of(tangents))
    return None if known is None else known(primals, tangents)


def short_jvp(slow):
    """``jvp`` (``slow``: srcad.api's) with its fronts and :func:`jvp_call`'s lookup in the
    frame called (:func:`srcad.backend.call_fronts.short_jvp`)."""
    return call_fronts.short_jvp(slow, JVPS._attr)


def short_vjp(slow):
    """``vjp`` (``slow``: srcad.api's) with its fronts and the lookup of the closure kept for
    these argument types (:func:`vjp_closure`) in the frame called
    (:func:`srcad.backend.call_fronts.short_vjp`)."""
    return call_fronts.short_vjp(slow, VJPS._attr)


def short_hvp(slow, point):
    """``hvp`` (``slow``: srcad.jacobians's) with its front called first
    (:func:`srcad.backend.call_fronts.short_hvp`)."""
    return call_fronts.short_hvp(slow, point)


def kept(cache, f, wrt):
    """``cache``'s dict for ``(f, wrt)``, made empty the first time; None when ``f`` cannot
    keep one (it holds no attributes: nothing is ever kept for it)."""
    found = cache.get((f, wrt))
    if found is None:
        found = cache[(f, wrt)] = {}
        if cache.get((f, wrt)) is not found:
            return None
    return found


_OUTPUT_CHECKS = (HELPERS["check_scalar"], HELPERS["check_holomorphic"])


def number_out(code):
    """Whether ``grad``'s ``code`` calls no check of its output at run time (``check_scalar``,
    added for an output not a number by its kinds): the Jacobian needs no value."""
    for cell in code.__closure__ or ():
        try:
            value = cell.cell_contents
        except ValueError:
            continue
        if value is _OUTPUT_CHECKS[0] or value is _OUTPUT_CHECKS[1]:
            return False
    return True


def types_of(values):
    """``tuple(map(type, values))`` in half its time for the usual one or two values."""
    if len(values) == 1:
        return (type(values[0]),)
    if len(values) == 2:
        return (type(values[0]), type(values[1]))
    return tuple(map(type, values))


def plain_types(types):
    return all(t in PLAIN for t in types)


def vjp_closure(f, wrt, types, called, transformed, gradient, value_and_grad=None):
    """Remember, for ``vjp(f, *args, wrt=wrt)`` with arguments of ``types``, the closure that
    calls ``called`` for the value and returns the pullback (``gradient``: grad's code, for a
    pullback of 1.0 of an output that is a number, or None). For floats and float arrays
    whose output was a number, ``value_and_grad`` (a function making ``called``'s
    value_and_grad) gives both at once instead (:func:`eager_vjp`)."""
    if not plain_types(types) and not tree_keys.keyed_classes(types):
        return  # (containers: the full path too checks them by their classes alone, once)
    table = kept(VJPS, f, wrt)
    if table is None:
        return

    def vjp_of(args):
        value = called(*args)
        if gradient is not None and (type(value) is float or type(value) is np.float64):
            def scalar_pullback(dy):  # as scalar_pullback below, one call less
                if dy.__class__ is float and dy == 1.0:  # (no call of type)
                    return gradient(*args)
                check_companion(value, dy, "cotangent")
                return transformed(dy, *args)

            made = scalar_pullback
        else:
            made = pullback(value, transformed, args)
        made.__srcad_vjp_of__ = (f, args, wrt, False, value)  # as srcad.vjp names it
        return value, made

    table[types] = vjp_of
    if gradient is not None and value_and_grad is not None and int not in types:
        table[types] = eager_vjp(value_and_grad, transformed, gradient, vjp_of, f, wrt, [
            (table, types, called)] if all(t in _NUMBERS for t in types) else [
            (None, types, called)] if tree_keys.keyed_classes(types) else [])


def eager_vjp(make, transformed, gradient, lazy, f, wrt, numbers=(), aux=False):
    """``vjp`` of a function whose output was a number for arguments of these types: its
    value and its gradient by one ``value_and_grad`` call (``make`` makes it at the first
    call), the first pullback of 1.0 then hands that gradient over (later ones run ``gradient``,
    grad's code: the caller owns what it was given first), any other cotangent the vjp code.
    A call whose output is not a number, or that raises anything, takes ``lazy`` (the value,
    the derivative code at the pullback: an error the gradient alone meets is raised by the
    pullback). For numbers (``numbers``: ``[(table, types, called)]``), its first call
    compiles the two codes into one function put in its place
    (:func:`srcad.backend.call_fronts.vjp_front`; a tree's table None: a front on ``f`` alone,
    :func:`srcad.tree_vjps.front`). ``aux``: ``vjp(f, ..., has_aux=True)`` of
    ``f`` read with its aux (:mod:`srcad.aux_calls`): ``make()``'s code returns ``((value,
    aux), gradients)``, the closure ``(value, pullback, aux)``."""
    made = []

    def vjp_of(args):
        if not made:
            made.append(make())
        try:
            value, grads = made[0](*args)
        except Exception:  # noqa: BLE001 - the lazy path raises what it raises, where it did
            return lazy(args)
        if aux:
            value, aux_value = value
        if value.__class__ is not float and value.__class__ is not _F64:  # (no call of type)
            return lazy(args)
        if numbers:  # (tried once, at the second call: grad's code is made for it)
            if len(numbers) == 1:
                numbers.append(None)
            else:
                (held, types, called), _ = numbers
                numbers.clear()
                front = (call_fronts.vjp_front if held is not None else tree_vjps.front)(
                    called, f, wrt, types, made[0], gradient, vjp_of, transformed,
                    check_companion, args)
                if front is not None:
                    held[types] = front
                    if wrt is None and call_fronts.VJP not in vars(f):
                        call_fronts.FRONTS.put(f, call_fronts.VJP, front)

        of = (f, args, wrt, aux, value)  # (srcad reads it in its cell: call_fronts.HELD)
        def eager_pullback(dy):
            nonlocal grads
            if dy.__class__ is float and dy == 1.0:  # (a float's class: no call of type)
                if grads is None:  # later: made again (the caller owns the first)
                    return gradient(*args) if len(args) != 1 else gradient(args[0])
                first, grads = grads, None  # the first time, the gradient made with the value
                return first
            check_companion(of[4], dy, "cotangent")
            return transformed(dy, *args)

        return (value, eager_pullback, aux_value) if aux else (value, eager_pullback)

    vjp_of.eager = True
    return vjp_of


call_fronts.held_codes(eager_vjp, "eager_pullback")


def eager(f, wrt, types):
    """The closure :func:`eager_vjp` made for ``vjp(f, ..., wrt=wrt)`` and these types, if
    any (the first call runs it too: a second call then makes nothing)."""
    found = table(VJPS, f, wrt)
    found = found.get(types) if found is not None else None
    return found if getattr(found, "eager", False) else None


def scalar_pullback(value, transformed, gradient, args):
    """The pullback of a scalar ``value``: the pullback of 1.0 is the gradient, so the grad
    code (no product by the seed) gives the same numbers, since 1.0 * g == g exactly."""

    def scalar_pullback(dy):
        if dy.__class__ is float and dy == 1.0:  # (no call of type)
            return gradient(*args)
        check_companion(value, dy, "cotangent")
        return transformed(dy, *args)

    return scalar_pullback


def pullback(value, transformed, args):
    def pullback(dy):
        check_companion(value, dy, "cotangent")
        return transformed(own_lists(dy), *args)

    return pullback


def own_lists(dy):
    """``dy`` with its lists (and those inside tuples and dicts) copied: the backward sweep
    of a list built by appends pops its cotangent's items, which must not empty the caller's
    list (a pullback called twice with one cotangent gives the same gradient twice)."""
    if isinstance(dy, list):
        return [own_lists(v) for v in dy]
    if type(dy) is tuple:
        return tuple(own_lists(v) for v in dy)
    if type(dy) is dict:
        return {k: own_lists(v) for k, v in dy.items()}
    return dy


def check_companion(value, companion, what):
    """A tangent or cotangent must be shaped like the value it goes with."""
    if companion is None:
        raise SrcadError(f"the {what} is None", hint="pass zeros shaped like the value instead")
    if isinstance(value, tuple) and hasattr(value, "_fields") and type(companion) is dict:
        value = dict(zip(value._fields, value))  # a named tuple's tangent, as a dict
    if isinstance(value, dict) or isinstance(value, (list, tuple)) and isinstance(
            companion, (list, tuple, dict)):  # item by item (it raised in the generated code)
        same = type(companion) is dict and companion.keys() == value.keys() if isinstance(
            value, dict) else not isinstance(companion, dict) and len(companion) == len(value)
        if not same:
            raise SrcadError(f"the {what} is a {type(companion).__name__} of "
                             f"{_items(companion)}, the value a {type(value).__name__} of "
                             f"{_items(value)}", hint="give one shaped like the value")
        for k in value if isinstance(value, dict) else range(len(value)):
            check_companion(value[k], companion[k], what)
        return
    if isinstance(value, (list, tuple)) and not hasattr(companion, "shape"):
        raise SrcadError(f"the {what} is a {type(companion).__name__}, the value a "
                         f"{type(value).__name__} of {_items(value)}",
                         hint="give one shaped like the value (a list for a list)")
    if isinstance(value, (list, tuple)):
        return  # an array for a list of numbers: as before
    if np.shape(companion) != np.shape(value):
        raise SrcadError(f"the {what} has shape {np.shape(companion)}, the value has shape "
                         f"{np.shape(value)}", hint="give one shaped like the value")


def _items(c):
    return f"keys {sorted(map(str, c))}" if isinstance(c, dict) else f"{len(c)} items"


def jvp_closure(f, wrt, primals, tangents, fn, backend="python", wrt_of=None, full=None):
    """Remember, for ``jvp(f, primals, tangents, wrt=wrt)`` with numbers and arrays of these
    types, the closure calling the forward-mode function ``fn`` (made for exactly these
    arguments, all given, and these arrays' ranks and dtypes), while no name its code read is
    rebound. A call with arrays of other ranks or dtypes, or a tangent shaped unlike its
    primal, takes the full path (which makes the code, or refuses the tangent). ``backend``
    "numba": kept in :data:`NUMBA_JVPS`, the tangents' places read from ``wrt_of``, the
    parameters and the ``wrt`` names. Containers of floats (``full``: what the full path
    called ``fn`` with): :func:`srcad.tree_jvps.closure`."""
    if full is not None and backend == "python" and not all(map(PLAIN.__contains__, types_of(
            primals) + types_of(tangents))):
        return tree_jvps.keep(kept(JVPS, f, wrt), fn, primals, tangents, full)
    positions = getattr(fn, "__srcad_positions__", None)
    if backend == "numba":  # (the Numba backend refused *args, **kwargs: all given)
        positions = tuple(map(wrt_of[0].index, wrt_of[1]))
    elif backend != "python":
        return
    types = tuple(map(type, primals)) + tuple(map(type, tangents))
    if positions is None or len(positions) != len(tangents) or not same_shapes(
            primals, tangents, positions) or not all(t in PLAIN for t in types):
        return
    table = kept(JVP_TABLES[backend], f, wrt)
    if table is None:
        return
    arrays = [i for i, a in enumerate(primals) if type(a) is np.ndarray]
    if not arrays:  # the forward-mode code compiled in, where it can be
        table[types] = number_jvp(fn, table, types, len(primals), len(tangents))
        front = call_fronts.jvp_front(f, types, len(primals), fn, table[types])
        if front is not None:
            table[types] = front
            if wrt is None and call_fronts.JVP not in vars(f):
                call_fronts.FRONTS.put(f, call_fronts.JVP, front)
        return
    known = getattr(table.get(types), "general", table.get(types))  # (see one_array)
    if known is None or not hasattr(known, "fns"):
        pairs = [(k, p) for k, p in enumerate(positions) if p in arrays]
        fns = {}  # the arrays' (ndim, dtype char) -> (forward-mode function, its check)
        if len(primals) == len(tangents) == 1:  # one array and its tangent: the common case
            def jvp_of(primals, tangents):  # (keyed by its rank and dtype alone)
                a = primals[0]
                found = fns.get((a.ndim, a.dtype.char))
                if found is None or tangents[0].shape != a.shape:
                    return None  # (a tangent of another shape: refused by the full path)
                if not (found[1]() or found[2]()):
                    fns.clear()
                    return None
                return found[0](a, tangents[0])
        else:
            def jvp_of(primals, tangents):
                found = fns.get(tuple([(primals[i].ndim, primals[i].dtype.char)
                                       for i in arrays]))
                if found is None:
                    return None
                for k, p in pairs:
                    if tangents[k].shape != primals[p].shape:
                        return None  # refused by the full path
                if not (found[1]() or found[2]()):
                    fns.clear()
                    return None
                return found[0](*primals, *tangents)

        jvp_of.fns = fns
        known = table[types] = jvp_of
    key = tuple((primals[i].ndim, primals[i].dtype.char) for i in arrays)
    same, checked = checks(fn.__srcad_reads__)
    one = len(primals) == len(tangents) == 1
    known.fns[key[0] if one else key] = (fn, same, checked)
    table[types] = one_array(fn, primals[0], known) if one and len(known.fns) == 1 else known


def hvp(f, wrt, args, v):
    """``(grad value, H v)`` by the closure kept for arguments of these types, or None (none
    kept, or a name its code read was rebound: the full path makes it again): the lookups
    of :func:`table` and :func:`types_of` in this one frame."""
    held = getattr(f, "__dict__", _NONE).get(HVPS._attr)
    if held is None or held[0]() is not f:
        return None
    try:
        known = held[1].get((wrt,))
    except TypeError:  # pragma: no cover - hvp looks up int and str wrt only
        return None
    if known is not None:
        known = known.get((type(args[0]), type(v)) if len(args) == 1 else tuple(
            map(type, args)) + (type(v),))
        if known is not None:
            return known(args, (v,))
    return None


def hvp_closure(f, wrt, args, v, grad_f):
    """Let ``hvp(f, args, v, wrt)`` with arguments of these types call the closure ``jvp``
    keeps for ``grad_f`` (None when it has none: then the next call takes the full path)."""
    found = JVPS.get((grad_f, (wrt,)))
    key = tuple(map(type, args)) + (type(v),)
    known = found.get(key) if found is not None else None
    if known is None:
        return
    held = kept(HVPS, f, wrt)
    if held is None:
        return
    held[key] = known
    fn = getattr(known, "fn", None)  # the forward-mode code compiled into jvp's front
    if fn is not None and wrt == 0 and type(wrt) is int and len(key) == 2 and call_fronts.HVP \
            not in vars(f):  # hvp(f, x, v) of one number: its own front on f
        front = call_fronts.hvp_front(f, grad_f, key, fn)
        if front is not None:
            call_fronts.FRONTS.put(f, call_fronts.HVP, front)


def same_shapes(primals, tangents, positions):
    """Each tangent has its primal's shape (checked in full, by check_companion, the first
    time; the types of both are the same as then, so only arrays' shapes can differ)."""
    for k, p in enumerate(positions):
        a, t = primals[p], tangents[k]
        if type(a) is np.ndarray or type(t) is np.ndarray:
            if type(a) is not type(t) or a.shape != t.shape:
                return False
        elif type(t) is not float and type(t) is not np.float64:
            return False
    return True


def rev_numbers(jac, key, fn):
    """The reverse Jacobian (:class:`srcad.jacobians._Jacobian` ``jac``) for numbers of the
    types ``key`` whose output is a number: ``fn`` (grad's code for them) called directly, its
    gradients as floats, while no name the code read is rebound."""
    ok, numbers, call, single = fresh(fn.__srcad_reads__), jac.numbers, jac.__call__, jac.single

    def numbers_call(*args):
        if not ok():
            numbers.pop(key, None)
            jac.scalar_out.pop(key, None)
            return call(*args)
        grads = fn(*args)
        if single:
            return float(grads[0])
        return tuple([float(g) for g in grads])

    # the front the user holds runs grad's code itself for these types
    dispatch_fronts.inline(getattr(jac, "front", None), key, fn, "rev", outs=None if (
        single) else len(jac.index))
    return numbers_call


def rev_arrays(jac, types):
    """The reverse Jacobian for arguments of ``types``, arrays among them: a function compiled
    for them (as ``grad``'s rank lookup, :class:`srcad.specialise._ByRank`) that finds, by the
    arrays' ranks, dtypes and which of them share a shape, grad's code for float64 arrays
    whose output is a number by their kinds (its ``table``, filled by the Jacobian), calls it
    while no name the code read is rebound and returns its gradients as ``grad`` would (an
    array the caller may change: a read-only view is copied); anything else (other ranks,
    other dtypes, a rebound name) takes ``jac``'s full path."""
    positions = [i for i, t in enumerate(types) if t is np.ndarray]
    shapes = "".join(f"    s{k} = args[{i}].shape\n"
                     for k, i in enumerate(positions[:MAX_COMPARED]))
    key = "".join(f"(args[{i}].ndim, args[{i}].dtype.char, {first_of(k)}), "
                  for k, i in enumerate(positions))
    rows = [f"owned(grads[{k}], args[{p}])" if types[p] is np.ndarray else f"float(grads[{k}])"
            for k, p in enumerate(jac.index)]
    result = rows[0] if jac.single else f"({', '.join(rows)},)"
    text = ("def arrays_call(*args):\n"
            f"{shapes}"
            f"    found = table.get(({key}))\n"
            "    if found is not None and (found[1]() or not stale(found[2])):\n"
            "        grads = found[0](*args)\n"
            f"        return {result}\n"
            "    return call(*args)\n")
    space = {"table": {}, "stale": env.stale, "owned": owned, "call": jac.__call__}
    exec(compile(text, "<srcad jacobian lookup>", "exec"), space)  # noqa: S102
    arrays_call = space["arrays_call"]
    arrays_call.table = space["table"]
    return arrays_call


def rev_arrays_entry(jac, args, key, inner, fn):
    """Let the reverse Jacobian ``jac`` find grad's code ``fn`` (made for ``args``, whose
    plain key is ``key``; ``inner``: its unguarded code, for float64 arrays only, else None)
    by :func:`rev_arrays`'s lookup for the arguments' types: its table holds the code, the
    identity test of the names it read (:func:`unchanged`) and those reads (for
    :func:`env.stale`)."""
    types = tuple(map(type, args))
    fast = jac.numbers.get(types)
    if fast is None:
        fast = jac.numbers[types] = rev_arrays(jac, types)
    if inner is not None:
        reads = fn.__srcad_reads__
        fast.table[key[len(args):]] = (inner, unchanged(reads) if reads else _always, reads)


def _always():
    return True


def owned(g, a):
    """A gradient of grad's code for the float64 array ``a`` as a Jacobian's row: the array
    itself where the caller may change it (as ``grad`` returns it), else a copy (a read-only
    view), or a float for an array of rank 0."""
    if type(g) is np.ndarray and g.ndim and (g.base is None or g.flags.writeable):
        return g
    return np.array(g, dtype=float) if a.ndim else float(g)


def copies(grads, args, index):
    """The gradients ``grad`` returned, as a Jacobian's rows: copied, as the rows ``vjp``
    makes are (never an array the function also holds)."""
    out = []
    for g, p in zip(grads, index):
        a = args[p]
        if type(a) is float:
            out.append(float(g))
        elif type(a) is np.ndarray:
            out.append(np.array(g, dtype=float) if a.ndim else float(g))
        else:
            out.append(np.array(g, dtype=float) if np.shape(a) else float(g))
    return out


def fwd_numbers(jac, types, fn, seeds):
    """The forward-mode Jacobian for numbers of ``types`` (all given): ``fn`` called once per
    ``wrt`` argument with its one-hot ``seeds``, while no name its code read is rebound."""
    ok, numbers, call, single = fresh(fn.__srcad_reads__), jac.numbers, jac.__call__, jac.single
    if single and len(seeds) == 1:
        return _one_column(jac, fn, seeds[0], types, ok, numbers, call)
    kept = []  # (this closure or its two_columns, until the tuple out's columns replace it)

    def fwd_numbers(*args):
        if not ok():
            numbers.pop(types, None)
            return call(*args)
        result = []
        for tangents in seeds:
            value, t = fn(*args, *tangents)
            if type(value) is float:
                result.append(float(t))
            elif not isinstance(value, (np.ndarray, np.generic, int, complex)):
                made = None if result else number_columns(fn, args, seeds, single, (value, t))
                if made is not None:  # a tuple of numbers out: its passes compiled once
                    if not single and numbers.get(types) in kept and len(args) == len(types):
                        kept.clear()
                        numbers[types] = number_columns_of(fn, seeds, ok, fwd_numbers,
                                                           len(args), len(value), (jac, args))
                    return made
                numbers.pop(types, None)  # a list, dict or record out: the full path nests it
                return call(*args)
            else:
                result.append(float(t) if not np.shape(value) else np.array(t, dtype=float))
        return result[0] if single else tuple(result)

    two = not single and len(types) == 2 and len(seeds) == 2 and all(len(t) == 2 for t in seeds)
    kept.append(two_columns(fn, seeds, ok, fwd_numbers) if two else fwd_numbers)
    return kept[0]


def _one_column(jac, fn, tangents, types, ok, numbers, call):
    """:func:`fwd_numbers` for one number differentiated (a Hessian of a function of one
    number, say): one pass, no list of columns; a float out is its column."""
    reads = fn.__srcad_reads__
    same = unchanged(reads) if reads else _always

    def rest(args, value, t):  # (the front's path for a value that is not a float)
        made = number_columns(fn, args, (tangents,), True, (value, t))
        if made is not None:  # a tuple of numbers out
            return made
        if not isinstance(value, (np.ndarray, np.generic, int, complex)):
            numbers.pop(types, None)  # a tuple, list, dict or record out: the full path
            return call(*args)
        return float(t) if not np.shape(value) else np.array(t, dtype=float)

    dispatch_fronts.inline(getattr(jac, "front", None), types, fn, "fwd", tangents, rest)

    def one_column(*args):
        if not (same() or ok()):
            numbers.pop(types, None)
            return call(*args)
        value, t = fn(*args, *tangents)
        if type(value) is float:
            return float(t)
        return rest(args, value, t)

    return one_column
