"""GradBench ``hello``: the square and its derivative."""

from gradbench import wrap

import srcad


def square_of(x):
    return x * x


_double = srcad.grad(square_of)


@wrap.function(pre=float, post=float)
def square(x):
    return square_of(x)


@wrap.function(pre=float, post=float)
def double(x):
    return _double(x)


_double(1.0)  # warm-up: the code is made at define time
