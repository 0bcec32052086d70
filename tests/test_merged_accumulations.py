"""A gradient with several contributions is written as one expression: ``x = e1`` then
``x = x - e2`` (or ``x += e2``) becomes ``x = e1 - e2`` (tidy's ``_merge_sums``), so the sum's
left operand is a temporary NumPy can reuse. The same operations in the same order: a
generated family of programs (a value read by two to four operations of each kind, as a
number, a small array and an array large enough for NumPy to reuse temporaries; straight-line
and in a loop) is checked against autograd, finite differences and srcad's own unoptimised
code (bitwise), first and second order, and the generated code is checked to hold no such
pair of statements. Also tidy's ``unbroadcast(-g, x)`` -> ``-unbroadcast(g, x)`` (the sign
after the sum, on the smaller array) on a family of broadcasts, and never on a user's own
function of that name."""

import ast
import itertools

import autograd
import numpy as np
import pytest
from srcad.check import numerical_grad
from test_robustness import load_module

import srcad
from srcad import pipeline

#: how one operation reads the value ``v`` (each gives ``v``'s gradient one contribution)
USES = {
    "minus": "np.sin(v) - np.cos(v) * c",
    "over": "c / (1.0 + v * v)",
    "times": "np.exp(-v * v) * c",
    "power": "(v * v + 1.0) ** 1.5",
    "tanh": "np.tanh(v * c)",
}
SIZES = {"number": None, "small": 5, "large": 40_000}  # 40 000 float64s: above NumPy's reuse
CASES = [(uses, size) for k in (2, 3, 4) for uses in itertools.combinations(USES, k)
         for size in SIZES][::7]  # every seventh: all operations, all sizes, each count


def _text(uses, loop):
    terms = " + ".join(f"({USES[u]})" for u in uses)
    if loop:
        body = (f"    total = 0.0\n    for i in range(3):\n        v = v * 0.9 + 0.1\n"
                f"        total = total + np.sum({terms})\n    return total\n")
    else:
        body = f"    return np.sum({terms})\n"
    return f"def f(v, c):\n{body}"


def _modules(tmp_path, uses, loop):
    text = _text(uses, loop)
    ours = load_module(tmp_path, "import numpy as np\n\n\n" + text)
    theirs = load_module(tmp_path, "import autograd.numpy as np\n\n\n" + text)
    return ours.f, theirs.f


def _args(size):
    rng = np.random.default_rng(11)
    n = SIZES[size]
    if n is None:
        return 0.3, 0.7
    return rng.uniform(-1.0, 1.0, n), rng.uniform(0.5, 1.5, n)


def _pairs_left(text):
    """Consecutive ``x = e1`` and ``x = x <op> e2`` (or ``x += e2``) left in generated code."""
    found = []
    for node in ast.walk(ast.parse(text)):
        body = getattr(node, "body", None)
        if not isinstance(body, list):
            continue
        for first, second in zip(body, body[1:]):
            if not (isinstance(first, ast.Assign) and len(first.targets) == 1
                    and isinstance(first.targets[0], ast.Name)):
                continue
            x = first.targets[0].id
            if isinstance(second, ast.AugAssign) and getattr(second.target, "id", None) == x:
                found.append(ast.unparse(second))
            elif (isinstance(second, ast.Assign) and isinstance(second.value, ast.BinOp)
                  and getattr(second.targets[0], "id", None) == x
                  and getattr(second.value.left, "id", None) == x):
                found.append(ast.unparse(second))
    return found


