"""Another array library's own form of a NumPy or SciPy function that NumPy's dispatch does
not hand to it.

Two kinds of function do not reach a duck array's library through NumPy's protocols: a NumPy
function the library lacks (Dask has no ``sort``: its ``__array_function__`` computes the
array and calls NumPy's), and SciPy's functions but its ufuncs (``scipy.linalg.solve``,
``scipy.special.logsumexp``, ``scipy.stats.norm.logpdf`` convert each argument with
``np.asarray``: a Dask array is computed into memory, a CuPy one refused). Code generated for
duck arrays calls such a function ``f`` as ``library_form(f)``
(:mod:`srcad.backend.duck` binds the form to a name of the generated function,
``library_sort``, forward sweep and templates alike; srcad reads a call of it as a call of
``f`` when it differentiates the code again: :func:`original`): with no duck array
among the arguments the function itself runs; with one, its library's form from
:func:`forms` (lazy on Dask), or a :class:`srcad.errors.BackendError` naming the library and
the function where the library has none. Nothing is computed some other way.

The gradient helpers of ``np.sort`` (:func:`srcad.runtime.numpy_shape.grad_sort`) take their
library's form from here too (routed as ``np.sort`` is).

Imports ``srcad.errors`` and the runtime's ``arrays``, ``numpy_extra``, ``numpy_shape``.
"""

from __future__ import annotations

import importlib

import numpy as np

from ..errors import BackendError
from . import arrays
from .numpy_extra import square_chunks
from .numpy_shape import grad_sort, tangent_sort

#: the functions whose calls duck-array code routes through :func:`library_form`, by name,
#: beside every function of SciPy's that is not a ufunc (:func:`routed`): NumPy functions Dask
#: lacks (its dispatch would compute the array and call NumPy's)
ROUTED = {"np.sort": np.sort, "np.linalg.det": np.linalg.det,
          "np.linalg.slogdet": np.linalg.slogdet, "np.kron": np.kron, "np.inner": np.inner,
          "np.column_stack": np.column_stack, "np.linalg.inv": np.linalg.inv,
          "np.linalg.solve": np.linalg.solve}
if hasattr(np, "unstack"):  # NumPy >= 2.1
    ROUTED["np.unstack"] = np.unstack
_ROUTED_NAMES = {id(fn): key for key, fn in ROUTED.items()}
_SORT_HELPERS = {"grad_sort": grad_sort, "tangent_sort": tangent_sort}


#: options of SciPy's that change how it computes, not what: a library's form ignores them
_FLAGS = frozenset(("overwrite_a", "overwrite_b", "check_finite"))


def routed(fn):
    """Whether calls of ``fn`` are routed through :func:`library_form` in duck-array code:
    :data:`ROUTED` (with the gradient helpers of ``np.sort``), and every function of SciPy
    but its ufuncs (``scipy.special.gammaln``, which NumPy's dispatch hands on): SciPy
    converts its arguments with ``np.asarray``."""
    return _name_of(fn) is not None


def _name_of(fn):
    """``np.sort``, ``scipy.linalg.solve``, ``scipy.stats.norm.logpdf``: the name of a routed
    function, or None."""
    name = getattr(fn, "__name__", None)
    if not isinstance(name, str) or isinstance(fn, (np.ufunc, type)):
        return None
    key = _ROUTED_NAMES.get(id(fn))
    if key is not None and ROUTED[key] is fn:
        return key
    if _SORT_HELPERS.get(name) is fn:
        return name
    module = getattr(fn, "__module__", None)
    if not isinstance(module, str) or not module.startswith("scipy.") or not callable(fn):
        return None
    public = ".".join(part for part in module.split(".") if not part.startswith("_"))
    owner = getattr(fn, "__self__", None)  # a distribution's method: scipy.stats.norm.pdf
    if owner is not None and getattr(owner, "name", None):
        public += f".{owner.name}"
    return f"{public}.{name}"


