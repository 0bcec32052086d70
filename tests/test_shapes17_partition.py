"""Equal shapes as a fact of the specialisation (``srcad.specialise.shape_partition``): which
NumPy array arguments share a shape is part of the cache key, checked at every call, and
seeds the shape classes (``srcad.analysis.shapes``), so arrays given with one shape need no
``unbroadcast`` and no run-time guard. A generated family: element-wise programs x argument
shapes (equal, a number with an array, (3, 1) with (1, 4), (3,) with (2, 3), equal and then
broadcasting in one function: two specialisations) x derivatives (grad, value_and_grad, vjp,
jvp, both Hessian modes where small), against autograd and central finite differences; the
generated code of the issue's example; the key holds the partition, not sizes."""

import importlib.util
import itertools

import autograd
import autograd.numpy as anp
import numpy as np
import pytest
from sampling import sample
from srcad.check import numerical_grad

import srcad
from srcad import specialise

RNG = np.random.default_rng(1717)

#: element-wise bodies over the parameters a and b (one line each, returning a number)
BODIES = {
    "example": "c = a * b + np.sin(a)\n    return np.sum(c * b)",
    "quotient": "c = a / (2.0 + b * b)\n    return np.sum(np.tanh(c) * a)",
    "ufuncs": "c = np.logaddexp(a, b) * np.exp(-b)\n    return np.sum(c * c + a)",
    "powers": "c = (a * a + 1.0) ** (0.5 * b)\n    return np.sum(c - b * a)",
    "loop": "t = 0.0\n    for i in range(3):\n        a = a * b + 0.1 * np.cos(a)\n"
            "        t = t + np.sum(a * b)\n    return t",
    "callee": "return np.sum(piece(a, b) * piece(b, a))",
    "returned_shape": "c = a * b\n    d = c + a\n    return np.sum(d * np.sin(b))",
    "branch": "if np.sum(a) > 0:\n        c = a * b\n    else:\n        c = a - np.cos(b)\n"
              "    return np.sum(c * a)",
    "while": "i = 0\n    while i < 3:\n        a = np.sin(a) * b\n        i = i + 1\n"
             "    return np.sum(a * b)",
    # a loop's merged value of the arguments' class, its gradient a copy of b added into in
    # the loop (tidy once made it b itself: the gradient added into the caller's b)
    "loop_then_sum": "c = a * b + np.sin(a)\n    t = 0.0\n    for i in range(3):\n"
                     "        c = c * b + 0.1 * np.cos(c)\n        t = t + np.sum(c * a)\n"
                     "    return t + np.sum(c * b)",
    "product": "return np.sum(a * b)",
}

#: the shapes of a and b
SHAPES = {
    "equal": ((3, 4), (3, 4)),
    "equal_vectors": ((5,), (5,)),
    "number_with_array": ((), (3,)),
    "column_row": ((3, 1), (1, 4)),
    "vector_matrix": ((3,), (2, 3)),
    "matrix_vector": ((2, 3), (3,)),
    "zero_d": ((), ()),
}

HEADER = "import numpy as np\n\n\ndef piece(u, v):\n    return u * v + np.sin(u)\n\n\n"


