"""A tangent given as None to srcad.jvp called inside differentiated code is refused as a
plain srcad.jvp call refuses it (a SrcadError at the user's line), in reverse and forward mode;
it was Python's TypeError from the generated code. Tangents that are given stay exact."""

import inspect

import numpy as np
import pytest

import srcad
from srcad.errors import SrcadError


def g2(x, w):
    return np.sin(x) * w + x * x


def none_first(x, w):
    y, t = srcad.jvp(g2, (x, w), (None, 1.0))
    return y + t


def none_second(x, w):
    y, t = srcad.jvp(g2, (x, w), (1.0, None))
    return y * t


def none_held(x, w):
    tx = None
    y, t = srcad.jvp(g2, (x, w), (tx, w))
    return t


def given(x, w):
    y, t = srcad.jvp(g2, (x, w), (w, 1.0))
    return y * t


def given_plain(x, w):  # the same function with the tangent written out
    return g2(x, w) * ((np.cos(x) * w + 2 * x) * w + np.sin(x))


def _line(fn, text):
    lines, start = inspect.getsourcelines(fn)
    return start + next(i for i, s in enumerate(lines) if text in s)


@pytest.mark.parametrize("fn", [none_first, none_second, none_held])
@pytest.mark.parametrize("mode", ["grad", "jvp"])
def test_none_tangent_refused_at_the_line(fn, mode):
    with pytest.raises(SrcadError, match="is None") as info:
        if mode == "grad":
            srcad.grad(fn, wrt=("x", "w"))(0.7, -1.3)
        else:
            srcad.jvp(fn, (0.7, -1.3), (1.0, 0.5))
    assert info.value.filename == __file__
    assert info.value.lineno == _line(fn, "srcad.jvp(g2")


def test_given_tangents_exact():
    x, w, h = 0.7, -1.3, 1e-6
    dx, dw = srcad.grad(given, wrt=("x", "w"))(x, w)
    fd = ((given(x + h, w) - given(x - h, w)) / (2 * h),
          (given(x, w + h) - given(x, w - h)) / (2 * h))
    tape = srcad.tape.grad(given_plain, wrt=("x", "w"))(x, w)
    np.testing.assert_allclose((dx, dw), fd, rtol=1e-6)
    np.testing.assert_allclose((dx, dw), tape, rtol=1e-6)
