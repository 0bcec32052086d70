"""Round 27: a counting loop writing an array row by row while views of the rows already
written are kept (cs231n's ``rnn_forward`` as two students wrote it: ``h[:, t, :], c =
step(x[:, t, :], prev_h, ...)`` then ``prev_h = h[:, t, :]``, the step's cache holding
``prev_h``), refused before ("h shares memory with cache, which is read afterwards").

Iteration ``t`` writes row ``t`` alone, and each view kept was taken of a row after its write,
never written again (:mod:`srcad.analysis.row_views` states the conditions). Checked against
central differences and autograd on the same function written without writes (a list of
rows, ``np.stack``); also a view taken before its row's write (``v = hs[t]; hs[t] = ...``),
which srcad's frontend takes again after the write, as Python's ``v`` sees it. The forms
that do let Python change a kept view stay refused: a loop counting from a negative start
(``hs[-1]`` is the last row), the array made outside an enclosing loop, the write in a
nested loop, a view along another axis, a write into the view itself.
"""

import autograd
import autograd.numpy as anp
import numpy as np
import pytest

import srcad
from srcad.errors import MutationError
from srcad.tools.check import numerical_grad
from tests.sampling import sample


def step(x, prev_h, W):
    nh = np.tanh(x * W + prev_h)
    return nh, (x, prev_h, nh)


def rows_list(x, h0, W):  # hs[t] written, hs[t] kept through the step's cache (a list)
    T = x.shape[0]
    cache = []
    hs = np.zeros((T, h0.shape[0]))
    cur = h0
    for t in range(T):
        hs[t], c = step(x[t], cur, W)
        cur = hs[t]
        cache.append(c)
    return hs, [c[1] for c in cache]


def rows_axis1(x, h0, W):  # h[:, t, :] of a 3-d array, the caches in a dict
    N, T, D = x.shape
    h = np.zeros((N, T, h0.shape[1]))
    caches = {}
    prev_h = h0
    for i in range(T):
        h[:, i, :], caches[f'cache{i}'] = step(x[:, i, :], prev_h, W)
        prev_h = h[:, i, :]
    return h, [caches[f'cache{i}'][1] for i in range(T)]


def rows_from_one(x, h0, W):  # range(1, T): row 0 stays zero
    T = x.shape[0]
    kept = []
    hs = np.zeros((T, h0.shape[0]))
    cur = h0
    for t in range(1, T):
        hs[t] = np.tanh(x[t] * W + cur)
        cur = hs[t]
        kept.append(cur)
    return hs, kept


def rows_by_two(x, h0, W):  # range(0, T, 2), a view's transpose kept
    T = x.shape[0]
    kept = []
    hs = np.zeros((T, h0.shape[0], 1))
    cur = h0
    for t in range(0, T, 2):
        hs[t, :, :] = np.tanh(x[t] * W + cur)[:, None]
        v = hs[t, :, :]
        cur = v[:, 0]
        kept.append(v.T)
    return hs, kept


def view_before_write(x, h0, W):  # v re-taken after the write (frontend): Python's v
    T = x.shape[0]
    kept = []
    hs = np.zeros((T, h0.shape[0]))
    for t in range(T):
        v = hs[t]  # row t before its write: Python's v sees the write
        hs[t] = np.tanh(x[t] * W + h0)
        kept.append(v)
    return hs, kept


def _rows(x, h0, W, start, stride, axis, prev, chain):
    """The same recurrences without writes (a list of rows): the reference for autograd.
    ``prev``: the state before each step is kept (the step's cache), else the new row;
    ``chain``: each step reads the last row, else ``h0``."""
    T = x.shape[axis]
    rows, kept, cur = [], [], h0
    for t in range(T):
        if t < start or (t - start) % stride:
            rows.append(anp.zeros_like(h0))
            continue
        xt = x[t] if axis == 0 else x[:, t, :]
        new = anp.tanh(xt * W + (cur if chain else h0))
        kept.append(cur if prev else new)
        cur = new
        rows.append(new)
    return anp.stack(rows, axis=axis), kept


REFERENCES = {rows_list: (0, 1, 0, True, True), rows_axis1: (0, 1, 1, True, True),
              rows_from_one: (1, 1, 0, False, True), rows_by_two: (0, 2, 0, False, True),
              view_before_write: (0, 1, 0, False, False)}


