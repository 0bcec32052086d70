"""GradBench ``lse``: log-sum-exp of a vector, shifted by its maximum."""

import numpy as np
from gradbench import wrap

import srcad


def logsumexp(x):
    top = np.max(x)
    return np.log(np.sum(np.exp(x - top))) + top


_gradient = srcad.grad(logsumexp)


def _input(raw):
    return np.array(raw["x"], dtype=np.float64)


@wrap.multiple_runs(pre=_input, post=float)
def primal(x):
    return logsumexp(x)


@wrap.multiple_runs(pre=_input, post=lambda g: g.tolist())
def gradient(x):
    return _gradient(x)


_gradient(np.linspace(0.0, 1.0, 3))  # warm-up: the code for vectors is made at define time