def library_form(fn):
    """``fn`` as a function of its arguments' library: ``fn`` itself for NumPy arrays and
    numbers, the library's own form for another library's arrays (:func:`forms`)."""
    form = _MADE.get(fn)
    if form is None:
        form = _MADE[fn] = _Form(fn, _name_of(fn))
    return form


_MADE = {}


def original(fn):
    """The function a library's form stands for; ``fn`` itself for any other object."""
    return fn.fn if type(fn) in (_Form, _Constant) else fn


#: NumPy's makers of constant arrays from shapes and numbers, which templates call
#: (``np.eye(n)``): in duck-array code their result is put in the arguments' library
CONSTANTS = frozenset((np.eye, np.identity, np.zeros, np.ones, np.arange, np.tri, np.linspace,
                       np.empty))


_CONSTANT_IDS = frozenset(map(id, CONSTANTS))


def makes_constant(fn):
    """Whether ``fn`` is one of :data:`CONSTANTS`."""
    return id(fn) in _CONSTANT_IDS and any(fn is c for c in CONSTANTS)


def constant_form(fn):
    """``fn`` (one of :data:`CONSTANTS`) with its result in the library of the arguments of
    the running duck-array code (:func:`srcad.runtime.arrays.constant`)."""
    form = _MADE.get(("constant", fn))
    if form is None:
        form = _MADE[("constant", fn)] = _Constant(fn)
    return form


class _Constant:
    """``fn``'s NumPy constant, moved to the running code's library (read as ``fn``)."""

    def __init__(self, fn):
        self.fn = fn
        self.__name__ = fn.__name__

    def __repr__(self):
        return f"<np.{self.fn.__name__} in the arguments' library>"

    def __call__(self, *args, **kwargs):
        return arrays.constant(self.fn(*args, **kwargs))


class _Form:
    """``fn`` dispatched on the library of the first duck array among its arguments."""

    def __init__(self, fn, name):
        self.fn = fn
        self.name = name
        self.__name__ = getattr(fn, "__name__", name)

    def __repr__(self):
        return f"<{self.name} in the arguments' library>"

    def __call__(self, *args, **kwargs):
        like = arrays.first_duck(list(args) + list(kwargs.values()))
        if like is None:
            return self.fn(*args, **kwargs)
        lib = arrays.library(like)
        form = _form_of(lib, self.name, self.fn)
        if form is None:
            raise _missing(like, self.name)
        return form(*args, **kwargs)


#: how to make an array of each library a NumPy array (the rewrite a refusal proposes)
_TO_NUMPY = {"dask": "x.compute()", "cupy": "cupy.asnumpy(x)"}


def _missing(like, name):
    """The error for ``name`` called on ``like``'s arrays, which their library has no form of."""
    lib = arrays.library(like)
    has = sorted(n for n in forms(lib) if "." in n) + (sorted(_ELEMENTWISE) + [
        "scipy.stats's distributions' pdf, logpdf, cdf, ..."] if lib == "dask" else [])
    return arrays.placed(BackendError(
        f"{name} on {lib} arrays ({type(like).__name__}): {lib} has no form of it, and "
        f"{name} itself would convert the array to NumPy (a lazy one computed into memory)",
        construct=name, hint=f"make the arguments NumPy arrays first "
        f"({_TO_NUMPY.get(lib, 'np.asarray(x)')}), or use what {lib} has a form of: "
        f"{', '.join(has) if has else 'none of these'}"))


def _unsupported(like, name, what, instead=None):
    """The error for ``name`` called on ``like``'s arrays with ``what``, which the library's
    form of ``name`` does not take (``instead``: what to write)."""
    lib = arrays.library(like)
    return arrays.placed(BackendError(
        f"{name} with {what} on {lib} arrays ({type(like).__name__}): {lib}'s form of "
        f"{name} does not take it", construct=f"{name} with {what}",
        hint=f"make the arguments NumPy arrays first ({_TO_NUMPY.get(lib, 'np.asarray(x)')}), "
        f"or {instead or f'call {name} without {what}'}"))


