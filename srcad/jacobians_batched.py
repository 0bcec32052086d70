"""A Jacobian in one forward pass: the batched forward-mode code
(:mod:`srcad.transform.forward_batched`) given the identity as its ``k`` tangents, one per
element of the ``wrt`` arguments. :class:`srcad.jacobians._Jacobian` asks :func:`jacobian`
first and takes the columns one pass each where it answers None (an operation without a
batched form, a container in or out).

Imports ``srcad.pipeline``, ``srcad.backend``, ``srcad.core``, ``srcad.transform``,
``srcad.errors`` and :mod:`srcad.fast_checks` (the identity tests of the names code read).
"""

from __future__ import annotations

import functools
import inspect
import math

import numpy as np

from . import pipeline
from .backend.keys import MAX_COMPARED, cache_key, plain_key
from .core import env, functions
from .core.kinds import item_kinds, kind_of_value, rank_of_value, with_dtypes
from .errors import SrcadError
from .fast_checks import tests_text, unchanged
from .transform import calls
from .transform import forward_batched as fb
from .transform.forward_batched import BatchedForward

#: the callees of batched code: their batched code, made the same way
BatchedForward.callees = calls.Callees(
    pipeline.to_ssa, pipeline.make_split,
    functools.partial(pipeline.make_tangent, sweep=BatchedForward))
BatchedForward.callees.ranked = True  # made for the ranks of their array arguments


class NumbaBatchedForward(BatchedForward):
    """The same sweep for ``backend="numba"``: the code and its callees' batched code
    compiled by Numba (:mod:`srcad.backend.numba_batched` rewrites its forms)."""


NumbaBatchedForward.callees = calls.Callees(
    pipeline.to_ssa, functools.partial(pipeline.make_split, backend="numba"),
    functools.partial(pipeline.make_tangent, sweep=NumbaBatchedForward, backend="numba"))
NumbaBatchedForward.callees.ranked = True
NumbaBatchedForward.callees.compiles_all = True  # as pipeline.NUMBA_CALLEES

_NOT = object()  # no batched code for these arguments
_BUDGET = 2 ** 24  # directions x the largest argument's size, in floats (128 MB), of one pass


def _layout(value, depth=0):
    """What the batched code is specialised on: types, and arrays' ranks and dtypes, in
    tuples and lists too (their items' ranks decide the code's forms)."""
    if type(value) is np.ndarray:
        return ("a", value.ndim, value.dtype.char)
    if type(value) in (tuple, list) and depth < 2:
        return (type(value), len(value) if type(value) is tuple else None,
                tuple(sorted({_layout(v, depth + 1) for v in value}, key=repr))
                if type(value) is list else tuple(_layout(v, depth + 1) for v in value))
    return type(value)


_made = functions.ByFunction()  # (f, wrt positions) -> its Batched


def batched(f, index, backend="python"):
    """The :class:`Batched` of ``f`` for ``wrt`` positions ``index``, kept on ``f``."""
    found = _made.get((f, index, backend))
    if found is None:
        found = Batched(f, index, backend)
        if functions.is_user_function(f):
            _made[(f, index, backend)] = found
    return found


def clear():
    """Forget the code made (``srcad.clear_cache``)."""
    _made.clear()
    BatchedForward.callees.clear()
    NumbaBatchedForward.callees.clear()
    fb.RESULT_RANKS.clear()


