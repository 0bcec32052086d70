"""GradBench's solver for ``particle`` and ``saddle`` (plain Python, not differentiated)."""

import numpy as np


def argmin(f, grad, x):
    """GradBench's solver: gradient descent with a step that doubles after ten successes and
    halves on a failure (plain Python, not differentiated)."""
    fx, gx, eta, i = f(x), grad(x), 1e-5, 0
    while True:
        if np.sqrt(np.sum(gx * gx)) <= 1e-5:
            return x
        if i == 10:
            eta, i = 2 * eta, 0
            continue
        x_prime = x - eta * gx
        if np.sqrt(np.sum((x - x_prime) ** 2)) <= 1e-5:
            return x
        fx_prime = f(x_prime)
        if fx_prime < fx:
            x, fx, gx, i = x_prime, fx_prime, grad(x_prime), i + 1
        else:
            eta, i = eta / 2, 0
