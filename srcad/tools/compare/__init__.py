"""Run one plain function through every engine at hand and lay the answers side by side.

``compare(f, *args)`` computes the value of ``f`` at ``args`` and its gradient with

- **srcad**: the derivative generated from the source, built once and then called;
- **tape**: :mod:`srcad.tape`, which records a graph while ``f`` runs, on every call;
- **finite differences**: :func:`srcad.check.numerical_grad`;
- **torch** and **autograd**, when they are installed: the same function, unchanged, with its
  ``math`` and ``numpy`` names rebound (:func:`srcad.tape.rebind`) to versions that work on
  torch tensors or on autograd's traced values.

It returns a :class:`Comparison`: the values, the gradients, the largest absolute difference of
each engine's gradient from srcad's, and the time of the first call and of later calls. Printing
it gives a table; ``compare(..., show=True)`` prints it too.

    >>> def f(x, w):
    ...     a = x + w
    ...     b = w + 1
    ...     return a * b
    >>> c = compare(f, 2.0, 1.0, repeat=0, engines=("srcad", "tape"))
    >>> c.grads("srcad"), c.grads("tape"), c.agree
    ((2.0, 5.0), (2.0, 5.0), True)

The torch and autograd runs are a best effort: a ``math`` or ``numpy`` function they have no
counterpart for shows up as an error in that engine's row, never as a wrong number.

The package: :mod:`.results` (``EngineResult``, ``Comparison`` and its table), :mod:`.engines`
(srcad, the tape, finite differences; running and timing one engine), :mod:`.peers` (torch and
autograd) and :mod:`.stand_ins` (``math`` and builtins for their traced values); this module
holds :func:`compare` and reads its arguments.

Imports: NumPy, the standard library, its own modules and :mod:`srcad.core.trees` (a dict,
list or tuple argument is compared leaf by leaf: its gradient column is the vector of them).
"""

from __future__ import annotations

import importlib.util
import inspect

import numpy as np

from ...core import trees
from .engines import ENGINES, _run_engine
from .results import Comparison, EngineResult

__all__ = ["ENGINES", "Comparison", "EngineResult", "compare"]


# ================================================================================================
# compare
# ================================================================================================


def compare(f, *args, wrt=None, repeat=None, engines=None, show=False):
    """Value and gradient of the scalar function ``f`` at ``args`` by every available engine.

    ``wrt`` is a parameter position or name or a tuple of them, as for :func:`srcad.grad`;
    ``None`` means every float argument (Python or NumPy float, or float array). ``repeat`` is
    the number of timed calls per engine after the first (``None``: as many as fit in about
    20 ms; ``0``: no timing). ``engines`` restricts the run to some of :data:`ENGINES` (srcad is
    always included: it is what the others are compared to). ``show=True`` prints the table.

    An engine that fails (a function torch has no counterpart for, a srcad error) gets an error
    in its row instead of numbers; ``compare`` itself raises only for bad arguments.
    """
    params = _params(f)
    names = _wrt_names(f, params, args, wrt)
    wanted = list(ENGINES) if engines is None else ["srcad", *engines]
    unknown = [e for e in wanted if e not in ENGINES]
    if unknown:
        raise ValueError(f"unknown engine(s) {unknown}; choose from {ENGINES}")
    comparison = Comparison(getattr(f, "__name__", repr(f)), params, args, names)
    for engine in ENGINES:
        if engine not in wanted:
            continue
        if engine in ("torch", "autograd") and importlib.util.find_spec(engine) is None:
            if engines is not None:
                comparison.results.append(
                    EngineResult(engine, engine, error=f"{engine} is not installed"))
            continue
        comparison.results.append(_run_engine(engine, f, args, names, params, repeat))
    _differences(comparison)
    if show:
        print(comparison)
    return comparison


def _params(f):
    try:
        sig = inspect.signature(f)
    except (TypeError, ValueError):
        raise TypeError(f"compare needs a Python function, got {f!r}") from None
    kinds = (inspect.Parameter.VAR_POSITIONAL, inspect.Parameter.VAR_KEYWORD)
    return [p.name for p in sig.parameters.values() if p.kind not in kinds]


def _is_float(x):
    if trees.is_container(x):  # a dict, list or tuple of floats, as srcad.grad takes
        leaves = trees.leaves(x)
        return bool(leaves) and all(map(_is_float, leaves))
    if isinstance(x, np.ndarray):
        return x.dtype.kind == "f"
    return isinstance(x, (float, np.floating))


def _wrt_names(f, params, args, wrt):
    if wrt is None:
        names = tuple(params[i] for i, x in enumerate(args[: len(params)]) if _is_float(x))
        if not names:
            raise ValueError(f"{getattr(f, '__name__', f)}: no float argument to differentiate; "
                             "pass wrt=")
        return names
    items = list(wrt) if isinstance(wrt, (tuple, list)) else [wrt]
    names = []
    for w in items:
        if isinstance(w, int) and not isinstance(w, bool) and -len(params) <= w < len(params):
            names.append(params[w])
        elif isinstance(w, str) and w in params:
            names.append(w)
        else:
            raise ValueError(f"wrt={w!r} names no parameter of {getattr(f, '__name__', f)}"
                             f"({', '.join(params)})")
    return tuple(names)



def _differences(comparison):
    ref = comparison["srcad"]
    if not ref.ok:
        return
    for r in comparison.results:
        if r.ok:
            r.max_diff = max(
                (float(np.max(np.abs(np.subtract(g, h)), initial=0.0))
                 for g, h in zip(r.grads, ref.grads)),
                default=0.0,
            )


