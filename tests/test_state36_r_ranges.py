"""``np.r_[x, c, 1:10]``: a range in NumPy's index trick beside a differentiated value (autograd's
``test_r_slicing``, refused before: "np.r_[...] indexed by a differentiated value"). The slice
is ``np.arange`` of its bounds (a real step, or none); a complex step (``linspace``'s count) or
one not written out stays refused. Against central differences and autograd."""

from __future__ import annotations

import autograd
import autograd.numpy as anp
import numpy as np
import pytest

import srcad
from srcad.errors import SrcadError

C = np.linspace(-1.0, 1.0, 4)


def sliced(x):
    return np.sum(np.sin(np.r_[x, C, 1:10]) * np.arange(17.0))


def stepped(x):
    return np.sum(np.r_[0:4:2, x, 2.5:5:0.5] ** 2)


def to_n(x, n):
    return np.sum(np.r_[x, 1:n] * np.r_[:n + 3])


def from_zero(x):
    return np.sum(np.r_[x * x, :3])


def _twin(f):
    return type(f)(f.__code__, dict(f.__globals__, np=anp), f.__name__)


X = np.array([0.3, -0.7, 1.1, 0.2])


@pytest.mark.parametrize("f", [sliced, stepped, to_n, from_zero], ids=lambda f: f.__name__)
def test_ranges(f):
    extra = (3,) if f is to_n else ()
    got = srcad.grad(f)(X, *extra)
    want = np.array([(f(X + e, *extra) - f(X - e, *extra)) / 2e-6 for e in np.eye(4) * 1e-6])
    np.testing.assert_allclose(got, want, rtol=1e-6, atol=1e-6)
    np.testing.assert_allclose(got, autograd.grad(_twin(f))(X, *extra), rtol=1e-12)
    t = np.array([1.0, 0.5, -0.25, 2.0])
    np.testing.assert_allclose(srcad.jvp(f, (X,) + extra, (t,), wrt=(0,))[1], want @ t,
                               rtol=1e-6, atol=1e-6)


def linspaced(x):
    return np.sum(np.r_[x, 0:1:5j])


def step_given(x, s):
    return np.sum(np.r_[x, 0:1:s])


@pytest.mark.parametrize("f, extra", [(linspaced, ()), (step_given, (0.25,))])
def test_still_refused(f, extra):
    with pytest.raises(SrcadError, match=r"np\.r_\[\.\.\.\] indexed by a differentiated"):
        srcad.grad(f)(X, *extra)
