"""``np.concatenate`` of a tuple display of real arrays along axis 0: the reverse sweep writes
the tuple's gradient as slices of the result's gradient between lengths the forward sweep
keeps (``n1 = len(a)``, ``dt = [g[:n1], g[n1:]]``), not ``grad_concatenate(g, layout(t))``
(``Rules.joined_pieces``). A generated family: joined expressions (two to four pieces, a
piece repeated, an empty piece, slices of one array, a constant piece, one number's gradient
for the whole result) x where they run (straight, a loop, a callee, a callee in a loop) x
rank, against autograd and central finite differences, in grad, value_and_grad, vjp, jvp
and both Hessian modes; which form the generated code has; and the forms that keep the
helper (a list, another axis, a complex piece, Numba)."""

import itertools

import autograd
import autograd.numpy as anp
import numpy as np
import program_files
import pytest
from sampling import sample_by
from srcad.check import numerical_grad

import srcad

RNG = np.random.default_rng(18)

#: name -> (the joined expression of a and b, whether the sweep writes the slices, ranks)
JOINED = {
    "two": ("np.concatenate((a, b))", True, (1, 2)),
    "three_repeated": ("np.concatenate((a, b, a))", True, (1, 2)),
    "four": ("np.concatenate((a, b * a, a, np.sin(b)))", True, (1, 2)),
    "slices": ("np.concatenate((a[:1], a[1:] * b[:-1]))", True, (1, 2)),
    "empty_piece": ("np.concatenate((a[:0], b, a))", True, (1, 2)),
    "constant_piece": ("np.concatenate((a, np.ones_like(b), b))", True, (1, 2)),
    "axis_zero": ("np.concatenate((b, a), axis=0)", True, (1, 2)),
    "axis_zero_positional": ("np.concatenate((b, a), 0)", True, (1, 2)),
    "last_axis": ("np.concatenate((a, b), axis=-1)", True, (1, 2)),
    "first_axis_negative": ("np.concatenate((a, b, a), axis=-2)", True, (2,)),
    "axis_one": ("np.concatenate((a, b[:, :1], b), axis=1)", True, (2,)),
    "axis_one_slices": ("np.concatenate((a[:, :1], a[:, 1:] * b[:, :-1]), 1)", True, (2,)),
    # the helper kept
    "list_display": ("np.concatenate([a, b])", False, (1, 2)),
    "list_display_axis_one": ("np.concatenate([a, b], axis=1)", False, (2,)),
}

