"""Values the backward sweep reads only for their layout (a rule's ``shape_only`` argument:
``np.concatenate``'s, ``np.stack``'s, ``np.hstack``'s, ``np.vstack``'s arrays, ``np.sum``'s and
``np.mean``'s array) are kept as stand-ins (``layout(v)``: zeros of ``v``'s shape and dtype
that own no memory) where they would be saved: pushed per iteration of a loop, or handed over
in a callee's context. A generated family of programs of that shape (joiner x where it runs
x rank) checked against finite differences and autograd, first and second order."""

import itertools

import autograd
import autograd.numpy as anp
import numpy as np
import program_files
import pytest
from srcad.check import numerical_grad

import srcad
from srcad.runtime.helpers import layout

RNG = np.random.default_rng(11)

#: joiner -> (its expression of the arrays a and b, the ranks it is written for)
JOINERS = {
    "concatenate": ("np.concatenate((a, b))", (1, 2)),
    "concatenate_last": ("np.concatenate([a, b], axis=-1)", (1, 2)),
    "concatenate_const": ("np.concatenate((a, np.ones_like(b), b))", (1, 2)),
    "stack": ("np.stack((a, b), axis=1)", (1, 2)),
    "hstack": ("np.hstack([a, b])", (1, 2)),
    "vstack": ("np.vstack((a, b))", (1, 2)),
    "sum_axis": ("np.sum(a * b, axis=0)", (1, 2)),
    "sum_all": ("np.sum(a * b) * a", (1, 2)),
    "mean_axis": ("np.mean(a * b, axis=-1, keepdims=True) * b", (1, 2)),
}

PLACES = {
    # the joined value inside a loop: saved per iteration
    "loop": '''
def f(x, y):
    total = 0.0
    for i in range(3):
        a = np.sin(x * (i + 1.0)) * y
        b = np.cos(y) * x
        j = {join}
        total = total + np.sum(np.tanh(j) * j)
        x = x + 0.1 * a
    return total
''',
    # the joined value in a callee: handed over in its context
    "callee": '''
def piece(x, y):
    a = np.sin(x) * y
    b = np.cos(y) * x
    j = {join}
    return np.tanh(j) * j


def f(x, y):
    return np.sum(piece(x, y) * piece(y, x))
''',
    # a callee called in a loop: a context per iteration
    "callee_in_loop": '''
def piece(x, y):
    a = np.sin(x) * y
    b = np.cos(y) * x
    return {join}


def f(x, y):
    total = 0.0
    for i in range(2):
        j = piece(x, y)
        total = total + np.sum(j * j)
        y = y * 0.5 + 0.2 * x
    return total
''',
}

CASES = [(j, p, r) for j, (_, ranks) in JOINERS.items() for p in PLACES for r in ranks]


def _module(tmp_path, text, name):
    return program_files.module(tmp_path, name, "import numpy as np\n" + text)


def _autograd_f(text):
    return program_files.twin(text, anp)


def _inputs(rank):
    shape = (3,) if rank == 1 else (2, 3)
    return RNG.standard_normal(shape), RNG.standard_normal(shape)


@pytest.mark.parametrize("joiner, place, rank", CASES,
                         ids=[f"{j}-{p}-{r}d" for j, p, r in CASES])
def test_gradients_unchanged(tmp_path, joiner, place, rank):
    text = PLACES[place].format(join=JOINERS[joiner][0])
    module = _module(tmp_path, text, f"layout_{joiner}_{place}_{rank}")
    x, y = _inputs(rank)
    got = srcad.grad(module.f, wrt=(0, 1))(x, y)
    twin = _autograd_f(text)
    for i in (0, 1):
        np.testing.assert_allclose(got[i], autograd.grad(twin, i)(x, y), rtol=1e-9, atol=1e-12)
        np.testing.assert_allclose(got[i], numerical_grad(module.f, (x, y), i),
                                   rtol=1e-6, atol=1e-8)
    if place == "loop":  # the stand-in is what the loop saves
        code = srcad.source(srcad.grad(module.f, wrt=(0, 1)), x, y)
        if joiner in ("concatenate", "concatenate_const"):
            # a tuple joined along a constant axis: the lengths (ints) instead, and the
            # gradient's slices written out (tests/test_lstm18b_pieces.py)
            assert "layout(" not in code and "_cut = " in code, code
        elif joiner.startswith(("sum", "mean")):
            # x and y of one shape (the specialisation knows it): a * b is in their shape
            # class, so the reduction's gradient reads an array already kept, no stand-in
            assert "layout(" not in code, code
        else:
            assert "layout(" in code


