"""Fast paths of runtime helpers that generated code calls in loops: ``grad_concatenate``'s
cut of NumPy arrays by basic slicing, and ``grad_einsum``'s BLAS contraction above a
work threshold. Each is checked on a generated family of shapes, axes and subscripts, on
both sides of the path's conditions, against finite differences and against autograd."""

import itertools

import numpy as np
import pytest

import srcad
from srcad.runtime import numpy_linalg
from srcad.runtime.numpy_shape import grad_concatenate
from srcad.tools.check import numerical_grad

autograd = pytest.importorskip("autograd")
anp = pytest.importorskip("autograd.numpy")


# ---------------------------------------------------------------- concatenate


def _concat_cases():
    rng = np.random.default_rng(1)
    for rank, axis, count in itertools.product((1, 2, 3), (0, 1, 2, -1, -2), (1, 2, 3)):
        if not -rank <= axis < rank:
            continue
        base = [2, 3, 4][:rank]
        shapes = []
        for j in range(count):
            shape = list(base)
            shape[axis] = 1 + (j + rank) % 3
            shapes.append(tuple(shape))
        yield [rng.normal(size=s) for s in shapes], axis


CONCAT = list(_concat_cases())


@pytest.mark.parametrize(("pieces", "axis"), CONCAT,
                         ids=[f"{[p.shape for p in c[0]]}-{c[1]}" for c in CONCAT])
def test_concatenate_gradient(pieces, axis):
    weights = np.random.default_rng(2).normal(size=np.concatenate(pieces, axis).shape)

    def f(xs):
        return np.sum(weights * np.sin(np.concatenate(xs, axis=axis)))

    def f_autograd(xs):
        return anp.sum(weights * anp.sin(anp.concatenate(xs, axis=axis)))

    got = srcad.grad(f)(tuple(pieces))
    want = autograd.grad(f_autograd)(tuple(pieces))
    assert len(got) == len(pieces)
    for i, (g, w) in enumerate(zip(got, want, strict=True)):
        np.testing.assert_allclose(g, w, rtol=1e-12, atol=1e-12)

        def one(x, i=i):
            return f(tuple(x if j == i else p for j, p in enumerate(pieces)))

        np.testing.assert_allclose(g, numerical_grad(one, (pieces[i],)), rtol=1e-6, atol=1e-8)


def test_concatenate_pieces_outside_the_fast_path():
    """A list, a number, a complex gradient and an array of another rank take the general
    path: the same pieces as the cut."""
    g = np.arange(6.0)
    assert [p.tolist() for p in grad_concatenate(g, (np.ones(2), np.ones(4)), 0)] == [
        [0.0, 1.0], [2.0, 3.0, 4.0, 5.0]]
    mixed = grad_concatenate(g, ([1.0, 2.0], np.ones(4)), 0)
    assert mixed[0] == [0.0, 1.0] and mixed[1].tolist() == [2.0, 3.0, 4.0, 5.0]
    gc = g + 1j
    pieces = grad_concatenate(gc, (np.ones(3), np.ones(3, complex)), 0)
    np.testing.assert_array_equal(np.concatenate(pieces), gc)


# ---------------------------------------------------------------- einsum

SPECS = ["ijk,mik->mij", "ij,jk->ik", "mij,mik->ijk", "i,i->", "ij,j->i", "bij,bjk->bik"]


def _operands(spec, size, rng):
    ins = spec.split("->")[0].split(",")
    dims = {c: size if c in "mb" else 3 for c in set("".join(ins))}
    return [rng.normal(size=tuple(dims[c] for c in s)) for s in ins]


EINSUM = [(spec, size) for spec in SPECS for size in (2, 600)]


@pytest.mark.parametrize(("spec", "size"), EINSUM, ids=[f"{s}-{n}" for s, n in EINSUM])
def test_einsum_gradient_both_paths(spec, size):
    """Small iteration spaces keep NumPy's plain loops, large ones (here 3*3*3*600) go to
    BLAS: both give the gradient of finite differences, the tape and autograd."""
    ops = _operands(spec, size, np.random.default_rng(3))

    def f(a, b):
        return np.sum(np.cos(np.einsum(spec, a, b)))

    def f_autograd(a, b):
        return anp.sum(anp.cos(anp.einsum(spec, a, b)))

    got = srcad.grad(f, wrt=(0, 1))(*ops)
    want = autograd.grad(f_autograd, (0, 1))(*ops)
    rng = np.random.default_rng(4)
    for i, (g, w) in enumerate(zip(got, want, strict=True)):
        np.testing.assert_allclose(g, w, rtol=1e-10, atol=1e-10)
        # finite differences along a random direction (every element's would take 2 * 5400
        # evaluations at size 600)
        u = rng.normal(size=g.shape)

        def along(t, i=i, u=u):
            return f(*[op + t * u if k == i else op for k, op in enumerate(ops)])

        fd = numerical_grad(along, (0.0,), 0)
        assert np.sum(g * u) == pytest.approx(fd, rel=1e-5, abs=1e-6)


