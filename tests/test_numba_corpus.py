"""The corpus's loop and branch functions (tests/corpus/control.py) on the Numba backend (issue
19): each one either compiles and gives the Python backend's gradient at every input of the
corpus to 1e-12, or is refused with a SrcadError before anything is compiled (never a Numba
traceback, never another number). Most compile (the floor below)."""

import numpy as np
import pytest
from corpus import CONTROL

import srcad

pytest.importorskip("numba")

#: how many of the control functions the Numba backend compiles, at least
FLOOR = 0.75  # 46 of 59 on 5 December (the rest: comprehensions, lists of numbers, if_elif_else)

_COMPILED = {}


def _numba_grad(case):
    return srcad.grad(case.func, wrt=case.wrt_indices(), backend="numba")


@pytest.mark.parametrize("case", CONTROL, ids=[c.name for c in CONTROL])
def test_numba_gives_the_python_gradient_or_refuses(case):
    python = srcad.grad(case.func, wrt=case.wrt_indices())
    fast = _numba_grad(case)
    for args in case.inputs:
        try:
            got = fast(*args)
        except srcad.SrcadError as exc:  # refused: said before Numba compiled anything
            assert "Traceback" not in str(exc)
            _COMPILED[case.name] = False
            return
        expected = python(*args)
        got = got if isinstance(got, tuple) else (got,)
        expected = expected if isinstance(expected, tuple) else (expected,)
        for g, e in zip(got, expected, strict=True):
            np.testing.assert_allclose(g, e, rtol=1e-12, atol=1e-12 * (1 + np.abs(e)))
    _COMPILED[case.name] = True


def test_most_of_the_corpus_compiles():
    """Run after the family in this process (pytest keeps a module's order): the share of the
    control functions compiled, not refused."""
    for case in CONTROL:
        if case.name not in _COMPILED:  # this test run alone, or the case on another worker
            test_numba_gives_the_python_gradient_or_refuses(case)
    compiled = sum(_COMPILED.values())
    assert compiled >= FLOOR * len(CONTROL), (compiled, len(CONTROL),
                                              sorted(k for k, v in _COMPILED.items() if not v))
