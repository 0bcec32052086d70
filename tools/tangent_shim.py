"""The worker side of ``tools/tangent_tests.py``: Tangent's differential operators, as srcad's.

``tools/tangent_tests.py`` runs the test files of a Tangent fork (read at run time from a
fetched repository) under pytest with a package named ``tangent`` whose ``__init__`` is
``from tangent_shim import *``: the tests' own code is not touched, and every derivative they
take is srcad's. What is Tangent's own machinery (its AST passes, caches, checkpointing,
visualisation, TensorFlow and JAX extensions) is not an autodiff front end: using it raises
:class:`Unsupported`, and the test is reported UNSUPPORTED.

Tangent's calling conventions, written here from its documentation: ``grad(f, wrt=(0,))``
returns one gradient for one position and a tuple for several; ``preserve_result=True``
appends the function's value; a function returning a tuple is differentiated as the sum of
its outputs, or as the one ``output_index`` names, or as their sum weighted by
``output_weights``; an array output is seeded with ones.

Every derivative is checked on its first ``CHECKED_CALLS`` calls along a random direction
against central finite differences of the test's own function, never against srcad; a
disagreement is recorded (as a line ``WRONG <test id> <message>`` in the file named by
``SRCAD_TANGENT_LOG``) so the runner reports the test WRONG whatever its own assertions say.
This module is also the pytest plugin that records each test's outcome in that file.
"""

from __future__ import annotations

import enum
import json
import os

import numpy as np
from tangent_suite import flat  # a tree's numbers as one vector (tools/ is on the path)

import srcad

CHECKED_CALLS = 2
__all__ = ["grad", "autodiff", "vjp", "jvp", "INPUT_DERIVATIVE", "Unsupported",
           "clear_cache"]  # the runner's tangent/__init__.py: these, and missing() for the rest


class Unsupported(Exception):
    """Tangent's own machinery, not an autodiff front end srcad stands in for."""


class INPUT_DERIVATIVE(enum.Enum):  # noqa: N801 - Tangent's name
    Required = 1
    DefaultOne = 2


def _log(kind, message):
    path = os.environ.get("SRCAD_TANGENT_LOG")
    if path:
        test = os.environ.get("PYTEST_CURRENT_TEST", "?").rsplit(" (", 1)[0]
        with open(path, "a") as f:
            f.write(json.dumps({"kind": kind, "test": test, "message": message}) + "\n")


def clear_cache():
    srcad.clear_cache()


def missing(name):
    """What ``tangent.<name>`` is for a name this shim does not stand for."""
    if name.startswith("__"):
        raise AttributeError(name)
    raise Unsupported(f"tangent.{name} (Tangent's own machinery)")


def _ones_like(value, weight=1.0):
    if isinstance(value, (tuple, list)):
        return type(value)(_ones_like(v, weight) for v in value)
    if isinstance(value, np.ndarray):
        return np.full(value.shape, weight, dtype=float)
    return float(weight)


def _seed(value, output_index, output_weights):
    """The cotangent Tangent's ``grad`` starts from, for the function's value."""
    if not isinstance(value, tuple):
        return _ones_like(value)
    if output_index is not None:
        return tuple(_ones_like(v, 1.0 if k == output_index else 0.0)
                     for k, v in enumerate(value))
    weights = output_weights or (1.0,) * len(value)
    return tuple(_ones_like(v, w) for v, w in zip(value, weights))


def _moved(value, direction, h):
    if isinstance(value, dict):
        return {k: _moved(value[k], direction[k], h) for k in value}
    if isinstance(value, (tuple, list)):
        return type(value)(_moved(v, d, h) for v, d in zip(value, direction))
    if isinstance(value, np.ndarray):
        return value + h * direction
    return value + h * float(direction)


def _direction(value, rng):
    if isinstance(value, dict):
        return {k: _direction(v, rng) for k, v in value.items()}
    if isinstance(value, (tuple, list)):
        return type(value)(_direction(v, rng) for v in value)
    if isinstance(value, np.ndarray):
        return rng.normal(size=value.shape)
    return float(rng.normal())


def _differentiable(value):
    if isinstance(value, (bool, np.bool_)):
        return False
    if isinstance(value, (float, np.floating)):
        return True
    if isinstance(value, np.ndarray):
        return value.dtype.kind == "f"
    if isinstance(value, (tuple, list)):
        return bool(value) and all(_differentiable(v) for v in value)
    if isinstance(value, dict):
        return bool(value) and all(_differentiable(v) for v in value.values())
    return False


