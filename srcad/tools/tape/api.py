"""The tape's functions for plain functions: :func:`grad`, :func:`value_and_grad`, :func:`trace`.

Each binds the arguments, makes leaf :class:`~.var.Var` values of the ``wrt`` ones, and calls a
copy of the function rebound (:func:`~.rebinding.rebind`) to the tracing shims of :mod:`.shims`.

Imports: NumPy, the standard library, :mod:`.var`, :mod:`.shims` and :mod:`.rebinding`.
"""

from __future__ import annotations

import functools
import inspect

import numpy as np

from ...core import trees
from .rebinding import rebind
from .shims import _REPLACEMENTS
from .var import TapeUnsupportedError, Var, _raw


def _single(wrt):
    return not isinstance(wrt, (tuple, list))


def _wrt_names(f, wrt):
    """The parameter names that ``wrt`` selects, as :func:`srcad.grad` reads it.

    ``wrt`` is a position (negative counts from the end) or a name of a parameter other than
    ``*args`` and ``**kwargs``, or a tuple or list of them.
    """
    kinds = (inspect.Parameter.VAR_POSITIONAL, inspect.Parameter.VAR_KEYWORD)
    params = [p.name for p in inspect.signature(f).parameters.values() if p.kind not in kinds]
    items = [wrt] if _single(wrt) else list(wrt)
    if not items:
        raise ValueError("wrt is empty: name at least one parameter, e.g. wrt=0")
    names = []
    for w in items:
        if isinstance(w, int) and not isinstance(w, bool) and -len(params) <= w < len(params):
            name = params[w]
        elif isinstance(w, str) and w in params:
            name = w
        else:
            fname = getattr(f, "__name__", "the function")
            raise ValueError(f"wrt={w!r} names no parameter of {fname}{tuple(params)}")
        if name in names:
            raise ValueError(f"wrt={wrt!r} selects {name!r} twice")
        names.append(name)
    return names


def _run(f, args, kwargs, wrt, fresh):
    """Call the rebound ``f`` with its ``wrt`` arguments as leaf Vars: (output, leaves)."""
    signature = inspect.signature(f)
    bound = signature.bind(*args, **kwargs)  # other defaults: the rebound copy's own (rebound)
    leaves = []
    for name in _wrt_names(f, wrt):
        v = bound.arguments.get(name, signature.parameters[name].default)
        if fresh and isinstance(v, Var) and v.requires_grad:
            raise TapeUnsupportedError(
                "srcad.tape does not nest: for higher derivatives of plain functions use srcad.grad"
            )
        if trees.is_container(v) and not isinstance(v, Var):  # a leaf Var per number in it
            group = [Var(_raw(leaf)) for leaf in trees.leaves(v)]
            if not all(np.asarray(g.value).dtype.kind in "biuf" for g in group):
                raise TypeError(f"argument {name!r} to differentiate holds a value that is not "
                                "a float or an array of floats")
            bound.arguments[name] = trees.rebuild(v, group)
            leaves.append((v, group))
            continue
        if not isinstance(v, Var) or fresh:
            if np.asarray(_raw(v)).dtype.kind not in "biuf":
                raise TypeError(
                    f"argument {name!r} to differentiate must be a float or an array "
                    f"of floats, not {type(v).__name__}"
                )
            v = Var(_raw(v))
        bound.arguments[name] = v
        leaves.append(v)
    return rebind(f, _REPLACEMENTS)(*bound.args, **bound.kwargs), leaves


def trace(f, *args, wrt=0, **kwargs):
    """Run ``f(*args, **kwargs)`` on the tape; return its output, a :class:`Var` as in PyTorch.

    The ``wrt`` arguments (see :func:`grad`) become leaves; pass :class:`Var` arguments to keep
    hold of the leaves and read their ``.grad`` after ``out.backward()``.

        >>> w = Var(1.0)
        >>> y = trace(lambda x, w: (x + w) * (w + 1), 2.0, w, wrt="w")
        >>> y.grad_fn, w.is_leaf
        ('MulBackward', True)
        >>> y.backward()
        >>> w.grad
        5.0
    """
    return _run(f, args, kwargs, wrt, fresh=False)[0]


def value_and_grad(f=None, wrt=0):
    """Like :func:`grad`, but the function returns ``(value, gradient)``."""
    if f is None:
        return functools.partial(value_and_grad, wrt=wrt)
    _wrt_names(f, wrt)  # fail early on a bad wrt

    @functools.wraps(f)
    def value_and_grad_f(*args, **kwargs):
        out, leaves = _run(f, args, kwargs, wrt, fresh=True)
        if np.ndim(_raw(out)) != 0 or np.asarray(_raw(out)).dtype.kind not in "biuf":
            raise ValueError(
                f"{getattr(f, '__name__', 'f')} must return a scalar for grad, not "
                f"{type(_raw(out)).__name__} of shape {np.shape(_raw(out))}; for a non-scalar "
                f"output use a vector-Jacobian product (vjp), e.g. trace(...).backward(seed)"
            )
        if isinstance(out, Var) and out.requires_grad:
            out.backward()
        grads = tuple(_grad_of(v) for v in leaves)
        return float(_raw(out)), grads[0] if _single(wrt) else grads

    return value_and_grad_f


def _grad_of(leaf):
    """A leaf's gradient (a container's: the container of its leaves' gradients)."""
    if isinstance(leaf, tuple):
        container, group = leaf
        return trees.rebuild(container, [_grad_of(v) for v in group])
    g = np.zeros_like(leaf.value) if leaf.grad is None else leaf.grad
    return float(g) if np.ndim(g) == 0 else g


def grad(f=None, wrt=0):
    """The gradient of ``f``, computed on the tape; mirrors :func:`srcad.grad`.

    ``wrt`` is a parameter's position or name, or a tuple (or list) of them: one gradient, or a
    tuple in that order. ``f`` must return a scalar. Use as ``grad(f, wrt=1)``, ``@grad`` or
    ``@grad(wrt=...)``.

        >>> import math
        >>> @grad(wrt=("x", "y"))
        ... def f(x, y):
        ...     return math.sin(x) * y if x > 0 else y
        >>> f(0.0, 2.0)
        (0.0, 1.0)
    """
    if f is None:
        return functools.partial(grad, wrt=wrt)
    value_and_grad_f = value_and_grad(f, wrt)

    @functools.wraps(f)
    def grad_f(*args, **kwargs):
        return value_and_grad_f(*args, **kwargs)[1]

    return grad_f