class Batched:
    """The batched forward-mode code of ``f`` for ``wrt``, kept per argument layout."""

    def __init__(self, f, index, backend="python"):
        self.f, self.index, self.backend = f, index, backend
        self.made = {}
        self.fast = {}  # plain key -> (code, its reads' identity test, the reads)
        self.why = None  # why the last code asked for was not made

    def code(self, args):
        key = (tuple(_layout(a) for a in args), cache_key(list(args)))
        found = self.made.get(key)
        if found is not None and (found is _NOT or not env.stale(found.__srcad_reads__)):
            return None if found is _NOT else found
        f = self.f
        if not functions.is_user_function(f):
            self.made[key] = _NOT
            return None
        params = list(inspect.signature(f).parameters)
        if len(args) != len(params):
            self.made[key] = _NOT
            return None
        values = dict(zip(params, args))
        kinds = with_dtypes({p: kind_of_value(v) for p, v in values.items()}, values)
        items = {p: item_kinds(v) for p, v in values.items() if item_kinds(v)}
        with pipeline.LOCK:  # (ITEM_RANKS is read by the sweep this call makes first)
            fb.ITEM_RANKS[:] = [{p: tuple(rank_of_value(i) if type(i) is np.ndarray else None
                                          for i in v) for p, v in values.items()
                                 if type(v) is tuple}]
            try:
                with env.collecting() as reads:
                    env.record_all(env.code_reads({"__srcad_own__": f}))
                    fn, text = pipeline.tangent(
                        f, [params[p] for p in self.index], kinds, items,
                        ranks={p: rank_of_value(v) for p, v in values.items()},
                        sweep=BatchedForward if self.backend == "python" else
                        NumbaBatchedForward, backend=self.backend)
            except SrcadError as exc:  # NotBatched, or anything the column passes say better
                self.made[key] = _NOT
                self.why = exc  # (what the tests and a curious reader look at)
                return None
            finally:
                fb.ITEM_RANKS[:] = []  # (taken by the code's first sweep, if it got that far)
        fn.__srcad_source__ = text
        fn.__srcad_reads__ = tuple(reads.values())
        self.made[key] = fn
        return fn

    def call(self, fn, args, tangents):
        """``fn(*args, *tangents)``, or None where Numba could not compile it for these types
        (a form the backend has no Numba version of, found when Numba types the code): then
        no batched code for them, and the caller's column passes run (and say what they
        refuse)."""
        if self.backend == "python":
            return fn(*args, *tangents)
        try:
            return fn(*args, *tangents)
        except SrcadError as exc:
            self.why = exc
            for key, made in list(self.made.items()):
                if made is fn:
                    self.made[key] = _NOT
            return None


def worth(args, index):
    """Whether the columns are made in one batched pass: not where every argument is a number
    (a pass of number arithmetic per column costs far less than one over arrays of ``k``
    directions; :func:`srcad.fast_calls.fwd_numbers` then calls the code directly), nor for
    one number at ``wrt`` (one column: one pass either way)."""
    if len(index) == 1 and type(args[index[0]]) in _NUMBERS:
        return False
    return not all(type(a) in _NUMBERS for a in args)


_NUMBERS = (float, int, np.float64)