def _options(like, name, kwargs, allowed=()):
    """Refuse a keyword the library's form does not follow (SciPy's flags are ignored)."""
    for key, value in kwargs.items():
        if key not in _FLAGS and key not in allowed:
            raise _unsupported(like, name, f"{key}={value!r}")


# ---------------------------------------------------------------- Dask
def _da():
    return importlib.import_module("dask.array")


def _whole_axis(a, axis):
    """``a`` as one chunk along ``axis`` (normalised), chunked as it was along the others."""
    axis = axis % a.ndim
    return a.rechunk({axis: -1}), axis


def _dask_sort(a, axis=-1, kind=None, order=None):
    if order is not None:
        raise _unsupported(a, "np.sort", "order=")
    if axis is None:
        a, axis = np.reshape(a, (-1,)), 0
    whole, axis = _whole_axis(a, axis)
    return whole.map_blocks(np.sort, axis=axis, dtype=a.dtype)


def _dask_like(value, like):
    """``value`` (a gradient, maybe a NumPy array or a number) as a Dask array chunked as
    ``like``."""
    value = _da().asarray(value)
    if value.shape != like.shape:
        value = _da().broadcast_to(value, like.shape)
    return value.rechunk(like.chunks)


def _put_back(a, g, axis):
    out = np.zeros(a.shape, dtype=np.result_type(g, float))
    np.put_along_axis(out, np.argsort(a, axis=axis, kind="stable"), g, axis=axis)
    return out


def _take_sorted(a, t, axis):
    return np.take_along_axis(t, np.argsort(a, axis=axis, kind="stable"), axis=axis)


def _dask_blockwise_by_order(block_fn, value, a, axis):
    """``block_fn(a, value, axis)`` on blocks that hold the whole axis (flat ``a`` and
    ``value`` for ``axis=None``)."""
    a = _da().asarray(a)  # a NumPy a beside a Dask gradient: in Dask too
    if axis is None:
        return _dask_blockwise_by_order(block_fn, np.reshape(value, (-1,)),
                                        np.reshape(a, (-1,)), 0)
    whole, axis = _whole_axis(a, axis)
    return whole.map_blocks(block_fn, _dask_like(value, whole), axis=axis,
                            dtype=np.result_type(a.dtype, float))


def _dask_grad_sort(g, a, axis=-1):
    """The gradient of ``np.sort(a, axis)`` for a Dask ``a``: ``g`` put back where each value
    came from, block by block along the whole axis (the stable order, as NumPy's)."""
    return np.reshape(_dask_blockwise_by_order(_put_back, g, a, axis), np.shape(a))


def _dask_tangent_sort(t, a, axis=-1):
    """The tangent of ``np.sort(a, axis)`` for a Dask ``a``: ``t`` in ``a``'s sort order
    (flat for ``axis=None``, as the sorted values)."""
    return _dask_blockwise_by_order(_take_sorted, t, a, axis)


def _whole_matrices(a, name):
    """``a`` (a matrix or a batch of them) with each matrix in one block, for NumPy's linear
    algebra block by block (a matrix whose determinant is asked for fits in memory: the
    determinant costs its size to the power 3/2)."""
    a = _da().asarray(a)
    if a.ndim < 2:
        raise _unsupported(a, name, f"an array of ndim {a.ndim}", "pass a matrix")
    return a.rechunk({a.ndim - 2: -1, a.ndim - 1: -1})


def _dask_det(a):
    """``np.linalg.det`` of a Dask ``a``, lazily: each matrix's block by NumPy's ``det``."""
    whole = _whole_matrices(a, "np.linalg.det")
    dtype = np.linalg.det(np.eye(1, dtype=whole.dtype)).dtype
    return whole.map_blocks(np.linalg.det, drop_axis=(whole.ndim - 2, whole.ndim - 1),
                            dtype=dtype)


