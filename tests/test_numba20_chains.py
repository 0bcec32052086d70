"""The Numba backend's elementwise chains made one loop (``srcad.backend.numba_chains`` joins
single-use temporaries into the expression reading them, ``numba_fuse.expressions`` makes
each expression of two or more operations a ``fused_en_*`` helper).

A generated family: an elementwise chain spelled as a NumPy user writes it (three shapes of
expression), over six kinds of operand (1-D arrays, views of them, a reversed view, C-ordered
matrices, a matrix with a vector broadcast against it, numbers), in two contexts (straight-line
code, a Runge-Kutta-like loop), each compared with the Python backend (1e-12), autograd
(1e-12) and central differences; forward mode and the Hessian on a sample. Then the helpers
against NumPy bit for bit (where the loop runs and where they must run the expression as
NumPy: broadcasting, other dtypes, a transposed matrix, numbers), and the joining pass on
trees: what it joins and each thing that stops it. Skipped where numba is not installed."""

from __future__ import annotations

import ast
import itertools

import numpy as np
import pytest
from sampling import LONG
from twin_checks import central, close

import srcad
from srcad.backend import numba_backend

pytestmark = pytest.mark.skipif(not numba_backend.available(), reason="numba not installed")

#: kind -> (the two operands A and B as read from x and w, x's shape, w's shape)
KINDS = {
    "vectors": ("x", "w", (7,), (7,)),
    "views": ("x[1:]", "w[:-1]", (7,), (7,)),
    "reversed": ("x[::-1]", "w", (7,), (7,)),
    "matrices": ("x", "w", (3, 4), (3, 4)),
    "broadcast": ("x", "w", (3, 4), (4,)),
    "numbers": ("x[2]", "w[1]", (5,), (5,)),
}

#: a chain over A and B, written in three statements (each a temporary read once)
CHAINS = [
    ("t = {A} * {B}", "u = t + 2.0 * {A}", "v = u - {A} * t"),
    ("t = -({A} - {B})", "u = t * {B} * 0.5", "v = {A} * {A} - u + 1.0"),
    ("t = {A} * {A} - {B} * 3.0", "u = 0.25 * t + {B}", "v = -u * {A}"),
]

CONTEXTS = {
    "straight": ["{0}", "{1}", "{2}", "return np.sum(v * v) + np.sum(v * {A})"],
    "loop": ["acc = {A} * 0.0", "for _ in range(3):", "    {0}", "    {1}", "    {2}",
             "    acc = acc + 0.1 * (v + {A} * acc)", "return np.sum(acc * acc) + np.sum(acc)"],
}

CASES = list(itertools.product(KINDS, range(len(CHAINS)), CONTEXTS))


def _module(case, numpy="numpy"):
    kind, k, context = case
    a, b = KINDS[kind][:2]
    chain = [line.format(A=a, B=b) for line in CHAINS[k]]
    body = [line.format(*chain, A=a) for line in CONTEXTS[context]]
    return "\n".join([f"import {numpy} as np", "", "", "def f(x, w):"]
                     + ["    " + line for line in body]) + "\n"


@pytest.fixture(scope="module")
def load(load_module):
    """Writes a program to a module of its own (srcad reads source) and imports it."""
    return load_module


def _program(load, case, numpy="numpy"):
    name = "numba20_" + "_".join(map(str, case)) + ("_ag" if numpy != "numpy" else "")
    return load(name, _module(case, numpy)).f




def _inputs(case, seed):
    rng = np.random.default_rng(seed)
    _, _, xs, ws = KINDS[case[0]]
    return rng.uniform(0.2, 1.0, size=xs), rng.uniform(-0.8, 0.8, size=ws)


def _latin(shift):
    """Six cases: every kind once, the chains and contexts turned by ``shift``."""
    kinds, contexts = list(KINDS), list(CONTEXTS)
    return [(kinds[i], (i + shift) % len(CHAINS), contexts[(i + shift) % 2])
            for i in range(len(kinds))]


SAMPLED = CASES if LONG else _latin(0)[::2]  # CI: every second kind


