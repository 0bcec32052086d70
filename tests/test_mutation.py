"""Mutation and aliasing: every write is differentiated exactly or refused at its line.

Differentiated cases are checked against plain Python (the value, on copies of the inputs),
central finite differences (the gradient, and a forward-mode directional derivative) and,
where the reference tape can follow the program, the tape. Refused cases assert the error
class, the line (marked ``# refused`` in the source below) and words of the message and hint.
A generated family runs random sequences of writes into a fresh array.
"""

from __future__ import annotations

import inspect
import itertools
import uuid

import numpy as np
import pytest
import srcad.tape
from srcad.check import numerical_grad

import srcad
from srcad import MutationError

X3 = np.array([1.0, 2.0, 3.0])

# =============================================================================================
# Differentiated
# =============================================================================================


def fresh_slices(x):
    y = np.zeros(4)
    y[1:] = x * 2.0
    y[:2] += np.sin(x[:2])
    return np.sum(y * y)


def fresh_loop(x):
    y = np.zeros(3)
    for i in range(3):
        y[i] = x[i] ** 2
    return np.sum(y * y)


def while_loop(x):
    y = x * 1.0
    i = 0
    while i < 3:
        y[i] = y[i] * y[i]
        i += 1
    return np.sum(y)


def view_not_read_again(x):
    a = x * 1.0
    b = a[:2]  # a is not read after the write: nobody sees the change
    b[0] = 5.0
    return np.sum(b * b)


def item_read_before(x):
    y = x * 1.0
    first = y[0]  # a number, not a view
    y[0] = 7.0
    return first * np.sum(y)


def copy_read_after(x):
    y = x * 1.0
    z = y.copy()
    y[0] = 7.0
    return np.sum(z * y)


def fresh_inplace_ops(x):
    y = np.zeros(3)
    y += x
    y *= x
    return np.sum(y)


def repeated_index(x):
    y = np.zeros(3)
    y[[0, 2, 2]] = x  # NumPy keeps the last write to y[2]
    return np.sum(y * np.array([1.0, 2.0, 3.0]))


def repeated_index_add(x):
    y = np.ones(3)
    y[[0, 2, 2]] += x  # applied once per element: the last x for y[2]
    return np.sum(y * y)


def repeated_index_computed(x):
    idx = np.argsort(x) * 0 + np.array([1, 1, 0])
    y = np.zeros(3)
    y[idx] = x * x
    return np.sum(y * np.array([1.0, 2.0, 3.0]))


def repeated_index_2d(x):
    y = np.zeros((2, 2))
    y[[0, 0, 1], [1, 1, 0]] = x * 3.0
    return np.sum(y * y)


def boolean_mask(x):
    y = x * 1.0
    y[x > 1.5] = 0.5 * x[x > 1.5] ** 2
    return np.sum(y * y)


def out_keyword(x):
    y = np.zeros(3)
    np.multiply(x, x, out=y)
    return np.sum(y * x)


def out_reduction(x):
    y = np.zeros(3)
    np.cumsum(x, out=y)
    return np.sum(y * y)


def out_same_array(x):
    y = x.copy()
    np.exp(y, out=y)
    return np.sum(y)


def out_bound(x):
    y = np.ones(3)
    z = np.exp(x, out=y)
    return np.sum(z * y)


def out_where(x):
    y = np.zeros(3)
    np.multiply(x, 2.0, out=y, where=x > 1.5)
    return np.sum(y * y)


def copyto(x):
    y = np.zeros(3)
    np.copyto(y, x * x)
    return np.sum(y * x)


def copyto_where(x):
    y = np.ones(3)
    np.copyto(y, x * x, where=x > 1.5)
    return np.sum(y * x)


def add_at(x):
    y = np.zeros(3)
    np.add.at(y, [0, 2, 2], x)  # every repeat accumulates
    return np.sum(y * y)