def _dask_linalg_inv(a):
    """``np.linalg.inv`` of a Dask ``a``, lazily: Dask's ``inv`` of a matrix (square
    blocks); of a batch of matrices, each matrix's block by NumPy's ``inv``."""
    a = _da().asarray(a)
    if a.ndim == 2:
        return _da().linalg.inv(square_chunks(a))
    whole = _whole_matrices(a, "np.linalg.inv")
    return whole.map_blocks(np.linalg.inv, dtype=np.linalg.inv(np.eye(1, dtype=whole.dtype)).dtype)


def _dask_linalg_solve(a, b):
    """``np.linalg.solve`` of Dask arrays, lazily: Dask's ``solve`` for a matrix; for a batch
    of matrices and a batch of matrices ``b`` of the same batch shape, each pair of blocks
    by NumPy's ``solve`` (matrices whole)."""
    a, b = _da().asarray(a), _da().asarray(b)
    if a.ndim == 2:  # (what NumPy's dispatch calls)
        return _da().linalg.solve(a, b)
    if b.ndim != a.ndim or b.shape[:-1] != a.shape[:-1]:
        raise _unsupported(a, "np.linalg.solve", f"a batch of matrices and b of shape {b.shape}",
                           "pass b as a batch of matrices of the same batch shape")
    whole = _whole_matrices(a, "np.linalg.solve")
    b = b.rechunk(whole.chunks[:-1] + (-1,))
    dtype = np.linalg.solve(np.eye(1, dtype=whole.dtype), np.eye(1, dtype=b.dtype)).dtype
    return _da().map_blocks(np.linalg.solve, whole, b, dtype=dtype)


def _sign(m):
    return np.linalg.slogdet(m)[0]


def _logabsdet(m):
    return np.linalg.slogdet(m)[1]


def _dask_slogdet(a):
    """``np.linalg.slogdet`` of a Dask ``a``, lazily: ``(sign, logabsdet)``, each matrix's
    block by NumPy's ``slogdet``."""
    whole = _whole_matrices(a, "np.linalg.slogdet")
    sign, logabsdet = np.linalg.slogdet(np.eye(1, dtype=whole.dtype))
    drop = (whole.ndim - 2, whole.ndim - 1)
    return (whole.map_blocks(_sign, drop_axis=drop, dtype=sign.dtype),
            whole.map_blocks(_logabsdet, drop_axis=drop, dtype=logabsdet.dtype))


def _dask_inner(a, b):
    """``np.inner`` of Dask arrays: a sum over the last axes of both (``tensordot``)."""
    a, b = _da().asarray(a), _da().asarray(b)
    if a.ndim == 0 or b.ndim == 0:
        return a * b
    return _da().tensordot(a, b, axes=(a.ndim - 1, b.ndim - 1))


def _dask_kron(a, b):
    """``np.kron`` of Dask arrays: the product of ``a`` and ``b`` on interleaved axes, whose
    pairs are then merged (``a``'s index major), both raised to the larger rank first."""
    a, b = _da().asarray(a), _da().asarray(b)
    nd = max(a.ndim, b.ndim)
    a = a.reshape((1,) * (nd - a.ndim) + a.shape)
    b = b.reshape((1,) * (nd - b.ndim) + b.shape)
    out = (a[tuple(i for _ in range(nd) for i in (slice(None), None))]
           * b[tuple(i for _ in range(nd) for i in (None, slice(None)))])
    return out.reshape(tuple(p * q for p, q in zip(a.shape, b.shape)))


def _dask_column_stack(tup):
    """``np.column_stack`` of Dask arrays: 0-d and 1-d ones made columns, then joined."""
    cols = [_da().asarray(t) for t in tup]
    return _da().concatenate([c.reshape((-1, 1)) if c.ndim < 2 else c for c in cols], axis=1)