@pytest.mark.parametrize("case", SAMPLED, ids=lambda c: "-".join(map(str, c)))
def test_family_reverse_mode_matches_python_autograd_and_differences(load, case):
    f = _program(load, case)
    fast = srcad.value_and_grad(f, wrt=("x", "w"), backend="numba")
    slow = srcad.value_and_grad(f, wrt=("x", "w"))
    import autograd

    ag = autograd.grad(_program(load, case, "autograd.numpy"), argnum=(0, 1))
    for seed in range(2):
        x, w = _inputs(case, CASES.index(case) * 10 + seed)
        x0, w0 = x.copy(), w.copy()
        value, (dx, dw) = fast(x, w)
        ref_value, (ref_dx, ref_dw) = slow(x, w)
        assert np.isclose(value, f(x, w), rtol=1e-12, atol=1e-12)
        assert np.isclose(value, ref_value, rtol=1e-12, atol=1e-12)
        assert close(dx, ref_dx, 1e-12) and close(dw, ref_dw, 1e-12)
        ag_dx, ag_dw = ag(x, w)
        assert close(dx, ag_dx, 1e-12) and close(dw, ag_dw, 1e-12)
        assert close(dx, central(f, (x, w), 0), 1e-6) and close(dw, central(f, (x, w), 1), 1e-6)
        assert np.array_equal(x, x0) and np.array_equal(w, w0)  # the arguments unchanged


@pytest.mark.parametrize("case", CASES[1::5] if LONG else _latin(1)[::6],
                         ids=lambda c: "-".join(map(str, c)))
def test_family_forward_mode_and_hessian(load, case):
    f = _program(load, case)
    x, w = _inputs(case, 500 + CASES.index(case))
    rng = np.random.default_rng(1)
    tx, tw = rng.uniform(-1, 1, size=x.shape), rng.uniform(-1, 1, size=w.shape)
    value, tangent = srcad.jvp(f, (x, w), (tx, tw), backend="numba")
    ref_value, ref_tangent = srcad.jvp(f, (x, w), (tx, tw))
    assert np.isclose(value, ref_value, rtol=1e-12, atol=1e-12)
    assert np.isclose(tangent, ref_tangent, rtol=1e-12, atol=1e-12)
    h = 1e-6
    fd = (f(x + h * tx, w + h * tw) - f(x - h * tx, w - h * tw)) / (2 * h)
    assert np.isclose(tangent, fd, rtol=1e-6, atol=1e-7)
    inner = srcad.grad(f, backend="numba")  # w.r.t. x; differentiated again: Python code
    hess = srcad.jacobian(inner)(x, w)
    assert close(hess, srcad.hessian(f, mode="rev")(x, w), 1e-10)
    assert close(hess, srcad.hessian(f, mode="fwd")(x, w), 1e-10)


RK = '''import numpy as np


def rhs(x, y):
    return np.concatenate((x[:1], x[1:] * y[:-1]))


def f(x, s):
    h = 2.0 / s
    y = np.zeros_like(x)
    for _ in range(s):
        k1 = rhs(x, y)
        k2 = rhs(x, y + h / 2 * k1)
        k3 = rhs(x, y + h / 2 * k2)
        k4 = rhs(x, y + h * k3)
        y = y + h / 6 * (k1 + 2 * k2 + 2 * k3 + k4)
    return y[-1]
'''


def test_runge_kutta_step_is_one_loop_and_exact(load):
    """GradBench's ode: the step's update is one ``fused_en`` call, its temporaries' shapes
    read from the operands (``fused_hn``), no ``t_9 = 2 * k2_1``; the gradient is the Python
    backend's to the last bits and the differences'."""
    f = load("numba20_rk", RK).f
    x = np.linspace(0.1, 1.0, 9)
    grad = srcad.grad(f, backend="numba")
    got = grad(x, 4)
    text = srcad.source(grad, x, 4)
    assert ("y_2 = numba_fused_en_a_0_m_1_a_a_a_2_m_3_4_m_5_6_7(y_1, t_8, k1_1, 2, k2_1, 2, "
            "k3_1, k4_1)") in text
    assert "rhs_fwd(x, numba_fused_en_a_0_m_1_2(y_1, t, k1_1))" in text
    assert "t_12_shape = numba_fused_hn_" in text
    assert " t_9 = " not in text and " t_12 = " not in text
    ref = srcad.grad(f)(x, 4)
    assert close(got, ref, 1e-13)
    assert close(got, central(lambda x: f(x, 4), (x,), 0), 1e-7)


# ---------------------------------------------------------------- the helpers, against NumPy


def _run(name, *args):
    import numba

    from srcad.backend import numba_helpers

    fused = numba_helpers.helper(name)
    params = ", ".join(f"a{k}" for k in range(len(args)))
    scope = {"fused": fused}
    exec(f"def run({params}):\n    return fused({params})\n", scope)
    return numba.njit(scope["run"])(*args)


