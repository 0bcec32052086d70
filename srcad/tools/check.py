"""Gradient checking: finite differences along random directions, and the reference tape.

`numerical_grad` differentiates any scalar-valued function numerically; `check_grads` compares
srcad's gradient with it and with the reference tape, `srcad.tape`, and raises an
`AssertionError` that names the function and the argument that disagree.

Finite differences are central differences at steps `eps` and `eps / 2`, combined by one
Richardson step, so the truncation error is O(eps**4) and `eps` can stay large enough that
rounding does not dominate. Every point evaluated lies within `eps` of the input (along each
coordinate, or along a random direction of unit scale), so inputs must be at least `eps` away
from kinks and domain edges.

    >>> import math
    >>> abs(numerical_grad(math.sin, (0.5,)) - math.cos(0.5)) < 1e-10
    True

Imports: NumPy, `srcad.api` (when checking) and the tape (`srcad.tools.tape`).
"""

import inspect
import numbers

import numpy as np

from ..core import trees
from . import tape

__all__ = ["check_grads", "numerical_grad"]

DEFAULT_EPS = 1e-4


# --- finite differences ---------------------------------------------------------------------


def numerical_grad(f, args, wrt=0, eps=DEFAULT_EPS):
    """Gradient of the scalar-valued `f` at `args` by central finite differences.

    `wrt` is an argument index, a parameter name, or a tuple of them (a tuple gives a tuple of
    gradients, in that order; None means every float argument, as a tuple). Each gradient has
    its argument's shape: a float for a Python or NumPy scalar, an array for an array.
    """
    args = tuple(args)
    indices = _wrt_indices(f, wrt, args)
    grads = tuple(_numerical_grad_one(f, args, i, eps) for i in indices)
    return grads[0] if isinstance(wrt, (int, str)) else grads


def _numerical_grad_one(f, args, i, eps):
    x = args[i]
    if trees.is_container(x):  # a dict, list or tuple: leaf by leaf, the same container back
        leaves = trees.leaves(x)

        def at(j, value):
            return trees.rebuild(x, leaves[:j] + [value] + leaves[j + 1:])

        grads = [_numerical_grad_one(lambda *a, j=j: f(*_replace(a, i, at(j, a[i]))),
                                     _replace(args, i, leaf), i, eps)
                 for j, leaf in enumerate(leaves)]
        return trees.rebuild(x, grads)
    if _is_scalar(x):
        return _derivative(lambda t: _call(f, _replace(args, i, x + t)), eps)
    x = np.asarray(x, dtype=float)
    grad = np.zeros_like(x)
    for idx in np.ndindex(x.shape):
        unit = np.zeros_like(x)
        unit[idx] = 1.0
        grad[idx] = _derivative(lambda t, u=unit: _call(f, _replace(args, i, x + t * u)), eps)
    return grad


def _derivative(phi, eps):
    """phi'(0) from central differences at eps and eps/2, with one Richardson step."""
    wide = (phi(eps) - phi(-eps)) / (2 * eps)
    narrow = (phi(eps / 2) - phi(-eps / 2)) / eps
    return (4 * narrow - wide) / 3


def _call(f, args):
    out = f(*args)
    if np.ndim(out) != 0:
        raise TypeError(f"{_name(f)} must return a scalar, got shape {np.shape(out)}")
    return float(out)


def _replace(args, i, value):
    return args[:i] + (value,) + args[i + 1 :]


# --- arguments --------------------------------------------------------------------------------


def _is_scalar(x):
    return isinstance(x, numbers.Real) and not isinstance(x, bool)


def _is_differentiable(x):
    """A float scalar or a floating-point array, or a dict, list or tuple of them: what
    `wrt=None` selects."""
    if trees.is_container(x):
        leaves = trees.leaves(x)
        return bool(leaves) and all(map(_is_differentiable, leaves))
    if isinstance(x, np.ndarray):
        return np.issubdtype(x.dtype, np.floating)
    return isinstance(x, (float, np.floating))


def _param_names(f):
    try:
        params = inspect.signature(f).parameters.values()
    except (TypeError, ValueError):
        return []
    kinds = (inspect.Parameter.POSITIONAL_ONLY, inspect.Parameter.POSITIONAL_OR_KEYWORD)
    return [p.name for p in params if p.kind in kinds]


def _wrt_indices(f, wrt, args):
    """`wrt` (index, name, tuple of them, or None for every float argument) as a tuple of ints."""
    if wrt is None:
        indices = tuple(i for i, x in enumerate(args) if _is_differentiable(x))
        if not indices:
            raise ValueError(f"{_name(f)}: no float arguments to differentiate")
        return indices
    names, nargs = _param_names(f), len(args)
    indices = []
    for w in wrt if isinstance(wrt, tuple) else (wrt,):
        if isinstance(w, str):
            if w not in names:
                raise ValueError(f"{_name(f)} has no positional parameter {w!r}")
            w = names.index(w)
        if not -nargs <= w < nargs:
            raise ValueError(f"wrt index {w} out of range for {nargs} arguments of {_name(f)}")
        indices.append(w % nargs)
    return tuple(indices)


def _name(f):
    return getattr(f, "__qualname__", None) or repr(f)


def _label(f, i):
    names = _param_names(f)
    return f"{names[i]!r} (argument {i})" if i < len(names) else f"argument {i}"


# --- checking ---------------------------------------------------------------------------------


