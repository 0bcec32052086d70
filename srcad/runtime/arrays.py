"""Arrays of other libraries in generated code: what the runtime helpers need to know about a
duck array (a Dask or CuPy array, which NumPy's dispatch protocols ``__array_ufunc__`` and
``__array_function__`` hand every NumPy call to; :func:`srcad.core.kinds.duck_array`), and the
refusals for what such a library lacks.

The generated code is the same NumPy code for every array library (but for two calls that
:mod:`srcad.backend.duck` rewrites); the helpers branch once on ``type(x) is np.ndarray`` (the
NumPy path stays as it was) and otherwise use only operations the
protocols forward: ``np.zeros_like`` rather than ``np.zeros(shape)``, ``np.sum`` rather than a
method, no ``np.asarray`` (it would compute a lazy Dask array into memory, or copy a GPU array
to the host), no ``.flags`` or ``.base``, and no NumPy array as large as the data (a Dask
graph would hold it, and send it to the workers, whole: :func:`spread`). An operation a library
does not have (``np.add.at`` on a Dask array, so the gradient of ``x[idx]`` with a Dask array of
indices) is refused with a :class:`srcad.errors.BackendError` naming the library and the rule,
never computed some other way. A refusal made while the derivative runs names the user's file
and line (:func:`placed`).

Imports only ``srcad.core`` and ``srcad.errors``.
"""

from __future__ import annotations

import contextvars

import numpy as np

from ..core.kinds import PLAIN, duck_array
from ..errors import BackendError


def library(x):
    """The name of the library an array comes from (``dask``, ``cupy``, ``array_api_strict``)."""
    return (type(x).__module__ or "?").split(".")[0]


def is_duck(x):
    """Whether ``x`` is another library's array (see :mod:`srcad.core.kinds`)."""
    return type(x) not in PLAIN and duck_array(x)  # a NumPy array or a float: one lookup


def zeros(shape, like):
    """Float zeros of ``shape`` in ``like``'s library (its device, its chunks for Dask)."""
    return np.zeros_like(like, dtype=float, shape=shape)


def spread(value, like):
    """``value`` broadcast to the shape of the duck array ``like``, in its library and chunked
    like it (``np.broadcast_to`` of a NumPy number would make a NumPy view as large as
    ``like``, which a Dask graph holds, and sends, whole)."""
    return np.ones_like(like, dtype=np.result_type(value)) * value


def refuse(x, rule, hint):
    """The error for a rule that needs an operation ``x``'s library does not have."""
    return placed(BackendError(
        f"the derivative of {rule} needs an operation that {library(x)} arrays "
        f"({type(x).__name__}) do not have", construct=rule, hint=hint))


def placed(error):
    """``error`` (a :class:`srcad.errors.SrcadError` made while generated code runs), which
    already names the user's file and line: :class:`~srcad.errors.SrcadError` finds them
    itself, from the innermost generated code running and its line map
    (:func:`srcad.errors.running_line`). Kept for the helpers that spell it."""
    return error


def refuse_foreign(value, what, code=None):
    """The error for an array of the array API standard without NumPy's dispatch protocols."""
    return BackendError(
        f"{what} is an array of {library(value)} ({type(value).__name__}): it follows the "
        "array API standard but not NumPy's dispatch protocols (__array_ufunc__, "
        "__array_function__), "
        "and srcad's generated code is NumPy code, which would silently convert it to a NumPy "
        "array or fail", filename=code.co_filename if code else None,
        lineno=code.co_firstlineno if code else None,
        hint="pass a NumPy array (np.from_dlpack(x) shares the memory of a CPU array) and "
        "convert the gradient back (xp.asarray(g)), or use an array library with NumPy's "
        "protocols (NumPy, Dask, CuPy)")


def to_library(value, like):
    """``value`` (a NumPy array) as an array of ``like``'s library (NEP 35's ``like=``)."""
    return np.asarray(value, like=like)


def writable_copy(value, shape=None):
    """A float copy of ``value`` (broadcast to ``shape``) in its own library, that writes into
    items do not share with ``value``."""
    if shape is not None and value.shape != shape:
        value = np.broadcast_to(value, shape)
    out = value.astype(float)
    return out.copy() if out is value else out


def _basic(index):
    """Whether ``index`` is an int, a slice, ``...``, ``None`` or a tuple of them: it reaches
    each element once."""
    items = index if type(index) is tuple else (index,)
    return all(i is None or i is Ellipsis or isinstance(i, (int, np.integer, slice))
               and not isinstance(i, bool) for i in items)


def _no_new_axes(index):
    """``index`` without its ``None`` items (Dask's item writes take none)."""
    if type(index) is not tuple:
        return (slice(None),) if index is None else index
    return tuple(i for i in index if i is not None)


