"""``srcad.core.env.checker`` (the test of the reads ``grad``'s dispatcher cannot spell by
name: another module's globals, a callee's cells, a has_aux shim's callee) compiled into one
expression: the same answer as :meth:`Read.current` compared read by read, for a global, a
builtin, a name gone, attribute paths (present, gone), a cell (full, emptied) and a list of
functions (an ``ItemsRead``), before and after each is rebound; and a gradient through a
callee of another module's globals made again when that module rebinds a name."""

import importlib
import math
import types

import pytest

import srcad
from srcad.core import env


def _loop(reads):
    return all(r.current() is r.value for r in reads)


def _cell(value):
    return (lambda: value).__closure__[0]


def test_checker_agrees_with_current_read_by_read():
    space = {"np_like": math, "k": 3, "acts": [math.sin, math.cos]}
    full, emptied = _cell(math), _cell(1.0)
    reads = [env.Read(space, None, "np_like", ("sin",), math.sin),
             env.Read(space, None, "k", (), 3),
             env.Read(space, None, "abs", (), abs),  # a builtin: not in the namespace
             env.Read(space, None, "gone", (), env.MISSING),
             env.Read(space, None, "np_like", ("nothing",), env.MISSING),
             env.Read(None, full, "m", ("cos",), math.cos),
             env.Read(None, emptied, "v", (), 1.0),
             env.ItemsRead(space, None, "acts", (), space["acts"])]
    changes = [lambda: space.__setitem__("np_like", types.SimpleNamespace(sin=math.sin)),
               lambda: space.__setitem__("k", 4),
               lambda: space.__setitem__("abs", abs),
               lambda: space.__setitem__("gone", 1),
               lambda: space.__setitem__("np_like", types.SimpleNamespace(nothing=1)),
               lambda: setattr(full, "cell_contents", types.SimpleNamespace(cos=math.cos)),
               lambda: delattr(emptied, "cell_contents"),
               lambda: space["acts"].append(math.tan)]
    for k in range(len(reads) + 1):
        for some in ([reads[k]] if k < len(reads) else [], reads):
            assert env.checker(some)() is _loop(some)
        if k < len(reads):
            changes[k]()
            assert env.checker([reads[k]])() is _loop([reads[k]])


SCALE = 2.0


def helper_scaled(x):
    return math.sin(x) * SCALE


def test_a_rebound_name_of_a_callee_module_makes_the_gradient_again(tmp_path, monkeypatch):
    """``outer`` (a module of its own) calls ``helper_scaled`` (this module's), which reads
    ``SCALE`` here: a read the dispatcher of ``grad(outer)`` tests by the checker."""
    global SCALE
    (tmp_path / "calls29_outer.py").write_text(
        f"from {__name__} import helper_scaled\n\n\n"
        "def outer(x):\n    return helper_scaled(x) * x\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    outer = importlib.import_module("calls29_outer").outer
    g = srcad.grad(outer)
    try:
        for scale in (2.0, 3.0, 2.0):
            SCALE = scale
            for _ in range(3):
                want = (math.cos(0.4) * 0.4 + math.sin(0.4)) * scale
                assert g(0.4) == pytest.approx(want, rel=1e-14)
    finally:
        SCALE = 2.0
