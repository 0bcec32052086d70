"""Sound26: the classes PyTorch's OpInfo samples (tools/opinfo_suite.py) found, each as a
small generated family checked against central differences and autograd:

- ``np.transpose``/``a.transpose``/``np.permute_dims`` with negative axes: the gradient was
  transposed by ``argsort`` of the axes as written, a wrong permutation (a wrong shape, or on
  a cube silently wrong numbers) -> the axes taken modulo the rank first;
- ``np.take_along_axis`` whose indices broadcast against the array off the axis (NumPy 2): the
  gradient read the array at the indices' positions (IndexError, or a missed sum over the
  broadcast rows);
- ``np.prod`` over an empty axis: the running products had one element too many (crash);
- ``np.diff`` with ``n=0`` and ``prepend``/``append`` (NumPy returns ``a`` and ignores the
  ends; srcad differenced the joined array: a crash in reverse mode, a tangent that counted
  the ends in forward mode: silently wrong) and with ``n`` larger than the axis (a gradient
  of the wrong length).
"""

from __future__ import annotations

import numpy as np
import pytest
from program_files import load
from sampling import sample

import srcad

ag_np = pytest.importorskip("autograd.numpy")
import autograd  # noqa: E402


def _central(f, args, i, v, h=1e-6):
    plus = list(args)
    minus = list(args)
    plus[i] = args[i] + h * v
    minus[i] = args[i] - h * v
    return (f(*plus) - f(*minus)) / (2 * h)


def _check(f, args, twin=None, seed=0):
    """srcad's reverse gradient (every argument) and forward tangent against central
    differences along random directions, and against autograd's gradient when a twin is
    given."""
    rng = np.random.default_rng(seed)
    n = len(args)
    grads = srcad.grad(f, wrt=tuple(range(n)) if n > 1 else 0)(*args)
    grads = list(grads) if n > 1 else [grads]
    tangents = [rng.standard_normal(np.shape(a)) for a in args]
    _, tangent = srcad.jvp(f, tuple(args), tuple(tangents))
    total = 0.0
    for i, (a, g, v) in enumerate(zip(args, grads, tangents)):
        assert np.shape(g) == np.shape(a)
        want = _central(f, args, i, v)
        assert np.isclose(np.sum(g * v), want, rtol=1e-6, atol=1e-7), (i, np.sum(g * v), want)
        total += want
        if twin is not None:
            assert np.allclose(g, autograd.grad(twin, i)(*args), rtol=1e-9, atol=1e-12)
    assert np.isclose(tangent, total, rtol=1e-6, atol=1e-7), (tangent, total)


def _perm_cases():
    rng = np.random.default_rng(26)
    cases = []
    for ndim in (2, 3, 4):
        for _ in range(4):
            perm = [int(p) for p in rng.permutation(ndim)]
            written = tuple(perm)
            while list(np.argsort(written)) == list(np.argsort(perm)):  # the old rule's miss
                written = tuple(p - ndim if rng.random() < 0.5 else p for p in perm)
            form = ("np.transpose(x, {a})", "x.transpose({a})", "x.transpose(*{a})",
                    "np.permute_dims(x, {a})")[len(cases) % 4]
            cube = len(cases) % 3 == 0  # equal lengths: a wrong permutation keeps the shape
            cases.append((form.format(a=written), f"np.transpose(x, {tuple(perm)})",
                          (3,) * ndim if cube else (2, 3, 4, 5)[:ndim]))
    return cases


@pytest.mark.parametrize("call, plain, shape", sample(_perm_cases(), 4))
def test_transpose_negative_axes(tmp_path, call, plain, shape):
    # autograd is the second opinion on the axes written from 0 (its own transpose gradient
    # takes argsort of negative axes as written, as srcad's did)
    f = load(tmp_path, "perm", f"W = None\n\n\ndef f(x):\n    return np.sum({call} * W)\n",
             (np,))
    twin = load(tmp_path, "plain", f"W = None\n\n\ndef f(x):\n    return np.sum({plain} * W)\n",
                (ag_np,))
    rng = np.random.default_rng(1)
    x = rng.standard_normal(shape)
    w = rng.standard_normal(np.shape(eval(call, {"np": np, "x": x})))
    f.__globals__["W"] = w
    twin.__globals__["W"] = w
    _check(f, [x], twin)


TAKE = [((1, 5), (4, 2), 1), ((5, 1), (2, 3), 0), ((2, 1, 4), (2, 3, 2), 2),
        ((3, 4), (1, 2), 1), ((1, 3, 1), (2, 2, 4), 1)]