def add_at_broadcast(x):
    y = x * 1.0
    np.add.at(y, [1, 1], x[0] * x[2])
    return np.sum(y * y)


def fill_constant(x):
    b = np.zeros(3)
    b.fill(2.0)  # carries no gradient: runs as written
    return np.sum(b * x)


def list_append_pop(x):
    hs = [x[0]]
    for _ in range(3):
        h = hs[-1]
        hs.append(h * x[1])
    last = hs.pop()
    return last + hs[0] * hs[1]


def append_after_sum(x):
    ys = [x[0], 2.0]
    s = sum(ys)
    ys.append(x[1])
    return s * ys[2]


def list_item_write(x):
    ys = [1.0, 2.0, 3.0]
    ys[1] = x[0] * x[1]
    return ys[0] + ys[1] * ys[2]


def list_insert_constant(x):
    ys = [1.0]
    ys.insert(0, 2.0)
    return ys[0] * x[0] + ys[1] * x[1]


def sort_in_place(a):
    b = a * 1.0
    b.sort()  # a permutation of b, which nobody else sees
    return b[0]


def sort_after_use(a):
    c = np.array([3.0, 1.0, 2.0])  # carries no gradient, but a's gradient reads it
    y = a * c
    c.sort()  # the backward sweep reads the c before the sort (srcad's copy)
    return np.sum(y) + np.sum(c)


def list_sort_after_use(a):
    c = [3.0, 1.0, 2.0]
    y = np.dot(a, c)  # a's gradient reads c
    c.sort()  # as above
    return y + c[0]


def list_reverse(a):
    ys = [a[0], a[1]]
    ys.reverse()
    return ys[0]


def list_sort(a):
    ys = [a[0], a[1]]
    ys.sort()
    return ys[0]


def augmented_beside_equal_expression(a):
    b = a * 2.0
    c = a * 2.0  # the same expression: not merged with b, which += changes
    b += 1.0
    return np.sum(c * a) + np.sum(b)


def list_extend(a):
    ys = [a[0]]
    ys.extend([a[1]])
    return ys[0] + ys[1]


def append_after_mean(a):
    ys = [a[0], 2.0]
    m = np.mean(ys)  # its adjoint reads the list as it is here: its length is kept
    ys.append(a[1] * 3.0)
    return m + ys[2]


def pop_after_sum(a):
    ys = [a[0], a[1]]
    s = sum(ys)
    v = ys.pop()  # sum's adjoint reads the list as it is here: a copy is kept
    return s * v


DIFFERENTIATED = [
    (fresh_slices, False), (fresh_loop, False), (while_loop, False),
    (view_not_read_again, False), (item_read_before, False), (copy_read_after, False),
    (fresh_inplace_ops, False), (repeated_index, False), (repeated_index_add, False),
    (repeated_index_computed, False), (repeated_index_2d, False), (boolean_mask, False),
    (out_keyword, False), (out_reduction, False), (out_same_array, False), (out_bound, False),
    (out_where, False), (copyto, False), (copyto_where, False), (add_at, False),
    (add_at_broadcast, False), (fill_constant, True), (list_append_pop, True),
    (list_item_write, True), (append_after_sum, True), (list_insert_constant, True),
    # in-place sorts and reversals of values nobody else sees: a permutation
    (sort_in_place, False), (sort_after_use, False), (list_sort_after_use, False),
    (list_reverse, False), (list_sort, False), (augmented_beside_equal_expression, False),
    (list_extend, False),
    # a list read whole, then changed in place (was refused; the forward sweep keeps what the
    # backward sweep reads: the length, or a copy)
    (append_after_mean, False), (pop_after_sum, False),
]


