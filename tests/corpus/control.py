"""Scalar functions with control flow: branches, loops, early exits, lists, comprehensions.

The inputs of each function take different branches and different trip counts, and each sits at
least 1e-3 away from the points where a branch or a trip count changes; `tests/test_corpus.py`
checks that.
"""

import math
from math import exp, sin

from .straight import Case

LIMIT = 10.0

# --- branches -------------------------------------------------------------------------------


def if_else(x):
    if x > 0:
        y = x * x
    else:
        y = -x * 3
    return y


def if_elif_else(x):
    if x < -1:
        r = x**3
    elif x < 1:
        r = sin(x) * 2
    else:
        r = exp(x)
    return r


def if_no_else(x):
    y = x
    if x > 1:
        y = y * 3
    return y * x


def if_and(x, y):
    if x > 0 and y > 0:
        return x * y
    return x + y


def if_or_not(x, y):
    if not (x > y) or y > 2:
        z = x - y * y
    else:
        z = x * y
    return z


def chained_comparison(x):
    if 0 < x < 2:
        return x * x
    return 2 * x


def ternary(x, y):
    return x * y if x > y else x + y * y


def nested_ternary(x):
    return x * 3 if x > 1 else (x * x if x > 0 else -x)


def branch_swap(x, y):
    a = x
    b = y
    if x > y:
        a, b = b, a
    return a * 2 + b * b


def branch_on_derived(x):
    t = math.sin(x)
    if t > 0.5:
        u = t * x
    else:
        u = t + x
    return u


def nested_if(x, y):
    if x > 0:
        if y > 0:
            r = x * y
        else:
            r = x - y
    else:
        if y > 0:
            r = y * y
        else:
            r = x * x * y
    return r


def bool_variable(x):
    flag = x > 1.0
    y = x * 2
    if flag:
        y = y * y
    return y


def branch_augassign(x, y):
    s = x
    if x * y > 1:
        s += y
        s *= x
    else:
        s -= y
    return s


def several_returns(x):
    if x < 0:
        return -x * x
    if x < 1:
        return x * 3
    return x**2 + 2


def min_max_in_branch(x, y):
    if x > 0:
        r = max(x, y) * 2
    else:
        r = min(x * x, y)
    return r + abs(y)


def branch_global(x):
    if x > LIMIT / 5:
        return x * LIMIT
    return x - LIMIT


# --- for loops ------------------------------------------------------------------------------


def for_range(x):
    s = 0.0
    for i in range(5):
        s = s + x**i
    return s


def for_range_step(x):
    s = x
    for i in range(2, 11, 3):
        s = s * x + i
    return s


def for_range_negative_step(x):
    acc = 1.0
    for i in range(6, 0, -2):
        acc = acc * x + i
    return acc


def for_range_computed(x, y):
    n = int(x)
    s = y
    for _ in range(n):
        s = s * y + x
    return s


def for_range_bounds_from_values(x, y):
    s = 0.0
    for i in range(int(x), int(y) + 1):
        s = s + i * x * y
    return s


def for_list(x, y):
    s = 0.0
    for c in [1.0, 2.0, 3.0]:
        s += c * x - y
    return s * s


def for_tuple_of_values(x, y):
    t = 0
    for v in (x, y, x * y):
        t = t + math.sin(v)
    return t


def for_enumerate(x):
    ys = [x, x * x, x**3]
    s = 0.0
    for i, v in enumerate(ys):
        s = s + i * v
    return s


def for_zip(x, y):
    s = 0.0
    for a, b in zip([x, y, x + y], [1.0, 2.0, 3.0]):
        s += a * b * a
    return s


def for_reversed(x):
    ys = [x, 2 * x, 3 * x]
    acc = 0.0
    for v in reversed(ys):
        acc = acc * 0.5 + v * v
    return acc


def nested_for(x):
    s = 0.0
    for i in range(3):
        for j in range(i + 1):
            s += (i + 1) * x**j
    return s


def loop_carried_swap(x, y):
    a, b = x, y
    for _ in range(4):
        a, b = b, a + b * 0.5
    return a * b


def loop_product(x):
    p = 1.0
    for k in range(1, 6):
        p *= x + k
    return p


def loop_variable_after_loop(x):
    for i in range(3):
        y = x * i
    return y + i


def newton_sqrt(a):
    x = a
    for _ in range(20):
        x = 0.5 * (x + a / x)
    return x


def abs_in_loop(x):
    s = 0.0
    for k in range(4):
        s += abs(x - k)
    return s


def branch_in_loop(x):
    s = 0.0
    for k in range(5):
        if x * k > 2:
            s = s + x * k
        else:
            s = s - x / (k + 1)
    return s


