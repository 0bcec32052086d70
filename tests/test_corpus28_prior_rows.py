"""Round 28: a counting loop writing an array row by row while reading the row before by its
index, ``h[:, t, :], c = step(x[:, t, :], h[:, t - 1, :], W)`` with the step's cache (a view
of row ``t - 1``) kept, refused before ("h shares memory with caches, which is read
afterwards"). cs231n's ``rnn_forward`` as some students write it: row 0 written before the
loop and ``range(1, T)``, or ``if t == 0: prev = h0 else: prev = h[:, t - 1, :]``.

Row ``t - c`` (``c >= 1``) is never written again by the loop's write of row ``t``, and is a
row counted from the start wherever ``t - c >= 0`` certainly holds (the range's start, raised
by the tests of the branches the view sits in: :mod:`srcad.analysis.row_views`). Checked
against central differences and autograd on the same recurrences written without writes
(lists of rows). Where ``t - c`` may be negative (``h[t - 1]`` at ``t = 0`` is the last row,
which the loop writes later: Python's kept view changes), it stays refused.
"""

import autograd
import autograd.numpy as anp
import numpy as np
import pytest

import srcad
from srcad.errors import MutationError
from srcad.tools.check import numerical_grad
from tests.sampling import sample


def step(x, prev, W):
    nh = np.tanh(x * W + prev)
    return nh, (x, prev, nh)


def row_zero_first(x, h0, W):  # row 0 before the loop, range(1, T), h[:, t - 1, :]
    N, T, D = x.shape
    h = np.zeros((N, T, D))
    caches = []
    h[:, 0, :], c = step(x[:, 0, :], h0, W)
    caches.append(c)
    for t in range(1, T):
        h[:, t, :], c = step(x[:, t, :], h[:, t - 1, :], W)
        caches.append(c)
    return h, [c[1] for c in caches]


def branch_equal(x, h0, W):  # if t == 0: h0, else the row before
    N, T, D = x.shape
    h = np.zeros((N, T, D))
    caches = []
    for t in range(T):
        if t == 0:
            prev = h0
        else:
            prev = h[:, t - 1, :]
        h[:, t, :], c = step(x[:, t, :], prev, W)
        caches.append(c)
    return h, [c[1] for c in caches]


def branch_is(x, h0, W):  # `if idx is 0` (as written for Python 2), the dict of caches
    N, T, D = x.shape
    h = np.zeros((N, T, D))
    cache = {}
    for idx in range(T):
        if idx is 0:  # noqa: F632 (as the students wrote it)
            h[:, idx, :], cache[idx] = step(x[:, idx, :], h0, W)
        else:
            h[:, idx, :], cache[idx] = step(x[:, idx, :], h[:, idx - 1, :], W)
    return h, [cache[i][1] for i in range(T)]


def branch_greater(x, h0, W):  # if t > 0: the row before, read after the write too
    N, T, D = x.shape
    h = np.zeros((N, T, D))
    kept = []
    for t in range(T):
        prev = h0
        if t > 0:
            prev = h[:, t - 1, :]
        h[:, t, :] = np.tanh(x[:, t, :] * W + prev)
        kept.append(h[:, t - 1, :] if t >= 1 else h0)
    return h, kept


def two_back(x, h0, W):  # range(2, T): rows t - 1 and t - 2, rows 0, 1 stay zero
    N, T, D = x.shape
    h = np.zeros((N, T, D))
    kept = []
    for t in range(2, T):
        a = h[:, t - 1, :]
        b = h[:, t - 2, :]
        h[:, t, :] = np.tanh(x[:, t, :] * W + a + 0.5 * b + h0)
        kept.append(b)
    return h, kept


def _reference(x, h0, W, form):
    """The same recurrences as lists of rows (no writes), for autograd."""
    N, T, D = x.shape
    rows, kept = [], []
    for t in range(T):
        if form == "two_back":
            if t < 2:
                rows.append(anp.zeros((N, D)))
                continue
            new = anp.tanh(x[:, t, :] * W + rows[t - 1] + 0.5 * rows[t - 2] + h0)
            kept.append(rows[t - 2])
        else:
            prev = h0 if t == 0 else rows[t - 1]
            new = anp.tanh(x[:, t, :] * W + prev)
            kept.append(prev if form != "branch_greater" or t >= 1 else h0)
        rows.append(new)
    return anp.stack(rows, axis=1), kept