def _plain(code, *args, numba=False):
    """The expression ``code`` over ``args`` as NumPy computes it, or (``numba``) as Numba
    compiles it written out, which the helper must give where it does not loop."""
    from srcad.backend.numba_fuse import _parse

    text, _ = _parse(code.split("_"))
    params = ", ".join(f"a{k}" for k in range(len(args)))
    scope = {}
    exec(f"def plain({params}):\n    return {text.format(*params.split(', '))}\n", scope)
    if numba:
        import numba as nb

        return nb.njit(scope["plain"])(*args)
    return scope["plain"](*args)


@pytest.mark.parametrize("args", [
    (np.linspace(0.1, 2.0, 11), 3.0, np.linspace(-1, 1, 11)),          # the loop
    (np.linspace(0.1, 2.0, 11)[::-2], 2, np.linspace(-1, 1, 6)),       # strided, an int
    (np.arange(12.0).reshape(3, 4), 0.5, np.ones((3, 4)) * 1.5),       # rank 2, C order
    (np.arange(12.0).reshape(4, 3).T, 0.5, np.ones((3, 4))),           # transposed: NumPy
    (np.arange(12.0).reshape(3, 4), 0.5, np.arange(4.0)),              # broadcast: NumPy
    (np.arange(4.0), 0.5, np.ones(1)),                                 # length 1: NumPy
    (np.arange(4, dtype=np.float32), 0.5, np.ones(4, dtype=np.float32)),  # float32: NumPy
    (np.arange(4), 2, np.ones(4, dtype=np.int64)),                     # ints: NumPy
    (1.5, 2.0, -0.25),                                                 # numbers
    (np.zeros(0), 1.0, np.zeros(0)),                                   # empty
])
def test_fused_expression_and_its_shape_are_numpys_bit_for_bit(args):
    code = "a_0_m_1_s_2_n_3"  # a0 + a1 * (a2 - (-a3))
    args = (*args, args[0])
    want = _plain(code, *args, numba=True)  # the expression as the code compiled it before
    got = _run(f"fused_en_{code}", *args)
    assert np.shape(got) == np.shape(want)
    assert np.asarray(got).dtype == np.asarray(want).dtype
    assert np.array_equal(got, want)
    numpy = _plain(code, *args)
    if np.asarray(numpy).dtype == np.float64:  # (Numba reads 0.5 as float64: float32 arrays
        assert np.array_equal(got, numpy)       # become float64 there, as before)
    if any(isinstance(a, np.ndarray) for a in args):
        assert _run(f"fused_hn_{code}", *args) == np.shape(want)


def test_fused_expression_of_shapes_that_do_not_broadcast_raises_as_numpy():
    with pytest.raises(ValueError):
        _run("fused_en_a_0_m_1_2", np.ones(3), 2.0, np.ones(4))
    with pytest.raises(ValueError):
        _run("fused_hn_a_0_m_1_2", np.ones(3), 2.0, np.ones(4))


# ---------------------------------------------------------------- the joining pass on trees


def _joined(text, params=(), join=True):
    from srcad.backend.numba_chains import counts, joined

    fdef = ast.parse(f"def g({', '.join(params)}):\n" + "\n".join(
        "    " + line for line in text.splitlines())).body[0]
    loads, stores = counts(fdef)
    helper_of = {"unbroadcast_to": "unbroadcast_to", "into": "into"}
    if join:
        fdef.body = joined(fdef.body, loads, stores, set(params), helper_of,
                           lambda n: ast.Name(id=n, ctx=ast.Load()))
    return ast.unparse(fdef).split("\n", 1)[1].replace("    ", "")


def test_a_chain_is_joined_and_its_kept_shape_read_from_the_operands():
    got = _joined("t = 2 * k\nt_shape = t.shape\nu = a + t\nv = u * h\nreturn v, t_shape")
    assert got == "t_shape = fused_hn_m_0_1(2, k)\nv = (a + 2 * k) * h\nreturn (v, t_shape)"


@pytest.mark.parametrize("between, why", [
    ("a += b", "an in-place addition into an array the expression reads"),
    ("into(a, b)", "a call that could write into an operand"),
    ("a = b * 2", "an operand rebound"),
    ("s.append(a)", "a method call"),
    ("for i in range(2):\n    pass", "a loop"),
    ("c = a.sum()", "a call of an array method"),
])
def test_a_statement_that_could_change_an_operand_stops_the_join(between, why):
    got = _joined(f"t = a * k + b\n{between}\nu = t * h\nreturn u")
    assert "t = a * k + b" in got, why


