"""User code for the call tests: helpers, recursion, closures, rules (module level, as a
user's project would have them)."""

import math

import numpy as np
from other_module import smooth_step

import srcad

SCALE = 2.0


def square(x):
    return x * x


def level3(x):
    return math.sin(x) * square(x)


def level2(x, k=3.0):
    return level3(x) * k + square(x)


def level1(x, w):
    return level2(x, k=w) + level2(w)


def horner(coeffs, x, i):
    """Recursive polynomial evaluation: coeffs[i] + x * (coeffs[i+1] + x * (...))."""
    if i == len(coeffs) - 1:
        return coeffs[i]
    return coeffs[i] + x * horner(coeffs, x, i + 1)


def poly_at(x):
    return horner([1.0, -2.0, 0.5, 3.0, 0.25], x, 0)


def even_part(x, n):
    if n == 0:
        return 1.0
    return 1.0 + x * odd_part(x, n - 1)


def odd_part(x, n):
    if n == 0:
        return x
    return x - 0.5 * even_part(x * x, n - 1)


def mutual(x):
    return even_part(x, 5)


cube = lambda z: z * z * z  # noqa: E731


def uses_lambda(x):
    return cube(x) + cube(2 * x)


def uses_global(x):
    return x * SCALE


def make_scaled(scale):
    def scaled(x):
        return math.exp(x * scale) + scale

    return scaled


def tuple_helper(x):
    return x * 2, math.sin(x)


def returns_tuple(x):
    a, b = tuple_helper(x)
    return a * b


def with_defaults(x, y=1.5, *, z=2.0):
    return x * y + z * x * x


def call_with_keywords(x):
    return with_defaults(x, z=0.5) + with_defaults(y=x, x=1.0)


@srcad.extend.defvjp(x="g / (1 + math.exp(-x))")
def softplus(x):
    return math.log1p(math.exp(x))


def uses_softplus(x):
    return softplus(x) * 3


COEFFICIENTS = [0.5, -2.0, 1.5]  # lowest degree first, as numpy.polynomial orders them
POLYVAL = np.polynomial.polynomial.polyval  # srcad has no rule of its own for this one


def polyval_prime(x, c):
    return POLYVAL(x, np.polynomial.polynomial.polyder(c))


srcad.extend.defvjp(POLYVAL, "x, c", x="g * polyval_prime(x, c)")


def uses_polyval(x):
    return POLYVAL(x, COEFFICIENTS) * x


# np.ldexp is a C ufunc: no Python source, and no built-in rule
srcad.extend.defvjp(np.ldexp, "x, n", x="g * 2.0 ** n")


def uses_ldexp(x):
    return np.ldexp(x, 3) * x


def uses_stop_gradient(x):
    return srcad.stop_gradient(x * x) * x


class Model:
    def __init__(self, scale):
        self.scale = scale

    def loss(self, x, w):
        return (x * w - self.scale) ** 2


def star_helper(a, b, c=1.0):
    return a * b + c


def star_args(x, y):
    args = (x, y)
    return star_helper(*args) + star_helper(*(y, x), c=x) + math.atan2(*args)


def star_slices(*args):
    """Slices of a ``*args`` tuple (its length fixed by the call) spliced into calls."""
    return (star_helper(args[0] * 2.0, *args[1:]) + star_helper(*args[-2:])
            + star_helper(*args[::2]) + math.atan2(*args[1:3]))


def nested_helpers(x, w):
    def scaled(z, k=2.0):
        return math.sin(z * w) * k

    square_w = lambda v: v * v * w  # noqa: E731
    return scaled(x) + square_w(x) + scaled(w, k=0.5)


def nested_in_loop(x):
    total = 0.0
    for i in range(3):
        def step(z):
            return z * i + math.cos(z)  # noqa: B023 (reads i as it is at the call, on purpose)

        total = total + step(x * total + 1.0)
    return total


def uses_imported_helper(x):
    return smooth_step(x) * x


def rebinding_target(x):
    return x * x


def uses_rebinding_target(x):
    return rebinding_target(x) * 3
