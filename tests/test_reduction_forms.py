"""Call forms that used to be refused and are now differentiated (issue 14): np.max, np.min,
np.amax, np.amin and np.prod (and the methods) with initial= and where=; np.diff with
prepend= and append=; ``del name`` of a local; a second ``d.pop(k)``/``ys.pop(i)``.

Each is checked in reverse mode, forward mode and to second order (the Hessian against
central differences of srcad's gradient), the first derivatives against central differences
and autograd (run on the same computation written in the forms autograd knows: a maximum with
the initial value, np.where for the mask, a concatenation for prepend/append)."""

import numpy as np
import pytest
from srcad.check import numerical_grad

import srcad

try:
    import autograd
    import autograd.numpy as anp
except ImportError:  # autograd is optional: those comparisons skip
    autograd = anp = None

RNG = np.random.default_rng(7)
X = RNG.normal(size=(3, 4))
M = RNG.random((3, 4)) > 0.4
M[:, 0] = True
M[0, :] = True


def max_initial(x):
    return np.sum(np.max(x, axis=1, initial=0.3) ** 2)


def max_initial_ag(x):
    return anp.sum(anp.maximum(anp.max(x, axis=1), 0.3) ** 2)


def min_where(x):
    return np.sum(np.min(x, axis=0, initial=0.5, where=M) * np.arange(1.0, 5.0))


def min_where_ag(x):
    return anp.sum(anp.minimum(anp.min(anp.where(M, x, np.inf), axis=0), 0.5)
                   * np.arange(1.0, 5.0))


def amax_active_initial(x):  # the initial value carries a gradient, and wins in some rows
    return np.sum(np.amax(x[1:], axis=1, initial=x[0, 1] * 0.5, keepdims=True) * x[1:])


def amax_active_initial_ag(x):
    top = anp.maximum(anp.max(x[1:], axis=1, keepdims=True), x[0, 1] * 0.5)
    return anp.sum(top * x[1:])


def method_max(x):
    return x.max(initial=-1.0, where=M) * x[0, 0] + x.min(axis=1, initial=2.0).sum()


def method_max_ag(x):
    return (anp.maximum(anp.max(anp.where(M, x, -np.inf)), -1.0) * x[0, 0]
            + anp.sum(anp.minimum(anp.min(x, axis=1), 2.0)))


def prod_initial(x):
    return np.sum(np.prod(x, axis=1, initial=x[0, 0] + 1.5))


def prod_initial_ag(x):
    return anp.sum((x[0, 0] + 1.5) * anp.prod(x, axis=1))


def prod_where(x):
    return np.sum(np.prod(x, axis=0, where=M) ** 2) + x.prod(initial=0.5, where=M)


def prod_where_ag(x):
    masked = anp.where(M, x, 1.0)
    return anp.sum(anp.prod(masked, axis=0) ** 2) + 0.5 * anp.prod(masked)


def diff_prepend(x):
    return np.sum(np.diff(x, prepend=0.3, axis=1) ** 2)


def diff_prepend_ag(x):
    return anp.sum(anp.diff(anp.concatenate([np.full((3, 1), 0.3), x], axis=1), axis=1) ** 2)


def diff_append(x):
    return np.sum(np.diff(x, n=2, append=x[:, :1] * 2.0) ** 2)


def diff_append_ag(x):
    return anp.sum(anp.diff(anp.diff(anp.concatenate([x, x[:, :1] * 2.0], axis=1))) ** 2)


def diff_both(x):
    return np.sum(np.diff(x, axis=0, prepend=x[:1] * x[:1], append=x[2, 3]) ** 3)


def diff_both_ag(x):
    ends = [x[:1] * x[:1], x, x[2, 3] * anp.ones((1, 4))]
    return anp.sum(anp.diff(anp.concatenate(ends, axis=0), axis=0) ** 3)


def del_name(x):
    y = x * x
    z = np.sum(y) + 1.0
    del y
    w = z * x
    del w, z
    z = np.sum(x * x) + 1.0
    return z * np.sum(x)


def del_name_ag(x):
    return (anp.sum(x * x) + 1.0) * anp.sum(x)


def pops(x):
    d = {"a": x[0], "b": x[1] * x[1], "c": 2.0 * x[2]}
    u = d.pop("a")
    w = d.pop("b")
    ys = [x[0, 0], x[1, 1] * x[0, 1], 3.0 * x[2, 2]]
    a = ys.pop(1)
    b = ys.pop(0)
    return np.sum(u * w + d["c"]) + a * b + ys[0]


def pops_ag(x):
    return anp.sum(x[0] * x[1] * x[1] + 2.0 * x[2]) + x[1, 1] * x[0, 1] * x[0, 0] + 3.0 * x[2, 2]


CASES = [(f, globals()[f.__name__ + "_ag"]) for f in (
    max_initial, min_where, amax_active_initial, method_max, prod_initial, prod_where,
    diff_prepend, diff_append, diff_both, del_name, pops)]
POINTS = [X, X * 0.7 + 0.2]


@pytest.mark.parametrize("f, f_ag", CASES, ids=[f.__name__ for f, _ in CASES])
@pytest.mark.parametrize("k", range(len(POINTS)))
def test_both_modes_and_second_order(f, f_ag, k):
    x = POINTS[k]
    value, grad = srcad.value_and_grad(f)(x)
    assert value == pytest.approx(f(x), rel=1e-12)
    fd = numerical_grad(f, (x,), 0)
    np.testing.assert_allclose(grad, fd, rtol=1e-6, atol=1e-7)
    if autograd is not None:
        np.testing.assert_allclose(autograd.grad(f_ag)(x), fd, rtol=1e-6, atol=1e-7)
        np.testing.assert_allclose(grad, autograd.grad(f_ag)(x), rtol=1e-10, atol=1e-12)
    v = RNG.normal(size=x.shape)
    tangent = srcad.jvp(f, (x,), (v,))[1]
    assert tangent == pytest.approx(np.sum(grad * v), rel=1e-10, abs=1e-12)
    d1 = srcad.grad(f)
    fd_hv = (d1(x + 1e-5 * v) - d1(x - 1e-5 * v)) / 2e-5
    for mode in ("fwd", "rev"):  # forward over reverse, reverse over reverse
        hv = np.tensordot(srcad.hessian(f, mode=mode)(x), v, axes=2)
        np.testing.assert_allclose(hv, fd_hv, rtol=1e-5, atol=1e-6)


def test_refusals_that_stay():
    """del of an item is still refused at its line (del name, in a branch or a loop, is read:
    tests/test_unbound_names.py)."""
    def del_item(x):
        ys = [x, x]
        del ys[0]
        return ys[0]

    def del_in_loop(x):
        s = 0.0
        for i in range(3):
            y = x * i
            s = s + y
            del y
        return s

    with pytest.raises(srcad.SrcadError) as info:
        srcad.grad(del_item)(1.5)
    assert "del" in info.value.construct
    assert srcad.grad(del_in_loop)(1.5) == pytest.approx(3.0)


def test_deleted_name_read_is_refused():
    def read_after(x):
        y = x * x
        del y
        return y  # noqa: F821 - read after del: refused

    with pytest.raises(srcad.SrcadError, match="before it is assigned"):
        srcad.grad(read_after)(1.5)