def jacobian(batched, args):
    """The Jacobians w.r.t. ``batched.index`` in one batched pass, or None (no batched code,
    or arguments it does not take: integers, complex or non-float values at ``wrt``).
    Numbers and arrays find the code by their plain key (types, the arrays' ranks, dtypes and
    shared shapes) while no name it read is rebound: no layout or cache key per call."""
    index = batched.index
    key = plain_key(args)
    found = batched.fast.get(key) if key is not None else None
    if found is not None and (found[1]() or not env.stale(found[2])):
        fn = found[0]
    else:
        for p in index:
            a = args[p]
            if not (type(a) is float or type(a) is np.float64 or (
                    type(a) is np.ndarray and a.dtype.char == "d")):
                return None
        fn = batched.code(args)
        if fn is None:
            return None
        if key is not None:
            reads = fn.__srcad_reads__
            batched.fast[key] = (fn, unchanged(reads) if reads else _always, reads)
    if len(args) == 1 and type(args[0]) is np.ndarray and args[0].ndim == 1 and (
            args[0].size <= 64):  # one small vector in (the common case, checked quickly)
        made = _vector_in(batched, fn, args)
        if made is not None:
            return made
    shapes = tuple(args[p].shape if type(args[p]) is np.ndarray else () for p in index)
    sizes = [math.prod(s) for s in shapes]
    total = sum(sizes)
    # the directions in chunks: a tangent is (chunk,) + its value's shape, and the arguments'
    # largest array bounds how large the values are (a pass per chunk, the value again each)
    largest = max([a.size for a in args if type(a) is np.ndarray] + [1])
    chunk = max(1, min(total, _BUDGET // largest))
    parts = []
    for low in range(0, total, chunk):
        if chunk == total:
            rows = None
            tangents = _tangents(shapes, sizes, total)
        else:
            rows = np.zeros((min(chunk, total - low), total))
            rows[np.arange(len(rows)), np.arange(low, low + len(rows))] = 1.0
            tangents = _split(rows, shapes, sizes)
        found = batched.call(fn, args, tangents)
        if found is None:
            return None
        value, t = found
        if not (isinstance(value, (float, np.floating)) or type(value) is np.ndarray):
            return None
        # (chunk,) + the output's shape (a zero may have broadcast; a wrong shape is an
        # error, never reshaped)
        if type(t) is not np.ndarray or t.dtype.char != "d":
            t = np.asarray(t, dtype=float)
        want = (total if rows is None else len(rows),) + (
            value.shape if type(value) is np.ndarray else ())
        parts.append(t if t.shape == want else np.broadcast_to(t, want))
    t = parts[0] if len(parts) == 1 else np.concatenate(parts)
    return cut(t, want[1:], _bounds(shapes, sizes), copy_readonly=True)


def _split(rows, shapes, sizes):
    """The tangents of one pass: ``rows`` (directions x the ``wrt`` elements) cut into one
    array per ``wrt`` argument, ``(directions,) + its shape`` (views)."""
    tangents, start = [], 0
    for shape, size in zip(shapes, sizes):
        tangents.append(rows[:, start:start + size].reshape((-1,) + shape))
        start += size
    return tangents


_TANGENTS = {}  # the wrt arguments' shapes -> the identity's tangents for them (read-only)


def _tangents(shapes, sizes, total):
    """:func:`_split` of the identity of ``total`` directions, for at most 64 (then kept by
    the shapes: the code only reads its tangents, and read-only views keep it so)."""
    if total > 64:
        return _split(_identity(total), shapes, sizes)
    found = _TANGENTS.get(shapes)
    if found is None:
        if len(_TANGENTS) >= 256:  # (many shapes: not kept forever)
            _TANGENTS.clear()
        found = _TANGENTS[shapes] = tuple(_split(_identity(total), shapes, sizes))
    return found


def _vector_in(batched, fn, args):
    """:func:`jacobian` of one vector of at most 64 elements whose value is a number (one
    pass, no chunks: the gradient as a row), else None (the general way then)."""
    n = args[0].size
    found = batched.call(fn, args, (_identity(n),))
    if found is None:
        return None
    value, t = found
    if type(value) is not float and type(value) is not np.float64:
        return None
    t = np.asarray(t, dtype=float)
    if t.shape != (n,):
        t = np.broadcast_to(t, (n,))
    return [t if t.flags.writeable else t.copy()]


def one_vector(jac, args, rows):
    """After :func:`jacobian` gave ``rows`` for ``args``: for one float64 vector of at most
    64 elements whose Jacobian is a row (Python backend, one ``wrt``), the call of ``jac``
    (:class:`_Jacobian`) for an array (in ``jac.numbers``, which ``jacobian_of`` looks up
    first) becomes a function compiled with the code found, its rank, dtype and the identity
    tests of what the code read in its text: :func:`_vector_in`'s work without the frames
    between. Made once per ``jac``; any other call, or a value or tangent not as
    :func:`_vector_in` takes them (then never again), goes the general way
    (``jac.__call__``)."""
    batched, x = jac.batched, args[0]
    if not (batched is not None and batched.backend == "python" and jac.single and len(
            args) == 1 and jac.index == (0,) and type(x) is np.ndarray and x.ndim == 1
            and x.dtype.char == "d" and x.size <= 64 and np.shape(rows[0]) == x.shape):
        return
    key = plain_key(args)
    found = batched.fast.get(key) if key is not None else None
    if found is None or (np.ndarray,) in jac.numbers:
        return
    fn = found[0]
    space = {"fn": fn, "general": jac.__call__, "D": x.dtype, "F": float, "G": np.float64,
             "A": np.ndarray, "identity": _identity, "numbers": jac.numbers}
    text = ("def one_vector(x):\n"
            "    if x.dtype is D and x.ndim == 1 and x.size <= 64:\n"
            "        try:\n"
            f"            ok = {tests_text(fn.__srcad_reads__, space, baked=True)}\n"
            "        except (ValueError, AttributeError):  # an empty cell, an attribute gone\n"
            "            ok = False\n"
            "        if ok:\n"
            "            n = x.size\n"
            "            value, t = fn(x, identity(n))\n"
            "            if (type(value) is F or type(value) is G) and type(t) is A and (\n"
            "                    t.dtype is D and t.shape == (n,)):\n"
            "                return t if t.flags.writeable else t.copy()\n"
            "            numbers[(A,)] = general  # (a 0-d array out: the general way now)\n"
            "    return general(x)\n")
    exec(compile(text, "<srcad jacfwd of one vector>", "exec"), space)  # noqa: S102
    jac.numbers[(np.ndarray,)] = space["one_vector"]


def plain_front(jac, args, made):
    """After :func:`jacobian` gave the Jacobians ``made`` for ``args``, numbers and arrays
    at least one of which is an array (Python backend; one vector: :func:`one_vector` first,
    whose closure this one does not replace): the call of ``jac`` for these argument types
    (in ``jac.numbers``, which ``jacobian_of`` looks up first) becomes a function compiled
    for their plain key, as :func:`one_vector` is for one vector: the key's tests (types;
    each array's rank, dtype object and which earlier array shares its shape) written out,
    what the code read tested in its text as :func:`one_vector` tests it (each object held,
    a module looked up once; a builtin read too: ``range``, ``len``), then for the ``wrt``
    arguments' shapes of this call the pass and its cuts written out (:func:`_cut_written`),
    for other shapes their tangents kept (:func:`_plan`, at most 64 directions) and the
    blocks cut by :func:`_blocks`. Arguments failing a test go the general way
    (``jac.__call__``); a value or tangent not as :func:`jacobian` takes them there too, and
    from then on. Returns the text compiled (None if none)."""
    batched = jac.batched
    types = tuple(map(type, args))
    if batched is None or batched.backend != "python" or (
            np.ndarray not in types) or types in jac.numbers:
        return
    key = plain_key(args)
    found = batched.fast.get(key) if key is not None else None
    if found is None:
        return
    fn = found[0]
    space = {"fn": fn, "general": jac.__call__, "plan_of": _plan, "blocks": _blocks,
             "numbers": jac.numbers, "types": types, "single": jac.single, "A": np.ndarray,
             "D": np.dtype(float), "F": float, "G": np.float64}
    params = [f"a{i}" for i in range(len(args))]
    tests, arrays = [], []
    for i, a in enumerate(args):
        space[f"T{i}"] = types[i]
        tests.append(f"type(a{i}) is T{i}")
        if types[i] is np.ndarray:
            space[f"D{i}"] = a.dtype
            tests += [f"a{i}.ndim == {a.ndim}", f"a{i}.dtype is D{i}"]
            arrays.append(i)
    for k, (i, first) in enumerate(zip(arrays, [part[2] for part in key[len(args):]])):
        if k >= MAX_COMPARED:  # the partition of shapes plain_key compares: the first ones
            break
        for j in range(k):
            if j == first:
                tests.append(f"a{i}.shape == a{arrays[j]}.shape")
            elif key[len(args) + j][2] == j:  # another shape's first array: not this shape
                tests.append(f"a{i}.shape != a{arrays[j]}.shape")
    shapes = ", ".join(f"a{p}.shape" if types[p] is np.ndarray else "()"
                       for p in jac.index)
    call = ", ".join(params)
    lines = [f"plan = plan_of(({shapes},))",
             "if plan is None:",
             f"    return general({call})",
             f"value, t = fn({call}, *plan[0])"]
    written = _cut_written(jac, args, made, space, call)
    if written is not None:  # the first call's shapes first, the others as before
        lines = written + ["else:"] + ["    " + line for line in lines]
    text = (f"def plain_front({call}):\n"
            f"    if {' and '.join(tests)}:\n"
            "        try:\n"
            f"            ok = {tests_text(fn.__srcad_reads__, space, baked=True)}\n"
            "        except (ValueError, AttributeError):  # an empty cell, an attribute gone\n"
            "            ok = False\n"
            "        if ok:\n"
            + "".join(f"            {line}\n" for line in lines) +
            "            made = blocks(value, t, plan)\n"
            "            if made is not None:\n"
            "                return made[0] if single else made\n"
            "            numbers[types] = general  # (not as jacobian takes them: general)\n"
            f"    return general({call})\n")
    exec(compile(text, "<srcad jacfwd of plain arguments>", "exec"), space)  # noqa: S102
    jac.numbers[types] = space["plain_front"]
    return text


def _cut_written(jac, args, made, space, call):
    """:func:`plain_front`'s lines for the ``wrt`` arguments' shapes of this first call
    (``made``: its Jacobians, which give the value's shape): the tangents held, the value's
    and the tangent's types and shapes tested and the blocks cut as :func:`cut` cuts them,
    written out; a value or tangent failing a test is given to :func:`_blocks` (the lines
    after these). None beyond 64 directions."""
    shapes = tuple(args[p].shape if type(args[p]) is np.ndarray else () for p in jac.index)
    plan = _plan(shapes)
    if plan is None:
        return None
    out = np.shape(made[0])[:np.ndim(made[0]) - len(shapes[0])]
    space["PLAN"], space["TS"], space["OUT"] = plan, (plan[1],) + out, out
    same = " and ".join(f"a{p}.shape == {args[p].shape}" for p in jac.index
                        if type(args[p]) is np.ndarray)
    value = ("type(value) is A and value.dtype is D and value.shape == OUT" if out else
             "(type(value) is F or type(value) is G)")
    axes = ":, " * len(out)
    cuts = []
    for i, (low, high, shape) in enumerate(plan[2]):
        if not shape:
            cuts.append(f"t[{axes}{low}]" if out else f"float(t[{low}])")
        elif len(shape) == 1:
            cuts.append(f"t[{axes}{low}:{high}]")  # (already the value's shape + its own)
        else:
            space[f"R{i}"] = out + shape
            cuts.append(f"t[{axes}{low}:{high}].reshape(R{i})")
    moved = [] if not out else ["        t = t.T"] if len(out) == 1 else [
        f"        t = t.transpose({tuple(range(1, len(out) + 1)) + (0,)})"]
    return [f"if {same or 'True'}:  # (the first call's shapes: the cuts written out)",
            "    plan = PLAN",
            f"    value, t = fn({call}, *plan[0])",
            f"    if type(t) is A and t.dtype is D and t.shape == TS and {value} and (",
            "            t.flags.writeable):",
            *moved,
            f"        return {cuts[0] if jac.single else '(' + ', '.join(cuts) + ',)'}"]


_PLANS = {}  # the wrt arguments' shapes -> (their tangents, directions, blocks' bounds)


def _plan(shapes):
    """For the ``wrt`` arguments' ``shapes`` (of at most 64 elements in all): the tangents
    of one pass (:func:`_tangents`), their number, and each argument's first and last
    direction; None for more."""
    found = _PLANS.get(shapes)
    if found is None:
        sizes = [math.prod(s) for s in shapes]
        total = sum(sizes)
        if total > 64:
            return None
        if len(_PLANS) >= 256:  # (many shapes: not kept forever)
            _PLANS.clear()
        found = _PLANS[shapes] = (_tangents(shapes, sizes, total), total,
                                  _bounds(shapes, sizes))
    return found


def _bounds(shapes, sizes):
    """Each ``wrt`` argument's first and last direction (one past it) and its shape."""
    return tuple((sum(sizes[:i]), sum(sizes[:i + 1]), s) for i, s in enumerate(shapes))


def _blocks(value, t, plan):
    """The Jacobians from one pass's tangent ``t`` as :func:`jacobian` cuts them (the
    directions' axis last, a block per ``wrt`` argument, numbers as floats), or None where
    the value is not a float or float64 array, or ``t`` not a writeable float64 array of
    ``(directions,) + the value's shape``."""
    if type(value) is np.ndarray:
        if value.dtype.char != "d":
            return None
        out = value.shape
    elif type(value) is float or type(value) is np.float64:
        out = ()
    else:
        return None
    if type(t) is not np.ndarray or t.dtype.char != "d" or t.shape != (plan[1],) + out or (
            not t.flags.writeable):
        return None
    return tuple(cut(t, out, plan[2]))


def cut(t, out, bounds, copy_readonly=False):
    """The Jacobians from one pass's tangent ``t`` of shape ``(directions,) + out`` (``out``:
    the value's shape): the directions' axis moved last (a view), a block per ``wrt``
    argument (``bounds``: :func:`_bounds`) of shape ``out`` + the argument's shape, a number's
    of a number a float. :func:`jacobian`'s general way gives ``copy_readonly``: a block that
    is a read-only view (a zero broadcast to its shape; the identity itself, f(x) = x) is
    copied, so that the caller owns what it is given; :func:`_blocks` (the fronts) takes only
    a writeable ``t``, whose views need no copy."""
    if out:
        t = t.transpose(tuple(range(1, t.ndim)) + (0,))
    made = []
    for low, high, shape in bounds:
        if not shape:
            if not out:
                made.append(float(t[low]))
                continue
            block = t[..., low]
        elif len(shape) == 1:
            block = t[..., low:high]  # (already out + shape)
        else:
            block = t[..., low:high].reshape(out + shape)
        if copy_readonly and not block.flags.writeable:
            block = block.copy()
        made.append(block)
    return made


def _always():
    return True


_EYES = {}  # k -> the identity of k directions, read-only, for k up to 64


def _identity(k):
    """``np.eye(k)``: the tangents of one pass, which the code only reads (a small one made
    once: a microsecond of a small function's Jacobian)."""
    if k > 64:
        return np.eye(k)
    eye = _EYES.get(k)
    if eye is None:
        eye = _EYES[k] = np.eye(k)
        eye.flags.writeable = False
    return eye


def source(f, *args, wrt=0):
    """The batched forward-mode code made for ``f`` at these arguments (None if it has none)."""
    wrt = (wrt,) if isinstance(wrt, int) else tuple(wrt)
    made = Batched(f, wrt)
    fn = made.code(args)
    return made.why if fn is None else fn.__srcad_source__
