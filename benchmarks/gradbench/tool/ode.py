"""GradBench ``ode``: s steps of fourth-order Runge-Kutta on y' = (x0, x1 y0, x2 y1, ...),
from y = 0 to t = 2; the gradient is that of the last component w.r.t. x."""

import numpy as np
from gradbench import wrap

import srcad


def rhs(x, y):
    return np.concatenate((x[:1], x[1:] * y[:-1]))


def ode(x, s):
    h = 2.0 / s
    y = np.zeros_like(x)
    for _ in range(s):
        k1 = rhs(x, y)
        k2 = rhs(x, y + h / 2 * k1)
        k3 = rhs(x, y + h / 2 * k2)
        k4 = rhs(x, y + h * k3)
        y = y + h / 6 * (k1 + 2 * k2 + 2 * k3 + k4)
    return y


def last(x, s):
    return ode(x, s)[-1]


_gradient = srcad.grad(last)


def _input(raw):
    return np.array(raw["x"], dtype=np.float64), raw["s"]


@wrap.multiple_runs(pre=_input, post=lambda y: y.tolist())
def primal(args):
    return ode(*args)


@wrap.multiple_runs(pre=_input, post=lambda g: g.tolist())
def gradient(args):
    return _gradient(*args)


_gradient(np.linspace(0.1, 1.0, 4), 2)  # warm-up: the code is made at define time
