"""Functions srcad must refuse. Each offending line carries a marker comment naming the case;
tests find the line by its marker, so editing this file cannot silently shift expectations."""

import math

import numpy as np


def uses_try(x):
    try:  # error: try
        y = x * 2
    except ValueError:
        y = x
    return y


def uses_with(x):
    with open("unused") as fh:  # error: with
        del fh
    return x


def uses_generator(x):
    yield x * 2  # error: yield


def uses_global(x):
    global COUNTER  # error: global
    COUNTER = x
    return x


def uses_del(x):
    ys = [x, x * 2.0]
    del ys[0]  # error: del
    return ys[0]


def uses_nested_def(x):
    def inner(z):  # error: nested def
        again = inner  # (a nested def calling itself by name is differentiated: outside24)
        return z * 2 if z > 10 else again(z + 1)

    return inner(x)


def uses_walrus(x):
    ys = [y for v in range(3) if (y := x * v) > 1]  # error: walrus
    return sum(ys)


def uses_match(x):
    match (x, 1.0):
        case (1.0, n) | (n, 1.0):  # error: match
            return n
    return x


def calls_gamma(x):
    return math.frexp(x)[0] * 2  # error: no rule


def calls_unknown_numpy(x):
    return np.sum(np.roots(np.array([1.0, x, 2.0])))  # error: no rule numpy


def writes_attribute(x, obj):
    obj.value = x * 2  # error: attribute write
    return x


def vector_output(x):
    return x * np.ones(2)  # error: non-scalar


def star_args(x, *rest):  # differentiated by position (was refused)
    return x


def plain(x, w):  # error: def line
    return x * w


def starred_call(x, rest):
    return math.pow(x, *rest)  # differentiated when it runs (refused before round 16)


async def coroutine(x):  # error: async
    return x


def undefined_name(x):
    return x * NOT_DEFINED_ANYWHERE  # error: undefined name  # noqa: F821