def write(out, index, value, rule):
    """``out[index] = value`` for a duck array ``out``, a new array for a lazy one; an index
    that may reach an element twice is refused (the sum of the repeats needs ``np.add.at``)."""
    if _basic(index):
        plain = _no_new_axes(index)
        if plain is not index:  # the new axes are of size 1: drop them from value too
            value = np.reshape(value, np.broadcast_to(0.0, out.shape)[plain].shape)
        out[plain] = value
        return out
    return scatter_add(out, index, value, rule, "index with slices and one array of "
                       "integers (x[2:5], x[:, idx]), or compute the array first "
                       "(x.compute() for Dask)")


def scatter_add(out, index, value, rule, hint):
    """``np.add.at(out, index, value)`` on a duck array ``out`` (changed in place, or a new
    array for a lazy one): the library's own ``add.at`` where it has one (CuPy's ufuncs have
    ``at``, older CuPy ``cupyx.scatter_add``); otherwise, for an index along one axis given in
    NumPy (Dask), :func:`add_along`; otherwise a refusal naming the library and ``rule``."""
    try:
        np.add.at(out, index, value)
        return out
    except (TypeError, NotImplementedError, ValueError):
        pass
    if library(out) == "cupy":
        import importlib

        importlib.import_module("cupyx").scatter_add(out, index, value)
        return out
    along = _one_array(index, np.shape(out))
    if along is None:
        raise refuse(out, rule, hint)
    return add_along(out, *along, value)


def _one_array(index, shape):
    """``(axis, indices)`` when ``index`` reads along one axis with a NumPy array of
    integers (or a one-dimensional NumPy mask) and takes whole slices along the others
    (``x[idx]``, ``x[:, idx]``, ``x[..., idx]``), the indices non-negative; else None (an
    index whose values are in a lazy array is not known before it is computed)."""
    items = list(index) if type(index) is tuple else [index]
    ndim = len(shape)
    dots = [k for k, i in enumerate(items) if i is Ellipsis]
    if len(dots) > 1 or any(i is None for i in items):
        return None
    if dots:
        k = dots[0]
        items[k:k + 1] = [slice(None)] * (ndim - len(items) + 1)
    if len(items) > ndim:
        return None
    picked = [k for k, i in enumerate(items)
              if not (type(i) is slice and i == slice(None))]
    if len(picked) != 1 or not isinstance(items[picked[0]], (list, np.ndarray)):
        return None
    axis = picked[0]
    idx = np.asarray(items[axis])  # a list or a NumPy array: no duck array here
    if not idx.size and idx.dtype.kind == "f":  # an empty list
        idx = idx.astype(np.intp)
    if idx.dtype == bool and idx.ndim == 1 and idx.shape[0] == shape[axis]:
        idx = np.flatnonzero(idx)
    if idx.dtype.kind not in "iu":
        return None
    return axis, idx


def add_along(out, axis, indices, value):
    """``out`` plus ``value`` added at ``indices`` along ``axis`` (every repeat counted: as
    ``np.add.at(out, (slice(None),) * axis + (indices,), value)``, to the bit), built from
    ``np.take`` and ``np.concatenate`` only, which Dask has lazily: the indices' ``r``-th
    occurrences, each index once, are taken into place together (the missing ones read a
    zero), and added in the order of occurrence, as ``np.add.at`` adds them."""
    n = out.shape[axis]
    flat = np.reshape(indices, (-1,)) % max(n, 1)
    want = out.shape[:axis] + np.shape(indices) + out.shape[axis + 1:]
    if np.shape(value) != want:
        value = np.broadcast_to(value, want)
    value = np.reshape(value, out.shape[:axis] + (flat.size,) + out.shape[axis + 1:])
    if not flat.size:
        return out
    order = np.argsort(flat, kind="stable")
    ranked = flat[order]
    starts = np.flatnonzero(np.r_[True, ranked[1:] != ranked[:-1]])
    rank = np.arange(flat.size) - np.repeat(starts, np.diff(np.r_[starts, flat.size]))
    occurrence = np.empty_like(rank)
    occurrence[order] = rank
    zero = np.zeros_like(np.take(value, [0], axis=axis))
    for r in range(int(occurrence.max()) + 1):
        at = np.flatnonzero(occurrence == r)
        place = np.full(n, at.size)
        place[flat[at]] = np.arange(at.size)
        taken = np.concatenate([np.take(value, at, axis=axis), zero], axis=axis)
        out = out + np.take(taken, place, axis=axis)
    return out


def scatter(value, like, index):
    """:func:`srcad.runtime.helpers.scatter` for a duck array ``like``."""
    return write(zeros(like.shape, like), index, value,
                 "indexing with an array of indices or a mask (x[idx])")