@pytest.mark.parametrize("joiner", ["concatenate", "stack", "sum_axis"])
@pytest.mark.parametrize("place", ["loop", "callee"])
def test_second_order_unchanged(tmp_path, joiner, place):
    text = PLACES[place].format(join=JOINERS[joiner][0])
    module = _module(tmp_path, text, f"layout2_{joiner}_{place}")
    x, y = _inputs(1)
    got = srcad.hessian(module.f)(x, y)
    want = autograd.hessian(_autograd_f(text))(x, y)
    np.testing.assert_allclose(got, want, rtol=1e-8, atol=1e-10)


@pytest.mark.parametrize("dtype", [np.float64, np.float32, np.complex128, np.int64, bool])
@pytest.mark.parametrize("shape", [(), (4,), (2, 3), (0, 5)])
def test_layout_keeps_shape_dtype_and_class_without_memory(dtype, shape):
    big = (40000,) + shape  # 16 KiB or more: a stand-in
    x = np.ones(big, dtype=dtype)
    stand_in = layout(x)
    assert type(stand_in) is np.ndarray
    assert (stand_in.shape, stand_in.dtype, stand_in.ndim) == (x.shape, x.dtype, x.ndim)
    if x.nbytes:
        assert stand_in.strides == (0,) * x.ndim and not stand_in.flags.writeable
    assert not np.any(stand_in)
    small = np.ones(shape, dtype=dtype)
    assert layout(small) is small  # cheaper kept than replaced


def _same_layout(got, given):
    assert type(got) is type(given)
    if isinstance(given, (list, tuple)):
        assert len(got) == len(given)
        for a, b in itertools.zip_longest(got, given):
            _same_layout(a, b)
    else:
        assert np.shape(got) == np.shape(given) and np.result_type(got) == np.result_type(given)


def test_layout_of_containers_and_other_values():
    a, b = np.ones(3000), np.zeros((2, 2), complex)
    for joined in ((a, b), [a, 2.0, [b, a]]):
        stand_in = layout(joined)
        assert type(stand_in) is type(joined) and len(stand_in) == len(joined)
        assert stand_in is not joined
        _same_layout(stand_in, joined)
    assert not np.shares_memory(layout((a, b))[0], a)
    small = (b, np.ones(3))
    assert layout(small) is small  # small arrays only: the tuple itself
    mixed = (b, 1.0, [b])
    _same_layout(layout(mixed), mixed)
    objects = np.array([1.0, "a"] * 2000, dtype=object)
    assert layout(objects) is objects  # no zero of an object dtype: the value itself
    assert layout(2.5) == 2.5 and layout(None) is None


@pytest.mark.parametrize("n", [3000, 20000])  # 24 KiB and more: stand-ins in the loop
def test_large_arrays_in_a_loop(tmp_path, n):
    text = PLACES["loop"].format(join=JOINERS["concatenate"][0])
    module = _module(tmp_path, text, f"layout_large_{n}")
    x, y = RNG.standard_normal(n), RNG.standard_normal(n)
    got = srcad.grad(module.f, wrt=(0, 1))(x, y)
    twin = _autograd_f(text)
    for i in (0, 1):
        np.testing.assert_allclose(got[i], autograd.grad(twin, i)(x, y), rtol=1e-9, atol=1e-12)


#: lists changed after they are built (the stand-in would be made where they are built): the
#: list itself is kept, and the gradient is right at sizes that make stand-ins of arrays
CHANGED_LISTS = {
    "append_then_join": '''
def piece(x, y):
    parts = [np.sin(x) * y]
    parts.append(np.cos(y) * x)
    return np.concatenate(parts)


def f(x, y):
    return np.sum(np.tanh(piece(x, y)) * 2.0)
''',
    "append_in_loop": '''
def f(x, y):
    total = 0.0
    for i in range(2):
        parts = [x * y]
        parts.append(np.cos(y) * x)
        parts.append(y * (i + 1.0))
        total = total + np.sum(np.stack(parts) ** 2)
    return total
''',
    "written_then_join": '''
def piece(x, y):
    parts = [x * y, y * 1.0]
    parts[1] = np.sin(x) * y
    return np.hstack(parts)


def f(x, y):
    return np.sum(np.tanh(piece(x, y)))
''',
}


@pytest.mark.parametrize("case", list(CHANGED_LISTS))
@pytest.mark.parametrize("n", [3, 3000])
def test_lists_changed_after_they_are_built(tmp_path, case, n):
    text = CHANGED_LISTS[case]
    module = _module(tmp_path, text, f"layout_changed_{case}_{n}")
    x, y = RNG.standard_normal(n), RNG.standard_normal(n)
    got = srcad.grad(module.f, wrt=(0, 1))(x, y)
    twin = _autograd_f(text)
    for i in (0, 1):
        np.testing.assert_allclose(got[i], autograd.grad(twin, i)(x, y), rtol=1e-9, atol=1e-12)