def _program(tmp_path, body, tag):
    text = HEADER + f"def f(a, b):\n    {BODIES[body]}\n"
    path = tmp_path / f"shapes17_{body}_{tag}.py"
    path.write_text(text)
    spec = importlib.util.spec_from_file_location(path.stem, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    space = {"np": anp}
    exec(compile(text, "<autograd twin>", "exec"), space)  # noqa: S102 -- the same program
    return module.f, space["f"]


def _array(shape):
    return np.array(RNG.standard_normal(shape))


def _check(f, twin, a, b, g):
    got = g(a, b)
    for i, arg in enumerate((a, b)):
        want = autograd.grad(twin, i)(a, b)
        assert np.shape(got[i]) == arg.shape
        np.testing.assert_allclose(got[i], want, rtol=1e-9, atol=1e-12)
        np.testing.assert_allclose(got[i], numerical_grad(f, (a, b), i), rtol=1e-6, atol=1e-8)


CASES = list(itertools.product(BODIES, SHAPES))


@pytest.mark.parametrize("body, shapes", CASES, ids=[f"{b}-{s}" for b, s in CASES])
def test_grad_and_value_and_grad(tmp_path, body, shapes):
    f, twin = _program(tmp_path, body, shapes)
    a, b = (_array(s) for s in SHAPES[shapes])
    a0, b0 = a.copy(), b.copy()
    _check(f, twin, a, b, srcad.grad(f, wrt=(0, 1)))
    value, grads = srcad.value_and_grad(f, wrt=(0, 1))(a, b)
    np.testing.assert_allclose(value, f(a, b), rtol=1e-12)
    for i in (0, 1):
        np.testing.assert_allclose(grads[i], autograd.grad(twin, i)(a, b), rtol=1e-9,
                                   atol=1e-12)
    np.testing.assert_array_equal(a, a0)
    np.testing.assert_array_equal(b, b0)


#: pairs of shape cases of equal ranks, called in turn on one derivative (both orders)
TURNS = [("equal", "column_row"), ("column_row", "equal"), ("equal_vectors", "equal_vectors"),
         ("matrix_vector", "equal")]


@pytest.mark.parametrize("body, turn", list(itertools.product(BODIES, TURNS)))
def test_one_function_called_with_equal_and_broadcasting_shapes(tmp_path, body, turn):
    """Each partition its own specialisation; calls alternate between them (the one-lookup
    path first, then the full one), every gradient right."""
    f, twin = _program(tmp_path, body, "turns")
    g = srcad.grad(f, wrt=(0, 1))
    vg = srcad.value_and_grad(f, wrt=(0, 1))
    for shapes in turn + turn:
        a, b = (_array(s) for s in SHAPES[shapes])
        _check(f, twin, a, b, g)
        value, grads = vg(a, b)
        np.testing.assert_allclose(value, f(a, b), rtol=1e-12)
        np.testing.assert_allclose(grads[1], autograd.grad(twin, 1)(a, b), rtol=1e-9,
                                   atol=1e-12)


SMALL = [("example", "equal_vectors"), ("example", "vector_matrix"), ("loop", "equal_vectors"),
         ("callee", "column_row"), ("quotient", "number_with_array"), ("powers", "equal")]


@pytest.mark.parametrize("body, shapes", SMALL, ids=[f"{b}-{s}" for b, s in SMALL])
def test_vjp_jvp_and_hessians(tmp_path, body, shapes):
    f, twin = _program(tmp_path, body, f"small_{shapes}")
    a, b = (_array(s) for s in SHAPES[shapes])
    value, pullback = srcad.vjp(f, a, b)
    np.testing.assert_allclose(value, f(a, b), rtol=1e-12)
    for i, got in enumerate(pullback(1.0)):
        np.testing.assert_allclose(got, autograd.grad(twin, i)(a, b), rtol=1e-9, atol=1e-12)
    ta, tb = _array(a.shape), _array(b.shape)
    _, tangent = srcad.jvp(f, (a, b), (ta, tb))
    want = np.sum(autograd.grad(twin, 0)(a, b) * ta) + np.sum(autograd.grad(twin, 1)(a, b) * tb)
    np.testing.assert_allclose(tangent, want, rtol=1e-9, atol=1e-12)
    for i in (0, 1):
        hess = autograd.hessian(twin, i)(a, b)
        for mode in ("fwd", "rev"):
            np.testing.assert_allclose(srcad.hessian(f, wrt=i, mode=mode)(a, b), hess,
                                       rtol=1e-8, atol=1e-10)


def test_gradient_of_a_gradient_in_both_partitions(tmp_path):
    f, twin = _program(tmp_path, "example", "second")
    gg = srcad.grad(lambda u, v: np.sum(srcad.grad(f, wrt=(0, 1))(u, v)[0] ** 2), wrt=(0, 1))
    want = autograd.grad(lambda u, v: anp.sum(autograd.grad(twin, 0)(u, v) ** 2), (0, 1))
    for shapes in ("equal", "column_row", "equal"):
        a, b = (_array(s) for s in SHAPES[shapes])
        for got, w in zip(gg(a, b), want(a, b)):
            np.testing.assert_allclose(got, w, rtol=1e-8, atol=1e-10)


EXAMPLE = '''
def f(a, b):
    c = a * b + np.sin(a)
    return np.sum(c * b)
'''


def test_the_example_reads_as_written_by_hand(tmp_path):
    """The issue's example: for arrays of one shape, no unbroadcast, no guard, nothing
    computed only for its shape; for broadcasting shapes, no guard either (the arguments'
    shapes are known to differ) and the seed broadcast to a shape known without computing
    ``c * b``."""
    path = tmp_path / "shapes17_example.py"
    path.write_text("import numpy as np\n" + EXAMPLE)
    spec = importlib.util.spec_from_file_location(path.stem, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    g = srcad.grad(module.f, wrt=("a", "b"))
    g(np.ones(3), np.ones(3))
    code = srcad.source(g)
    for word in ("unbroadcast", "alike", "shape", "broadcast_to"):
        assert word not in code, code
    assert code.count("\n") <= 9, code  # def, the forward line, # backward, 2 comments, ...
    code = srcad.source(g, np.ones((3, 1)), np.ones((1, 4)))
    assert "alike" not in code and "np.shape(c * b)" not in code, code
    assert "shape_of(c, b)" in code, code


@pytest.mark.parametrize("body", ["loop", "while", "branch"])
def test_merges_and_writes_of_one_shape_need_no_guard(tmp_path, body):
    """A loop's values that keep the arguments' one shape, a branch's merge, a write into an
    array: one class, so neither a guard nor an unbroadcast nor a saved shape."""
    f, _ = _program(tmp_path, body, "form")
    g = srcad.grad(f, wrt=(0, 1))
    code = srcad.source(g, _array((3, 2)), _array((3, 2)))
    for word in ("unbroadcast", "alike", "_shape"):
        assert word not in code, code


def test_a_write_keeps_the_class(tmp_path):
    """``c[0] = v`` keeps ``c``'s shape (autograd, which cannot write into an array, on the
    same function written with a scale)."""

    def twin(a, b):
        c = a * b
        scale = anp.where(anp.arange(c.shape[0]) == 0, 2.0, 1.0)
        return anp.sum(c * anp.reshape(scale, (-1,) + (1,) * (c.ndim - 1)) * a)

    path = tmp_path / "shapes17_setitem.py"
    path.write_text("import numpy as np\n\n\ndef f(a, b):\n    c = a * b\n"
                    "    c[0] = 2.0 * c[0]\n    return np.sum(c * a)\n")
    spec = importlib.util.spec_from_file_location(path.stem, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    g = srcad.grad(module.f, wrt=(0, 1))
    for shapes in ("equal", "vector_matrix", "column_row", "equal"):
        a, b = (_array(s) for s in SHAPES[shapes])
        got = g(a, b)
        for i in (0, 1):
            np.testing.assert_allclose(got[i], autograd.grad(twin, i)(a, b), rtol=1e-10,
                                       atol=1e-12)
            np.testing.assert_allclose(got[i], numerical_grad(module.f, (a, b), i),
                                       rtol=1e-6, atol=1e-8)
    code = srcad.source(g, _array((3, 2)), _array((3, 2)))
    assert "alike" not in code and "da = c.copy()" in code, code


def test_guards_stay_in_loops_for_slices(tmp_path):
    """Shapes no specialisation knows (slices in a loop): the guard is still made there."""
    path = tmp_path / "shapes17_slices.py"
    path.write_text('''import numpy as np


def f(w, x):
    t = 0.0
    for i in range(2):
        u = w[i]
        t = t + np.sum(u * x * x)
        x = np.tanh(u * x)
    return t
''')
    spec = importlib.util.spec_from_file_location(path.stem, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    twin_space = {"np": anp}
    exec(compile(path.read_text(), "<twin>", "exec"), twin_space)  # noqa: S102
    g = srcad.grad(module.f, wrt=(0, 1))
    for ws, xs in (((2, 3), (3,)), ((2, 3), (1,)), ((2, 1), (3,))):
        w, x = _array(ws), _array(xs)
        got = g(w, x)
        for i, arg in enumerate((w, x)):
            np.testing.assert_allclose(got[i], autograd.grad(twin_space["f"], i)(w, x),
                                       rtol=1e-9, atol=1e-12)
            assert np.shape(got[i]) == arg.shape
    assert "alike" in srcad.source(g, _array((2, 3)), _array((3,)))


def test_the_key_holds_the_partition_not_sizes(tmp_path):
    f, twin = _program(tmp_path, "example", "sizes")
    g = srcad.grad(f, wrt=(0, 1))
    for n in range(1, 30):
        a, b = _array((n, 2)), _array((n, 2))
        g(a, b)
    t = specialise.transformed_of(g)
    assert len([k for k in t._cache if isinstance(k[-1], specialise.Ranks)]) == 1
    for n in range(1, 30):
        g(_array((n, 2)), _array((1, 2)))
    assert len([k for k in t._cache if isinstance(k[-1], specialise.Ranks)]) == 2


def test_the_partition():
    a, b, c = np.ones(3), np.ones((3,)), np.ones((1, 3))
    assert specialise.shape_partition([a, 1.0, b, c, np.ones(4), c]) == (0, 0, 2, 3, 2)
    assert specialise.shape_groups({"x": a, "n": 2, "y": b, "z": c}) == (("x", "y"), ("z",))
    many = [np.ones(2)] * (specialise.MAX_COMPARED + 2)
    assert len(specialise.shape_partition(many)) == specialise.MAX_COMPARED


def test_the_plain_keys_layouts_hold_the_partition():
    """``plain_key``'s arrays part (fast paths for one and two arrays) says what
    ``shape_partition`` says, for random mixes of shapes, up to past MAX_COMPARED arrays."""
    from srcad.backend.keys import layouts

    shapes = [(3,), (2,), (3, 1), (), (1, 3)]
    for n in range(1, specialise.MAX_COMPARED + 3):
        for _ in range(40):
            arrays = [np.ones(shapes[i]) for i in RNG.integers(0, len(shapes), n)]
            first = specialise.shape_partition(arrays)
            assert layouts(arrays) == tuple(
                (a.ndim, a.dtype.char, first[k] if k < len(first) else k)
                for k, a in enumerate(arrays))


def test_arrays_past_the_compared_ones_are_not_taken_alike(tmp_path):
    """Past MAX_COMPARED arrays nothing is known of an array's shape: the code is general."""
    n = specialise.MAX_COMPARED + 2
    names = [f"x{i}" for i in range(n)]
    text = (f"import numpy as np\n\n\ndef f({', '.join(names)}):\n"
            f"    return np.sum({' * '.join(names)})\n")
    path = tmp_path / "shapes17_many.py"
    path.write_text(text)
    spec = importlib.util.spec_from_file_location(path.stem, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    g = srcad.grad(module.f, wrt=tuple(range(n)))
    for shapes in ([(3,)] * n, [(3,)] * (n - 1) + [(2, 3)]):
        args = [_array(s) for s in shapes]
        got = g(*args)
        for i, arg in enumerate(args):
            want = np.prod(np.broadcast_arrays(*args[:i], *args[i + 1:]), axis=0)
            want = np.broadcast_to(want, np.broadcast_shapes(*shapes))
            if arg.ndim < want.ndim:
                want = want.sum(axis=0)
            np.testing.assert_allclose(got[i], want, rtol=1e-12)


def test_matmul_is_not_element_wise(tmp_path):
    """``np.matmul`` is a ufunc (a generalised one): arrays of one shape do not give a result
    of their shape (two vectors give a number, a matrix and a vector a vector)."""
    path = tmp_path / "shapes17_matmul.py"
    path.write_text('''import numpy as np


def f(a, b):
    return np.sum(np.matmul(a, b) * 2.0)


def g(m, n):
    return np.sum(np.matmul(m, n))
''')
    spec = importlib.util.spec_from_file_location(path.stem, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    a, b = _array(3), _array(3)
    got = srcad.grad(module.f, wrt=(0, 1))(a, b)
    np.testing.assert_allclose(got[0], 2.0 * b, rtol=1e-12)
    np.testing.assert_allclose(got[1], 2.0 * a, rtol=1e-12)
    m, n = _array((2, 2)), _array((2, 2))
    got = srcad.grad(module.g, wrt=(0, 1))(m, n)
    np.testing.assert_allclose(got[0], np.ones((2, 2)) @ n.T, rtol=1e-12)
    np.testing.assert_allclose(got[1], m.T @ np.ones((2, 2)), rtol=1e-12)


def test_gradients_are_not_the_arguments(tmp_path):
    """``np.sum(a * b)`` of arrays of one shape: the gradients are ``b`` and ``a`` as values,
    never the caller's arrays themselves (changing one would change an argument)."""
    f, _ = _program(tmp_path, "product", "alias")
    a, b = _array(3), _array(3)
    da, db = srcad.grad(f, wrt=(0, 1))(a, b)
    assert not np.shares_memory(da, b) and not np.shares_memory(db, a)
    da *= 2.0
    np.testing.assert_array_equal(b, db / db * b)  # b unchanged
    np.testing.assert_allclose(da, 2.0 * b)


@pytest.mark.parametrize("body", sample(["branch", "example", "loop", "loop_then_sum"], 4))
def test_the_numba_backend_in_both_partitions(tmp_path, body):
    pytest.importorskip("numba")
    f, twin = _program(tmp_path, body, "numba")
    g = srcad.grad(f, wrt=(0, 1), backend="numba")
    # (not (3, 1) with (1, 4): a loop's value growing to (3, 4) is refused by the Numba
    # backend's helpers on main too, "a broadcast gradient")
    for shapes in ("equal_vectors", "matrix_vector", "equal_vectors"):
        a, b = (_array(s) for s in SHAPES[shapes])
        a0, b0 = a.copy(), b.copy()
        got = g(a, b)
        for i in (0, 1):
            np.testing.assert_allclose(got[i], autograd.grad(twin, i)(a0, b0), rtol=1e-9,
                                       atol=1e-12)
        np.testing.assert_array_equal(a, a0)
        np.testing.assert_array_equal(b, b0)
