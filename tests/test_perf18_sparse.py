"""Sparse list gradients (``srcad/transform/sparse.py``): a list (or tuple) parameter of real
arrays read only item by item (``xs[i]``, ``len(xs)``) gets ``[None] * len(xs)`` as its
gradient; an item's gradient is stored where none is yet (``dxs[i] = g if dxs[i] is None
else dxs[i] + g``) and the return fills the rest (``filled``). A generated family of
programs (an LSTM-like cell loop, an item read twice, items never read, one array reaching
two items, a tuple, a callee called twice, a callee's seed stored, the list's gradient
flowing on through the caller) x item shapes, against autograd and central finite
differences in grad and value_and_grad (every entry a new float array of its item's shape,
the arguments unchanged, a second call unchanged by writing into the first's result); vjp,
jvp and both Hessian modes through callees; which form the generated code has."""


import autograd
import autograd.numpy as anp
import numpy as np
import program_files
import pytest
from srcad.check import numerical_grad

import srcad

RNG = np.random.default_rng(18018)

#: name -> (program, whether the list parameter ``xs`` of ``f`` (or of its callee) is sparse)
PROGRAMS = {
    "cells": ('''
def step(ws, xs, x):
    new = []
    for i in range(0, len(xs), 2):
        h = np.tanh(ws[i] * x + xs[i])
        c = xs[i + 1] * np.sin(h) + h
        new.append(h)
        new.append(c)
        x = h
    return x, new


def f(ws, xs, x):
    total = 0.0
    for t in range(3):
        x, xs = step(ws, xs, x)
        total = total + np.sum(x * x)
    return total + np.sum(xs[1] * xs[0])
''', True),
    "read_twice": ('''
def f(ws, xs, x):
    a = xs[0] * x
    b = np.sin(xs[0]) * ws[1]
    return np.sum(a * b + xs[2] * ws[0])
''', True),
    "unread_items": ('''
def f(ws, xs, x):
    return np.sum(np.tanh(xs[1] * x) * ws[0])
''', True),
    "one_array_two_items": ('''
def pair(u, v):
    return u + v


def f(ws, xs, x):
    s = pair(xs[0], xs[1])
    return np.sum(s * s * x) + np.sum(ws[0] * xs[2])
''', True),
    "seed_stored": ('''
def inner(xs):
    return xs[0] * 2.0 + xs[1]


def f(ws, xs, x):
    t = inner(xs) * x
    u = inner(xs) + t
    return np.sum(u * u * ws[1])
''', True),
    "negative_index": ('''
def f(ws, xs, x):
    n = len(xs)
    return np.sum(xs[-1] * xs[n - 2] * x) + np.sum(ws[-1] ** 2)
''', True),
    "flows_on": ('''
def cell(xs, x):
    return [np.tanh(xs[0] * x), xs[1] + x, xs[2] * 0.5]


def f(ws, xs, x):
    for t in range(2):
        xs = cell(xs, x * ws[t])
        x = xs[1] * 0.3
    return np.sum(xs[0] * xs[1]) + np.sum(xs[2])
''', False),  # the callee's items are of a kind the analysis does not know: the dense form
    # not sparse: the list is iterated, or changed, or an item is sliced
    "iterated": ('''
def f(ws, xs, x):
    total = 0.0
    for v in xs:
        total = total + np.sum(v * x * ws[0])
    return total
''', False),
    "sliced": ('''
def f(ws, xs, x):
    ys = xs[1:]
    return np.sum(ys[0] * x) + np.sum(ws[0] * xs[0])
''', False),
    # constant indices: the first store at each in the top block is ``dxs[k] = g`` alone,
    # unless an index of the other sign was stored (``xs[-1]`` is ``xs[3]``) or a store in a
    # loop or branch came first (the backward sweep's order)
    "aliased_constants": ("""
def f(ws, xs, x):
    a = xs[-1] * x + xs[3] * ws[0]
    return np.sum(a * xs[0]) + np.sum(xs[-4] * ws[1])
""", True),
    "loop_between": ("""
def f(ws, xs, x):
    a = xs[2] * x
    for i in range(2):
        a = a + xs[i] * ws[i]
    b = xs[0] * a
    return np.sum(b * xs[2])
""", True),
    "branch_between": ("""
def f(ws, xs, x):
    a = xs[1] * x
    if np.sum(x) > 0:
        a = a * xs[1]
    else:
        a = a + xs[0]
    return np.sum(a * xs[0]) + np.sum(xs[1])
""", True),
    "unpacked": ("""
def f(ws, xs, x):
    a, b, c, d = xs
    e = b * x + np.sin(b)
    return np.sum(a * e) + np.sum(c * d * ws[2])
""", True),
}

