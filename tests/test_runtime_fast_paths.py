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
    for i, (g, w) in enumerate(zip(got, want, strict=True)):
        np.testing.assert_allclose(g, w, rtol=1e-10, atol=1e-10)
        np.testing.assert_allclose(g, numerical_grad(f, ops, wrt=i), rtol=1e-5, atol=1e-6)


def test_einsum_threshold_splits_the_family():
    """The family above lies on both sides of the threshold (else it tests one path only)."""
    works = {size: 27 * size for size in (2, 600)}
    assert works[2] <= numpy_linalg._EINSUM_BLAS < works[600]
