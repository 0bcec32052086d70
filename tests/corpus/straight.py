"""Straight-line scalar functions: no if, for or while.

Every input is at least 1e-3 away from kinks (abs, min, max, %, //, floor, round, ...) and
domain edges; `tests/test_corpus.py` checks that.
"""

import math
from dataclasses import dataclass
from math import acosh, asinh, atan2, atanh, cos, exp, hypot, log, sin, sqrt, tanh
from math import log10 as lg10
from typing import Any


@dataclass(frozen=True)
class Case:
    """One corpus function, the inputs to run it on, and the arguments to differentiate."""

    func: Any
    inputs: list
    wrt: tuple = (0,)

    @property
    def name(self):
        return f"{self.func.__module__.rsplit('.', 1)[-1]}.{self.func.__name__}"

    def wrt_indices(self):
        """`wrt` with parameter names replaced by their positions."""
        names = self.func.__code__.co_varnames[: self.func.__code__.co_argcount]
        return tuple(names.index(w) if isinstance(w, str) else w for w in self.wrt)


SCALE = 1.5
OFFSET = -0.25
COEFFS = (0.5, -2.0, 3.0)


# --- the seeds ------------------------------------------------------------------------------


def seed_y(x, w):
    a = x + w
    b = w + 1
    return a * b


def seed_g(a, o):
    b = 5 - 3 * a
    c = 2 * b + 3
    d = 5 * b + 6
    e = 7 * c + d**2
    f = 2 * e
    g = 3 * f - o
    return g


# --- names, assignment, unpacking -----------------------------------------------------------


def reassign(x):
    y = x * 2
    y = y * y + x
    y = y - 3.0
    return y * x


def reassign_input(x, y):
    x = x * y
    y = x + y
    x = x * y
    return x


def swap(a, b):
    a, b = b, a
    return a * 3 + b**2


def rotate3(a, b, c):
    a, b, c = c, a, b
    return a * 1.0 + b * 2.0 + c * 3.0 * a


def unpack(x, y):
    p, q = x * y, x - y
    return p * q


def nested_unpack(x, y):
    (a, b), c = (x, y), x * y
    return a * c - b


def tuple_index(x):
    t = (x, x * x, 3.0)
    return t[1] + t[0] * t[2]


def chained_assign(x):
    a = b = x * 2
    return a * b + a


def identity(x):
    return x


def constant_output(x):
    return 2.5


def unused_arg(x, y):
    return x * 2.0


def reuse_many_times(x):
    return x * x * x * x + x / x - x


# --- augmented assignment -------------------------------------------------------------------


def augassign_all(x, y):
    z = x
    z += y
    z -= 0.5 * x
    z *= y
    z /= 1.0 + x * x
    z **= 2
    return z


def augassign_self(x):
    x += x
    x *= x
    x -= 1.0
    return x


def augassign_constants(x):
    s = 1.0
    s *= x
    s += 2
    s **= 3
    s /= 4
    return s


# --- constants, globals, defaults -----------------------------------------------------------


def constants(x):
    return 3 * x + 2.5 - 1 / 4 + 0 * x


def module_globals(x):
    return SCALE * x + OFFSET * x * x + COEFFS[2] * x**3


def defaults(x, y=2.0, k=3):
    return x**k + y * x


def keyword_only(x, *, scale=2.0):
    return scale * x * x + x


# --- operators ------------------------------------------------------------------------------


def arith(x, y):
    return x + y - x * y / (y + 2.0)


def powers(x, y):
    return x**3 + x**y + 2.0**x + y**-2 + x**0.5


def negative_powers(x):
    return (-x) ** 3 + -(x**2) + x**-1


def modulo(x):
    return (x % 1.5) * x


def modulo_both(x, y):
    return x % y + y % 0.7