@pytest.mark.parametrize("f, tape", DIFFERENTIATED, ids=[f.__name__ for f, _ in DIFFERENTIATED])
def test_differentiated(f, tape):
    x = X3.copy()
    value, grad = srcad.value_and_grad(f)(x.copy())
    assert np.isclose(value, f(x.copy()))
    assert np.allclose(grad, numerical_grad(lambda a: f(a.copy()), (x,)), atol=1e-6)
    if f is item_read_before:
        return  # forward mode does not know y's rank, so y[0] may be a view: refused there
    direction = np.array([0.3, -1.1, 0.7])
    _, tangent = srcad.jvp(f, (x.copy(),), (direction,))
    assert np.isclose(tangent, np.dot(grad, direction), atol=1e-6)
    if tape:
        assert np.allclose(grad, srcad.tape.grad(f)(x.copy()))


SECOND_ORDER = [f for f, _ in DIFFERENTIATED if f is not append_after_sum]


@pytest.mark.parametrize("f", SECOND_ORDER, ids=[f.__name__ for f in SECOND_ORDER])
def test_second_order(f):
    """srcad's Hessian against central differences of srcad's gradient: the generated code
    (its copies, stacks of versions, last_writes, add_at) differentiates again."""
    x = X3.copy()
    hessian = srcad.hessian(f)(x.copy())
    grad = srcad.grad(f)
    eps = 1e-6
    expected = np.array([(grad(x + eps * e) - grad(x - eps * e)) / (2 * eps)
                         for e in np.eye(3)]).T
    assert np.allclose(hessian, expected, atol=1e-4)


def test_second_order_of_append_after_sum():
    """sum(ys) then ys.append(v), differentiated twice (was wrong before the branches met)."""
    test_second_order(append_after_sum)


def test_repeated_index_gradient_is_numpys():
    """The issue's example: y[[0, 2, 2]] = x gives x's gradient [1, 0, 1] (the first write
    to y[2] is replaced by the second), for = and for +=."""
    def plain(x):
        y = np.zeros(3)
        y[[0, 2, 2]] = x
        return np.sum(y)

    def added(x):
        y = np.zeros(3)
        y[[0, 2, 2]] += x
        return np.sum(y)

    for f in (plain, added):
        assert np.allclose(srcad.grad(f)(X3.copy()), numerical_grad(f, (X3.copy(),)))
        assert np.allclose(srcad.grad(f)(X3.copy()), [1.0, 0.0, 1.0])


def test_untouched_function_has_no_write_helpers():
    """Code for a function without repeated indices reads as before (no last_writes)."""
    text = srcad.source(srcad.grad(fresh_loop))
    assert "last_writes" not in text and "copy" not in text.split("# backward")[1]


# =============================================================================================
# Refused
# =============================================================================================

G = np.zeros(3)
GL = []


def write_through_slice(a):
    a = a * 1.0
    b = a[:2]
    b[0] = 5.0  # a write into a (frontend/views.py)
    return np.sum(a * a)


def add_through_slice(a):
    a = a * 1.0
    b = a[1:]
    b += a[:2]  # a write into a (frontend/views.py)
    return np.sum(a * a)


def write_through_reshape(a):
    a = a * 1.0
    b = a.reshape(3, 1)
    b[0, 0] = 5.0  # refused
    return np.sum(a * a)


def write_through_transpose(a):
    a = a * 1.0
    b = a.T
    b[0] = 5.0  # refused
    return np.sum(a * a)


def write_through_ravel(a):
    a = a * 1.0
    b = np.ravel(a)
    b[0] = 5.0  # refused
    return np.sum(a * a)


def write_through_asarray(a):
    a = a * 1.0
    b = np.asarray(a)
    b[0] = 5.0  # refused
    return np.sum(a * a)


def write_through_second_name(a):
    a = a * 1.0
    b = a
    b[0] = 5.0  # refused
    return np.sum(a * a)


def add_through_second_name(a):
    a = a * 1.0
    b = a
    b += 1.0  # refused
    return np.sum(a * b)


def write_held_by_list(a):
    a = a * 1.0
    ys = [a]
    a[0] = 5.0  # refused
    return np.sum(ys[0])