def _dask_unstack(x, *, axis=0):
    """``np.unstack`` of a Dask array: its slices along ``axis``."""
    moved = np.moveaxis(_da().asarray(x), axis, 0)
    return tuple(moved[i] for i in range(moved.shape[0]))


def _matrix(like, name, *mats):
    for m in mats:
        if np.ndim(m) != 2:
            raise _unsupported(like, name, f"a batch of matrices (ndim {np.ndim(m)})")


def _rows_like(b, a):
    """``b`` as a Dask array whose rows are chunked as ``a``'s."""
    b = _da().asarray(b)
    return b.rechunk({0: a.chunks[0]})


def _dask_inv(a, **kwargs):
    _options(a, "scipy.linalg.inv", kwargs)
    _matrix(a, "scipy.linalg.inv", a)
    return _da().linalg.inv(square_chunks(a))


def _dask_solve(a, b, **kwargs):
    like = arrays.first_duck([a, b])
    _options(like, "scipy.linalg.solve", kwargs)
    _matrix(like, "scipy.linalg.solve", a)
    a = square_chunks(_da().asarray(a))
    return _da().linalg.solve(a, _rows_like(b, a))


def _dask_cholesky(a, lower=False, **kwargs):
    _options(a, "scipy.linalg.cholesky", kwargs)
    _matrix(a, "scipy.linalg.cholesky", a)
    return _da().linalg.cholesky(square_chunks(a), lower=bool(lower))


def _dask_solve_triangular(a, b, trans=0, lower=False, unit_diagonal=False, **kwargs):
    like = arrays.first_duck([a, b])
    name = "scipy.linalg.solve_triangular"
    _options(like, name, kwargs)
    _matrix(like, name, a)
    if np.iscomplexobj(a) and trans in (2, "C"):
        raise _unsupported(like, name, "trans='C' of a complex matrix")
    a = square_chunks(_da().asarray(a))
    a = np.tril(a) if lower else np.triu(a)  # the triangle SciPy reads
    if unit_diagonal:
        a = a - np.diag(np.diagonal(a)) + _da().eye(a.shape[0], chunks=a.chunks[0][0],
                                                     dtype=a.dtype)
    if trans in (1, 2, "T", "C"):
        a, lower = np.transpose(a), not lower
    elif trans not in (0, "N"):
        raise _unsupported(like, name, f"trans={trans!r}")
    return _da().linalg.solve_triangular(a, _rows_like(b, a), lower=bool(lower))


def _dask_cho_solve(c_and_lower, b, **kwargs):
    c, lower = c_and_lower
    like = arrays.first_duck([c, b])
    _options(like, "scipy.linalg.cho_solve", kwargs)
    _matrix(like, "scipy.linalg.cho_solve", c)
    # c c' x = b (lower) or c' c x = b (upper): two triangular solves
    first = _dask_solve_triangular(c, b, trans=0 if lower else 1, lower=lower)
    return _dask_solve_triangular(c, first, trans=1 if lower else 0, lower=lower)


def _dask_elementwise(fn, name):
    """Dask's form of ``fn``, an elementwise SciPy function that is not a ufunc
    (``polygamma``: Python over ufuncs, which converts its arguments first): ``fn`` block by
    block, the positional arguments broadcast and aligned as for a ufunc (Dask's
    ``elemwise``); an array given by keyword is refused (it would not be aligned)."""
    def form(*args, **kwargs):
        for key, value in kwargs.items():
            if np.ndim(value):
                raise _unsupported(arrays.first_duck([*args, value]), name,
                                   f"an array given by keyword ({key}=)",
                                   f"pass {key} by position")
        elemwise = importlib.import_module("dask.array.core").elemwise
        return elemwise(fn, *args, **kwargs)

    return form