#: programs whose every store is the first at a constant index in the top block
FIRST_STORES = {"unread_items", "unpacked", "seed_stored", "one_array_two_items"}

SHAPES = {"vector": (3,), "matrix": (2, 3)}

CASES = [(p, s, kind) for p in PROGRAMS for s in SHAPES for kind in ("list", "tuple")]


def _module(tmp_path, text, name):
    return program_files.module(tmp_path, name, "import numpy as np\n" + text)


def _twin(text):
    return program_files.twin(text, anp)


def _inputs(shape, kind):
    ws = [RNG.standard_normal(shape) for _ in range(3)]
    xs = [RNG.standard_normal(shape) for _ in range(4)]
    x = RNG.standard_normal(shape)
    return (ws, xs, x) if kind == "list" else (tuple(ws), tuple(xs), x)


def _check_entries(got, args):
    """Each entry a float64 array of its item's shape, writable, no argument, no two entries
    the same array."""
    assert len(got) == len(args)
    for g, a in zip(got, args):
        assert type(g) is np.ndarray and g.dtype == np.float64 and g.shape == a.shape
        assert g is not a and g.flags.writeable
    assert len({id(g) for g in got}) == len(got)


@pytest.mark.parametrize("program, shape, kind", CASES,
                         ids=[f"{p}-{s}-{k}" for p, s, k in CASES])
def test_grad_and_value_and_grad(tmp_path, program, shape, kind):
    text = PROGRAMS[program][0]
    module, twin = _module(tmp_path, text, f"sparse_{program}_{shape}_{kind}"), _twin(text)
    ws, xs, x = _inputs(SHAPES[shape], kind)
    copies = [a.copy() for a in (*ws, *xs, x)]
    got = srcad.grad(module.f, wrt=(0, 1, 2))(ws, xs, x)
    value, again = srcad.value_and_grad(module.f, wrt=(0, 1, 2))(ws, xs, x)
    np.testing.assert_allclose(value, module.f(ws, xs, x), rtol=1e-12)
    for i in (0, 1):
        want = autograd.grad(twin, i)(ws, xs, x)
        for g in (got[i], again[i]):
            _check_entries(g, (ws, xs)[i])
            for gk, wk in zip(g, want):
                np.testing.assert_allclose(gk, wk, rtol=1e-9, atol=1e-12)
    np.testing.assert_allclose(got[2], autograd.grad(twin, 2)(ws, xs, x), rtol=1e-9,
                               atol=1e-12)
    np.testing.assert_allclose(got[2], numerical_grad(module.f, (ws, xs, x), 2), rtol=1e-6,
                               atol=1e-8)
    for k in range(len(xs)):  # each item by central differences
        def along(v, k=k):
            items = list(xs)
            items[k] = v
            return module.f(ws, items if kind == "list" else tuple(items), x)
        np.testing.assert_allclose(got[1][k], numerical_grad(along, (xs[k],), 0),
                                   rtol=1e-6, atol=1e-8)
    for a, c in zip((*ws, *xs, x), copies):
        np.testing.assert_array_equal(a, c)  # the arguments are not written into
    for g in (*got[0], *got[1]):
        g += 1.0  # the caller's to change: a second call is the same
    again = srcad.grad(module.f, wrt=(0, 1, 2))(ws, xs, x)
    for g, w in zip((*again[0], *again[1]), (*got[0], *got[1])):
        np.testing.assert_allclose(g + 1.0, w, rtol=1e-12)


@pytest.mark.parametrize("program", sorted(PROGRAMS))
def test_which_form(tmp_path, program, monkeypatch, capsys):
    """Every part's code (SRCAD_DEBUG's print: the callees' parts too)."""
    monkeypatch.setattr(srcad.pipeline.switches, "DEBUG", True)
    module = _module(tmp_path, PROGRAMS[program][0], f"sparse_form_{program}")
    srcad.grad(module.f, wrt=(0, 1, 2))(*_inputs((3,), "list"))
    code = capsys.readouterr().err
    if PROGRAMS[program][1]:
        assert "[None] * len(xs)" in code and "filled(" in code
        # an entry stored where it may hold a gradient already adds to it; the first store
        # at a constant index in the top block stores alone (test_first_store_alone)
        assert " is None else " in code or program in FIRST_STORES
    else:
        assert "[None] * len(xs)" not in code