def test_einsum_threshold_splits_the_family():
    """The family above lies on both sides of the threshold (else it tests one path only)."""
    works = {size: 27 * size for size in (2, 600)}
    assert works[2] <= numpy_linalg._EINSUM_BLAS < works[600]


# ---------------------------------------------------------------- np.array of numbers


def test_array_of_numbers_gradient():
    """``np.array([a[1] * b[2], ...])`` of NumPy and Python floats: one list of floats back."""
    from srcad.runtime.numpy_shape import grad_array

    g = np.array([0.5, -1.5, 2.0])
    items = [np.float64(1.0), 2.0, np.float64(3.0)]
    got = grad_array(g, items)
    assert got == [0.5, -1.5, 2.0] and all(type(v) is float for v in got)
    gc = g + 1j
    assert grad_array(gc, items) == [complex(v) for v in gc]
    mixed = grad_array(g, [1.0, np.ones(1)[0], 3])  # an int item: the general path
    assert mixed == [0.5, -1.5, 2.0]

    def f(a, b):
        v = np.array([a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], 2.0 * a[0]])
        return np.sum(v * v * b)

    def f_autograd(a, b):
        v = anp.array([a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], 2.0 * a[0]])
        return anp.sum(v * v * b)

    a, b = np.array([0.3, -0.7, 1.1]), np.array([0.9, 0.4, -0.2])
    got = srcad.grad(f, wrt=(0, 1))(a, b)
    want = autograd.grad(f_autograd, (0, 1))(a, b)
    for i, (g_, w) in enumerate(zip(got, want, strict=True)):
        np.testing.assert_allclose(g_, w, rtol=1e-12)
        np.testing.assert_allclose(g_, numerical_grad(f, (a, b), wrt=i), rtol=1e-6)


# ---------------------------------------------------------------- products of two vectors

PRODUCTS = {
    "dot": (lambda u, v: np.dot(u, v), lambda u, v: anp.dot(u, v)),
    "matmul": (lambda u, v: u @ v, lambda u, v: anp.matmul(u, v)),
    "np_matmul": (lambda u, v: np.matmul(u, v), lambda u, v: anp.matmul(u, v)),
}


def _product_programs(prod, aprod):
    """The product's gradient is the other vector times a number, which tidy may fold to the
    other vector itself (a seed of 1.0): later gradients added into it must not change it."""

    def first(u, v):
        return prod(u, v) + np.sum(np.sin(u) * v)

    def a_first(u, v):
        return aprod(u, v) + anp.sum(anp.sin(u) * v)

    def scaled(u, v):
        return 3.0 * prod(u, v * v) - np.sum(u * u)

    def a_scaled(u, v):
        return 3.0 * aprod(u, v * v) - anp.sum(u * u)

    def looped(u, v):
        total = 0.0
        for k in range(3):
            total = total + prod(u, v) * k + np.sum(u[k] * v)
        return total

    def a_looped(u, v):
        total = 0.0
        for k in range(3):
            total = total + aprod(u, v) * k + anp.sum(u[k] * v)
        return total

    return [(first, a_first), (scaled, a_scaled), (looped, a_looped)]


VECTOR_CASES = [(name, i) for name in PRODUCTS for i in range(3)]


