"""GradBench ``saddle`` (Pearlmutter and Siskind): min over x of max over y of
f(x, y) = (x1^2 + y1^2) - (x2^2 + y2^2), both by gradient descent from ``start``; the outer
gradient differentiates the inner descent, which takes gradients itself. ``rr``, ``rf``, ``fr``,
``ff``: reverse or forward mode outside, then inside (forward mode is ``srcad.jvp``)."""

import numpy as np
from gradbench import wrap
from solver import argmin

import srcad


def saddle_f(p1, p2):
    return (p1[0] ** 2 + p1[1] ** 2) - (p2[0] ** 2 + p2[1] ** 2)


def neg_f(p1, p2):
    return -saddle_f(p1, p2)


neg_f_grad_r = srcad.grad(neg_f, wrt=1)


def neg_f_grad_f(p1, p2):
    d0 = srcad.jvp(neg_f, (p1, p2), (np.array([1.0, 0.0]),), wrt=(1,))[1]
    d1 = srcad.jvp(neg_f, (p1, p2), (np.array([0.0, 1.0]),), wrt=(1,))[1]
    return np.array([d0, d1])


def max_over(p1, start, grad_of):
    """max over p2 of f(p1, p2): GradBench's descent on -f, its gradients by ``grad_of``
    (reverse or forward mode: the function passed)."""
    x = start
    fx = neg_f(p1, x)
    gx = grad_of(p1, x)
    eta = 1e-5
    i = 0
    while np.sqrt(np.sum(gx * gx)) > 1e-5:
        if i == 10:
            eta = 2 * eta
            i = 0
        else:
            x_prime = x - eta * gx
            if np.sqrt(np.sum((x - x_prime) ** 2)) <= 1e-5:
                break
            fx_prime = neg_f(p1, x_prime)
            if fx_prime < fx:
                x = x_prime
                fx = fx_prime
                gx = grad_of(p1, x_prime)
                i = i + 1
            else:
                eta = eta / 2
                i = 0
    return saddle_f(p1, x)


def _outer_r(start, grad_of):
    g = srcad.grad(max_over)
    return lambda p1: g(p1, start, grad_of)


def _outer_f(start, grad_of):
    return lambda p1: np.array([srcad.jvp(max_over, (p1, start, grad_of), (e,), wrt=(0,))[1]
                                for e in np.eye(2)])


def _solve(name, start):
    grad_inner = neg_f_grad_r if name[1] == "r" else neg_f_grad_f
    outer = _outer_r if name[0] == "r" else _outer_f
    r1 = argmin(lambda p1: max_over(p1, start, grad_inner), outer(start, grad_inner), start)
    r2 = argmin(lambda p2: neg_f(r1, p2), lambda p2: grad_inner(r1, p2), start)
    return np.concatenate((r1, r2))


def _make(name):
    @wrap.multiple_runs(pre=lambda raw: np.array(raw["start"], dtype=np.float64),
                        post=lambda r: r.tolist())
    def run(start):
        return _solve(name, start)

    return run


rr, rf, fr, ff = (_make(n) for n in ("rr", "rf", "fr", "ff"))