def write_viewed_in_loop(a):
    y = a * 1.0
    b = y[:1]
    s = 0.0
    for i in range(3):
        y[i] = y[i] * 2.0  # b read again after it (frontend/views.py)
        s = s + b[0]
    return s


def write_argument(a):
    a[0] = 5.0  # refused
    return np.sum(a * a)


def add_argument(a):
    a += 1.0  # refused
    return np.sum(a * a)


def write_argument_view(a):
    b = a[1:]
    b[0] = 5.0  # refused
    return np.sum(b)


def write_global(a):
    G[0] = a[0]  # refused
    return np.sum(G)


def append_global(a):
    GL.append(a[0])  # refused
    return GL[-1]


def _closure():
    C = np.zeros(3)

    def write_closure(a):
        C[0] = a[0]  # refused
        return np.sum(C)
    return write_closure


write_closure = _closure()


def fill_in_place(a):
    b = a * 1.0
    b.fill(a[0])  # refused
    return np.sum(b)


def mutate_while_iterating(a):
    b = a * 1.0
    s = 0.0
    for e in b:
        b *= 2.0  # refused
        s = s + e
    return s


def append_while_iterating(a):
    ys = [a[0]]
    s = 0.0
    for e in ys:
        if len(ys) < 3:
            ys.append(e * 2.0)  # refused
        s = s + e
    return s


def fill_in_loop(a):
    b = np.zeros(3)
    s = 0.0
    for i in range(3):
        s = s + np.sum(a * b)
        b.fill(float(i))  # refused
    return s


def list_insert(a):  # on a list nobody else sees it is differentiated (test_python_forms3)
    ys = [1.0]
    zs = ys
    zs.insert(0, a[0] * a[0])  # refused
    return ys[0] + ys[1]


def list_remove(a):
    ys = [1.0, a[0]]
    zs = ys
    zs.remove(1.0)  # refused
    return ys[0]


def sort_second_name(a):
    b = a * 1.0
    c = b
    c.sort()  # refused
    return b[0] * c[1]


def sort_through_view(a):
    b = a * 1.0
    v = b[:2]
    b.sort()  # refused
    return v[0] + b[0]


def sort_argument(a):
    a.sort()  # refused
    return a[0]


def reverse_list_held(a):
    ys = [a[0], a[1]]
    zs = [ys, 1.0]
    ys.reverse()  # refused
    return zs[0][0] * ys[1]


def list_slice_assign(a):
    ys = [1.0, 2.0, 3.0]
    ys[0:2] = [a[0], a[1]]  # refused
    return ys[0] + ys[1]


def list_argument_append(a, ys):
    # the list is read back below (a record into a list only appended to is allowed)
    ys.append(a[0])  # refused
    return a[0] * len(ys)


def _head(a):
    return a[:2]


def write_through_user_function(a):
    a = a * 1.0
    b = _head(a)  # your function may return a view
    b[0] = 5.0  # refused
    return np.sum(a)


def write_through_branch(a):
    a = a * 1.0
    if a[0] > 0:
        b = a[:2]
    else:
        b = np.zeros(2)
    b[0] = 5.0  # refused
    return np.sum(a * a)


def write_item_of_list(a):
    a = a * 1.0
    ys = [a, a * 2.0]
    e = ys[0]
    e[0] = 5.0  # refused
    return np.sum(ys[0])


def write_into_dict_argument(a, params):
    w = params["w"]
    w[0] = a[0]  # refused
    return np.sum(w)


def write_row_while_iterating(a):
    m = np.outer(a, a)
    s = 0.0
    for row in m:
        row[0] = 0.0  # refused
        s = s + np.sum(row)
    return s


def add_at_through_view(a):
    a = a * 1.0
    b = a[:2]
    np.add.at(b, [0, 0], a[1:])  # refused
    return np.sum(a)