@pytest.mark.parametrize("shape, ishape, axis", sample(TAKE, 3))
def test_take_along_axis_broadcasts(tmp_path, shape, ishape, axis):
    rng = np.random.default_rng(2)
    x = rng.standard_normal(shape)
    idx = rng.integers(0, shape[axis], ishape)
    out = np.take_along_axis(x, idx, axis)
    text = f"I = None\nW = None\n\n\ndef f(x):\n    " \
           f"return np.sum(np.take_along_axis(x, I, {axis}) ** 2 * W)\n"
    f = load(tmp_path, "take", text, (np,))
    f.__globals__.update(I=idx, W=rng.standard_normal(out.shape))
    _check(f, [x])
    # the gradient, by hand: each result's derivative summed into the element it read
    want = np.zeros(shape)
    full = np.broadcast_to(idx, out.shape)
    for pos in np.ndindex(out.shape):
        src = tuple(0 if shape[d] == 1 else (full[pos] if d == axis else pos[d])
                    for d in range(len(shape)))
        want[src] += 2 * out[pos] * f.__globals__["W"][pos]
    assert np.allclose(srcad.grad(f)(x), want)


@pytest.mark.parametrize("shape, axis", [((0,), None), ((0, 3), 0), ((2, 0), 1),
                                         ((2, 0, 2), (0, 1))])
def test_prod_over_nothing(tmp_path, shape, axis):
    text = f"def f(x, y):\n    return np.sum(np.prod(x, axis={axis}, keepdims=True) * y)\n"
    f, twin = load(tmp_path, "prod", text, (np, ag_np))
    out = np.prod(np.zeros(shape), axis=axis, keepdims=True).shape
    y = np.arange(1.0, 1.0 + np.prod(out)).reshape(out)
    x = np.zeros(shape)
    gx, gy = srcad.grad(f, wrt=(0, 1))(x, y)
    assert gx.shape == shape and np.allclose(gy, 1.0)  # each product is 1
    assert srcad.jvp(f, (x, y), (x, y))[1] == pytest.approx(np.sum(y))
    assert np.allclose(gy, autograd.grad(twin, 1)(x, y))


DIFF = [("n=0, axis=0, prepend=p", (2, 3), (1, 3)), ("n=0, append=p", (3,), (2,)),
        ("n=0, axis=1, prepend=p, append=p", (2, 2), (2, 1)), ("n=1, axis=0, prepend=p",
                                                             (2, 3), (1, 3)),
        ("n=4, prepend=p", (2,), (1,)), ("n=3, axis=-1, append=p", (2, 1), (2, 1)),
        ("n=2, prepend=2.5", (1,), None)]


@pytest.mark.parametrize("args, shape, pshape", sample(DIFF, 2))
def test_diff_ends(tmp_path, args, shape, pshape):
    if pshape is None:
        text = f"W = None\n\n\ndef f(x):\n    return np.sum(np.diff(x, {args}) ** 2 * W)\n"
    else:
        text = f"W = None\n\n\ndef f(x, p):\n    return np.sum(np.diff(x, {args}) ** 2 * W)\n"
    f = load(tmp_path, "diff", text, (np,))
    rng = np.random.default_rng(3)
    xs = [rng.standard_normal(shape)] + ([rng.standard_normal(pshape)] if pshape else [])
    f.__globals__["W"] = 1.0 + rng.random(np.shape(np.diff(
        xs[0], **eval(f"dict({args})", {"p": xs[-1]}))))
    _check(f, xs)


@pytest.mark.parametrize("n, length", [(3, 2), (5, 4), (2, 0)])
def test_diff_more_than_the_axis(tmp_path, n, length):
    text = f"def f(x):\n    return np.sum(np.diff(x, {n})) + np.sum(x)\n"
    f = load(tmp_path, "diffn", text, (np,))
    x = np.linspace(0.0, 1.0, length)
    assert np.allclose(srcad.grad(f)(x), np.ones(length))


LU = [((3, 3), "l"), ((2, 3, 3), "u"), ((3, 3, 3), "l"), ((1, 2, 4, 4), "u"), ((4, 4), "p")]