def loss_of(forward):
    def loss(x, h0, W):
        hs, kept = forward(x, h0, W)
        total = np.sum(hs ** 2)
        for k in kept:
            total = total + np.sum(np.sin(k))
        return total
    return loss


def reference_loss(forward):
    def loss(x, h0, W):
        hs, kept = _rows(x, h0, W, *REFERENCES[forward])
        total = anp.sum(hs ** 2)
        for k in kept:
            total = total + anp.sum(anp.sin(k))
        return total
    return loss


def inputs(forward, rs):
    if forward is rows_axis1:
        return rs.randn(2, 4, 3), rs.randn(2, 3), rs.randn(3)
    return rs.randn(5, 3), rs.randn(3), rs.randn(3)


CASES = [(f, wrt) for wrt in (0, 1, 2) for f in REFERENCES]  # (by default: each wrt)


@pytest.mark.parametrize("forward, wrt", sample(CASES, 3),
                         ids=lambda v: getattr(v, "__name__", str(v)))
def test_rows_kept_against_differences_and_autograd(forward, wrt):
    args = inputs(forward, np.random.RandomState(wrt))
    loss = loss_of(forward)
    got = srcad.grad(loss, wrt=wrt)(*args)
    assert np.allclose(got, numerical_grad(loss, args, wrt=wrt), rtol=1e-5, atol=1e-6)
    assert np.allclose(got, autograd.grad(reference_loss(forward), wrt)(*args), rtol=1e-9,
                       atol=1e-12)
    assert np.allclose(srcad.value_and_grad(loss, wrt=wrt)(*args)[0],
                       reference_loss(forward)(*args))


# --- the forms where Python changes a kept view: still refused ----------------------------


def negative_start(x, h0, W):
    T = x.shape[0]
    kept = []
    hs = np.zeros((T, h0.shape[0]))
    cur = h0
    for t in range(-1, T):  # t = -1 writes the last row, written again at t = T - 1
        hs[t] = np.tanh(x[t] * W + cur)
        cur = hs[t]
        kept.append(cur)
    return hs, kept


def outer_loop(x, h0, W):
    T = x.shape[0]
    kept = []
    hs = np.zeros((T, h0.shape[0]))  # one array for both passes: row t written twice
    cur = h0
    for _ in range(2):
        for t in range(T):
            hs[t] = np.tanh(x[t] * W + cur)
            cur = hs[t]
            kept.append(cur)
    return hs, kept


def nested_write(x, h0, W):
    T = x.shape[0]
    kept = []
    hs = np.zeros((T, h0.shape[0]))
    cur = h0
    for t in range(T):
        for j in range(2):  # row t written twice, its first view kept
            hs[t] = np.tanh(x[t] * W * (j + 1) + cur)
            cur = hs[t]
            kept.append(cur)
    return hs, kept


def other_axis(x, h0, W):
    T = x.shape[0]
    kept = []
    hs = np.zeros((T, T))
    for t in range(T):
        hs[t] = np.tanh(x[t, 0] * W[0] + h0[0] * np.ones(T))
        kept.append(hs[:, t])  # a column: later rows' writes change it
    return hs, kept


def write_into_view(x, h0, W):
    T = x.shape[0]
    kept = []
    hs = np.zeros((T, h0.shape[0]))
    cur = h0
    for t in range(T):
        hs[t] = np.tanh(x[t] * W + cur)
        cur = hs[t]
        cur[0] = 0.5 * cur[0]  # a write into the row through the view
        kept.append(cur)
    return hs, kept


@pytest.mark.parametrize("forward", [negative_start, outer_loop,
                                     nested_write, other_axis, write_into_view],
                         ids=lambda f: f.__name__)
def test_views_python_changes_stay_refused(forward):
    args = inputs(rows_list, np.random.RandomState(0))
    with pytest.raises(MutationError):
        srcad.grad(loss_of(forward), wrt=2)(*args)


@pytest.mark.parametrize("forward", sample([view_before_write, rows_list, rows_axis1], 3),
                         ids=lambda f: f.__name__)
def test_rows_kept_hessian_against_autograd(forward):
    x, h0, W = inputs(forward, np.random.RandomState(1))
    loss, reference = loss_of(forward), reference_loss(forward)
    got = srcad.hessian(lambda w: loss(x, h0, w))(W)
    assert np.allclose(got, autograd.hessian(lambda w: reference(x, h0, w))(W), rtol=1e-8,
                       atol=1e-10)