# --- while loops ----------------------------------------------------------------------------


def while_grow(x):
    n = 0
    while x < LIMIT:
        x = x * 1.7
        n += 1
    return x + n


def while_counter(x):
    i = 0
    s = x
    while i < 4:
        s = math.sin(s) + x
        i += 1
    return s


def while_halving(x):
    n = 0
    t = x
    while t > 1.0:
        t = t / 2.0
        n += 1
    return t * n + t


def while_and_condition(x, y):
    i = 0
    while i < 10 and x < y:
        x = x + 0.7
        i += 1
    return x * y + i


def while_true_break(x):
    while True:
        x = x * 1.3
        if x > 5:
            break
    return x


def while_in_for(x):
    for i in range(3):
        k = 0
        while k < i:
            x = x * 1.1 + 0.1
            k += 1
    return x


# --- break, continue, early return, else ----------------------------------------------------


def for_break(x):
    s = 0.0
    for _ in range(10):
        s = s + x
        if s > 3.0:
            break
    return s * x


def for_continue(x):
    s = 0.0
    for i in range(6):
        if i % 2 == 0:
            continue
        s = s + x**i
    return s


def continue_on_value(x):
    s = 0.0
    for v in [x, -x, 2 * x, -3 * x]:
        if v < 0:
            continue
        s += v * v
    return s


def return_in_loop(x):
    for i in range(10):
        x = x * 1.5
        if x > 5:
            return x * i
    return -x


def early_exit_iteration(x):
    s = 1.0
    for i in range(8):
        s = s * x
        if s > 2.0:
            return s + i
    return s


def for_else(x):
    for _ in range(4):
        x = x * x * 0.5
        if x > 10:
            break
    else:
        x = x + 1.0
    return x


def while_else(x):
    n = 0
    while n < 3:
        x = x + math.sin(x)
        if x > 4:
            break
        n += 1
    else:
        x = -x
    return x


def nested_break(x):
    s = 0.0
    for i in range(4):
        for j in range(4):
            if j > i:
                break
            s = s + x ** (i - j)
    return s


# --- lists and comprehensions ---------------------------------------------------------------


def list_append(x):
    ys = []
    for i in range(4):
        ys.append(x * i + 1)
    return sum(ys) * ys[-1]


def list_index(x, y):
    ys = [x, y, x * y]
    return ys[0] * ys[2] + ys[-1] - ys[1]


def list_len(x):
    ys = [x, x * 2, x * 3]
    return len(ys) * x + ys[len(ys) - 1]


def list_index_in_loop(x):
    ys = [x, x + 1, x * x]
    s = 0.0
    for i in range(len(ys)):
        s = s + ys[i] * i
    return s


def list_grow_from_last(x):
    ys = [x]
    for _ in range(3):
        ys.append(ys[-1] * x + ys[0])
    return sum(ys)


def list_comprehension(x):
    ys = [x * i for i in range(5)]
    return sum(ys)


def list_comprehension_filter(x):
    ys = [x**i for i in range(6) if i % 2 == 1]
    return sum(ys) * ys[0]


def generator_sum(x, y):
    return sum(x * k - y for k in range(1, 4))


def generator_value_filter(x):
    vals = [x - 1, x, x + 1, 2 * x]
    return sum(v * v for v in vals if v > 0)


def comprehension_ternary(x):
    return sum([v if v > 0 else -v * 0.5 for v in (x, x - 2, 3 - x)])


def nested_generator(x):
    return sum(x * i * j + x for i in range(3) for j in range(2))


def dot_lists(x, y):
    xs = [x, y, x + y]
    ws = [0.5, -1.0, 2.0]
    return sum(a * b for a, b in zip(xs, ws))


