"""Where the function raises, its derivative raises, for what raises by the operands' shapes
or types: a value nothing reads (``m = x + b``) stays where ``b``'s shape may not broadcast
with ``x``'s (shapes (3,) and (4,): ``ValueError``) or ``b`` may be of a type the operation
does not take (a string: ``TypeError``); it goes where the specialisation knows the shapes
alike (``b`` of ``x``'s shape: the specialisation's shape partition) or ``b`` a number.
``srcad.rules.raising.may_raise`` decides from :mod:`srcad.analysis.raise_facts`; a
discarded output whose only failure is a broadcast the gradient repeats
(``np.sum(b * np.sin(x))``: the gradient's ``shape_of(b, sin)``) is not computed
(:mod:`srcad.backend.tidy_broadcasts`) and the gradient raises at that repetition.

Each form, at the top level, in a branch, in a loop and in a callee (its forward part: the
generated code's dead-code pass is told the callee's facts too), under every transform (grad,
value_and_grad, vjp, jvp, jacfwd, jacrev, hessian, has_aux, Numba): the exception type of
``f`` itself where it raises; where it does not, the derivative against central differences
and srcad's tape. Cheap by default (a few cases, no Numba), every case under
SRCAD_LONG_PROPERTIES=1.
The generated code's covering rule alone, on trees: a later top-level statement must always
broadcast the same arrays, none of its names bound again between. Imports ast, itertools,
NumPy, pytest, srcad (its tidy_dead and raising too) and the tests' helpers."""

from __future__ import annotations

import ast
import itertools

import numpy as np
import pytest
import srcad.tape
from program_files import module
from sampling import LONG
from twin_checks import central

import srcad
from srcad.backend import tidy_dead
from srcad.rules import raising

X = np.array([0.3, -0.7, 1.1])
#: form -> (a dead value reading y, x and the argument b; a b raising, a b not raising)
FORMS = {
    "add": ("x + b", np.ones(4), np.ones(3)),
    "subtract_scaled": ("2.0 * y - b * 3.0", np.ones((2, 2)), np.ones(1)),
    "compare": ("x < b", np.ones(2), 0.5),
    "ufunc": ("np.maximum(y, b)", np.ones(4), np.ones(3)),
    "matmul_ufunc": ("np.matmul(b, x)", np.ones((2, 4)), np.ones((2, 3))),
    "division": ("y / b", np.ones(5), np.full(3, 2.0)),
    "power": ("x ** b", np.ones(2), np.ones(3)),
    "reduced": ("np.sum(np.exp(x) * b)", np.ones(4), np.ones(3)),
    "string": ("b + 1.0", "a", 2.0),
    "string_ufunc": ("np.sin(b)", "a", 2.0),
    "not_array": ("not b", np.ones(3), 0.5),
    "bitwise": ("np.bitwise_and(b, 3)", 1.5, 2),
    "dot": ("np.dot(b, x)", np.ones((2, 4)), np.ones((2, 3))),
    "reshape": ("y.reshape(b)", 5, 3),
    "concatenate": ("np.concatenate([x, b])", np.ones((2, 2)), np.ones(2)),
}
PLACES = {
    "top": "    m = {e}\n",
    "branch": "    if x[0] > -10.0:\n        m = {e}\n",
    "loop": "    for i in range(2):\n        m = {e}\n",
    "callee": "    m = {e}\n",  # (in a function f calls: its forward part, CALLEE)
}
TEXT = """import numpy as np


def f(x, b):
    y = x * x + 1.0
{dead}    return np.sum(y * 3.0 + x)


def f_aux(x, b):
    y = x * x + 1.0
{dead}    return np.sum(y * 3.0 + x), 7
"""
CALLEE = """import numpy as np


def g(x, b):
    y = x * x + 1.0
{dead}    return y * 3.0 + x


def f(x, b):
    return np.sum(g(x, b))


def f_aux(x, b):
    return np.sum(g(x, b)), 7
"""
TRANSFORMS = {
    "grad": lambda g, b: srcad.grad(g)(X, b),
    "value_and_grad": lambda g, b: srcad.value_and_grad(g)(X, b)[1],
    "vjp": lambda g, b: srcad.vjp(g, X, b, wrt=0)[1](1.0),
    "jvp": lambda g, b: np.array([srcad.jvp(g, (X, b), (e,), wrt=0)[1] for e in np.eye(3)]),
    "jacfwd": lambda g, b: srcad.jacfwd(g)(X, b),
    "jacrev": lambda g, b: srcad.jacrev(g)(X, b),
    "hessian": lambda g, b: np.diag(srcad.hessian(g)(X, b)),
}
#: the transforms of the companion with an aux, and Numba's: (name, of the module, b)
OTHERS = {
    "has_aux": lambda mod, b: srcad.grad(mod.f_aux, has_aux=True)(X, b)[0],
    "numba": lambda mod, b: srcad.grad(mod.f, backend="numba")(X, b),
}
CASES = list(itertools.product(FORMS, PLACES))
CASES = CASES if LONG else [("add", "top"), ("string", "loop"), ("reduced", "branch"),
                            ("not_array", "callee")]


def _want(name):
    return np.full(3, 6.0) if name == "hessian" else 6.0 * X + 1.0


