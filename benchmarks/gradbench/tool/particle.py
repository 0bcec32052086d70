"""GradBench ``particle`` (Pearlmutter and Siskind): a charged particle's flight, simulated with
Euler steps that each take the gradient of a potential, is aimed by gradient descent on the
charge's position ``w`` -- a derivative of code that takes derivatives. ``rr``, ``rf``, ``fr``,
``ff``: reverse or forward mode outside, then inside (forward mode is ``srcad.jvp``)."""

import numpy as np
from gradbench import wrap
from solver import argmin

import srcad

DELTA_T = 1e-1


def potential(x, w):
    """The potential at the point ``x`` of unit charges at (10, 10 - w) and (10, 0)."""
    first = np.sqrt((x[0] - 10.0) ** 2 + (x[1] - (10.0 - w)) ** 2)
    second = np.sqrt((x[0] - 10.0) ** 2 + x[1] ** 2)
    return 1.0 / first + 1.0 / second


potential_grad_r = srcad.grad(potential)


def potential_grad_f(x, w):
    dx0 = srcad.jvp(potential, (x, w), (np.array([1.0, 0.0]),), wrt=(0,))[1]
    dx1 = srcad.jvp(potential, (x, w), (np.array([0.0, 1.0]),), wrt=(0,))[1]
    return np.array([dx0, dx1])


def miss(w, force):
    """Where the particle lands (squared), its path simulated with the forces ``force`` gives
    (the gradient of the potential by reverse or by forward mode: the function passed)."""
    x = np.array([0.0, 8.0])
    xdot = np.array([0.75, 0.0])
    while True:
        xddot = -force(x, w)
        x_new = x + DELTA_T * xdot
        if x_new[1] <= 0.0:
            break
        x = x_new
        xdot = xdot + DELTA_T * xddot
    delta_t_f = -x[1] / xdot[1]
    x_t_f = x + delta_t_f * xdot
    return x_t_f[0] * x_t_f[0]


def _outer_r(force):
    g = srcad.grad(miss)
    return lambda w: np.array([g(float(w[0]), force)])


def _outer_f(force):
    return lambda w: np.array([srcad.jvp(miss, (float(w[0]), force), (1.0,), wrt=(0,))[1]])


def _solve(force, outer):
    return lambda w0: float(argmin(lambda w: miss(float(w[0]), force), outer(force),
                                   np.array([w0]))[0])


#: the outer derivative, and the force the inner one gives: r reverse mode, f forward mode
_VARIANTS = {"rr": (potential_grad_r, _outer_r), "rf": (potential_grad_f, _outer_r),
             "fr": (potential_grad_r, _outer_f), "ff": (potential_grad_f, _outer_f)}


def _make(name):
    force, outer = _VARIANTS[name]
    solve = _solve(force, outer)

    @wrap.multiple_runs(pre=lambda raw: float(raw["w"]), post=float)
    def run(w0):
        return solve(w0)

    return run


rr, rf, fr, ff = (_make(n) for n in ("rr", "rf", "fr", "ff"))


def _warm_up():
    """Make the derivative code at define, as the other modules do: one outer derivative of
    each variant at the eval's starting point."""
    for force, outer in _VARIANTS.values():
        outer(force)(np.array([0.0]))


_warm_up()
