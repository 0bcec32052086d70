"""The benchmark workloads: each is a plain function, its hand-written gradient, and inputs.

Every workload ``Wn`` has

- ``wn``: the plain Python/NumPy function, written the way a user would write it. srcad reads
  its source, so it lives at module level and uses ``np`` and ``math`` only.
- ``wn_grad``: the gradient written by hand, carefully: it is the target srcad should match.
  It is a reverse sweep written the way an expert would write one: it computes only the
  forward values the backward sweep needs, keeps them in local variables (a list inside a
  loop), and folds constants. It does not use algebra that a differentiator cannot know about
  (for example that the derivative of a truncated exponential series is the series itself).
- ``wn_torch``: the same computation in PyTorch, used eagerly with ``.backward()``.
- an entry in :data:`WORKLOADS` with the inputs, the ``wrt`` positions and tolerances.

Gradients are returned as a single value for one ``wrt`` and as a tuple otherwise, like
``srcad.grad``.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np

try:
    import torch
except ImportError:  # the harness skips PyTorch then
    torch = None


# ================================================================================================
# W1: the seed graph (straight-line scalar code)
# ================================================================================================


def w1(a, o):
    b = 5 - 3 * a
    c = 2 * b + 3
    d = 5 * b + 6
    e = 7 * c + d**2
    f = 2 * e
    g = 3 * f - o
    return g


def w1_grad(a, o):
    # de = 3 * 2 = 6; dc = 7 * de = 42; dd = 2 * d * de; db = 2 * dc + 5 * dd; da = -3 * db
    b = 5 - 3 * a
    d = 5 * b + 6
    db = 84.0 + 60.0 * d
    return -3.0 * db, -1.0


def w1_torch(a, o):
    b = 5 - 3 * a
    c = 2 * b + 3
    d = 5 * b + 6
    e = 7 * c + d**2
    f = 2 * e
    return 3 * f - o


# ================================================================================================
# W2: a scalar loop with a math call
# ================================================================================================


def w2(x, n=1000):
    for _ in range(n):
        x = x * 0.999 + math.sin(x) * 0.01
    return x


def w2_grad(x, n=1000):
    # x_{i+1} = 0.999 x_i + 0.01 sin(x_i): the backward sweep needs cos(x_i) of every step
    cosines = []
    for _ in range(n):
        cosines.append(math.cos(x))
        x = x * 0.999 + math.sin(x) * 0.01
    dx = 1.0
    for c in reversed(cosines):
        dx = dx * (0.999 + 0.01 * c)
    return dx


def w2_torch(x, n=1000):
    for _ in range(n):
        x = x * 0.999 + torch.sin(x) * 0.01
    return x


# ================================================================================================
# W3: a while loop (Taylor series of exp(x), summed until the term is below 1e-12)
# ================================================================================================


def w3(x):
    term = 1.0
    total = 1.0
    k = 1
    while abs(term) > 1e-12:
        term = term * x / k
        total = total + term
        k = k + 1
    return total


def w3_grad(x):
    # term_k = term_{k-1} * x / k; total = sum of the terms. The backward sweep needs
    # term_{k-1} / k of every step (the partial derivative of term_k with respect to x).
    term = 1.0
    k = 1
    saved = []
    while abs(term) > 1e-12:
        saved.append(term / k)
        term = term * x / k
        k = k + 1
    dx = 0.0
    dterm = 0.0
    for k in range(len(saved), 0, -1):
        dterm = dterm + 1.0  # from total = total + term
        dx = dx + dterm * saved[k - 1]
        dterm = dterm * x / k
    return dx


def w3_torch(x):
    term = torch.ones((), dtype=torch.float64)
    total = torch.ones((), dtype=torch.float64)
    k = 1
    while abs(term.item()) > 1e-12:
        term = term * x / k
        total = total + term
        k = k + 1
    return total


# ================================================================================================
# W4: logistic-regression loss
# ================================================================================================


def w4(w, X, y):
    z = X @ w
    return np.mean(np.log1p(np.exp(-y * z)))


def w4_grad(w, X, y):
    z = X @ w
    e = np.exp(-y * z)
    # d/dm log1p(exp(m)) = exp(m) / (1 + exp(m)), and the mean divides by n
    dm = e / ((1.0 + e) * y.shape[0])
    return X.T @ (-y * dm)


def w4_torch(w, X, y):
    z = X @ w
    return torch.mean(torch.log1p(torch.exp(-y * z)))


# ================================================================================================
# W5: an MLP 784-256(tanh)-10 with softmax cross-entropy
# ================================================================================================


def w5(W1, b1, W2, b2, X, Y):
    h = np.tanh(X @ W1 + b1)
    logits = h @ W2 + b2
    shifted = logits - np.max(logits, axis=1, keepdims=True)
    log_probs = shifted - np.log(np.sum(np.exp(shifted), axis=1, keepdims=True))
    return -np.sum(Y * log_probs) / X.shape[0]


def w5_grad(W1, b1, W2, b2, X, Y):
    n = X.shape[0]
    h = np.tanh(X @ W1 + b1)
    logits = h @ W2 + b2
    shifted = logits - np.max(logits, axis=1, keepdims=True)
    exps = np.exp(shifted)
    probs = exps / np.sum(exps, axis=1, keepdims=True)
    # softmax cross-entropy: dlogits = (softmax * sum(Y) - Y) / n; each row of Y sums to one
    dlogits = (probs * np.sum(Y, axis=1, keepdims=True) - Y) / n
    dW2 = h.T @ dlogits
    db2 = dlogits.sum(axis=0)
    da = (dlogits @ W2.T) * (1.0 - h * h)
    dW1 = X.T @ da
    db1 = da.sum(axis=0)
    return dW1, db1, dW2, db2


def w5_torch(W1, b1, W2, b2, X, Y):
    h = torch.tanh(X @ W1 + b1)
    logits = h @ W2 + b2
    shifted = logits - torch.amax(logits, dim=1, keepdim=True)
    log_probs = shifted - torch.log(torch.sum(torch.exp(shifted), dim=1, keepdim=True))
    return -torch.sum(Y * log_probs) / X.shape[0]


# ================================================================================================
# W6: a recurrent network, 50 steps
# ================================================================================================


def w6(W, U, xs, h0):
    h = h0
    for t in range(xs.shape[0]):
        h = np.tanh(W @ h + U @ xs[t])
    return np.sum(h**2)


def w6_grad(W, U, xs, h0):
    hs = [h0]
    h = h0
    for t in range(xs.shape[0]):
        h = np.tanh(W @ h + U @ xs[t])
        hs.append(h)
    dW = np.zeros_like(W)
    dU = np.zeros_like(U)
    dh = 2.0 * h
    for t in range(xs.shape[0] - 1, -1, -1):
        h = hs[t + 1]
        da = dh * (1.0 - h * h)
        dW += np.outer(da, hs[t])
        dU += np.outer(da, xs[t])
        dh = W.T @ da
    return dW, dU


def w6_torch(W, U, xs, h0):
    h = h0
    for t in range(xs.shape[0]):
        h = torch.tanh(W @ h + U @ xs[t])
    return torch.sum(h**2)


# ================================================================================================
# W7: an element-wise expression over a million elements
# ================================================================================================


def w7(x):
    return np.sum(np.sin(x) * np.exp(-(x**2)) / (1 + x**2))


def w7_grad(x):
    x2 = x * x
    s = np.sin(x)
    q = 1.0 + x2
    eq = np.exp(-x2) / q
    # d/dx [s e / q] = e/q * (cos x - 2 x s - 2 x s / q)
    two_x_s = 2.0 * x * s
    return eq * (np.cos(x) - two_x_s - two_x_s / q)


def w7_torch(x):
    return torch.sum(torch.sin(x) * torch.exp(-(x**2)) / (1 + x**2))


# ================================================================================================
# The table
# ================================================================================================


@dataclass
class Workload:
    """One benchmark: the function, its hand-written gradient, inputs and tolerances."""

    name: str
    title: str
    f: object
    hand: object
    torch_f: object
    make_args: object  # rng -> tuple of arguments
    wrt: int | tuple = 0
    rtol: float = 1e-7
    atol: float = 1e-10
    args: tuple = field(default=(), repr=False)

    @property
    def wrt_positions(self):
        return (self.wrt,) if isinstance(self.wrt, int) else tuple(self.wrt)


def _w4_args(rng):
    X = rng.standard_normal((1000, 100))
    y = np.where(rng.standard_normal(1000) > 0, 1.0, -1.0)
    w = 0.1 * rng.standard_normal(100)
    return w, X, y


def _w5_args(rng):
    X = rng.standard_normal((256, 784))
    Y = np.eye(10)[rng.integers(0, 10, 256)]
    W1 = rng.standard_normal((784, 256)) / np.sqrt(784)
    b1 = 0.1 * rng.standard_normal(256)
    W2 = rng.standard_normal((256, 10)) / np.sqrt(256)
    b2 = 0.1 * rng.standard_normal(10)
    return W1, b1, W2, b2, X, Y


def _w6_args(rng):
    W = rng.standard_normal((64, 64)) / np.sqrt(64)
    U = rng.standard_normal((64, 32)) / np.sqrt(32)
    xs = rng.standard_normal((50, 32))
    h0 = np.zeros(64)
    return W, U, xs, h0


WORKLOADS = [
    Workload("W1", "seed graph g(a, o), scalars", w1, w1_grad, w1_torch,
             lambda rng: (1.5, 0.5), wrt=(0, 1)),
    Workload("W2", "scalar loop, 1000 steps of math.sin", w2, w2_grad, w2_torch,
             lambda rng: (0.7,), rtol=1e-9),
    Workload("W3", "while loop: Taylor series of exp(x)", w3, w3_grad, w3_torch,
             lambda rng: (1.3,), rtol=1e-9),
    Workload("W4", "logistic regression loss, X 1000x100", w4, w4_grad, w4_torch,
             _w4_args),
    Workload("W5", "MLP 784-256-10, softmax CE, batch 256", w5, w5_grad, w5_torch,
             _w5_args, wrt=(0, 1, 2, 3)),
    Workload("W6", "RNN, 50 steps, hidden 64, input 32", w6, w6_grad, w6_torch,
             _w6_args, wrt=(0, 1)),
    Workload("W7", "sum(sin(x) exp(-x^2) / (1 + x^2)), 10^6", w7, w7_grad, w7_torch,
             lambda rng: (rng.standard_normal(10**6),)),
]