def out_into_view(a):
    a = a * 1.0
    b = a[1:]
    np.multiply(a[:2], 2.0, out=b)  # a write into a (frontend/views.py)
    return np.sum(a * a)


def np_put(a):
    y = np.zeros(3)
    np.put(y, [0, 2], a[:2])  # refused
    return np.sum(y)


def np_place(a):
    y = np.zeros(3)
    np.place(y, a > 1.5, a)  # refused
    return np.sum(y)


def np_putmask(a):
    y = np.zeros(3)
    np.putmask(y, a > 1.5, a)  # refused
    return np.sum(y)


def subtract_at(a):
    y = np.zeros(3)
    np.subtract.at(y, [0, 0], a[:2])  # refused
    return np.sum(y)


def out_in_expression(a):
    y = np.zeros(3)
    return np.sum(np.exp(a, out=y))  # refused


def out_by_position(a):
    y = np.zeros(3)
    np.exp(a, y)  # refused
    return np.sum(y)


def where_without_out(a):
    return np.sum(np.exp(a, where=a > 1.0))  # refused


def copy_changed_through_second_name(a):
    b = a.copy()
    c = b
    c *= 2.0  # refused
    return np.sum(b)


def astype_changed_through_second_name(a):
    b = a.astype(float)
    c = b
    c *= 3.0  # refused
    return np.sum(b)


def np_copy_added_through_second_name(a):
    b = np.copy(a)
    c = b
    c += a  # refused
    return np.sum(b * b)


def copy_mutated_while_iterated(a):
    b = a.copy()
    s = 0.0
    for e in b:
        s += e
        b *= 0.5  # refused
    return s


def argument_view_mutated_while_iterated(a):
    b = a[1:3]
    c = b
    c *= 2.0  # refused
    return np.sum(a)


REFUSED = [
    (copy_changed_through_second_name, "same object as b", "c = c.copy()"),
    (astype_changed_through_second_name, "same object as b", "c = c.copy()"),
    (np_copy_added_through_second_name, "same object as b", "c = c.copy()"),
    (copy_mutated_while_iterated, "while the for loop", "copy"),
    # (state36) a write into the caller's array is differentiated (srcad.written_state); a
    # view of it written while another name reads it is refused as for a local array
    (argument_view_mutated_while_iterated, "shares memory with a", "c = c.copy()"),
    # write_through_slice, add_through_slice, write_viewed_in_loop, out_into_view:
    # differentiated since frontend/views.py (writes through views of a local array),
    # tests/test_views20_forms.py
    (write_through_reshape, "shares memory with a", "copy()"),
    (write_through_transpose, "shares memory with a", "copy()"),
    (write_through_ravel, "shares memory with a", "copy()"),
    (write_through_asarray, "shares memory with a", "copy()"),
    (write_through_second_name, "same object as a", "b = b.copy()"),
    (add_through_second_name, "same object as a", "b = b.copy()"),
    (write_held_by_list, "shares memory with ys", "a = a.copy()"),
    # write_argument, add_argument, write_argument_view, sort_argument, list_argument_append,
    # write_into_dict_argument: writes into what the caller passes, differentiated since
    # state36 (or refused for another reason): tests/test_state36_written_state.py
    (write_global, "global (or closure) value G", "local name"),
    (append_global, "global (or closure) value GL", "local name"),
    (write_closure, "global (or closure) value C", "local name"),
    (fill_in_place, ".fill()", "np.full_like"),
    (fill_in_loop, "inside a loop", "np.full_like"),
    (mutate_while_iterating, "while the for loop", "copy"),
    (append_while_iterating, "while the for loop", "list(ys)"),
    (list_insert, ".insert(): zs is the same object as ys", "copy()"),
    (list_remove, ".remove(): zs is the same object as ys", "copy()"),
    (list_slice_assign, "slice of a list", "ys[:i] + new + ys[j:]"),
    (sort_second_name, ".sort(): c is the same object", "copy()"),
    (sort_through_view, ".sort(): b shares memory with v", "copy()"),
    (reverse_list_held, ".reverse(): ys shares memory with zs", "copy()"),
    (write_through_user_function, "shares memory with a", "b = b.copy()"),
    (write_through_branch, "shares memory with a", "b = b.copy()"),
    (write_item_of_list, "shares memory with ys", "e = e.copy()"),
    (write_row_while_iterating, "changes row while the for loop", "copy"),
    (add_at_through_view, "np.add.at: b shares memory with a", "b = b.copy()"),
    (np_put, "np.put", "flat"),
    (np_place, "np.place", "np.where"),
    (np_putmask, "np.putmask", "np.where"),
    (subtract_at, "np.subtract.at", "np.add.at"),
    (out_in_expression, "out= inside an expression", "line of its own"),
    (out_by_position, "output array by position", "y = np.exp"),
    (where_without_out, "where= without out=", "np.where"),
]


