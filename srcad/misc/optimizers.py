"""Gradient-descent optimisers over trees of parameters, as autograd's users call them:
``adam(grad, x0, callback=None, num_iters=..., step_size=..., ...)`` where ``grad(x, i)`` is
the gradient at iteration ``i`` (``srcad.grad`` of an objective taking ``(params, i)``), ``x0``
a tree of arrays (nested lists, tuples, dicts) and ``callback(x, i, g)`` is called before each
step. Each returns the final parameters, shaped like ``x0``. Plain NumPy, on the flattened
parameters (:func:`srcad.misc.flatten`).

Imports :mod:`.flatten`.
"""

from __future__ import annotations

import numpy as np

from .flatten import flatten

__all__ = ["adam", "sgd", "rmsprop"]


# Each is written out as one plain function (no decorator, no nested function): code that
# runs an optimiser inside a function it differentiates (a meta-objective: the loss after a
# few steps of sgd on a training loss, a bound fitted by an inner adam) has it read by srcad
# like the user's own loop, the gradient function it is given called as any function value.


def sgd(grad, x0, callback=None, num_iters=200, step_size=0.1, mass=0.9):
    """Stochastic gradient descent with momentum ``mass``."""
    x, unflatten = flatten(x0)
    velocity = np.zeros(len(x))
    for i in range(num_iters):
        g = flatten(grad(unflatten(x), i))[0]
        if callback:
            callback(unflatten(x), i, unflatten(g))
        velocity = mass * velocity - (1.0 - mass) * g
        x = x + step_size * velocity
    return unflatten(x)


def rmsprop(grad, x0, callback=None, num_iters=100, step_size=0.1, gamma=0.9, eps=1e-8):
    """Root-mean-square propagation: steps scaled by a running average of squared gradients."""
    x, unflatten = flatten(x0)
    avg_sq = np.ones(len(x))
    for i in range(num_iters):
        g = flatten(grad(unflatten(x), i))[0]
        if callback:
            callback(unflatten(x), i, unflatten(g))
        avg_sq = avg_sq * gamma + g**2 * (1 - gamma)
        x = x - step_size * g / (np.sqrt(avg_sq) + eps)
    return unflatten(x)


def adam(grad, x0, callback=None, num_iters=100, step_size=0.001, b1=0.9, b2=0.999, eps=1e-8):
    """Adam (Kingma and Ba, 2015): bias-corrected running means of the gradient and of its
    square."""
    x, unflatten = flatten(x0)
    m, v = np.zeros(len(x)), np.zeros(len(x))
    for i in range(num_iters):
        g = flatten(grad(unflatten(x), i))[0]
        if callback:
            callback(unflatten(x), i, unflatten(g))
        m = (1 - b1) * g + b1 * m
        v = (1 - b2) * g**2 + b2 * v
        x = x - step_size * (m / (1 - b1 ** (i + 1))) / (np.sqrt(v / (1 - b2 ** (i + 1))) + eps)
    return unflatten(x)
