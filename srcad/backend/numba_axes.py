"""Reductions along an axis under the Numba backend, and their gradients.

Numba's ``np.max`` takes no ``axis``, and none of its reductions takes ``keepdims``;
:func:`srcad.backend.numba_backend.check` writes ``np.sum``, ``np.max``, ``np.min`` (and
``np.amax``, ``np.amin``) with a constant ``axis`` and ``keepdims`` as :func:`reduce` (and
``np.max(a)``, ``np.min(a)`` as :func:`reduce` over every axis), and srcad's helpers
``grad_sum`` and ``grad_extremum`` along an axis, and ``unbroadcast`` of a broadcast
gradient, reach the implementations here. Each is made, when Numba compiles, for the rank of
its array (the axis is read when it runs: one compiled version serves every axis): the array
is read as ``(before, along, after)`` (C order), and loops over those three do the work. The
numbers are NumPy's: a sum of bools or ints is an int64, ``max`` and ``min`` propagate nan
and refuse an empty axis, the gradient of an extremum shares ``g`` equally among the
elements equal to it (srcad's ``grad_extremum``). A sum adds in order along the axis
(NumPy's pairwise sum can differ in the last bits).

Imports ``numba`` (through :mod:`.numba_helpers`, when a function is compiled).
"""

from __future__ import annotations

import numpy as np
from numba import types
from numba.core.errors import TypingError
from numba.extending import overload


def reduce(a, op, axis=None, keepdims=False):
    """Stub: ``np.<op>(a, axis=axis, keepdims=keepdims)``, ``op`` "sum", "max" or "min";
    ``axis`` None for every axis."""
    raise NotImplementedError


def grad_extremum(g, a, ans, axis=None, keepdims=False):
    """Stub: srcad's ``grad_extremum``."""
    raise NotImplementedError


_EMPTY = {"max": "zero-size array to reduction operation maximum which has no identity",
          "min": "zero-size array to reduction operation minimum which has no identity"}


def _literal(t, kind, what):
    if t is None or isinstance(t, (bool, int, str)):  # a default, when omitted
        return t
    if isinstance(t, types.Omitted):
        return t.value
    if isinstance(t, types.NoneType) and kind is None:
        return None
    if isinstance(t, types.Literal) and isinstance(t.literal_value, kind or type(None)):
        return t.literal_value
    if kind is None and isinstance(t, types.Literal) and t.literal_value is None:
        return None
    raise TypingError(f"srcad's numba backend reduces along a constant {what} (got {t})")


def _axis(axis):
    """Whether ``axis`` (a type) is an int (read when the code runs: one compiled version for
    every axis), or None (every axis)."""
    if axis is None or isinstance(axis, types.NoneType) or (
            isinstance(axis, types.Omitted) and axis.value is None):
        return False
    if isinstance(axis, types.Integer) and not isinstance(axis, types.Boolean):
        return True
    raise TypingError(f"srcad's numba backend reduces along one int axis (got {axis})")


def _split(ndim, shape="s"):
    """Lines setting ``ax`` (``axis`` in ``range(ndim)``, NumPy's error past it), ``before``
    and ``after`` (the products of the lengths of ``shape`` before and after it)."""
    return [f"    ax = axis + {ndim} if axis < 0 else axis",
            f"    if ax < 0 or ax >= {ndim}:",
            f"        raise ValueError('axis is out of bounds for array of dimension {ndim}')",
            "    before = 1", "    after = 1", f"    for i in range({ndim}):",
            "        if i < ax:", f"            before *= {shape}[i]",
            "        elif i > ax:", f"            after *= {shape}[i]"]


def _shape_text(items):
    return "(" + "".join(f"{t}, " for t in items) + ")"


def _compile(lines, **scope):
    scope["np"] = np
    exec("\n".join(lines), scope)  # noqa: S102 - made here from ranks and constant axes
    return scope["impl"]


def _accumulate(op, acc, value):
    if op == "sum":
        return [f"{acc} += {value}"]
    cmp = ">" if op == "max" else "<"
    return [f"v = {value}", f"if v {cmp} {acc} or v != v:",
            f"    if not {acc} != {acc}:", f"        {acc} = v"]