def raises_in_every_transform(tmp_path, module_name, expression, place, bad, good):
    """The program with the dead ``expression`` at ``place``: ``f`` raises for ``bad`` and
    each of :data:`TRANSFORMS` raises the same, and for ``good`` each gives the gradient
    central differences and the tape give. Returns the module and the exception's type."""
    mod = module(tmp_path, module_name, (CALLEE if place == "callee" else TEXT).format(
        dead=PLACES[place].format(e=expression)))
    with pytest.raises(Exception) as raised:
        mod.f(X, bad)
    kind = type(raised.value)
    mod.f(X, good)  # (it does not raise)
    assert np.allclose(central(mod.f, [X, good], 0), _want("grad"), atol=1e-6)
    assert np.allclose(srcad.tape.grad(mod.f)(X, good), _want("grad"))
    for name, transform in TRANSFORMS.items():
        with pytest.raises(kind):
            transform(mod.f, bad)
        assert np.allclose(transform(mod.f, good), _want(name), rtol=1e-9), name
    return mod, kind


@pytest.mark.parametrize("form,place", CASES)
def test_a_dead_value_raising_by_shape_or_type_raises_in_every_transform(tmp_path, form, place):
    expression, bad, good = FORMS[form]
    mod, kind = raises_in_every_transform(tmp_path, f"shapes_{form}_{place}", expression,
                                          place, bad, good)
    for name, transform in OTHERS.items() if LONG else [("has_aux", OTHERS["has_aux"])]:
        if name == "numba" and isinstance(bad, str):
            continue  # (Numba refuses a string argument, with its own error)
        if name == "numba":  # (a line Numba cannot compile is refused, naming it)
            try:
                transform(mod, good)
            except srcad.SrcadError as e:
                assert "line" in str(e) and " m = " in str(e), e
                continue
        with pytest.raises((kind, srcad.SrcadError)) as raised:  # (Numba: or refused)
            transform(mod, bad)
        assert not isinstance(raised.value, srcad.SrcadError) or name == "numba" and (
            " m = " in str(raised.value) or "g(x, b)" in str(raised.value)), raised.value
        assert np.allclose(transform(mod, good), _want(name), rtol=1e-9), name


DISCARDED = """import numpy as np


def f(x, b):
    return np.sum(b * np.sin(x)) + np.sum(x * x)
"""


def test_a_discarded_broadcast_raises_where_the_gradient_repeats_it(tmp_path):
    """``np.sum(b * np.sin(x))`` for a ``b`` of another shape than ``x``: the gradient's
    code does not compute the product (its value is the discarded output) and raises
    ``ValueError`` at its own ``shape_of(b, sin)``, as ``f`` does; with ``b`` of ``x``'s
    shape, the gradient against central differences and the tape."""
    mod = module(tmp_path, "shapes_discarded", DISCARDED)
    want = np.cos(X) * 2.0 + 2.0 * X
    for name, transform in TRANSFORMS.items():
        if name in ("hessian", "jvp"):
            continue
        with pytest.raises(ValueError):
            transform(mod.f, np.ones(4))
        assert np.allclose(transform(mod.f, np.full(3, 2.0)), want, rtol=1e-9), name
    assert np.allclose(central(mod.f, [X, np.full(3, 2.0)], 0), want, atol=1e-6)
    assert np.allclose(srcad.tape.grad(mod.f)(X, np.full(3, 2.0)), want)
    text = srcad.source(srcad.grad(mod.f), X, np.full(3, 2.0))
    assert "b * " not in text.split("# backward")[0], text  # (not computed: the output's)


class _Facts:
    """Facts of names for the generated code's dead-code pass: each array of its class."""

    shape_of = "shape_of"

    def __init__(self, roots):
        self.roots = roots

    def get(self, name, default=raising.OWN):
        return raising.Alike(self.roots[name]) if name in self.roots else default


COVERING = """
def g(Y, L, M, c):
    s = (Y * L).sum()
    {between}
    t = {later}
    return t
"""


@pytest.mark.parametrize("between,later,gone", [
    ("pass", "shape_of(Y, L)", True),
    ("u = np.exp(M)", "np.broadcast_to(1.0, shape_of(L, Y))", True),
    ("pass", "Y * L + M", True),
    ("Y = Y + 1.0", "shape_of(Y, L)", False),  # (another Y broadcast)
    ("pass", "shape_of(Y, L) if c else None", False),  # (not always evaluated)
    ("pass", "shape_of(Y, M)", False),  # (other arrays)
    ("return c", "shape_of(Y, L)", False),  # (never reached)
])
def test_a_broadcast_covered_only_by_one_always_repeated(between, later, gone):
    """``backend.tidy_broadcasts``: the discarded ``s = (Y * L).sum()`` (Y, L, M of three
    shape classes) goes only where a later top-level statement always broadcasts Y with L,
    no name it reads bound again between."""
    fdef = ast.parse(COVERING.format(between=between, later=later)).body[0]
    tidy_dead._dead_code(fdef, _Facts({"Y": 0, "L": 1, "M": 2}))
    assert ("s = " not in ast.unparse(fdef)) == gone, ast.unparse(fdef)