CASES = [
    Case(if_else, [(1.5,), (-0.7,)]),
    Case(if_elif_else, [(-2.0,), (0.3,), (1.7,)]),
    Case(if_no_else, [(0.5,), (1.5,)]),
    Case(if_and, [(1.0, 2.0), (1.0, -2.0), (-1.0, 2.0)], wrt=("x", "y")),
    Case(if_or_not, [(1.0, 0.5), (1.0, 3.0), (0.5, 1.0)], wrt=("x", "y")),
    Case(chained_comparison, [(0.5,), (2.5,), (-0.5,)]),
    Case(ternary, [(2.0, 1.0), (0.5, 1.5)], wrt=("x", "y")),
    Case(nested_ternary, [(1.5,), (0.5,), (-0.5,)]),
    Case(branch_swap, [(2.0, 1.0), (0.5, 1.5)], wrt=(0, 1)),
    Case(branch_on_derived, [(1.0,), (0.2,), (3.0,)]),
    Case(nested_if, [(1.0, 2.0), (1.0, -2.0), (-1.0, 2.0), (-1.0, -2.0)], wrt=("x", "y")),
    Case(bool_variable, [(0.5,), (1.5,)]),
    Case(branch_augassign, [(1.0, 2.0), (0.5, 1.0)], wrt=("x", "y")),
    Case(several_returns, [(-0.5,), (0.5,), (1.5,)]),
    Case(min_max_in_branch, [(1.0, 2.0), (1.0, 0.5), (-1.0, 2.0), (-2.0, 5.0)], wrt=("x", "y")),
    Case(branch_global, [(1.0,), (3.0,)]),
    Case(for_range, [(0.5,), (-1.3,)]),
    Case(for_range_step, [(0.5,), (-1.3,)]),
    Case(for_range_negative_step, [(0.5,), (-1.3,)]),
    Case(for_range_computed, [(0.5, 0.9), (2.3, 0.9), (4.7, -0.6)], wrt=("x", "y")),
    Case(for_range_bounds_from_values, [(0.5, 3.2), (1.7, 1.9), (-2.3, 1.4)], wrt=("x", "y")),
    Case(for_list, [(0.5, 0.3), (-1.3, 2.0)], wrt=("x", "y")),
    Case(for_tuple_of_values, [(0.5, 0.3), (-1.3, 2.0)], wrt=("x", "y")),
    Case(for_enumerate, [(0.5,), (-1.3,)]),
    Case(for_zip, [(0.5, 0.3), (-1.3, 2.0)], wrt=("x", "y")),
    Case(for_reversed, [(0.5,), (-1.3,)]),
    Case(nested_for, [(0.5,), (-1.3,)]),
    Case(loop_carried_swap, [(0.5, 0.3), (-1.3, 2.0)], wrt=("x", "y")),
    Case(loop_product, [(0.5,), (-1.3,)]),
    Case(loop_variable_after_loop, [(0.5,), (-1.3,)]),
    Case(newton_sqrt, [(2.0,), (0.3,), (9.5,)]),
    Case(abs_in_loop, [(0.5,), (2.6,), (-1.3,), (3.2,)]),
    Case(branch_in_loop, [(0.3,), (0.9,), (1.5,), (-1.0,)]),
    Case(while_grow, [(1.3,), (0.5,), (3.3,), (12.0,)]),
    Case(while_counter, [(0.5,), (-1.3,)]),
    Case(while_halving, [(0.5,), (3.0,), (13.0,)]),
    Case(while_and_condition, [(0.1, 2.0), (3.0, 1.0), (-10.0, 0.0)], wrt=("x", "y")),
    Case(while_true_break, [(0.5,), (4.0,), (7.0,)]),
    Case(while_in_for, [(0.5,), (-1.3,)]),
    Case(for_break, [(0.7,), (1.3,), (-0.5,)]),
    Case(for_continue, [(0.5,), (-1.3,)]),
    Case(continue_on_value, [(0.5,), (-1.3,)]),
    Case(return_in_loop, [(0.5,), (2.0,), (7.0,), (-1.0,)]),
    Case(early_exit_iteration, [(1.5,), (1.1,), (0.9,)]),
    Case(for_else, [(1.5,), (3.0,), (2.5,)]),
    Case(while_else, [(0.5,), (5.0,), (7.0,), (-0.5,)]),
    Case(nested_break, [(0.5,), (-1.3,)]),
    Case(list_append, [(0.5,), (-1.3,)]),
    Case(list_index, [(0.5, 0.3), (-1.3, 2.0)], wrt=("x", "y")),
    Case(list_len, [(0.5,), (-1.3,)]),
    Case(list_index_in_loop, [(0.5,), (-1.3,)]),
    Case(list_grow_from_last, [(0.5,), (-1.3,)]),
    Case(list_comprehension, [(0.5,), (-1.3,)]),
    Case(list_comprehension_filter, [(0.5,), (-1.3,)]),
    Case(generator_sum, [(0.5, 0.3), (-1.3, 2.0)], wrt=("x", "y")),
    Case(generator_value_filter, [(0.5,), (-0.7,), (1.5,), (-1.5,)]),
    Case(comprehension_ternary, [(0.5,), (2.5,), (3.5,), (-0.7,)]),
    Case(nested_generator, [(0.5,), (-1.3,)]),
    Case(dot_lists, [(0.5, 0.3), (-1.3, 2.0)], wrt=("x", "y")),
]