def check_grads(
    f, *args, wrt=None, rtol=1e-6, atol=1e-8, order=1, eps=DEFAULT_EPS, directions=3, seed=0
):
    """Assert that srcad's gradient of the scalar-valued `f` at `args` is right.

    `wrt` is as for `srcad.grad`; None means every float or floating-array argument. Each
    gradient is tested along `directions` random directions: <grad, v> must match the
    finite-difference derivative of t -> f(x + t v) within `atol + rtol * sum(|grad * v|)`; it
    must also match the reference tape's (`srcad.tape`) elementwise. With `order=2`, the
    gradient of each gradient is checked against finite differences of the first gradient
    (`srcad.grad(srcad.grad(f))` for scalar arguments, `srcad.vjp` for arrays).
    Raises AssertionError naming the function and the argument that disagree.
    """
    from .. import api

    if order not in (1, 2):
        raise ValueError(f"order must be 1 or 2, got {order}")
    indices = _wrt_indices(f, wrt, args)

    grads = _as_tuple(api.grad(f, wrt=indices)(*args), len(indices))
    rng = np.random.default_rng(seed)
    for i, g in zip(indices, grads, strict=True):
        _check_directional(f, args, i, g, rng, rtol, atol, eps, directions)
    expected = _as_tuple(_reference_grad()(f, wrt=indices)(*args), len(indices))
    for i, g, t in zip(indices, grads, expected, strict=True):
        _assert_close(
            g,
            t,
            rtol,
            atol,
            f"{_name(f)}: gradient with respect to {_label(f, i)} disagrees with the reference "
            "tape",
        )
    if order == 2:
        if any(trees.is_container(args[i]) for i in indices):
            raise ValueError("order=2 checks float and array arguments, not containers")
        for i in indices:
            _check_second_order(api, f, args, i, indices, rng, rtol, atol, eps)


def _reference_grad():
    """`srcad.tape.grad`, the engine srcad's gradients are checked against (tests replace it)."""
    return tape.grad


def _check_directional(f, args, i, grad, rng, rtol, atol, eps, directions):
    x = args[i]
    where = f"{_name(f)}: gradient with respect to {_label(f, i)}"
    if trees.is_container(x):  # a dict, list or tuple: a direction for every leaf at once
        xs = trees.leaves(x)
        if not trees.is_container(grad) or len(trees.leaves(grad)) != len(xs):
            raise AssertionError(f"{where} is {grad!r}, not a container like {x!r}")
        gs = [_zeros_if_none(g, leaf) for g, leaf in zip(trees.leaves(grad), xs, strict=True)]
    else:
        xs, gs = [x], [_zeros_if_none(grad, x)]
    for g, leaf in zip(gs, xs, strict=True):
        if np.shape(g) != np.shape(leaf):
            raise AssertionError(f"{where} has shape {np.shape(g)}, expected {np.shape(leaf)}")

    def moved(t, vs):
        new = [leaf + t * v for leaf, v in zip(xs, vs, strict=True)]
        return trees.rebuild(x, new) if trees.is_container(x) else new[0]

    for _ in range(directions):
        vs = [float(rng.standard_normal()) if _is_scalar(leaf) else
              rng.standard_normal(np.shape(leaf)) for leaf in xs]
        numeric = _derivative(lambda t, vs=vs: _call(f, _replace(args, i, moved(t, vs))), eps)
        analytic = sum(float(np.sum(g * v)) for g, v in zip(gs, vs, strict=True))
        scale = sum(float(np.sum(np.abs(g * v))) for g, v in zip(gs, vs, strict=True))
        v = vs if trees.is_container(x) else vs[0]
        if not abs(analytic - numeric) <= atol + rtol * scale:
            raise AssertionError(
                f"{where} disagrees with finite differences along a random direction v:\n"
                f"  <grad, v>           = {analytic!r}\n"
                f"  finite differences  = {numeric!r}\n"
                f"  grad = {grad!r}\n  v = {v!r}\n  args = {args!r}"
            )


def _check_second_order(api, f, args, i, indices, rng, rtol, atol, eps):
    """Check the derivatives of d f / d args[i] with respect to every argument in `indices`."""
    first = api.grad(f, wrt=i)
    if _is_scalar(args[i]):
        second = _as_tuple(api.grad(first, wrt=indices)(*args), len(indices))
        scalar_first = first
    else:
        u = rng.standard_normal(np.shape(args[i]))
        _, pullback = api.vjp(first, *args, wrt=indices)
        second = _as_tuple(pullback(u), len(indices))

        def scalar_first(*a):
            return np.sum(first(*a) * u)

    for j, h in zip(indices, second, strict=True):
        expected = numerical_grad(scalar_first, args, j, eps)
        _assert_close(
            h,
            expected,
            rtol,
            atol,
            f"{_name(f)}: second derivative with respect to "
            f"{_label(f, i)} and then {_label(f, j)} disagrees with finite differences",
        )


def _assert_close(actual, expected, rtol, atol, message):
    if trees.is_container(expected):
        if not trees.is_container(actual) or len(trees.leaves(actual)) != len(
                trees.leaves(expected)):
            raise AssertionError(f"{message}:\n  got      {actual!r}\n  expected {expected!r}")
        for a, e in zip(trees.leaves(actual), trees.leaves(expected), strict=True):
            _assert_close(a, e, rtol, atol, message)
        return
    actual = _zeros_if_none(actual, expected)
    if np.shape(actual) != np.shape(expected) or not np.allclose(
        actual, expected, rtol=rtol, atol=atol
    ):
        raise AssertionError(f"{message}:\n  got      {actual!r}\n  expected {expected!r}")


def _zeros_if_none(grad, like):
    if grad is None:
        return 0.0 if _is_scalar(like) else np.zeros(np.shape(like))
    return grad


def _as_tuple(result, n):
    if isinstance(result, tuple) and len(result) == n:
        return result
    if n == 1:
        return (result,)
    raise AssertionError(f"expected a tuple of {n} gradients, got {result!r}")