@pytest.mark.parametrize("loop", [False, True], ids=["straight", "loop"])
@pytest.mark.parametrize("uses, size", CASES, ids=["-".join(u) + f"-{s}" for u, s in CASES])
def test_gradients_against_autograd_and_unoptimised(tmp_path, monkeypatch, uses, size, loop):
    f, twin = _modules(tmp_path, uses, loop)
    args = _args(size)
    g = srcad.grad(f, wrt=(0, 1))
    ours = g(*args)
    assert not _pairs_left(srcad.source(g, *args))
    for i in (0, 1):
        np.testing.assert_allclose(ours[i], autograd.grad(twin, i)(*args), rtol=1e-10,
                                   atol=1e-12)
    if size != "large":
        for i in (0, 1):
            np.testing.assert_allclose(ours[i], numerical_grad(f, args, i), rtol=1e-6,
                                       atol=1e-8)
    monkeypatch.setattr(pipeline.switches, "OPTIMIZE", 0)
    fresh = _modules(tmp_path, uses, loop)[0]  # a new function: made again, unoptimised
    raw = srcad.grad(fresh, wrt=(0, 1))(*args)
    for i in (0, 1):
        np.testing.assert_array_equal(ours[i], raw[i])  # the same operations, the same bits


@pytest.mark.parametrize("uses", [("minus", "over"), ("times", "power", "tanh")])
def test_second_order(tmp_path, uses):
    f, twin = _modules(tmp_path, uses, loop=False)
    args = _args("number")
    np.testing.assert_allclose(srcad.hessian(f, wrt=0)(*args),
                               autograd.hessian(twin, 0)(*args), rtol=1e-8, atol=1e-10)


def test_the_benchmark_expression_is_one_statement():
    def w7(x):
        return np.sum(np.sin(x) * np.exp(-(x**2)) / (1 + x**2))

    x = np.linspace(-1.0, 1.0, 7)
    text = srcad.source(srcad.grad(w7), x)
    assert not _pairs_left(text)
    assert text.count("\n    dx = ") == 1  # x's gradient in one statement


# ---------------------------------------------------------------- negation after the sum

#: (a's shape, b's shape): b broadcast against a in ``a - b`` (its gradient: unbroadcast(-g, b))
BROADCASTS = [((4, 3), (3,)), ((4, 3), (1, 3)), ((4, 3), (4, 1)), ((4, 3), ()), ((3,), (3,))]
NEGATED = {
    "minus": "np.sum(np.sin(a - b) * a)",
    "minus_twice": "np.sum((a - b) ** 2) + np.sum(np.cos(a - 2.0 * b))",
    "reversed": "np.sum(np.exp(-(b - a)) * a)",
}


@pytest.mark.parametrize("shapes", BROADCASTS, ids=[f"{a}-{b}" for a, b in BROADCASTS])
@pytest.mark.parametrize("expression", list(NEGATED))
def test_negation_after_the_sum(tmp_path, monkeypatch, expression, shapes):
    text = f"def f(a, b):\n    return {NEGATED[expression]}\n"
    f = load_module(tmp_path, "import numpy as np\n\n\n" + text).f
    twin = load_module(tmp_path, "import autograd.numpy as np\n\n\n" + text).f
    rng = np.random.default_rng(3)
    args = (rng.standard_normal(shapes[0]), rng.standard_normal(shapes[1]))
    g = srcad.grad(f, wrt=(0, 1))
    ours = g(*args)
    source = srcad.source(g, *args)
    assert "unbroadcast(-" not in source and "unbroadcast_to(-" not in source
    for i in (0, 1):
        assert np.shape(ours[i]) == np.shape(args[i])
        np.testing.assert_allclose(ours[i], autograd.grad(twin, i)(*args), rtol=1e-10,
                                   atol=1e-12)
        np.testing.assert_allclose(ours[i], numerical_grad(f, args, i), rtol=1e-6, atol=1e-8)
    monkeypatch.setattr(pipeline.switches, "OPTIMIZE", 0)
    fresh = load_module(tmp_path, "import numpy as np\n\n\n" + text).f  # made again, unoptimised
    raw = srcad.grad(fresh, wrt=(0, 1))(*args)
    for i in (0, 1):
        np.testing.assert_array_equal(ours[i], raw[i])


