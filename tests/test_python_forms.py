"""Forms of everyday Python around sequences: ``max``/``min`` of a sequence or of several
values, starred assignment targets, ``a.tolist()``.

Each is a generated family (positions of the star, lengths, containers, ties), checked against
central finite differences in reverse mode and by the dot-product test in forward mode.
"""

from __future__ import annotations

import importlib.util
import itertools

import numpy as np
import pytest
from srcad.check import numerical_grad

import srcad

X = np.array([0.3, -1.2, 2.5, 0.7, 2.1, -0.45])


def _check(f, x):
    g = srcad.grad(f)(x)
    np.testing.assert_allclose(g, numerical_grad(f, (x,)), rtol=1e-6, atol=1e-8)
    u = np.cos(np.arange(x.size)).reshape(x.shape)
    _, t = srcad.jvp(f, (x,), (u,))
    assert t == pytest.approx(float(np.sum(g * u)), rel=1e-9, abs=1e-12)


def _define(source, tmp_path):
    """The function ``f`` defined by ``source``, in a module file srcad can read."""
    path = tmp_path / "forms_case.py"
    path.write_text("import numpy as np\n\n\n" + source)
    spec = importlib.util.spec_from_file_location(f"forms_case_{abs(hash(source))}", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module.f


EXTREMA = []
for fn, container, n in itertools.product(("max", "min"), ("list", "tuple", "array", "gen"),
                                          (1, 3, 6)):
    items = {"list": f"[x[k] * (k + 1.0) for k in range({n})]",
             "tuple": f"tuple(x[:{n}] ** 2)", "array": f"x[:{n}] * 1.5",
             "gen": f"(np.sin(v) for v in x[:{n}])"}[container]
    EXTREMA.append(f"def f(x):\n    return {fn}({items}) * x[0]\n")
for fn, n in itertools.product(("max", "min"), range(2, 7)):
    args = ", ".join(f"x[{k}] * {k + 1}.0" for k in range(n))
    EXTREMA.append(f"def f(x):\n    return {fn}({args}) + x[1]\n")


@pytest.mark.parametrize("source", EXTREMA)
def test_max_and_min_of_a_sequence_or_of_values(source, tmp_path):
    _check(_define(source, tmp_path), X)


def test_max_and_min_ties_go_to_the_first_item_python_returns():
    def f(x):
        return max([x[0], x[1], x[0]]) + min(x[2], x[3], x[2])

    x = np.array([2.0, 1.0, -1.0, 0.0])
    np.testing.assert_allclose(srcad.grad(f)(x), [1.0, 0.0, 1.0, 0.0])


def test_max_with_key_sends_the_gradient_to_the_item_it_picks():
    def f(x):
        return max([x[0], x[1]], key=abs)  # more in test_python_forms2.py

    np.testing.assert_allclose(srcad.grad(f)(X), numerical_grad(f, (X,)), atol=1e-8)


def test_max_with_default_and_key_is_refused():
    """``max(xs, default=d)`` is differentiated (tests/test_python_forms3.py); with ``key=``
    too it is refused."""
    def f(x):
        return max([x[0], x[1]], key=abs, default=0.0)

    with pytest.raises(srcad.SrcadError, match="max"):
        srcad.grad(f)(X)


STARRED = []
for size, before, after in itertools.product((3, 4, 6), range(3), range(3)):
    if before + after > size:
        continue
    names = [f"a{k}" for k in range(before)] + ["*rest"] + [f"z{k}" for k in range(after)]
    names = names if len(names) > 1 else names + [""]  # (*rest,) alone: a one-item tuple
    used = " + ".join([f"a{k} * {k + 2}.0" for k in range(before)] +
                      [f"z{k} ** 2" for k in range(after)] + ["sum(rest) * 0.5", "len(rest)"])
    STARRED.append((size, f"def f(x):\n    {', '.join(names)} = x[:{size}] * x[0]\n"
                          f"    return {used}\n"))


@pytest.mark.parametrize(("size", "source"), STARRED)
def test_starred_assignment_targets(size, source, tmp_path):
    _check(_define(source, tmp_path), X)


def test_starred_target_with_too_few_items_raises():
    def f(x):
        a, b, *rest = x
        return a * b

    with pytest.raises((AssertionError, ValueError)):
        srcad.grad(f)(np.array([1.0]))


@pytest.mark.parametrize("shape", [(6,), (2, 3), (3, 2)])
def test_tolist(shape):
    x = X.reshape(shape)

    def f(x):
        total = 0.0
        for v in np.ravel(np.array(x.tolist())):
            total = total + v * v
        return total + x.tolist()[0][0] * 3.0 if x.ndim == 2 else total + x.tolist()[1]

    _check(f, x)


SEQUENCES = [
    (shape, f"def f(x):\n    t = {container}({expr})\n    return np.sum(t[1] * x.ravel()[0]) "
            f"+ np.sum(t[-1] ** 2)\n")
    for shape, container, expr in itertools.product(
        ((6,), (3, 2)), ("list", "tuple"),
        ("x ** 2", "x * 3", "2 * x", "x ** 3 - x", "np.sin(x)", "x", "x[::-1] * 2"))]


@pytest.mark.parametrize(("shape", "source"), SEQUENCES)
def test_list_of_an_array_expression(shape, source, tmp_path):
    """``list(x ** 2)``: the items' gradients come back as an array (a list times 2 would
    repeat the list)."""
    _check(_define(source, tmp_path), X.reshape(shape))


CONCATS = []
for left, right, then in itertools.product(
        ("[x[0], x[1] * 2.0]", "(x[0], x[1] * 2.0)", "[]", "[3.0]"),
        ("[x[2] * 3.0, x[3]]", "[1.5]", "[]"),
        ("", "v.append(x[4])", "v[0] = v[0] * 2.0 if v else 0.0")):
    if left.startswith("("):  # a tuple joins a tuple
        right = {"[x[2] * 3.0, x[3]]": "(x[2] * 3.0, x[3])", "[1.5]": "(1.5,)",
                 "[]": "()"}[right]
        if then.startswith("v.append"):
            continue
    body = f"    a = {left}\n    v = a + {right}\n"
    body += f"    {then}\n" if then else ""
    body += ("    return sum(v) + sum(a) * 0.5 + sum(w * (k + 1.0) for k, w in enumerate(v))"
             " + x[5]\n")
    CONCATS.append("def f(x):\n" + body.replace("v[0] = v[0] * 2.0 if v else 0.0",
                                                   "v = [v[0] * 2.0] + list(v[1:]) if v "
                                                   "else []"))


@pytest.mark.parametrize("source", CONCATS)
def test_list_concatenation_in_both_modes(source, tmp_path):
    """``v = a + b`` of lists or tuples: forward mode's tangent is the two tangents joined
    (a new list: appending to ``v`` leaves ``a``'s tangent alone; a constant part has zero
    tangent at its own positions)."""
    _check(_define(source, tmp_path), X)


TRICKS = [
    "np.r_[x, x ** 2, 3.0]", "np.r_[x[0], x[1:] * 2.0]", "np.r_[np.sin(x)]",
    "np.r_[x.reshape(2, 3), x.reshape(2, 3) ** 2]", "np.c_[x, x ** 2]", "np.c_[x]",
    "np.c_[x.reshape(3, 2), x[:3]]", "np.c_[np.outer(x[:2], x[:2]), x[2:4]]",
]


@pytest.mark.parametrize("expr", TRICKS)
def test_index_tricks_join_their_items(expr, tmp_path):
    """``np.r_[a, b]`` and ``np.c_[a, b]`` of values: NumPy's joins, differentiated."""
    source = (f"def f(x):\n    y = {expr}\n"
              "    return np.sum(y * np.cos(np.arange(y.size)).reshape(y.shape))\n")
    _check(_define(source, tmp_path), X)
