"""GradBench ``gmm``: the log-likelihood of a Gaussian mixture with a Wishart prior (ADBench's
objective), vectorised over points and components as a NumPy user writes it; the gradient
w.r.t. alpha, mu, q and l."""

import math

import numpy as np
from gradbench import wrap

import srcad


def logsumexp_rows(a):
    top = np.max(a, axis=1, keepdims=True)
    return np.log(np.sum(np.exp(a - top), axis=1)) + top[:, 0]


def logsumexp(a):
    top = np.max(a)
    return np.log(np.sum(np.exp(a - top))) + top


def multigammaln(a, p):
    total = 0.25 * p * (p - 1) * math.log(math.pi)
    for j in range(1, p + 1):
        total = total + math.lgamma(a + (1 - j) / 2)
    return total


def gmm_objective(alpha, mu, q, lower_entries, x, m, gamma, lower):
    """``lower`` places ``lower_entries`` (GradBench's ``l``) below the diagonal of each
    k x d x d factor (column by column), a 0/1 matrix of shape (d(d-1)/2, d*d)."""
    n, d = x.shape
    k = alpha.shape[0]
    qdiags = np.exp(q)
    sum_qs = np.sum(q, axis=1)
    ls = (lower_entries @ lower).reshape(k, d, d)
    xcentered = x[:, None, :] - mu[None, :, :]
    lx = qdiags * xcentered + np.einsum("ijk,mik->mij", ls, xcentered)
    inner = alpha + sum_qs - 0.5 * np.sum(lx * lx, axis=2)
    slse = np.sum(logsumexp_rows(inner))
    constant = -n * d * 0.5 * math.log(2 * math.pi)
    dof = d + m + 1
    prior = -np.sum(0.5 * gamma * gamma * (np.sum(qdiags * qdiags, axis=1)
                                          + np.sum(lower_entries ** 2, axis=1)) - m * sum_qs)
    prior = prior + k * (dof * d * math.log(gamma / math.sqrt(2)) - multigammaln(0.5 * dof, d))
    return constant + slse - n * logsumexp(alpha) + prior


_gradient = srcad.grad(gmm_objective, wrt=(0, 1, 2, 3))


def lower_placement(d):
    lower = np.zeros((d * (d - 1) // 2, d * d))
    entry = 0
    for col in range(d):
        for row in range(col + 1, d):
            lower[entry, row * d + col] = 1.0
            entry += 1
    return lower


def _input(raw):
    d, k = raw["d"], raw["k"]
    return (np.array(raw["alpha"], dtype=np.float64).reshape(k),
            np.array(raw["mu"], dtype=np.float64).reshape(k, d),
            np.array(raw["q"], dtype=np.float64).reshape(k, d),
            np.array(raw["l"], dtype=np.float64).reshape(k, d * (d - 1) // 2),
            np.array(raw["x"], dtype=np.float64).reshape(raw["n"], d),
            float(raw["m"]), float(raw["gamma"]), lower_placement(d))


@wrap.multiple_runs(pre=_input, post=float)
def objective(args):
    return gmm_objective(*args)


def _output(grads):
    alpha, mu, q, lower_entries = grads
    return {"alpha": alpha.tolist(), "mu": mu.tolist(), "q": q.tolist(),
            "l": lower_entries.tolist()}


@wrap.multiple_runs(pre=_input, post=_output)
def jacobian(args):
    return _gradient(*args)


_gradient(*_input({"d": 2, "k": 2, "n": 3, "x": [[0.1, 0.2]] * 3, "m": 0, "gamma": 1.0,
                   "alpha": [0.1, 0.2], "mu": [[0.1, 0.2]] * 2, "q": [[0.1, 0.2]] * 2,
                   "l": [[0.3]] * 2}))  # warm-up: the code is made at define time
