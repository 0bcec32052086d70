"""Batched forward mode on the random programs of tests/gen_array_programs.py (slices, views,
copies, writes, masks, lists, loops, ``sort``, ``max``/``min``: ``fv(a, x)`` a vector and
``f(a, x)`` a number) and tests/gen_programs.py (numbers: branches, loops, callees, closures,
every feature): where srcad makes batched code for all seven (or three) directions at once, its
Jacobian equals the column passes (``srcad.jvp`` per direction) to 1e-10. Programs without
batched code are skipped here (the column passes answer them, tested elsewhere). 4 and 4
programs in CI (each program's code is made several times: about 1 s each), 600 and 600 with
SRCAD_LONG_PROPERTIES=1."""

from __future__ import annotations

import gen_array_programs
import gen_programs
import numpy as np
import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st
from test_properties import SETTINGS, examples

import srcad
from srcad import jacobians_batched

COORDS = st.lists(st.floats(-1.5, 1.5, allow_nan=False, allow_infinity=False),
                  min_size=7, max_size=7)


@pytest.fixture(scope="module")
def gen_dir(tmp_path_factory):
    return tmp_path_factory.mktemp("generated_batched")


def _columns(fn, args, index):
    """The Jacobian a direction at a time: (directions, output...)."""
    cols = []
    for k, p in enumerate(index):
        shape = np.shape(args[p])
        for i in np.ndindex(*shape) if shape else [()]:
            tangents = [np.zeros(np.shape(args[q])) if np.shape(args[q]) else 0.0
                        for q in index]
            if shape:
                tangents[k][i] = 1.0
            else:
                tangents[k] = 1.0
            cols.append(np.asarray(srcad.jvp(fn, tuple(args), tuple(tangents),
                                             wrt=index)[1], dtype=float))
    return np.stack(cols)


def _check(fn, args, index):
    code = jacobians_batched.batched(fn, index).code(tuple(args))
    assume(code is not None)
    sizes = [int(np.prod(np.shape(args[p]))) for p in index]
    eye = np.eye(sum(sizes))
    tangents, start = [], 0
    for p, size in zip(index, sizes):
        tangents.append(eye[:, start:start + size].reshape((-1,) + np.shape(args[p])))
        start += size
    try:
        want = _columns(fn, args, index)
    except srcad.SrcadError:
        assume(False)
    value, got = code(*[a.copy() if isinstance(a, np.ndarray) else a for a in args],
                      *tangents)
    got = np.broadcast_to(np.asarray(got, dtype=float), want.shape)
    np.testing.assert_allclose(got, want, rtol=1e-10, atol=1e-10)


@settings(max_examples=examples(600, 4), **SETTINGS)
@given(program=gen_array_programs.array_programs(), coords=COORDS)
def test_random_array_programs(gen_dir, program, coords):
    module = gen_programs.load(program, gen_dir)
    for name in ("fv", "f"):
        _check(getattr(module, name), [np.array(coords[:6]), coords[6]], (0, 1))


@settings(max_examples=examples(600, 4), **SETTINGS)
@given(program=gen_programs.programs(features=gen_programs.EVERYTHING),
       inputs=st.lists(st.floats(-1.5, 1.5, allow_nan=False, allow_infinity=False),
                       min_size=3, max_size=3))
def test_random_number_programs(gen_dir, program, inputs):
    f = gen_programs.load(program, gen_dir).f
    args = list(inputs[: len(program.params)])
    _check(f, args, tuple(range(len(args))))