@overload(reduce)
def _reduce(a, op, axis=None, keepdims=False):
    if not (isinstance(a, types.Array) and isinstance(a.dtype, (
            types.Float, types.Integer, types.Boolean))):
        raise TypingError(f"srcad's numba backend reduces real arrays, not {a}")
    what = _literal(op, str, "operation")
    keep = _literal(keepdims, bool, "keepdims")
    if what == "sum":
        dtype = a.dtype if isinstance(a.dtype, types.Float) else types.int64
    else:
        dtype = a.dtype
    ndim = a.ndim
    lines = ["def impl(a, op, axis=None, keepdims=False):", "    s = a.shape"]
    if not _axis(axis):  # every axis: as one axis of a flat array
        shape = ("1",) * ndim if keep else ()
        lines.append("    c = np.ravel(a).reshape((1, a.size, 1))")
    else:
        lines += _split(ndim)
        lines.append("    c = np.ascontiguousarray(a).reshape((before, s[ax], after))")
        shape = ([f"1 if ax == {i} else s[{i}]" for i in range(ndim)] if keep else
                 [f"s[{i}] if {i} < ax else s[{i + 1}]" for i in range(ndim - 1)])
    lines += ["    n = c.shape[1]", "    out = np.empty((c.shape[0], c.shape[2]), dtype)"]
    if what in _EMPTY:
        lines += ["    if n == 0:", f"        raise ValueError({_EMPTY[what]!r})"]
    lines += ["    for p in range(c.shape[0]):", "        for q in range(c.shape[2]):"]
    first = "0" if what == "sum" else "c[p, 0, q]"
    lines += [f"            acc = dtype({first})",
              f"            for j in range({0 if what == 'sum' else 1}, n):"]
    lines += ["                " + ln for ln in _accumulate(what, "acc", "c[p, j, q]")]
    lines.append("            out[p, q] = acc")
    if shape:
        lines.append(f"    return out.reshape({_shape_text(shape)})")
    else:
        lines.append("    return out[0, 0]")
    return _compile(lines, dtype=dtype)


def grad_along(g, a, axis, keepdims):
    """The implementation of ``grad_sum(g, a, axis, keepdims)`` for an array ``a`` and a
    constant int ``axis`` (types): ``g`` repeated along the axis (called by
    :mod:`.numba_helpers`)."""
    if not (isinstance(a, types.Array) and (isinstance(g, (types.Float, types.Integer)) or (
            isinstance(g, types.Array) and isinstance(g.dtype, (types.Float, types.Integer))))):
        raise TypingError(f"srcad's numba backend spreads a real gradient over an array "
                          f"(got {g} over {a})")
    if not _axis(axis):
        raise TypingError("srcad's numba backend: grad_sum along no axis")
    return _compile(_spread(a.ndim, g, "{g}", "g, a, axis=None, keepdims=False")
                    + ["    return out"])


def _spread(ndim, g, value, params, first=()):
    """The lines of ``impl(params)`` setting ``out`` (a's shape) to ``value`` at each
    ``[p, j, {q}]`` (``{g}`` in it: g's item at ``[p, {q}]``, or g itself for a number), after
    the lines ``first``. Along the last axis (``after`` 1: gmm's sums over a point's
    coordinates, a row's ``max``) the loop over ``j`` is the inner one, ``{q}`` 0: with a loop
    of one turn inside it, it took 6 times as long (121 against 18 µs for a (1000, 10, 10)
    array). Each element is the same expression either way."""
    lines = [f"def impl({params}):", "    s = a.shape", *_split(ndim), *first,
             "    out = np.empty(s)", "    o = out.reshape((before, s[ax], after))"]
    if isinstance(g, types.Array):
        lines += ["    if g.size != o.shape[0] * o.shape[2]:",
                  "        raise ValueError('srcad (numba backend): a gradient shaped unlike "
                  "its value')",
                  "    g = np.ascontiguousarray(g).reshape((o.shape[0], o.shape[2]))"]
    item = value.replace("{g}", "g[p, {q}]" if isinstance(g, types.Array) else "g")
    lines += ["    if after == 1:", "        for p in range(o.shape[0]):",
              "            for j in range(o.shape[1]):",
              "                o[p, j, 0] = " + item.replace("{q}", "0"),
              "        return out",
              "    for p in range(o.shape[0]):", "        for j in range(o.shape[1]):",
              "            for q in range(o.shape[2]):",
              "                o[p, j, q] = " + item.replace("{q}", "q")]
    return lines