def _zero(value):
    if isinstance(value, dict):
        return {k: np.zeros_like(v) for k, v in value.items()}
    return [0.0 for _ in value]


def _marked_line(f):
    lines, start = inspect.getsourcelines(f)
    marked = [start + i for i, text in enumerate(lines) if text.rstrip().endswith("# refused")]
    assert len(marked) == 1
    return marked[0]


@pytest.mark.parametrize("f, message, hint", REFUSED, ids=[f.__name__ for f, _, _ in REFUSED])
def test_refused(f, message, hint):
    extra = {list_argument_append: ([1.0],), write_into_dict_argument: ({"w": np.ones(3)},)}
    args = (X3.copy(),) + extra.get(f, ())
    for make in (lambda: srcad.grad(f)(*args),
                 lambda: srcad.jvp(f, args, (np.ones(3),) + tuple(map(_zero, args[1:])))):
        with pytest.raises(MutationError) as info:
            make()
        error = info.value
        assert isinstance(error, srcad.UnsupportedSyntaxError)
        assert error.lineno == _marked_line(f)
        assert error.filename == __file__
        assert message in error.message, error.message
        assert hint in error.hint, error.hint


# =============================================================================================
# A generated family: random writes into a fresh array
# =============================================================================================

_counter = itertools.count()

#: templates of one write into y (length 6) from x (length 4); {a}, {i}: random picks
_WRITES = [
    "y[{a}:{a} + 3] = x[1:] * {c}",
    "y[{a}:{a} + 3] += np.sin(x[:3])",
    "y[{a}:{a} + 2] *= x[2:]",
    "y[{idx}] = x * {c}",
    "y[{idx}] += x ** 2",
    "y[y > {c}] = 0.5 * {c}",
    "np.add.at(y, {idx}, x * {c})",
    "np.multiply(y, {c}, out=y)",
    "np.copyto(y, y * x[{i}])",
    "y[{i}] = y[{a}] * x[{i}]",
]


def _program(seed):
    rng = np.random.default_rng(seed)
    lines = ["import numpy as np", "", "", "def f(x):",
             "    y = np.zeros(6)" if seed % 2 else "    y = np.concatenate([x, x[:2]])"]
    for _ in range(int(rng.integers(2, 7))):
        template = _WRITES[int(rng.integers(len(_WRITES)))]
        idx = [int(i) for i in rng.integers(0, 6, size=4)]  # repeats are likely
        lines.append("    " + template.format(a=int(rng.integers(0, 4)), i=int(rng.integers(4)),
                                              c=round(float(rng.uniform(0.5, 2.0)), 2),
                                              idx=idx))
    lines.append("    return np.sum(y * y * np.arange(1.0, 7.0))")
    return "\n".join(lines) + "\n"


def _load(tmp_path, text):
    from test_robustness import load_module

    return load_module(tmp_path, text, f"mutation_family_{next(_counter)}_{uuid.uuid4().hex[:8]}")


