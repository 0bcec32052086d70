"""The computation graph of a function, drawn from its SSA form, as Graphviz DOT text.

A node is a value: a parameter (a *leaf* when it is differentiated, an *input* otherwise), an
intermediate value the user named, or the returned value (the *output*). An edge is an
operation, labelled with what it computes. Temporaries that srcad's SSA form introduces and
uses once (``t = 3 * a`` for ``b = 5 - 3 * a``) are folded into the expression on the edge, so
the graph has the shape of the user's code:

    >>> def g(a, o):
    ...     b = 5 - 3 * a
    ...     c = 2 * b + 3
    ...     d = 5 * b + 6
    ...     e = 7 * c + d**2
    ...     f = 2 * e
    ...     g = 3 * f - o
    ...     return g
    >>> graph = build(g)
    >>> sorted(graph.edge_pairs())  # doctest: +NORMALIZE_WHITESPACE
    [('a', 'b'), ('b', 'c'), ('b', 'd'), ('c', 'e'), ('d', 'e'), ('e', 'f'), ('f', 'g'),
     ('o', 'g')]

With ``args``, each node shows its value and, for an active value (one that depends on a
differentiated parameter and reaches the output), its gradient: the SSA statements are run on
:mod:`srcad.tape`, keeping every intermediate gradient (``retain_grad``).

An ``if`` is drawn as a cluster holding its two arms; a loop as a cluster holding its body, with
a dashed edge for each value carried to the next iteration (values shown are those of the last
iteration). :func:`render` turns the DOT text into SVG or PNG with Graphviz's ``dot`` program.

The package: :mod:`.model` (nodes, edges, clusters, the graph), :mod:`.builder` (SSA to nodes
and edges), :mod:`.values` (activity, values and gradients), :mod:`.dot` (DOT text, rendering);
this module holds :func:`build` and :func:`to_dot`.

Imports: NumPy, the standard library, ``srcad.pipeline``, ``srcad.frontend.source`` and its own
modules.
"""

from __future__ import annotations

import inspect

import numpy as np

from ... import pipeline
from ...frontend import entry
from .builder import _Builder
from .dot import render
from .model import Graph
from .values import _activity, _annotate

__all__ = ["Graph", "build", "render", "to_dot"]


def to_dot(func, args=None, wrt=None, fold=True):
    """The DOT text of the computation graph of ``func`` (see :func:`build`)."""
    return build(func, args, wrt, fold).to_dot()


def build(func, args=None, wrt=None, fold=True):
    """The :class:`Graph` of ``func``'s SSA form.

    ``args``: values to annotate the nodes with (value, and gradient for active values).
    ``wrt``: the differentiated parameters, positions or names (default: every float argument
    when ``args`` are given, else every parameter). ``fold=False`` keeps every SSA temporary
    as a node of its own.
    """
    func = func.__srcad__._user if getattr(func, "__srcad__", None) is not None else (
        entry.target(func))
    fn, _ = pipeline.to_ssa(func)
    wrt_names = _wrt(fn.params, args, wrt)  # by default the float arguments given
    if args is not None:
        args = _all_args(func, fn.params, args)
    builder = _Builder(fn, wrt_names, fold)
    graph = builder.run()
    _activity(graph, fn, args, wrt_names, builder)
    if args is not None:
        _annotate(graph, fn, tuple(args), wrt_names, builder)
    return graph


def _all_args(func, params, args):
    """``args`` completed with the defaults, in the order of the SSA function's parameters."""
    try:
        bound = inspect.signature(func).bind(*args)
    except TypeError as exc:
        raise TypeError(f"{func.__name__}(): {exc}") from None
    bound.apply_defaults()
    return tuple(bound.arguments[p] for p in params)


def _wrt(params, args, wrt):
    if wrt is None:
        if args is None:
            return list(params)
        return [p for p, a in zip(params, args) if _is_float(a)]
    items = list(wrt) if isinstance(wrt, (tuple, list)) else [wrt]
    out = []
    for w in items:
        if isinstance(w, int) and not isinstance(w, bool) and -len(params) <= w < len(params):
            out.append(params[w])
        elif isinstance(w, str) and w in params:
            out.append(w)
        else:
            raise ValueError(f"wrt={w!r} names no parameter of this function {tuple(params)}")
    return out


def _is_float(x):
    if isinstance(x, np.ndarray):
        return x.dtype.kind == "f"
    return isinstance(x, (float, np.floating))

