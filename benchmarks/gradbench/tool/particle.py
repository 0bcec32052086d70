"""GradBench ``particle`` (Pearlmutter and Siskind): a charged particle's flight, simulated with
Euler steps that each take the gradient of a potential, is aimed by gradient descent on the
charge's position ``w`` -- a derivative of code that takes derivatives. ``rr``, ``rf``, ``fr``,
``ff``: reverse or forward mode outside, then inside (forward mode is ``srcad.jvp``).

Under the tool's ``--backend numba`` (``srcad.grad``'s default backend is then ``"numba"``) each
variant runs compiled, as JAX's port runs under ``jax.jit``: GradBench's descent (``solver.argmin``,
its source unchanged) compiled by ``numba.njit``, calling srcad's compiled forms
(:func:`srcad.numba_function`, :func:`srcad.numba_jvp`): the primal ``miss`` (this module's,
unchanged) with its force (``grad(potential)`` or ``potential_grad_f``), compiled by srcad's
backend as JAX compiles the port's primal, and the outer derivative of ``miss``. Every
derivative is srcad's; Numba compiles the rest."""

import inspect

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


def _numba_mode():
    """Whether the tool runs with ``--backend numba`` (srcad's derivatives made by Numba)."""
    return inspect.signature(srcad.grad).parameters["backend"].default == "numba"


def _solve_numba(name):
    """The variant compiled: GradBench's descent by ``numba.njit``, ``miss`` and srcad's
    derivatives in srcad's compiled forms (see the module docstring)."""
    import numba

    force_python, _ = _VARIANTS[name]
    if name[0] == "r":  # the outer derivative, made for the force passed (Python's function)
        outer = srcad.numba_function(srcad.grad(miss), 0.0, force_python)
    else:
        along = srcad.numba_jvp(miss, (0.0, force_python), (1.0,), wrt=(0,))

        @numba.njit
        def outer(w):
            return along(w, 1.0)[1]

    primal = srcad.numba_function(miss, 0.0, force_python)  # miss compiled by srcad
    descent = numba.njit(argmin)

    @numba.njit
    def f(x):
        return primal(x[0])

    @numba.njit
    def g(x):
        return np.array([outer(x[0])])

    @numba.njit
    def solve(w0):
        return descent(f, g, np.array([w0]))[0]

    return solve


def _make(name):
    if _numba_mode():
        solve = _solve_numba(name)
    else:
        force, outer = _VARIANTS[name]
        solve = _solve(force, outer)

    @wrap.multiple_runs(pre=lambda raw: float(raw["w"]), post=float)
    def run(w0):
        return solve(w0)

    run.solve = solve
    return run


rr, rf, fr, ff = (_make(n) for n in ("rr", "rf", "fr", "ff"))


def _warm_up():
    """Make the derivative code at define, as the other modules do: one outer derivative of
    each variant at the eval's starting point (compiled: each variant's whole solve, once)."""
    if _numba_mode():
        for run in (rr, rf, fr, ff):
            run.solve(0.0)
        return
    for force, outer in _VARIANTS.values():
        outer(force)(np.array([0.0]))


_warm_up()
