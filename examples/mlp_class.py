"""A small network written as classes, trained on a toy regression, differentiated by srcad.

    python examples/mlp_class.py

The network is the way people write one: a `Dense` layer class, a `MLP` class that builds a
list of layers in its `__init__`, and an activation held in a field. The parameters srcad
differentiates are a plain list of weight and bias arrays, which `MLP` is built from inside the
loss, so the gradient is a list of arrays shaped like them. srcad follows the objects field by
field (no object is built in the derivative), checks the first gradient against finite
differences, and prints the generated derivative program (the loss's code, then the parts of
the functions it calls).
"""

import numpy as np
from srcad.check import numerical_grad

import srcad


class Dense:
    def __init__(self, w, b, act=np.tanh):
        self.w = w
        self.b = b
        self.act = act

    def __call__(self, x):
        return self.act(x @ self.w + self.b)


class MLP:
    def __init__(self, params):
        self.layers = [Dense(params[i], params[i + 1]) for i in range(0, len(params) - 2, 2)]
        self.w_out = params[-2]
        self.b_out = params[-1]

    def predict(self, x):
        for layer in self.layers:
            x = layer(x)
        return x @ self.w_out + self.b_out


def loss(params, x, y):
    model = MLP(params)
    return np.mean((model.predict(x) - y) ** 2)


def init(sizes, rng):
    params = []
    for m, n in zip(sizes[:-1], sizes[1:]):
        params += [rng.normal(scale=1.0 / np.sqrt(m), size=(m, n)), np.zeros(n)]
    return params


def main():
    rng = np.random.default_rng(0)
    x = rng.uniform(-2.0, 2.0, size=(64, 1))
    y = np.sin(2.0 * x) + 0.05 * rng.normal(size=x.shape)
    params = init([1, 16, 16, 1], rng)
    value_and_grad = srcad.value_and_grad(loss)

    # the first gradient, checked against central finite differences
    _, grads = value_and_grad(params, x, y)
    numeric = numerical_grad(loss, (params, x, y), 0)
    worst = max(float(np.max(np.abs(g - n))) for g, n in zip(grads, numeric))
    print(f"largest difference from finite differences: {worst:.1e}")
    assert worst < 1e-6

    first = None
    for _ in range(500):
        value, grads = value_and_grad(params, x, y)
        first = value if first is None else first
        params = [p - 0.05 * g for p, g in zip(params, grads)]
    print(f"loss {first:.4f} -> {value:.4f} after 500 steps of gradient descent")
    assert value < 0.5 * first

    print("\nthe derivative program srcad wrote (srcad.source):\n")
    print(srcad.source(value_and_grad))


if __name__ == "__main__":
    main()