@pytest.mark.parametrize("seed", range(40))
def test_random_writes(tmp_path, seed):
    text = _program(seed)
    f = _load(tmp_path, text).f
    x = np.array([0.7, -1.2, 1.9, 0.4])
    value, grad = srcad.value_and_grad(f)(x.copy())
    assert np.isclose(value, f(x.copy())), text
    expected = numerical_grad(lambda a: f(a.copy()), (x,))
    assert np.allclose(grad, expected, rtol=1e-5, atol=1e-5), text


# =============================================================================================
# A generated family: an augmented assignment on a value made by a call srcad knows no kind
# for, through a second name or while a loop walks it: refused, or exactly Python's
# =============================================================================================

#: ways to make b from the argument a (a new array, or a view of a)
_MAKERS = ["a.copy()", "np.copy(a)", "a.astype(float)", "a.clip(-5.0, 5.0)", "a[1:3]",
           "a.reshape(-1)", "np.asarray(a)", "a * 1.0", "a[::-1]", "a.T"]
_OPS = ["+=", "-=", "*=", "/="]
_USES = [
    # the changed object read afterwards through its first name
    "    b = {make}\n    c = b\n    c {op} 1.5\n    return np.sum(b) + np.sum(c)",
    # changed while a for loop walks it
    "    b = {make}\n    s = 0.0\n    for e in b:\n        s = s + e * e\n        b {op} 1.5\n"
    "    return s",
    # changed, then only the new name read (Python and srcad agree: nothing else sees it)
    "    b = {make}\n    c = b\n    c {op} 1.5\n    return np.sum(c)",
]


@pytest.mark.parametrize("case", list(itertools.product(range(len(_MAKERS)), _OPS,
                                                         range(len(_USES)))))
def test_augmented_assignment_family(tmp_path, case):
    make, op, use = case
    body = _USES[use].format(make=_MAKERS[make], op=op)
    text = "import numpy as np\n\n\ndef f(a):\n" + body + "\n"
    f = _load(tmp_path, text).f
    x = np.array([0.7, -1.2, 1.9, 0.4])
    try:
        value, grad = srcad.value_and_grad(f)(x.copy())
    except MutationError:
        return  # refused: fine
    assert np.isclose(value, f(x.copy())), text
    expected = numerical_grad(lambda v: f(v.copy()), (x,))
    assert np.allclose(grad, expected, rtol=1e-5, atol=1e-5), text
    try:  # the reference tape, where it has the rules (it has none for .copy(), .astype())
        taped = srcad.tape.grad(f)(x.copy())
    except (NotImplementedError, AttributeError):
        return
    assert np.allclose(grad, taped, rtol=1e-9, atol=1e-9), text


def set_of_seen_keys(w):
    seen = set()
    tot = 0.0
    for v, k in zip(w, ["a", "b", "a"]):
        if k not in seen:
            seen.add(k)  # refused
            tot += v
    return tot


def list_of_seen_keys(w):
    seen = []
    tot = 0.0
    for v, k in zip(w, ["a", "b", "a"]):
        if k not in seen:
            seen = seen + [k]
            tot += v
    return tot


def test_a_set_changed_in_a_loop_is_refused_with_the_list_that_works():
    """Sets are not followed (a set literal is refused); ``seen.add(k)`` in a loop is refused
    at its line with the rewrite, which srcad differentiates."""
    with pytest.raises(MutationError) as info:
        srcad.grad(set_of_seen_keys)(X3.copy())
    assert info.value.lineno == _marked_line(set_of_seen_keys)
    assert "seen = seen + [k]" in info.value.hint
    np.testing.assert_allclose(srcad.grad(list_of_seen_keys)(X3.copy()),
                               numerical_grad(list_of_seen_keys, (X3.copy(),)), atol=1e-8)