def cleared(value, index):
    """:func:`srcad.runtime.helpers.cleared` for a duck array ``value``."""
    out = writable_copy(value)
    if _basic(index):
        out[_no_new_axes(index)] = 0.0
        return out
    try:
        out[index] = 0.0
    except (TypeError, NotImplementedError, ValueError, IndexError):
        raise refuse(value, "an item write y[idx] = v with an array of indices or a mask",
                     "write with slices and integers (y[2:5] = v)") from None
    return out


def add_at(a, indices, b):
    """``np.add.at`` on a copy of a duck array ``a``, or a refusal naming its library."""
    return scatter_add(writable_copy(a), indices, b,
                       "np.add.at (an in-place sum at repeated indices)",
                       "index with slices and one array of integers, or compute the array "
                       "first (x.compute() for Dask)")


def join_library(arguments, wrt):
    """Move the NumPy arrays among the ``wrt`` arguments (name -> value, changed in place) to
    the library of the first duck array among ``arguments``: their gradients then build up in
    that library (a Dask gradient added into a NumPy array in place would need ``out=``, which
    Dask refuses), and a lazy computation stays lazy. A no-op without a duck array."""
    like = first_duck(arguments.values())
    if like is None:
        return
    for name in wrt:
        arguments[name] = _moved(arguments[name], like)


def first_duck(values):
    """The first duck array among ``values``, in lists, tuples and dicts too, or None."""
    for v in values:
        if type(v) in (list, tuple, dict):
            v = first_duck(v.values() if type(v) is dict else v)
        if v is not None and type(v) not in PLAIN and duck_array(v):
            return v
    return None


def _moved(value, like):
    if type(value) is np.ndarray:
        return to_library(value, like)
    if isinstance(value, (list, tuple)):
        return type(value)(_moved(v, like) for v in value) if type(value) in (list, tuple) \
            else value
    if type(value) is dict:
        return {k: _moved(v, like) for k, v in value.items()}
    return value


#: exceptions an array library raises for a NumPy operation it does not have, or has with
#: another signature (Dask's ``reshape`` takes no ``order=``, its ``lu`` needs square chunks)
_LIBRARY_FAILURES = (TypeError, ValueError, NotImplementedError, AttributeError, IndexError)


#: the first duck array among the arguments of the generated code running now (or None):
#: the library :func:`constant` puts the code's NumPy constants in
_LIKE = contextvars.ContextVar("srcad_duck_like", default=None)


def constant(value):
    """``value``, a constant NumPy made in code generated for duck arrays (``np.eye(n)``,
    ``np.zeros(shape)``, ``np.arange(n)`` of a rule's template: :mod:`srcad.backend.duck`), as
    an array of the library of the running code's arguments when that library refuses a NumPy
    array beside its own (CuPy: copied to its device); unchanged for Dask, which takes NumPy
    arrays (as one chunk) and whose ``like=`` some constructors reject, and outside such code."""
    like = _LIKE.get()
    if like is None or type(value) is not np.ndarray or library(like) == "dask":
        return value
    return to_library(value, like)


def on_duck_arrays(call, func, bound):
    """``call()`` (srcad's code for ``func``, with another library's arrays among the
    arguments ``bound``), with an operation that library lacks refused with a
    :class:`BackendError` naming it instead of the library's own exception. When ``func``
    itself fails on those arguments, the exception is the user's and passes unchanged.
    While it runs, :func:`constant` makes constants in that library."""
    token = _LIKE.set(first_duck(bound.arguments.values()))
    try:
        return call()
    except _LIBRARY_FAILURES as err:
        try:
            func(*bound.args, **bound.kwargs)
        except Exception:  # noqa: BLE001 - the function's own failure: the user's to see
            raise err from None
        raise _backend_failure(err, list(bound.arguments.values()), func) from err
    finally:
        _LIKE.reset(token)


def _backend_failure(err, values, func):
    import traceback

    ducks = [a for a in values if is_duck(a)]
    name = library(ducks[0]) if ducks else "another library"
    where = "srcad's derivative code"
    for frame in reversed(traceback.extract_tb(err.__traceback__)):
        if "/srcad/" in frame.filename or frame.filename.startswith("<srcad"):
            where = f"{frame.name} ({frame.line.strip()})" if frame.line else frame.name
            break
    code = func.__code__
    return BackendError(
        f"the derivative needs an operation that {name} arrays do not have as NumPy does: "
        f"{where} raised {type(err).__name__}: {err}", filename=code.co_filename,
        lineno=code.co_firstlineno, construct=f"{name} arrays",
        hint="pass NumPy arrays (x.compute() for Dask), or rechunk (Dask's linear algebra "
        "wants square chunks)")
