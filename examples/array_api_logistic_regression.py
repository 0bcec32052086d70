"""A logistic regression written for the array API standard, fitted with srcad's gradients on
NumPy arrays and on ``array-api-strict`` arrays (a strict, minimal implementation of the
standard, with none of NumPy's extras), with the same code and the same gradients.

The loss takes its functions from the arrays' namespace (``xp = array_namespace(w, X)``), as
code written for the standard does; srcad reads ``xp.f`` as NumPy's rule for ``f``, and the
code it generates for strict arrays is written in their namespace (print it with
``--source``). Run::

    pip install "srcad[array-api]"
    python examples/array_api_logistic_regression.py [--steps 200] [--source]
"""

from __future__ import annotations

import argparse

import array_api_strict
import numpy as np
from array_api_compat import array_namespace

import srcad


def loss(w, X, y):
    """The mean negative log-likelihood of a logistic regression, plus a small ridge."""
    xp = array_namespace(w, X, y)
    z = X @ w
    # log(1 + exp(-z)) and log(1 + exp(z)), written stably
    return xp.mean(y * xp.logaddexp(0.0 * z, -z) + (1.0 - y) * xp.logaddexp(0.0 * z, z)) \
        + 1e-3 * xp.sum(w * w)


def fit(xp, X, y, steps, rate=0.5):
    """Gradient descent from zero, in the namespace ``xp``."""
    step = srcad.value_and_grad(loss)
    w = xp.zeros(X.shape[1], dtype=xp.float64)
    for _ in range(steps):
        value, g = step(w, X, y)
        w = w - rate * g
    return w, float(value)


def data(n=2000, d=5, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.standard_normal((n, d))
    truth = np.linspace(-2.0, 2.0, d)
    y = (rng.random(n) < 1.0 / (1.0 + np.exp(-(X @ truth)))).astype(float)
    return X, y


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", type=int, default=200)
    parser.add_argument("--source", action="store_true", help="print the generated code")
    args = parser.parse_args(argv)
    X, y = data()
    w_np, loss_np = fit(np, X, y, args.steps)
    xp = array_api_strict
    w_strict, loss_strict = fit(xp, xp.asarray(X), xp.asarray(y), args.steps)
    assert array_namespace(w_strict) is array_namespace(xp.asarray(X))  # never left strict
    difference = float(np.max(np.abs(np.from_dlpack(w_strict) - w_np)))
    print(f"NumPy:            loss {loss_np:.6f}  w {np.round(w_np, 4)}")
    print(f"array-api-strict: loss {loss_strict:.6f}  w {np.round(np.from_dlpack(w_strict), 4)}")
    print(f"largest difference between the two fits: {difference:.1e}")
    if args.source:
        print(srcad.source(srcad.value_and_grad(loss), xp.asarray(np.zeros(X.shape[1])),
                           xp.asarray(X), xp.asarray(y)))
    return difference


if __name__ == "__main__":
    main()