PLACES = {
    "straight": '''
def f(x, y):
    a = np.sin(x) * y
    b = np.cos(y) + x
    j = {join}
    return np.sum(np.tanh(j) * j)
''',
    # one number's gradient for the whole joined value (np.sum of it)
    "summed": '''
def f(x, y):
    a = np.sin(x) * y
    b = np.cos(y) + x
    return np.sum({join}) * 1.5
''',
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
    "callee": '''
def piece(x, y):
    a = np.sin(x) * y
    b = np.cos(y) * x
    j = {join}
    return np.tanh(j) * j


def f(x, y):
    return np.sum(piece(x, y) * piece(y, x))
''',
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

CASES = [(j, p, r) for j in JOINED for p in PLACES for r in JOINED[j][2]]
SMALL = [(j, p) for j, p in itertools.product(JOINED, PLACES) if p in ("loop", "callee")]


def _module(tmp_path, text, name):
    return program_files.module(tmp_path, name, "import numpy as np\n" + text)


def _twin(text):
    return program_files.twin(text, anp)


def _inputs(rank):
    shape = (4,) if rank == 1 else (3, 2)
    return RNG.standard_normal(shape), RNG.standard_normal(shape)


def _program(tmp_path, joined, place, tag):
    text = PLACES[place].format(join=JOINED[joined][0])
    return _module(tmp_path, text, f"pieces_{joined}_{place}_{tag}"), _twin(text)


#: CI: every join once, a third of the rest (tests/sampling.py); the long run all
RUN = sample_by(CASES, lambda c: c[0], 1)
RUN_SMALL = sample_by(SMALL, lambda c: c[0], 1)


@pytest.mark.parametrize("joined, place, rank", RUN,
                         ids=[f"{j}-{p}-{r}d" for j, p, r in RUN])
def test_grad_and_value_and_grad(tmp_path, joined, place, rank):
    module, twin = _program(tmp_path, joined, place, rank)
    x, y = _inputs(rank)
    x0, y0 = x.copy(), y.copy()
    got = srcad.grad(module.f, wrt=(0, 1))(x, y)
    value, again = srcad.value_and_grad(module.f, wrt=(0, 1))(x, y)
    np.testing.assert_allclose(value, module.f(x, y), rtol=1e-12)
    for i in (0, 1):
        want = autograd.grad(twin, i)(x, y)
        np.testing.assert_allclose(got[i], want, rtol=1e-9, atol=1e-12)
        np.testing.assert_allclose(again[i], want, rtol=1e-9, atol=1e-12)
        np.testing.assert_allclose(got[i], numerical_grad(module.f, (x, y), i),
                                   rtol=1e-6, atol=1e-8)
    np.testing.assert_array_equal(x, x0)  # the arguments are not written into
    np.testing.assert_array_equal(y, y0)


FORMS = [(j, p) for j, p in itertools.product(JOINED, PLACES) if not p.startswith("callee")]


@pytest.mark.parametrize("joined, place", FORMS, ids=[f"{j}-{p}" for j, p in FORMS])
def test_which_form(tmp_path, joined, place):
    module, _ = _program(tmp_path, joined, place, "form")
    x, y = _inputs(JOINED[joined][2][-1])
    g = srcad.grad(module.f, wrt=(0, 1))
    g(x, y)
    code = srcad.source(g, x, y)
    if JOINED[joined][1]:
        assert "grad_concatenate" not in code and "_cut = " in code, code
        assert "layout(" not in code, code
    else:
        assert "grad_concatenate" in code, code


@pytest.mark.parametrize("joined, place", RUN_SMALL, ids=[f"{j}-{p}" for j, p in RUN_SMALL])
def test_vjp_jvp_and_hessians(tmp_path, joined, place):
    module, twin = _program(tmp_path, joined, place, "second")
    shape = (4,) if JOINED[joined][2][0] == 1 else (2, 2)
    x, y = RNG.standard_normal(shape), RNG.standard_normal(shape)
    want = autograd.grad(twin, 0)(x, y)
    value, pullback = srcad.vjp(module.f, x, y)
    np.testing.assert_allclose(value, module.f(x, y), rtol=1e-12)
    np.testing.assert_allclose(pullback(1.0)[0], want, rtol=1e-9, atol=1e-12)
    t = RNG.standard_normal(x.shape)
    _, tangent = srcad.jvp(module.f, (x, y), (t, np.zeros_like(y)))
    np.testing.assert_allclose(tangent, np.sum(want * t), rtol=1e-9, atol=1e-12)
    hess = autograd.hessian(twin, 0)(x, y)
    for mode in ("fwd", "rev"):
        np.testing.assert_allclose(srcad.hessian(module.f, mode=mode)(x, y), hess,
                                   rtol=1e-8, atol=1e-10)
    # the Hessian by finite differences of srcad's gradient
    grad, flat = srcad.grad(module.f), hess.reshape(x.size, x.size)
    for k in range(x.size):
        e = np.zeros(x.size)
        e[k] = 1e-5
        e = e.reshape(x.shape)
        column = (grad(x + e, y) - grad(x - e, y)) / 2e-5
        np.testing.assert_allclose(column.ravel(), flat[:, k], rtol=1e-5, atol=1e-6)


def test_complex_piece_keeps_the_helper(tmp_path):
    module = _module(tmp_path, '''
def f(x, y):
    j = np.concatenate((x * 1j, y))
    return np.sum(np.abs(j) ** 2 + np.real(j))
''', "pieces_complex")
    x, y = _inputs(1)
    g = srcad.grad(module.f, wrt=(0, 1))
    got = g(x, y)
    np.testing.assert_allclose(got[0], 2 * x, rtol=1e-12)
    np.testing.assert_allclose(got[1], 2 * y + 1, rtol=1e-12)
    assert "grad_concatenate" in srcad.source(g, x, y)


def test_number_of_the_same_array_pieces_and_a_view_of_the_gradient(tmp_path):
    """Every piece is a view of the result's gradient; a piece added into in place later
    (``dx[1:] += ...`` after ``dx = dt[0]``) must not change the others: against autograd
    where the pieces' gradients meet in one array."""
    module = _module(tmp_path, '''
def f(x):
    j = np.concatenate((x, x[::-1], x * x))
    k = j * np.arange(1.0, 1.0 + j.size)
    return np.sum(k * k) + np.sum(j[:2])
''', "pieces_views")
    twin = _twin('''
def f(x):
    j = np.concatenate((x, x[::-1], x * x))
    k = j * np.arange(1.0, 1.0 + j.size)
    return np.sum(k * k) + np.sum(j[:2])
''')
    x = RNG.standard_normal(5)
    np.testing.assert_allclose(srcad.grad(module.f)(x), autograd.grad(twin)(x), rtol=1e-10)
    np.testing.assert_allclose(srcad.hessian(module.f)(x), autograd.hessian(twin)(x),
                               rtol=1e-9, atol=1e-10)


def test_a_join_numpy_refuses_raises_numpys_error(tmp_path):
    """The lengths may be read before the join (tidy moves a value used once to its use):
    a join NumPy refuses raises NumPy's error under grad too, not one of ``len``'s or of a
    shape's index (along axis 0 a 0-d piece of known rank, along another axis an axis out
    of range keep the helper)."""
    module = _module(tmp_path, '''
def zero_d_first(x):
    return np.sum(np.concatenate((x[0], x)))


def zero_d_last(x):
    return np.sum(np.concatenate((x, x[0])))


def axis_out_of_range(x):
    return np.sum(np.concatenate((x, x), axis=1))


def negative_axis_out_of_range(x):
    return np.sum(np.concatenate((x, x), axis=-2))
''', "pieces_refused_by_numpy")
    x = RNG.standard_normal(3)
    for name in ("zero_d_first", "zero_d_last", "axis_out_of_range",
                 "negative_axis_out_of_range"):
        f = getattr(module, name)
        with pytest.raises(Exception) as plain:
            f(x)
        with pytest.raises(type(plain.value)) as derived:
            srcad.grad(f)(x)
        assert str(derived.value) == str(plain.value)