@pytest.mark.parametrize("shape, part", sample(LU, 2))
def test_lu_of_a_stack(tmp_path, shape, part):
    """scipy.linalg.lu of a stack of matrices: its gradient transposed whole stacks
    (np.transpose) where each matrix was meant (silently wrong on (3, 3, 3))."""
    scipy_linalg = pytest.importorskip("scipy.linalg")
    k = "plu".index(part)
    text = ("import scipy.linalg\n\nW = None\n\n\ndef f(a):\n"
            f"    return np.sum(scipy.linalg.lu(a)[{k}] * W) + np.sum(scipy.linalg.lu(a)[2])\n")
    f = load(tmp_path, "lu", text, (np,))
    rng = np.random.default_rng(4)
    a = rng.standard_normal(shape) + 4.0 * np.eye(shape[-1])
    f.__globals__["W"] = rng.standard_normal(shape)
    _check(f, [a])
    if len(shape) > 2:  # each matrix's gradient is that of the matrix alone
        g = srcad.grad(f)(a)
        flat, gflat = a.reshape((-1,) + shape[-2:]), g.reshape((-1,) + shape[-2:])
        w = f.__globals__["W"].reshape(flat.shape)
        for i in range(len(flat)):
            v = rng.standard_normal(shape[-2:])
            one = [scipy_linalg.lu(flat[i] + s * v) for s in (1e-6, -1e-6)]
            want = sum(np.sum(one[j][k] * w[i]) * (1, -1)[j] + np.sum(one[j][2]) * (1, -1)[j]
                       for j in (0, 1)) / 2e-6
            assert np.isclose(np.sum(gflat[i] * v), want, rtol=1e-5, atol=1e-7)


@pytest.mark.parametrize("call", ["scipy.linalg.lu(a[..., :2, :])[2]",
                                  "scipy.linalg.lu(a[:, :2])[1]",
                                  "scipy.linalg.lu_factor(a)[0]"])
def test_lu_refusals(tmp_path, call):
    """The factors of a rectangular matrix, and lu_factor of a stack: refused, not a crash."""
    pytest.importorskip("scipy.linalg")
    text = f"import scipy.linalg\n\n\ndef f(a):\n    return np.sum({call})\n"
    f = load(tmp_path, "lu_refused", text, (np,))
    a = np.random.default_rng(5).standard_normal((2, 3, 3)) + 4.0 * np.eye(3)
    with pytest.raises(srcad.SrcadError, match="LU factors|stack of matrices"):
        srcad.grad(f)(a)
    with pytest.raises(srcad.SrcadError, match="LU factors|stack of matrices"):
        srcad.jvp(f, (a,), (a,))


@pytest.mark.parametrize("yshape, xshape, axis", [((2, 3), (2, 3), -1), ((3, 2), (3, 1), 0)])
def test_trapezoid_sample_points_of_two_dimensions(tmp_path, yshape, xshape, axis):
    """np.trapezoid(y, x) with a 2-d x: forward mode exact (linear in x and y), reverse mode
    refused (its rule takes a 1-d x; was a concatenate crash)."""
    text = f"def f(y, x):\n    return np.sum(np.trapezoid(y, x, axis={axis}) ** 2)\n"
    f = load(tmp_path, "trap", text, (np,))
    rng = np.random.default_rng(6)
    y, x = rng.standard_normal(yshape), np.cumsum(rng.random(xshape), axis=axis)
    u, v = rng.standard_normal(yshape), rng.standard_normal(xshape)
    h = 1e-6
    want = (f(y + h * u, x + h * v) - f(y - h * u, x - h * v)) / (2 * h)
    assert srcad.jvp(f, (y, x), (u, v))[1] == pytest.approx(want, rel=1e-6)
    with pytest.raises(srcad.SrcadError, match="np.trapezoid"):
        srcad.grad(f, wrt=(0, 1))(y, x)
    one = load(tmp_path, "trap1", "def f(y, x):\n    return np.sum(np.trapezoid(y, x) ** 2)\n",
               (np,))
    _check(one, [y, np.cumsum(rng.random(yshape[-1]))])


@pytest.mark.parametrize("axes, shape", [((-1, 0, -2), (3, 4, 2)), ((0, -1, 1), (3, 3, 3))])
def test_reference_tape_transpose_negative_axes(tmp_path, axes, shape):
    """srcad's reference tape had the same argsort of negative axes as srcad's rule."""
    from srcad import tape
    f = load(tmp_path, "tape_perm", f"W = None\n\n\ndef f(x):\n"
             f"    return np.sum(np.transpose(x, {axes}) * W)\n", (np,))
    rng = np.random.default_rng(7)
    x = rng.standard_normal(shape)
    w = rng.standard_normal(np.transpose(x, axes).shape)
    f.__globals__["W"] = w
    want = np.transpose(w, tuple(np.argsort(np.mod(axes, len(shape)))))
    assert np.allclose(tape.grad(f)(x), want)
    assert np.allclose(srcad.grad(f)(x), want)