@pytest.mark.parametrize(("name", "i"), VECTOR_CASES, ids=[f"{n}-{i}" for n, i in VECTOR_CASES])
def test_vector_products(name, i):
    f, a_f = _product_programs(*PRODUCTS[name])[i]
    rng = np.random.default_rng(i)
    u, v = rng.normal(size=3), rng.normal(size=3)
    u0, v0 = u.copy(), v.copy()
    for wrt in ((0, 1), (0,), (1,)):
        got = srcad.grad(f, wrt=wrt)(u, v)
        got = got if isinstance(got, tuple) else (got,)
        want = autograd.grad(a_f, wrt)(u, v)
        for k, g, w in zip(wrt, got, want, strict=True):
            np.testing.assert_allclose(g, w, rtol=1e-12, atol=1e-12)
            np.testing.assert_allclose(g, numerical_grad(f, (u, v), wrt=k), rtol=1e-6)
        np.testing.assert_array_equal(u, u0)  # the arguments are as they were
        np.testing.assert_array_equal(v, v0)
    np.testing.assert_allclose(srcad.hessian(f)(u, v), autograd.hessian(a_f)(u, v),
                               rtol=1e-8, atol=1e-10)
    np.testing.assert_array_equal(u, u0)


# ---------------------------------------------------------------- reverse Jacobians


def _jacobian_programs(npm):
    def rotate(cam, x, w):
        c, s = npm.cos(cam[0]), npm.sin(cam[0])
        return w * npm.array([c * x[0] - s * x[1], s * x[0] + c * x[1]]) + cam[1:3]

    def grid(a, b):
        return npm.outer(a, b) * npm.sum(a)

    return {"rotate": rotate, "grid": grid}


JAC = _jacobian_programs(np)
A_JAC = _jacobian_programs(anp)


def test_reverse_jacobian_rows_each_call():
    """Every call after the first takes the rows from one forward part: the same Jacobian as
    autograd's, for new values each time, a matrix output and a float argument included."""
    rng = np.random.default_rng(4)
    jac = srcad.jacobian(JAC["rotate"], wrt=(0, 1, 2))
    jac2 = srcad.jacobian(JAC["grid"], wrt=(0, 1))
    for _ in range(3):
        cam, x, w = rng.normal(size=3), rng.normal(size=2), float(rng.normal())
        got = jac(cam, x, w)
        for k, g in enumerate(got):
            want = autograd.jacobian(A_JAC["rotate"], k)(cam, x, w)
            np.testing.assert_allclose(g, want, rtol=1e-12, atol=1e-12)
        assert got[2].shape == (2,)
        a, b = rng.normal(size=3), rng.normal(size=2)
        for k, g in enumerate(jac2(a, b)):
            want = autograd.jacobian(A_JAC["grid"], k)(a, b)
            assert g.shape == want.shape == (3, 2) + ((3,) if k == 0 else (2,))
            np.testing.assert_allclose(g, want, rtol=1e-12, atol=1e-12)


# ---------------------------------------------------------------- mutable

MUTABLE_CASES = [
    [np.ones(2), 0.5], (np.ones(2), np.zeros(3)), [[np.ones(2)], (1.5, [np.ones(1)])],
    [{"a": np.ones(2)}, np.float64(2.0)], [], [np.ones(2, dtype=complex), 1j],
]


@pytest.mark.parametrize("grad", MUTABLE_CASES, ids=range(len(MUTABLE_CASES)))
def test_mutable_fast_path(grad):
    """A new list for each list or tuple, a new dict for each dict, leaves shared: the fast
    path (a list or tuple of arrays and floats) and the general one agree."""
    from srcad.runtime.helpers import mutable

    def same(out, g):
        if isinstance(g, (list, tuple)):
            assert type(out) is list and out is not g and len(out) == len(g)
            return all(same(o, v) for o, v in zip(out, g))
        if isinstance(g, dict):
            assert type(out) is dict and out is not g and out.keys() == g.keys()
            return all(same(out[k], g[k]) for k in g)
        return out is g

    assert same(mutable(grad), grad)


# ---------------------------------------------------------------- a number spread by grad_sum


@pytest.mark.parametrize("g", [0.3, np.float64(-1.5), 2.0 - 1.0j, np.complex128(0.5j)],
                         ids=["float", "float64", "complex", "complex128"])
@pytest.mark.parametrize("shape", [(), (3,), (2, 5), (4097,)])
def test_grad_sum_and_mean_of_a_number(g, shape):
    """A number spread over an array (the new array below 4097 elements, the broadcast view
    above): the values and dtype ``np.full`` gives, for the sum and the mean."""
    from srcad.runtime.numpy_reductions import grad_mean, grad_sum

    a = np.ones(shape)
    for got, want in ((grad_sum(g, a), np.full(shape, g)),
                      (grad_mean(g, a), np.full(shape, g / max(a.size, 1)))):
        assert got.shape == want.shape and got.dtype == want.dtype
        np.testing.assert_array_equal(got, want)
