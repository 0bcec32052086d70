"""The engines :func:`~srcad.compare.compare` runs, and running one of them.

Each engine has a factory, ``factory(f, names, params) -> (run, finish)``: ``run(args)`` is the
engine's own work, the part that is timed; ``finish(run's result, args)`` gives (value,
gradients). srcad, the tape and finite differences are here; torch and autograd in
:mod:`.peers`. :func:`_run_engine` times one engine and turns its failure into a result.

Imports: NumPy, the standard library, :mod:`srcad.core.trees`, :mod:`.results`, :mod:`.peers`,
and when an engine runs, ``srcad.api``, the tape and ``srcad.check``.
"""

from __future__ import annotations

import importlib
import time

import numpy as np

from ...core import trees
from .peers import _autograd, _torch
from .results import EngineResult

#: Every engine :func:`compare` knows, in the order of the table.
ENGINES = ("srcad", "tape", "finite differences", "torch", "autograd")

_TIME_BUDGET = 0.02  # seconds of repeated calls per engine when ``repeat`` is None


def _run_engine(engine, f, args, names, params, repeat):
    label = _label(engine)
    for module in _MODULES[engine]:  # importing is not part of the engine's first call
        importlib.import_module(module)
    start = time.perf_counter()
    try:
        run, finish = _FACTORIES[engine](f, names, params)
        raw = run(args)
        first = time.perf_counter() - start
        value, grads = _normalise(*finish(raw, args), args, params, names)
        per_call = _time(run, args, repeat)
    except Exception as exc:  # an engine's failure is a result, not a crash
        return EngineResult(engine, label, error=_one_line(exc))
    return EngineResult(engine, label, value, grads, first, per_call)


def _one_line(exc):
    text = str(exc).strip().splitlines()
    return f"{type(exc).__name__}: {text[0] if text else ''}".rstrip(": ")


def _time(run, args, repeat):
    if repeat == 0:
        return None
    if repeat is not None:
        start = time.perf_counter()
        for _ in range(repeat):
            run(args)
        return (time.perf_counter() - start) / repeat
    n, total, calls = 1, 0.0, 0
    while total < _TIME_BUDGET and calls < 1_000_000:
        start = time.perf_counter()
        for _ in range(n):
            run(args)
        total += time.perf_counter() - start
        calls += n
        n *= 2
    return total / calls


def _label(engine):
    if engine in ("torch", "autograd"):
        try:
            module = __import__(engine)
            return f"{engine} {module.__version__.split('+')[0]}"
        except Exception:
            return engine
    return {"srcad": "srcad (generated)", "tape": "srcad.tape"}.get(engine, engine)


def _normalise(value, grads, args, params, names):
    """(float or array value, tuple of gradients shaped like their arguments)."""
    value = np.asarray(value, dtype=float)
    value = float(value) if value.ndim == 0 else value
    out = []
    for name, g in zip(names, grads):
        x = args[params.index(name)]
        if trees.is_container(x):  # a dict, list or tuple: the vector of its leaves' gradients
            if not trees.is_container(g) or len(trees.leaves(g)) != len(trees.leaves(x)):
                raise TypeError(f"the gradient for {name!r} is not a container like it")
            out.append(np.concatenate([np.ravel(np.zeros(np.shape(leaf)) if h is None else h)
                                       for h, leaf in zip(trees.leaves(g), trees.leaves(x))]
                                      ).astype(float))
            continue
        g = np.zeros(np.shape(x)) if g is None else np.asarray(g, dtype=float)
        out.append(float(g) if np.ndim(x) == 0 else np.reshape(g, np.shape(x)))
    return value, tuple(out)


# ================================================================================================
# Engines: each factory returns (run, finish): run(args) is the engine's own work, the part
# that is timed; finish(run's result, args) gives (value, gradients) for _normalise.
# ================================================================================================


def _srcad(f, names, params):
    from ... import api

    single = len(names) == 1
    vg = api.value_and_grad(f, wrt=names[0] if single else names)

    def run(args):
        return vg(*args)

    def finish(raw, args):
        value, grads = raw
        return value, (grads,) if single else grads

    return run, finish


def _tape(f, names, params):
    from .. import tape

    vg = tape.value_and_grad(f, wrt=names)

    def run(args):
        return vg(*args)

    def finish(raw, args):
        return raw

    return run, finish


def _finite_differences(f, names, params):
    from ..check import numerical_grad

    positions = tuple(params.index(n) for n in names)

    def run(args):
        return numerical_grad(f, args, positions)

    def finish(raw, args):
        return f(*args), raw

    return run, finish



_MODULES = {
    "srcad": ("srcad",),
    "tape": ("srcad.tape",),
    "finite differences": ("srcad.check",),
    "torch": ("torch", "srcad.tape"),
    "autograd": ("autograd", "autograd.numpy", "srcad.tape"),
}

_FACTORIES = {
    "srcad": _srcad,
    "tape": _tape,
    "finite differences": _finite_differences,
    "torch": _torch,
    "autograd": _autograd,
}

