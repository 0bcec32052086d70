"""Functions for test_calls_soundness: callees with *args/**kwargs, decorators, derivatives
called inside differentiated code, and the call shapes that used to crash. A line srcad must
refuse carries the comment ``# refused``."""

import functools
import math

import numpy as np
import srcad.tape

import srcad

# ---------------------------------------------------------------- *args / **kwargs callees


def twice(*args):
    return args[0] * 2.0


def star_first(x):
    return twice(x * x)


def weighted(a, *rest, scale=1.0, **kw):
    s = a
    for r in rest:
        s = s + r * r
    return scale * s * kw["w"] + kw.get("b", 0.0)


def star_mixed(x, y):
    return weighted(x, y, x * y, scale=2.0, w=y, b=x)


def star_splat(x, y):
    pair = (x, math.sin(y))
    return weighted(*pair, w=x)


def star_len(*values):
    return len(values) * values[-1] + sum(values)


def star_len_caller(x):
    return star_len(x, x * x, 3.0)


def forwards(*args, **kwargs):
    return weighted(*args, **kwargs)


def star_forwarded(x, y):
    return forwards(x, y, w=x * y) + forwards(y, scale=x, w=2.0)


def kw_only(**kw):
    return kw["a"] * kw.get("b", 1.0) - kw.get("c", 0.5)


def kw_caller(x, y):
    return kw_only(a=x, b=y) + kw_only(a=y)


def star_in_loop(x):
    s = 0.0
    for i in range(3):
        s = s + twice(x, i) * star_len(x, float(i))
    return s


def star_array(v):
    return np.sum(twice(v * v, 3.0)) + np.sum(weighted(v, v, w=2.0))


def star_widths(x):
    """x fed through a *args callee one to four items wide."""
    return (sum_squares(x) + sum_squares(x, 2.0 * x) + sum_squares(x, 2.0, x * x)
            + sum_squares(1.0, x, math.sin(x), 4.0 * x))


def sum_squares(*values):
    s = 0.0
    for v in values:
        s = s + v * v
    return s


def star_values_refused(x):
    return kw_values(a=x)


def kw_values(**kw):
    return sum(kw.values())  # refused


def kw_missing_refused(x):
    return kw_only(b=x)  # kw_only reads kw["a"]


def splat_list_refused(xs):
    return twice(*xs)  # differentiated when it runs since round 16 (tests/test_corpus16_*)


def splat_dict(x, d):
    return kw_only(a=x, **d)  # differentiated since session 28 (keyword_dicts.merged)


def kw_rebound(x, d, **kw):
    if x > 0:
        kw = d  # refused
    return kw["a"] * x


def kw_rebound_refused(x):
    return kw_rebound(x, [1.0], a=x)


def star_top_refused(*xs):
    return xs[0] * xs[1]


# ---------------------------------------------------------------- decorators


def triple(fn):
    @functools.wraps(fn)
    def wrapper(t):
        return 3.0 * fn(t)

    return wrapper


def doubles_all(fn):
    @functools.wraps(fn)
    def wrapper(*args, **kwargs):
        return 2.0 * fn(*args, **kwargs)

    return wrapper


def shift_by(c):
    def decorate(fn):
        @functools.wraps(fn)
        def wrapper(x, *args, **kwargs):
            return fn(x + c, *args, **kwargs) + c * x

        return wrapper

    return decorate


def squares_input(fn):
    def wrapper(u):  # no functools.wraps
        return fn(u * u)

    return wrapper


def squares_all(fn):
    def wrapper(*args):  # no functools.wraps: its own *args signature
        return fn(*args) ** 2

    return wrapper


@triple
def dec_square(x):
    return x * x


@doubles_all
def dec_forwarded(x, c=3.0):
    return c * math.sin(x) * x


def triple_all(fn):
    @functools.wraps(fn)
    def wrapper(*args, **kwargs):
        return 3.0 * fn(*args, **kwargs)

    return wrapper


@doubles_all
@triple_all
@shift_by(0.5)
def dec_stacked(x, y=2.0):
    return x * x * y


@shift_by(0.25)
def dec_with_argument(x, w):
    return math.exp(w * x)


@squares_input
def dec_no_wraps(x):
    return math.sin(x)


@doubles_all
def dec_keyword_only(x, *, k=2.0):
    return k * x ** 3


def calls_decorated(x):
    return dec_square(x) + dec_forwarded(x, 0.5) + dec_stacked(x) + dec_no_wraps(x)


@squares_all
def dec_star_no_wraps(x):
    return x * 3.0


def calls_star_no_wraps(x):
    return dec_star_no_wraps(x)


@functools.cache
def dec_cached(x):
    return x * x


def calls_cached_refused(x):
    return dec_cached(x) + x  # refused


# ---------------------------------------------------------------- derivatives and opaque callees


def cube(x):
    return x ** 3


d_cube = srcad.grad(cube)