@pytest.mark.parametrize("program", ["unread_items", "unpacked", "aliased_constants",
                                     "loop_between", "branch_between"])
def test_first_store_alone(tmp_path, program, monkeypatch, capsys):
    """``dxs[k] = g`` (no test) exactly where the entry is known to hold nothing: a careful
    person's code for ``a, b, c, d = xs``; the tested form wherever an earlier store may have
    reached the entry (``xs[-4]`` then ``xs[0]``; a loop's or a branch's store first)."""
    monkeypatch.setattr(srcad.pipeline.switches, "DEBUG", True)
    module = _module(tmp_path, PROGRAMS[program][0], f"sparse_first_{program}")
    srcad.grad(module.f, wrt=(0, 1, 2))(*_inputs((3,), "list"))
    code = capsys.readouterr().err
    stores = [line.strip() for line in code.splitlines() if line.strip().startswith("dxs[")]
    alone = [line for line in stores if " is None else " not in line]
    if program in FIRST_STORES:
        assert stores and alone == stores
    else:
        assert len(alone) < len(stores)
    if program == "aliased_constants":  # one of each sign stored alone, at most
        signs = {line.startswith("dxs[-") for line in alone}
        assert len(signs) == len(alone)

SECOND = {
    "callee": '''
def cell(xs, w):
    return np.sum(np.tanh(xs[0] * w) * xs[1]) + np.sum(xs[1] ** 2 * xs[0])


def f(x, w):
    return cell([x * 2.0, np.sin(x), x], w) + np.sum(x * w)
''',
    "callee_in_loop": '''
def cell(xs, w):
    return [np.tanh(xs[0] * w) + xs[1], xs[1] * 0.5]


def f(x, w):
    state = [x, np.cos(x)]
    for t in range(3):
        state = cell(state, w)
    return np.sum(state[0] * state[1])
''',
}


@pytest.mark.parametrize("program", sorted(SECOND))
def test_vjp_jvp_and_hessians(tmp_path, program):
    """Through a callee whose list parameter is sparse: vjp, jvp, and both Hessian modes
    (which differentiate the plain form: no sparse lists there), against autograd, and the
    Hessian by differences of srcad's gradient."""
    text = SECOND[program]
    module, twin = _module(tmp_path, text, f"sparse_second_{program}"), _twin(text)
    x, w = RNG.standard_normal(3), RNG.standard_normal(3)
    want = autograd.grad(twin, 0)(x, w)
    np.testing.assert_allclose(srcad.grad(module.f)(x, w), want, rtol=1e-9, atol=1e-12)
    value, pullback = srcad.vjp(module.f, x, w)
    np.testing.assert_allclose(value, module.f(x, w), rtol=1e-12)
    np.testing.assert_allclose(pullback(1.0)[0], want, rtol=1e-9, atol=1e-12)
    t = RNG.standard_normal(3)
    _, tangent = srcad.jvp(module.f, (x, w), (t, np.zeros(3)))
    np.testing.assert_allclose(tangent, np.sum(want * t), rtol=1e-9, atol=1e-12)
    hess = autograd.hessian(twin, 0)(x, w)
    for mode in ("fwd", "rev"):
        np.testing.assert_allclose(srcad.hessian(module.f, mode=mode)(x, w), hess,
                                   rtol=1e-8, atol=1e-10)
    grad = srcad.grad(module.f)
    for k in range(3):
        e = np.zeros(3)
        e[k] = 1e-5
        column = (grad(x + e, w) - grad(x - e, w)) / 2e-5
        np.testing.assert_allclose(column, hess[:, k], rtol=1e-5, atol=1e-6)


def test_filled_makes_every_entry_a_new_array_of_its_item():
    from srcad.runtime.items import filled

    items = [np.ones(3), np.ones((2, 2)), np.ones(2), np.ones(2), np.ones(2, np.float32)]
    view = np.broadcast_to(np.float64(2.0), (2,))
    mine = np.full(2, 3.0)
    out = filled([None, 1.5, view, mine, np.ones(2, np.float32)], items)
    np.testing.assert_array_equal(out[0], np.zeros(3))
    np.testing.assert_array_equal(out[1], np.full((2, 2), 1.5))
    np.testing.assert_array_equal(out[2], np.full(2, 2.0))
    assert out[2].flags.writeable and out[3] is mine and out[4].dtype == np.float64
    twice = filled([mine, mine], [np.ones(2), np.ones(2)])
    assert twice[0] is mine and twice[1] is not mine
    np.testing.assert_array_equal(twice[1], mine)
