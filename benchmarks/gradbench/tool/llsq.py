"""GradBench ``llsq``: linear least squares, fitting sign(t) by a polynomial at n points."""

import numpy as np
from gradbench import wrap

import srcad


def llsq(x, n):
    m = x.shape[0]
    t = -1.0 + np.arange(n) * 2.0 / (n - 1.0)
    powers = t[:, None] ** np.arange(m)
    residual = np.sign(t) - powers @ x
    return np.sum(residual * residual) / 2.0


_gradient = srcad.grad(llsq)


def _input(raw):
    return np.array(raw["x"], dtype=np.float64), raw["n"]


@wrap.multiple_runs(pre=_input, post=float)
def primal(args):
    return llsq(*args)


@wrap.multiple_runs(pre=_input, post=lambda g: g.tolist())
def gradient(args):
    return _gradient(*args)


_gradient(np.linspace(0.0, 1.0, 3), 4)  # warm-up: the code is made at define time
