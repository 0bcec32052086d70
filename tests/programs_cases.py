"""Functions written the way public example programs write them (issue 16's remaining
constructs): the differentiated function takes ``**kwargs`` (and ``*args``), a nested ``def``
calls a function held in a closure variable of its enclosing function, a generator reads its
enclosing function's variables, ``zip(*unpack(p))`` of a function returning a tuple, a
function passed straight to the differentiated function. Used by tests/test_programs_entry.py.
"""

import numpy as np


def keyword_scaled(x, scale=1.0, **options):
    return np.sin(x) * scale * options.get("gain", 1.0) + options.get("shift", 0.0) * x


def star_and_keywords(x, *args, **kwargs):
    total = x * x
    for a in args:
        total = total + np.tanh(a * x)
    return total * kwargs.get("weight", 1.0)


def make_flat(func):
    """autograd's flatten_func's shape: a *args, **kwargs wrapper made by a helper."""

    def flat_func(flat, *args, **kwargs):
        return func(flat, *args, **kwargs)

    return flat_func


def loss(p, t, power=2.0):
    return np.sum((np.sin(p) - t) ** power)


def sample(params, n):
    return params * n


def build_closure_caller(component=sample):
    held = component

    def elbo(v, t):
        def lower_bound(params):
            return np.sum(held(params, 2.0) * v * t)

        return sum(lower_bound(p) for p in v)

    return elbo


def make_network(shapes, act=np.tanh):
    def unpack_layers(weights):
        for m, n in shapes:
            yield weights[: m * n].reshape((m, n)), weights[m * n: m * n + n]
            weights = weights[(m + 1) * n:]

    def predict(weights, inputs):
        for W, b in unpack_layers(weights):
            inputs = act(inputs @ W + b)
        return np.sum(inputs ** 2)

    return predict


def unpack_three(p):
    if p[0] > 100.0:
        return p[:2], p[2:4], p[4:]
    return p[:2] * 2.0, p[2:4], p[4:] ** 2


def zipped_unpack(p):
    out = 0.0
    for a, b, c in zip(*unpack_three(p)):
        out = out + a * np.sin(b) * c
    return out


def unpack_uneven(p):
    if p[0] > 0.0:
        return p[:2], p[2:4]
    return p[:2], p[2:4], p[4:]


def zipped_uneven(p):
    out = 0.0
    for pair in zip(*unpack_uneven(p)):
        out = out + pair[0] * pair[1]
    return out


def apply(f, x):
    return f(x) * x


def apply_twice(f, x, w):
    return f(f(x) * w) + x


def cube(t):
    return t * t * t


class Fitted:
    """A method with a multi-line docstring: the dedented text of a method changes it.

    The second line is indented like the first.
    """

    def energy(self, x):
        """The energy at x.

        Indented docstring lines: dedenting the method's text changes them.
        """
        return np.cosh(x) * 2.0


def spread(mean, std, top):
    return top - (mean - top) * np.tanh(mean * std) + std * np.exp(-mean)


def size_one_output(x):
    """An output of shape (1,) (grad takes any output of size 1), made by a callee."""
    x2 = np.atleast_2d(x)
    mean = np.sum(x2, axis=1) * 0.5
    std = np.sum(x2 ** 2, axis=1) + 1.0
    return -spread(mean, std, 0.25)


def sample_noise(mean, log_std, rs):
    return rs.randn(*mean.shape) * np.exp(log_std) + mean


def noisy_loss(mean, log_std, seed):
    return np.sum(sample_noise(mean, log_std, np.random.RandomState(seed)) ** 2)