def floordiv(x, y):
    return (x // y) * x + y + x // 2


def unary(x):
    return -x + (+x) * -(x * 2)


def division_chain(x, y):
    return x / y / (x + y)


def rational(x, y):
    return (x * x + y) / (x - y * y)


def polynomial(x):
    return ((2 * x - 3) * x + 1) * x - 7


def many_vars(a, b, c):
    d = a * b
    e = b * c
    f = c * a
    g = d + e + f
    return g * g / (a * b * c)


# --- builtins -------------------------------------------------------------------------------


def abs_fn(x):
    return abs(x) * x + abs(x - 1.0)


def min_max(x, y):
    return min(x, y) * 2 + max(x, y * y)


def pow_builtin(x, y):
    return pow(x, 2) + pow(x, y) + pow(2.0, y)


def float_cast(x):
    return float(x) * 2 + float(3) * x


def int_cast(x):
    n = int(x)
    return n * x + x


def round_fn(x):
    return math.trunc(x) * x + round(x) * 2.0 * x + round(x, 1) * x


# --- math -----------------------------------------------------------------------------------


def trig(x):
    return math.sin(x) * math.cos(x) + math.tan(x)


def inverse_trig(x):
    return math.asin(x) + math.acos(x / 2) * math.atan(x)


def atan2_fn(y, x):
    return math.atan2(y, x) * x


def hyperbolic(x):
    return math.sinh(x) + math.cosh(x) * math.tanh(x)


def inverse_hyperbolic(x):
    return math.asinh(x) + math.acosh(2 + x * x) + math.atanh(x / 2)


def exp_log(x):
    return math.exp(x) * math.log(x) + math.expm1(x)


def log_base(x, y):
    return math.log(x, 2) + math.log(x, y) + math.log(10.0, y)


def logs(x):
    return math.log1p(x) + math.log2(x) + math.log10(x)


def sqrt_fn(x):
    return math.sqrt(x * x + 1) * math.sqrt(x)


def hypot_fn(x, y):
    return math.hypot(x, y) + math.hypot(x, 3.0)


def erf_fn(x):
    return math.erf(x) * math.erfc(x / 2)


def sign_and_remainder(x, y):
    return math.degrees(x) * math.radians(y) + math.copysign(x * y, -y) + math.fmod(3.0 * x, y)


def pi_e(x):
    return math.pi * x**2 + math.e**x


def floor_ceil(x):
    return x * math.floor(x) + math.ceil(x) * x * x


def from_import(x):
    return sin(x) * exp(-x) + sqrt(x) + atan2(x, 2.0) + hypot(x, 1.0) + log(x)


def from_import_mixed(x, y):
    return cos(x) * math.cos(y) + tanh(x * y) + asinh(y) + acosh(1.5 + x * x) + atanh(y / 3)


def import_alias(x):
    return lg10(x * x) + x


def chain_composition(x):
    return math.sin(math.cos(math.exp(x)))


def softplus(x):
    return math.log(1 + math.exp(x))


def sigmoid(x):
    return 1 / (1 + math.exp(-x))


def logsumexp2(x, y):
    m = max(x, y)
    return m + math.log(math.exp(x - m) + math.exp(y - m))


def gaussian(x, mu, sigma):
    z = (x - mu) / sigma
    return math.exp(-0.5 * z**2) / (sigma * math.sqrt(2 * math.pi))


def math_pow(x, y):
    return math.pow(x, y) + math.pow(x, 2)


def polar_to_xy(r, theta):
    px = r * math.cos(theta)
    py = r * math.sin(theta)
    return px * 2.0 + py * py


CASES = [
    Case(seed_y, [(1.0, 2.0), (0.5, -3.0), (-1.5, 0.25)], wrt=("x", "w")),
    Case(seed_g, [(1.0, 2.0), (0.3, -1.0)], wrt=("a", "o")),
    Case(reassign, [(0.7,), (-1.3,), (2.0,)]),
    Case(reassign_input, [(0.5, 1.5), (-2.0, 0.3)], wrt=("x", "y")),
    Case(swap, [(1.0, 2.0), (-0.5, 3.0)], wrt=(0, 1)),
    Case(rotate3, [(1.0, 2.0, 3.0), (-0.5, 0.25, 4.0)], wrt=("a", "b", "c")),
    Case(unpack, [(1.5, 0.5), (-2.0, 1.0)], wrt=("x", "y")),
    Case(nested_unpack, [(1.5, 0.5), (-2.0, 3.0)], wrt=("x", "y")),
    Case(tuple_index, [(0.5,), (-2.5,)]),
    Case(chained_assign, [(0.5,), (-1.5,)]),
    Case(identity, [(0.5,), (-3.0,)]),
    Case(constant_output, [(0.5,), (2.0,)]),
    Case(unused_arg, [(0.5, 1.0), (2.0, -1.0)], wrt=("x", "y")),
    Case(reuse_many_times, [(0.5,), (-1.7,)]),
    Case(augassign_all, [(0.5, 1.5), (-1.2, 0.8), (2.0, -0.3)], wrt=("x", "y")),
    Case(augassign_self, [(0.5,), (-1.5,)]),
    Case(augassign_constants, [(0.5,), (-1.5,), (3.0,)]),
    Case(constants, [(0.5,), (-4.0,)]),
    Case(module_globals, [(0.5,), (-1.2,)]),
    Case(defaults, [(1.3,), (1.3, 0.7), (0.8, -2.0, 4), (1.1, 0.5, 2)], wrt=("x",)),
    Case(keyword_only, [(1.3,), (-0.4,)]),
    Case(arith, [(1.0, 2.0), (-3.0, 0.5)], wrt=("x", "y")),
    Case(powers, [(1.3, 0.7), (0.4, 2.5)], wrt=("x", "y")),
    Case(negative_powers, [(1.3,), (-0.6,)]),
    Case(modulo, [(0.7,), (2.3,), (-0.4,)]),
    Case(modulo_both, [(2.3, 0.8), (-1.1, 0.9), (5.2, -1.7)], wrt=("x", "y")),
    Case(floordiv, [(3.7, 1.3), (-2.3, 0.9), (0.5, 2.0)], wrt=("x", "y")),
    Case(unary, [(1.5,), (-0.3,)]),
    Case(division_chain, [(1.5, 0.5), (-2.0, 3.0)], wrt=("x", "y")),
    Case(rational, [(2.0, 0.5), (-1.0, 1.5)], wrt=("x", "y")),
    Case(polynomial, [(0.0,), (1.7,), (-2.2,)]),
    Case(many_vars, [(1.0, 2.0, 3.0), (-0.5, 1.5, 0.7)], wrt=("a", "b", "c")),
    Case(abs_fn, [(0.7,), (-1.5,), (2.0,)]),
    Case(min_max, [(0.5, 2.0), (2.0, 0.5), (-1.0, -0.5)], wrt=("x", "y")),
    Case(pow_builtin, [(1.5, 0.5), (0.7, 2.2)], wrt=("x", "y")),
    Case(float_cast, [(1.5,), (-0.7,)]),
    Case(int_cast, [(1.5,), (-2.7,), (3.2,)]),
    Case(round_fn, [(1.3,), (-2.7,), (3.62,)]),
    Case(trig, [(0.5,), (-1.2,), (2.0,)]),
    Case(inverse_trig, [(0.5,), (-0.3,)]),
    Case(atan2_fn, [(1.0, 2.0), (-0.5, -1.5), (2.0, -0.3)], wrt=("y", "x")),
    Case(hyperbolic, [(0.5,), (-1.2,)]),
    Case(inverse_hyperbolic, [(0.5,), (-1.2,)]),
    Case(exp_log, [(0.5,), (2.5,)]),
    Case(log_base, [(0.5, 3.0), (2.5, 0.5)], wrt=("x", "y")),
    Case(logs, [(0.5,), (7.5,)]),
    Case(sqrt_fn, [(0.5,), (4.0,)]),
    Case(hypot_fn, [(1.0, 2.0), (-3.0, 0.5)], wrt=("x", "y")),
    Case(erf_fn, [(0.5,), (-1.3,)]),
    Case(sign_and_remainder, [(1.3, 0.7), (-2.2, 0.45), (0.4, -1.1)], wrt=("x", "y")),
    Case(pi_e, [(0.5,), (-1.3,)]),
    Case(floor_ceil, [(0.5,), (-1.3,), (2.7,)]),
    Case(from_import, [(0.5,), (2.3,)]),
    Case(from_import_mixed, [(0.5, 1.0), (-1.2, 0.3)], wrt=("x", "y")),
    Case(import_alias, [(0.5,), (3.0,)]),
    Case(chain_composition, [(0.5,), (-1.0,)]),
    Case(softplus, [(0.5,), (-3.0,)]),
    Case(sigmoid, [(0.5,), (-3.0,)]),
    Case(logsumexp2, [(0.5, 1.5), (2.0, -1.0)], wrt=("x", "y")),
    Case(gaussian, [(0.5, 0.1, 1.5), (-2.0, 0.5, 0.7)], wrt=("x", "mu", "sigma")),
    Case(math_pow, [(1.5, 0.5), (0.7, 2.2)], wrt=("x", "y")),
    Case(polar_to_xy, [(1.5, 0.5), (0.7, -2.2)], wrt=("r", "theta")),
]