@pytest.mark.parametrize("text", [
    "t = a * k\nu = t * h\nw = t + 1\nreturn u, w",      # read twice
    "t = a * k\nu = f(t)\nreturn u",                       # read by a call, not an operation
    "t = a * k\nt = t * 2\nreturn t",                      # bound twice
    "t = a[0] * k\nu = t * h\nreturn u",                   # an operand that is a subscript
    "t = a * k\nn = t.size\nu = t * h\nreturn u, n",       # read otherwise than .shape
    "t = a * k\nu = t * h\nt_shape = t.shape\nreturn u, t_shape",  # its shape read after
    "t = a / k\nu = t * h\nreturn u",                      # division: not elementwise here
])
def test_what_is_not_a_single_use_elementwise_temporary_is_left(text):
    assert _joined(text) == _joined(text, join=False)


def test_a_call_evaluated_before_the_read_stops_the_join_and_one_after_does_not():
    before = "t = a * k\nu = into(a, b) + t * 2\nreturn u"
    assert _joined(before) == _joined(before, join=False)
    got = _joined("t = a * k\nu = t * 2 + into(a, b)\nreturn u")
    assert got == "u = a * k * 2 + into(a, b)\nreturn u"
    got = _joined("t = a * k\ndx[1:] += unbroadcast_to(g * t, s)\nreturn dx")
    assert got == "dx[1:] += unbroadcast_to(g * (a * k), s)\nreturn dx"


def test_a_parameter_rebound_is_left():
    assert _joined("x = a * k\nu = x * h\nreturn u", ("x",)).startswith("x = a * k")


# ---------------------------------------------------------------- einsum's loop nests


def _einsum_sums(spec, g, p, operands):
    """``grad_einsum``/``einsum`` as a plain Python loop: each output element's terms added
    from 0.0 in the order of the summed letters (the order both nests keep)."""
    inputs, output = spec.split("->")
    ins = inputs.split(",")
    if g is not None:  # the gradient of operand p: g's letters and the others'
        wanted = ins[p - 1]
        ins = [output] + [s for i, s in enumerate(ins) if i != p - 1]
        operands = [g] + [a for i, a in enumerate(operands) if i != p - 1]
        output = wanted
    sizes = {}
    for s, a in zip(ins, operands):
        sizes.update(zip(s, a.shape))
    summed = [c for c in dict.fromkeys("".join(ins)) if c not in output]
    out = np.zeros([sizes[c] for c in output])
    for at in itertools.product(*(range(sizes[c]) for c in output)):
        acc = 0.0
        for more in itertools.product(*(range(sizes[c]) for c in summed)):
            where = dict(zip(output, at)) | dict(zip(summed, more))
            term = 1.0
            for k, (s, a) in enumerate(zip(ins, operands)):
                value = a[tuple(where[c] for c in s)]
                term = value if k == 0 else term * value
            acc += term
        out[at] = acc
    return out


@pytest.mark.parametrize("n", [2, 40])  # the output larger, then smaller, than the sums
def test_einsum_nests_add_each_elements_terms_in_one_order_bit_for_bit(n):
    """gmm's ``einsum("ijk,mik->mij", ls, xc)`` and its two gradients, with ``n`` points:
    at n = 40 the gradient of ``ls`` (3 x 2 x 2 summed over 40) is added into along its
    last axis, at n = 2 summed in a register; both give the plain loop's sums exactly."""
    import numba

    from srcad.backend import numba_helpers

    e2, ge2 = numba_helpers.helper("einsum2"), numba_helpers.helper("grad_einsum2")

    @numba.njit
    def run(ls, xc, g):
        return (e2("ijk,mik->mij", ls, xc), ge2(g, 1, "ijk,mik->mij", ls.shape, xc),
                ge2(g, 2, "ijk,mik->mij", ls, xc.shape))

    rng = np.random.default_rng(n)
    ls, xc, g = rng.normal(size=(3, 2, 2)), rng.normal(size=(n, 3, 2)), rng.normal(size=(n, 3, 2))
    value, dls, dxc = run(ls, xc, g)
    spec = "ijk,mik->mij"
    assert np.array_equal(value, _einsum_sums(spec, None, 0, [ls, xc]))
    assert np.array_equal(dls, _einsum_sums(spec, g, 1, [ls, xc]))
    assert np.array_equal(dxc, _einsum_sums(spec, g, 2, [ls, xc]))
    assert np.allclose(dls, np.einsum("mij,mik->ijk", g, xc), rtol=1e-13, atol=1e-13)