@overload(grad_extremum)
def _grad_extremum(g, a, ans, axis=None, keepdims=False):
    if not (isinstance(a, types.Array) and isinstance(a.dtype, types.Float)):
        raise TypingError(f"srcad's numba backend: the gradient of max or min of a float "
                          f"array only (got {a})")
    if not _axis(axis):
        def whole(g, a, ans, axis=None, keepdims=False):
            hit = a == ans
            count = np.sum(hit)
            out = np.empty(a.shape)
            flat, hits = out.reshape(-1), hit.reshape(-1)
            for i in range(flat.shape[0]):
                share = (1.0 if hits[i] else 0.0) / count if count else np.nan
                flat[i] = g * share
            return out
        if not isinstance(g, (types.Float, types.Integer)):
            raise TypingError(f"srcad's numba backend: the gradient of a whole max or min is "
                              f"a number (got {g})")
        return whole
    first = ["    c = np.ascontiguousarray(a).reshape((before, s[ax], after))",
             "    t = np.ascontiguousarray(np.asarray(ans)).reshape((c.shape[0], c.shape[2]))",
             "    counts = np.zeros((c.shape[0], c.shape[2]), np.int64)",
             "    for p in range(c.shape[0]):",
             "        for j in range(c.shape[1]):",
             "            for q in range(c.shape[2]):",
             "                if c[p, j, q] == t[p, q]:",
             "                    counts[p, q] += 1"]
    # srcad's grad_extremum: g * (hit / count), nan where nothing equals the result (nan)
    value = ("{g} * ((1.0 if c[p, j, {q}] == t[p, {q}] else 0.0) / counts[p, {q}] "
             "if counts[p, {q}] else np.nan)")
    return _compile(_spread(a.ndim, g, value, "g, a, ans, axis=None, keepdims=False",
                            first) + ["    return out"])


def unbroadcast(value, like):
    """The implementation of srcad's ``unbroadcast`` of an array ``value`` to an array
    ``like`` of lower or equal rank (types), called by :mod:`.numba_helpers`: the leading axes
    summed, then each axis where ``like`` has length 1 and ``value`` not."""
    extra = value.ndim - like.ndim
    if extra < 0 or like.ndim == 0 or not isinstance(value.dtype, types.Float):
        raise TypingError(f"srcad's numba backend does not unbroadcast {value} to {like}")
    lines = ["def impl(value, like):", "    ls = like.shape"]
    if extra:
        lead = " * ".join(f"value.shape[{i}]" for i in range(extra))
        rest = _shape_text(f"value.shape[{i}]" for i in range(extra, value.ndim))
        lines += ["    c = np.ascontiguousarray(value).reshape((" + lead + ",) + " + rest + ")",
                  f"    g = np.zeros({rest}, c.dtype)",
                  "    for i in range(c.shape[0]):", "        g += c[i]"]
    else:
        # value itself where nothing is summed (Numba unifies its layout with a new array's)
        lines += ["    if value.shape == ls:", "        return value", "    g = value"]
    for i in range(like.ndim):
        lines += [f"    if ls[{i}] == 1 and g.shape[{i}] != 1:",
                  f"        g = reduce(g, 'sum', {i}, True)",
                  f"    elif ls[{i}] != g.shape[{i}]:",
                  "        raise ValueError('srcad (numba backend): a gradient shaped unlike "
                  "its value')"]
    lines.append("    return g")
    return _compile(lines, reduce=reduce)