def calls_derivative(x):
    return d_cube(x) * x


def sin_scaled(x, w):
    return math.sin(w * x) * x ** 2


d_sin_scaled = srcad.value_and_grad(sin_scaled, wrt=(0, 1))


def calls_value_and_grad_in_loop(x):
    s = 0.0
    for i in range(3):
        v, (a, b) = d_sin_scaled(x, float(i))
        s = s + v * a + b
    return s


def sum_sin(v):
    return np.sum(np.sin(v) * v)


d_sum_sin = srcad.grad(sum_sin)


def calls_array_derivative(v):
    return np.sum(d_sum_sin(v) ** 2)


_, CUBE_PULLBACK = srcad.vjp(cube, 2.0)


def calls_pullback(x):
    return CUBE_PULLBACK(x)[0] + x  # a pullback made outside: linear in x (objects17)


def calls_derivative_inactive(x, y):
    return x * d_cube(y)  # y is not differentiated: d_cube(y) is a constant, correctly


HESSIAN_OF_CUBE = srcad.hessian(cube)


def calls_hessian(x):
    return HESSIAN_OF_CUBE(x) * x  # 6 x * x: differentiated through the Hessian


TAPE_GRAD_OF_CUBE = srcad.tape.grad(cube)


def calls_tape_grad_refused(x):
    return TAPE_GRAD_OF_CUBE(x) * x  # refused


scaler = np.poly1d([2.0, 0.0])  # a callable object srcad cannot see into (a class of the
# user's with a __call__ is differentiated: tests/test_higher_order_python.py; np.vectorize
# objects: tests/test_forms17_vectorize.py)


class Quadratic:
    scale = 3.0

    def value(self, x):
        return self.scale * x * x


quadratic = Quadratic()


def calls_bound_method(x):
    return quadratic.value(x)  # the method of the object's class, with the object


def calls_method_on_class(x):
    return Quadratic.value(quadratic, x)


def calls_object_refused(x):
    return scaler(x) + x  # refused


def calls_builtin_refused(x):
    return math.frexp(x)[0] + x  # refused


def calls_frompyfunc_refused(x):
    return np.frompyfunc(math.sin, 1, 1)(x)  # refused


SQUARE_UFUNC = np.frompyfunc(lambda a: a * a, 1, 1)


def calls_c_function_refused(x):
    return SQUARE_UFUNC(x) * 1.0  # refused


# ---------------------------------------------------------------- call shapes that crashed


def pair_product(params):
    return params[0] * params[1]


def pair_middle(params):
    return pair_product(params)


def pair_outer(params):
    return pair_middle(params)


def tuple_to_nested(a, b):
    pair = (a, b)

    def scaled(z):
        return z * pair[0]

    return scaled(pair[1])


def star_to_nested(*args):
    def scaled(z):
        return z * args[0]

    return scaled(args[1])


def tuple_through_nested(x, y):
    return tuple_to_nested(x, y) + star_to_nested(y, x * x)


def same_list(items):
    return items


def list_aliases(params):
    first = same_list(params)
    second = same_list(params)
    return first[0] * second[1] + params[0] * first[1] * first[0]


def kw_nested_refused(**kw):
    def scaled(z):  # refused
        return z * kw["a"]

    return scaled(2.0)


def calls_kw_nested_refused(x):
    return kw_nested_refused(a=x)


y = 1.5
t = 0.5
dy = 7.0
p = 10.0


def reads_globals(x):
    return x * y * t * dy


def global_named_like_param(y):
    return reads_globals(y) * y + t


i = 5.0


def comprehension_variable_named_like_global(x):
    s = sum([x * i for i in range(3)])  # this i is the comprehension's
    return s + i * x  # this i is the global 5.0


def n_global_read_in_comprehension(xs):
    return sum([v * n for v in xs]) + len(xs)


n = 2.0


def squared(p):
    return p * p


def param_named_like_global(x):
    s = x
    for _ in range(2):
        s = squared(s) * 0.5 + p
    return s


def early_exit(x, n):
    if n < 0:
        return x
    for i in range(n):
        for j in range(n):
            if j > i:
                break
            x = x * 1.1
    return x


def calls_early_exit(x):
    s = 0.0
    for k in range(3):
        s = s + early_exit(x, k - 1) * (k + 1)
    return s


def early_exit_while(x, n):
    if n > 1:
        return x * 2.0
    while n < 3:
        k = 0
        while k < 5:
            if k > n:
                break
            x = x * math.cos(x)
            k = k + 1
        n = n + 1
    return x


def calls_early_exit_while(x):
    s = 0.0
    for k in range(3):
        s = s + early_exit_while(x, k)
    return s


def helper_of_inner(x):
    return x * x


def inner_with_helper(x):
    return helper_of_inner(x) * 2.0


d_inner_with_helper = srcad.grad(inner_with_helper)


def calls_d_inner(x):
    return d_inner_with_helper(x) * x