#: SciPy's elementwise functions that are not ufuncs, and the methods of its distributions
#: that are elementwise in their arguments (``scipy.stats.norm.logpdf``)
_ELEMENTWISE = frozenset(("scipy.special.polygamma", "scipy.special.zeta"))
_ELEMENTWISE_METHODS = frozenset(("pdf", "logpdf", "cdf", "logcdf", "sf", "logsf", "ppf",
                                  "isf", "pmf", "logpmf"))


def _form_of(lib, name, fn):
    """``lib``'s form of ``fn`` (named ``name``), or None."""
    form = forms(lib).get(name)
    parts = name.split(".")
    if form is None and lib == "dask" and (name in _ELEMENTWISE or (
            parts[:2] == ["scipy", "stats"] and len(parts) == 4
            and parts[3] in _ELEMENTWISE_METHODS)):
        form = _dask_elementwise(fn, name)
    return form


# ---------------------------------------------------------------- CuPy (untested here: no GPU)
def _dispatched_grad_sort(g, a, axis=-1):
    """The gradient of ``np.sort`` with calls NumPy's dispatch hands to the array's library
    (``argsort``, ``take_along_axis``): ``g`` read at each element's rank."""
    if axis is None:
        flat = np.reshape(a, (-1,))
        return np.reshape(_dispatched_grad_sort(np.reshape(g, (-1,)), flat, 0), np.shape(a))
    ranks = np.argsort(np.argsort(a, axis=axis, kind="stable"), axis=axis, kind="stable")
    return np.take_along_axis(np.broadcast_to(g, np.shape(a)), ranks, axis=axis)


def _dispatched_tangent_sort(t, a, axis=-1):
    if axis is None:
        a, t, axis = np.reshape(a, (-1,)), np.reshape(t, (-1,)), 0
    order = np.argsort(a, axis=axis, kind="stable")
    return np.take_along_axis(np.broadcast_to(t, np.shape(a)), order, axis=axis)


def _cupy_forms():
    """CuPy's forms: ``np.sort`` and ``np.argsort`` reach CuPy through NumPy's dispatch;
    SciPy's functions through ``cupyx.scipy``'s modules of the same names, where they have
    them (``cupyx.scipy.linalg.solve_triangular``, ``cupyx.scipy.special.polygamma``)."""
    found = dict(ROUTED)  # through NumPy's dispatch
    found.update({"grad_sort": _dispatched_grad_sort,
                  "tangent_sort": _dispatched_tangent_sort})
    for module in ("linalg", "special"):
        try:
            cupyx = importlib.import_module(f"cupyx.scipy.{module}")
        except ImportError:
            continue
        found.update((f"scipy.{module}.{n}", getattr(cupyx, n)) for n in dir(cupyx)
                     if not n.startswith("_") and callable(getattr(cupyx, n)))
    return found


_DASK = {"np.sort": _dask_sort, "np.linalg.det": _dask_det,
         "np.linalg.slogdet": _dask_slogdet, "np.kron": _dask_kron, "np.inner": _dask_inner,
         "np.column_stack": _dask_column_stack, "np.unstack": _dask_unstack,
         "np.linalg.inv": _dask_linalg_inv, "np.linalg.solve": _dask_linalg_solve,
         "grad_sort": _dask_grad_sort,
         "tangent_sort": _dask_tangent_sort, "scipy.linalg.inv": _dask_inv,
         "scipy.linalg.solve": _dask_solve, "scipy.linalg.cholesky": _dask_cholesky,
         "scipy.linalg.solve_triangular": _dask_solve_triangular,
         "scipy.linalg.cho_solve": _dask_cho_solve}
_FOUND = {"dask": _DASK}


def forms(lib):
    """Function name -> ``lib``'s form of it (arguments as the function's), for the library
    named ``lib`` (``dask``, ``cupy``); empty for a library with none."""
    if lib not in _FOUND:
        _FOUND[lib] = _cupy_forms() if lib == "cupy" else {}
    return _FOUND[lib]