def test_a_user_function_named_unbroadcast_keeps_its_sign(tmp_path):
    """The user's ``unbroadcast`` is not srcad's: ``unbroadcast(-x, y)`` stays as written."""
    text = ("def unbroadcast(v, like):\n    return v * 2.0 + like\n\n\n"
            "def f(x, y):\n    return np.sum(np.sin(unbroadcast(-x, y)) * x)\n")
    f = load_module(tmp_path, "import numpy as np\n\n\n" + text).f
    twin = load_module(tmp_path, "import autograd.numpy as np\n\n\n" + text).f
    args = (np.linspace(-1.0, 1.0, 4), np.linspace(0.5, 1.5, 4))
    ours = srcad.grad(f, wrt=(0, 1))(*args)
    values = srcad.value_and_grad(f, wrt=(0, 1))(*args)[0]
    assert values == pytest.approx(f(*args), rel=1e-14)
    for i in (0, 1):
        np.testing.assert_allclose(ours[i], autograd.grad(twin, i)(*args), rtol=1e-10)


# ---------------------------------------------------------------- adding into a sum made here

#: a value read three or more times, and the sweep meets its gradient's contributions one
#: after another: the first ``g = g + c`` makes a new array, the next ones add into it
#: (``g += c``); a loop that may run no time must not make its gradient new after it
#: (``step``: how the carried value is read in the loop body; ``after``: read after the loop)
STEPS = {
    "three": "np.sin(y) * z + y * z + np.cos(z)",
    "callee": "part(z, y) + part(y, z) + y",
    "rhs": "np.concatenate((z[:1], z[1:] * y[:-1])) + y * z",
}
AFTER = {"none": "y", "again": "y * z + z + np.sin(z)", "seed": "y + z"}
FAMILY = [(s, a, n) for s in STEPS for a in AFTER for n in (0, 2)]


def _family_text(step, after, prefix):
    # z: read before the loop, in it (its gradient gets sums there) and after it (its
    # gradient starts as the caller's cotangent: "seed")
    return (f"{prefix}\n\n\ndef part(a, b):\n    return a * b + np.tanh(a)\n\n\n"
            f"def f(x, n):\n    z = x * 0.5\n    y = np.sin(z) + x\n    for i in range(n):\n"
            f"        y = {STEPS[step]}\n    return {AFTER[after]}\n")


@pytest.mark.parametrize("step, after, n", FAMILY, ids=[f"{s}-{a}-{n}" for s, a, n in FAMILY])
def test_adding_into_a_sum_made_by_the_sweep(tmp_path, step, after, n):
    ours = load_module(tmp_path, _family_text(step, after, "import numpy as np")).f
    theirs = load_module(tmp_path, _family_text(step, after, "import autograd.numpy as np")).f
    x = np.linspace(0.2, 0.9, 5)
    seed = np.linspace(1.0, 2.0, 5)
    kept = seed.copy()
    value, pullback = srcad.vjp(ours, x, n, wrt=0)
    got = pullback(seed)
    np.testing.assert_array_equal(seed, kept)  # the cotangent is the caller's: never added into
    np.testing.assert_allclose(value, theirs(x, n), rtol=1e-12)
    want = autograd.make_vjp(theirs, 0)(x, n)[0](seed)
    np.testing.assert_allclose(got, want, rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(got, numerical_grad(lambda v: np.dot(seed, ours(v, n)), (x,), 0),
                               rtol=1e-6, atol=1e-8)
    total = srcad.grad(lambda v: np.sum(ours(v, n) * seed))(x)
    np.testing.assert_allclose(total, want, rtol=1e-10, atol=1e-12)


def test_the_second_contribution_adds_in_place():
    def f(x, n):
        y = x
        for _ in range(n):
            y = np.sin(y) + y * x + np.cos(y)
        return np.sum(y)

    text = srcad.source(srcad.grad(f), np.ones(3), 2)
    assert "dy += " in text or "dy_1 += " in text, text
