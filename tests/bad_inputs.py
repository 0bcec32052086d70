"""Inputs srcad must refuse with a SrcadError that points at the right place.

Each offending line carries a marker comment (hash, "bad:", the row's name);
`tests/test_bad_inputs.py` finds the line by its marker, so editing this file cannot silently
shift expectations. These extend `tests/error_cases.py` (which `tests/test_errors.py` checks)
and do not repeat it.
"""

import functools
import math
import operator
import statistics

import numpy as np

TABLE = [0.0]
SCALE = 2.0


# --- statements srcad does not differentiate --------------------------------------------------


def _make_nonlocal():
    total = 0.0

    def uses_nonlocal(x):
        nonlocal total  # bad: nonlocal
        total = x
        return x * 2.0

    return uses_nonlocal


uses_nonlocal = _make_nonlocal()


def uses_yield_from(x):
    yield from [x * 2.0]  # bad: yield from


def uses_class(x):
    class Local:  # bad: class in function
        pass

    return x * 2.0


def uses_import(x):
    if x > 100.0:
        import random  # noqa: F401  # bad: import in function

    return x * 2.0


def uses_from_import(x):
    for _ in range(1):
        from math import sin  # bad: from-import in function

    return sin(x)


def uses_try_except_finally(x):
    try:  # bad: try/except/finally
        y = x * 2.0
    except ValueError:
        y = x
    finally:
        pass
    return y


def deletes_subscript(x):
    ys = [x, x * 2.0]
    del ys[0]  # bad: del subscript
    return ys[0]


def walrus_in_comprehension(x):
    return sum([(y := x * k) for k in range(2)]) + y  # bad: walrus in comprehension


def writes_attribute_of_active_array(x):
    y = np.array([x, x]) * 1.0
    # (y.shape = s on a local array is a reshape, differentiated)
    y.real = 3.0  # bad: attribute write on active value
    return np.sum(y)


def writes_into_global_list(x):
    TABLE[0] = x  # bad: subscript write into a global
    return x * 2.0


def _helper_with_try(a):
    try:  # bad: try in helper
        return a * 2.0
    except ValueError:
        return a


def calls_helper_with_try(x):
    return _helper_with_try(x) + x


def _helper_with_global(a):
    global SCALE  # bad: global in helper
    SCALE = a
    return a


def calls_helper_with_global(x):
    return _helper_with_global(x) * 2.0


def _generator(a):
    received = yield a  # bad: generator helper
    print(received)


def calls_generator(x):
    return sum(_generator(x))


# --- expressions srcad does not differentiate -------------------------------------------------


def set_comprehension(x):
    s = {x * k for k in range(3)}  # bad: set comprehension
    return sum(s)


def set_literal(x):
    s = {x, 2.0}  # bad: set literal
    return sum(s)


def dict_literal(x, extra):
    d = {"a": x, **extra}  # bad: dict literal
    return d["a"]


def double_star_call(x, options):
    return math.pow(x, **options)  # bad: double-star call


def repeats_an_active_list(x):
    ys = [x] * int(3.0)  # bad: repeating an active list  # ([x] * 3: outside24)
    return sum(ys)


def _made_function():
    return math.sin


def calls_local_variable(x):
    g = _made_function()  # a function srcad cannot know while transforming
    return g(x)  # bad: calling a local variable


def calls_lambda_expression(x):
    return _made_function()(x)  # bad: calling an expression


def through_an_f_string(x):
    return float(f"{x}") * 2.0  # bad: value through an f-string


# --- parameters ------------------------------------------------------------------------------


def plain(x, w):  # bad: plain def
    return x * w


def with_default_none(x, w=None):  # bad: default None
    return x * 2.0


def sum_of(x):  # bad: array def
    return np.sum(x * x)


def squares_of(x):
    return np.sum(x * x)  # bad: list times list


def with_varargs(x, *rest):  # bad: varargs def
    return x * 2.0


# --- calls with neither source nor rule ------------------------------------------------------


def calls_method_of_unknown_object(x, obj):
    return obj.compute(x)  # bad: method of an argument


def formats_with_method(x):
    return float("{}".format(x)) * 2.0  # bad: str.format  # noqa: UP032


def builds_complex(x):
    return abs(np.maximum(complex(x, 1.0), 0.5))  # bad: complex()


def calls_frexp(x):
    return math.frexp(x)[0]  # bad: math.frexp


def calls_statistics(x, y):
    return statistics.fmean([x, y]) * 2.0  # bad: standard-library Python function


def min_with_key(x, y):
    return min(x, y, key=abs, default=0.0)  # bad: min with key


def modular_pow(x):
    return pow(x, 2, 5)  # bad: pow with modulus


def uses_gamma(x, y):
    r = math.nextafter(x, 9.0)  # bad: math.nextafter
    return r * y


def uses_eval(x):
    return eval("x * 2.0")  # bad: eval


# --- outputs grad cannot differentiate -------------------------------------------------------


def returns_tuple(x):  # bad: tuple output def
    return x, x * 2.0  # bad: tuple output


def returns_list(x):  # bad: list output def
    return [x, x * 2.0]  # bad: list output


def no_return(x):  # bad: no return
    y = x * 2.0  # noqa: F841


def returns_string(x):  # bad: string output def
    return str(x)  # bad: string output


def returns_complex(x):  # bad: complex output def
    return x * 1j  # bad: complex output


def returns_none(x):  # bad: None output def
    x = x * 2.0
    return None  # bad: None output


def returns_matrix(x):  # bad: matrix output def
    return np.ones((2, 2)) * x  # bad: matrix output


# --- callables without source ----------------------------------------------------------------

from_eval = eval("lambda x: x * 2.0")
partial_power = functools.partial(math.pow, 2.0)
c_function = operator.mul


class Scaler:
    def __init__(self, k):
        self.k = k

    def __call__(self, x):
        return x * self.k

    def scaled(self, x):
        return x * self.k


def made_at_a_prompt():
    namespace = {}
    code = compile("def typed(x):\n    return x * 3.0\n", "<stdin>", "exec")
    exec(code, namespace)  # noqa: S102
    return namespace["typed"]