def _check(func, args, positions, grads, cot):
    """Record WRONG when ``grads`` (one per position) disagree with central differences of
    ``<cot, func(args)>`` along a random direction."""
    rng = np.random.default_rng(len(args))
    checked = [(k, g) for k, g in zip(positions, grads) if _differentiable(args[k])]
    if not checked:
        return
    directions = {k: _direction(args[k], rng) for k, _ in checked}

    def value(h):
        moved = list(args)
        for k in directions:
            moved[k] = _moved(args[k], directions[k], h)
        return float(np.dot(flat(cot), flat(func(*moved))))
    h = 1e-6
    try:
        reference = (value(h) - value(-h)) / (2 * h)
    except Exception:  # the function fails off its point (a kink, a domain): no verdict
        return
    along = sum(float(np.dot(flat(g), flat(directions[k]))) for k, g in checked)
    if not np.isfinite(reference) or abs(along - reference) <= 1e-4 * (1 + abs(reference)):
        return
    # a kink near the point: one-sided differences disagree with each other too
    left = (value(0.0) - value(-h)) / h
    right = (value(h) - value(0.0)) / h
    if abs(left - right) > 1e-3 * (1 + abs(reference)):
        return
    _log("WRONG", f"{getattr(func, '__name__', func)}: directional derivative {along!r}, "
                  f"finite differences {reference!r}")


class _Derivative:
    def __init__(self, func, wrt, preserve_result, output_index=None, output_weights=None):
        self.func, self.wrt = func, tuple(wrt)
        self.preserve_result = preserve_result
        self.output_index, self.output_weights = output_index, output_weights
        self.calls = 0
        self.__name__ = f"d{getattr(func, '__name__', 'f')}"

    def __call__(self, *args):
        value = self.func(*args)  # the function's own value, as Tangent's code computes it
        cot = _seed(value, self.output_index, self.output_weights)
        if np.ndim(value) == 0 and not isinstance(value, tuple):
            if len(self.wrt) == 1:
                grads = (srcad.grad(self.func, wrt=self.wrt[0])(*args),)
            else:
                grads = tuple(srcad.grad(self.func, wrt=self.wrt)(*args))
        else:
            _, pullback = srcad.vjp(self.func, *args)
            every = pullback(cot)  # one gradient per argument, as JAX's vjp
            grads = tuple(every[k] for k in self.wrt)
        if self.calls < CHECKED_CALLS:
            self.calls += 1
            _check(self.func, args, self.wrt, grads, cot)
        out = grads[0] if len(grads) == 1 else grads
        if self.preserve_result:
            return (*grads, value) if len(grads) > 1 else (out, value)
        return out


def grad(func, wrt=(0,), optimized=True, preserve_result=False, check_dims=True, verbose=0,
         output_index=None, output_weights=None, argnum=None, **options):
    """Tangent's ``grad``: the options that only change how its code is made are accepted and
    have no effect here (srcad's code is made one way)."""
    if output_index is not None and output_weights is not None:
        raise ValueError("Cannot specify both output_index and output_weights: give one")
    if argnum is not None:
        wrt = (argnum,)
    if isinstance(wrt, int):
        wrt = (wrt,)
    return _Derivative(func, wrt, preserve_result, output_index, output_weights)


def autodiff(func, wrt=(0,), order=1, mode="reverse", motion="joint", optimized=True,
             preserve_result=False, check_dims=True,
             input_derivative=INPUT_DERIVATIVE.Required, verbose=0, **options):
    if order != 1 or mode != "reverse" or input_derivative is not INPUT_DERIVATIVE.DefaultOne:
        raise Unsupported(f"tangent.autodiff(order={order}, mode={mode!r}, "
                          f"input_derivative={input_derivative}) (Tangent's calling "
                          "conventions for it are not reproduced here)")
    return grad(func, wrt, preserve_result=preserve_result)


def vjp(func, *args, **kwargs):
    raise Unsupported("tangent.vjp (Tangent's calling convention is not reproduced here)")


def jvp(func, *args, **kwargs):
    raise Unsupported("tangent.jvp (Tangent's calling convention is not reproduced here)")


def pytest_runtest_logreport(report):
    """Each test's outcome, as one line of the log (the runner reads them)."""
    if report.when == "call" or report.outcome != "passed":
        message = ""
        if report.longrepr is not None:
            text = str(report.longrepr)
            errors = [line for line in text.splitlines() if line.startswith("E ")]
            message = " | ".join(errors[:3]) if errors else text.splitlines()[-1]
        path = os.environ.get("SRCAD_TANGENT_LOG")
        if path:
            with open(path, "a") as f:
                f.write(json.dumps({"kind": "outcome", "test": report.nodeid,
                                    "when": report.when, "outcome": report.outcome,
                                    "message": message[:600],
                                    "srcad": "srcad/" in str(report.longrepr or "")}) + "\n")


def pytest_collectreport(report):
    """A file that cannot be collected (it imports Tangent's internals, say)."""
    if report.failed:
        text = str(report.longrepr or "")
        errors = [line for line in text.splitlines() if line.startswith("E ")]
        path = os.environ.get("SRCAD_TANGENT_LOG")
        if path:
            with open(path, "a") as f:
                f.write(json.dumps({"kind": "outcome", "test": report.nodeid, "when": "collect",
                                    "outcome": "failed",
                                    "message": " | ".join(errors[:3])[:600],
                                    "srcad": "srcad/" in text}) + "\n")
