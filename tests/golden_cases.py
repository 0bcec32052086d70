"""Functions whose generated code is locked by golden files (tests/golden/*.txt)."""

import math


def scalar_loop(x, n):
    for _ in range(n):
        x = x * 0.999 + math.sin(x) * 0.01
    return x


def taylor_exp(x):
    term = 1.0
    total = 1.0
    k = 1
    while abs(term) > 1e-12:
        term = term * x / k
        total = total + term
        k += 1
    return total


def clipped_sum(x, n):
    s = 0.0
    for i in range(n):
        v = x * i
        if v > 1.0:
            v = math.sqrt(v)
        s = s + v
    return s


def branch_after_loop(x, k):
    """A loop, then a branch on the input; ``total`` starts as an int (tests/test_floats.py
    checks its literals stay integers)."""
    total = 0
    for i in range(k):
        total = total + x * i
    if x > 1:
        total = total * 2
    return total + x