FORMS = [row_zero_first, branch_equal, branch_is, branch_greater, two_back]


def loss_of(forward):
    def loss(x, h0, W):
        h, kept = forward(x, h0, W)
        total = np.sum(h ** 2)
        for k in kept:
            total = total + np.sum(np.sin(k))
        return total
    return loss


def reference_loss(forward):
    def loss(x, h0, W):
        h, kept = _reference(x, h0, W, forward.__name__)
        total = anp.sum(h ** 2)
        for k in kept:
            total = total + anp.sum(anp.sin(k))
        return total
    return loss


#: by default (every 16th): branch_is's ``idx is 0`` w.r.t. x; the long run every case
CASES = [(f, wrt) for f in FORMS[2:] + FORMS[:2] for wrt in (0, 1, 2)]


@pytest.mark.parametrize("forward, wrt", sample(CASES, 8),
                         ids=lambda v: getattr(v, "__name__", str(v)))
def test_prior_rows_against_differences_and_autograd(forward, wrt):
    rs = np.random.RandomState(wrt)
    args = rs.randn(2, 4, 3), rs.randn(2, 3), rs.randn(3)
    loss = loss_of(forward)
    got = srcad.grad(loss, wrt=wrt)(*args)
    assert np.allclose(got, numerical_grad(loss, args, wrt=wrt), rtol=1e-5, atol=1e-6)
    assert np.allclose(got, autograd.grad(reference_loss(forward), wrt)(*args), rtol=1e-9,
                       atol=1e-12)
    assert np.allclose(srcad.value_and_grad(loss, wrt=wrt)(*args)[0],
                       reference_loss(forward)(*args))


# --- the forms where row t - c may be counted from the end: still refused ------------------


def from_zero(x, h0, W):  # t = 0 reads row -1, the last, written at t = T - 1
    N, T, D = x.shape
    h = np.zeros((N, T, D))
    kept = []
    for t in range(T):
        h[:, t, :], c = step(x[:, t, :] + h0, h[:, t - 1, :], W)
        kept.append(c[1])
    return h, kept


def guard_too_weak(x, h0, W):  # t > 0 leaves t - 2 = -1 at t = 1
    N, T, D = x.shape
    h = np.zeros((N, T, D))
    kept = []
    for t in range(T):
        prev = h0
        if t > 0:
            prev = h[:, t - 2, :]
        h[:, t, :] = np.tanh(x[:, t, :] * W + prev)
        kept.append(prev)
    return h, kept


def guard_other_name(x, h0, W):  # the test is of another counter
    N, T, D = x.shape
    h = np.zeros((N, T, D))
    kept = []
    s = 0
    for t in range(T):
        prev = h0
        if s > 0:
            prev = h[:, t - 1, :]
        h[:, t, :] = np.tanh(x[:, t, :] * W + prev)
        kept.append(prev)
        s = s + 1
    return h, kept


def written_later(x, h0, W):  # row t - 1 written again after its view is kept
    N, T, D = x.shape
    h = np.zeros((N, T, D))
    kept = []
    for t in range(1, T):
        prev = h[:, t - 1, :]
        h[:, t, :] = np.tanh(x[:, t, :] * W + prev + h0)
        h[:, t - 1, :] = 0.5 * h[:, t, :]
        kept.append(prev)
    return h, kept


@pytest.mark.parametrize("forward", sample([from_zero, guard_too_weak, guard_other_name,
                                            written_later], 2), ids=lambda f: f.__name__)
def test_prior_rows_python_changes_refused(forward):
    rs = np.random.RandomState(0)
    args = rs.randn(2, 4, 3), rs.randn(2, 3), rs.randn(3)
    with pytest.raises(MutationError, match="shares memory"):
        srcad.grad(loss_of(forward), wrt=2)(*args)
