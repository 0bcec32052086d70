"""The seed articles' two graphs: values, gradients, and the shape of the generated code."""

import ast
import pathlib
import sys

import pytest
from srcad.check import numerical_grad

import srcad

sys.path.insert(0, str(pathlib.Path(__file__).parent.parent / "examples"))
import seed_graphs  # noqa: E402

GOLDEN = pathlib.Path(__file__).parent / "golden"


def test_first_article_numbers():
    df = srcad.grad(seed_graphs.f, wrt=("x", "w"))
    assert df(2.0, 1.0) == (2.0, 5.0)


def test_second_article_numbers():
    a, o = 2.0, 1.0
    d = 5 * (5 - 3 * a) + 6  # the article's d, computed from its own definition
    da, do = srcad.grad(seed_graphs.g, wrt=("a", "o"))(a, o)
    assert da == pytest.approx(-252 - 180 * d)
    assert do == -1.0


@pytest.mark.parametrize("point", [(2.0, 1.0), (-0.3, 4.0), (10.0, -2.5)])
@pytest.mark.parametrize("func", [seed_graphs.f, seed_graphs.g])
def test_seed_gradients_match_finite_differences(func, point):
    ours = srcad.grad(func, wrt=(0, 1))(*point)
    theirs = numerical_grad(func, point, (0, 1))
    assert ours == pytest.approx(theirs, rel=1e-7, abs=1e-6)


@pytest.mark.parametrize(("func", "wrt", "golden"), [
    (seed_graphs.f, ("x", "w"), "grad_f.py.txt"),
    (seed_graphs.g, ("a", "o"), "grad_g.py.txt"),
])
def test_generated_source_is_locked(func, wrt, golden):
    """The generated code of the seeds, reviewed by hand once, must not drift."""
    text = srcad.source(srcad.grad(func, wrt=wrt))
    assert text == (GOLDEN / golden).read_text()


@pytest.mark.parametrize("func", [seed_graphs.f, seed_graphs.g])
def test_seed_source_is_only_arithmetic(func):
    tree = ast.parse(srcad.source(srcad.grad(func, wrt=(0, 1))))
    calls = [n for n in ast.walk(tree) if isinstance(n, ast.Call)]
    assert calls == []  # no helpers, no accumulation functions: plain arithmetic
    names = {n.id for n in ast.walk(tree) if isinstance(n, ast.Name)}
    assert {"dx", "dw"} <= names or "da" in names  # dg/do = -1 is folded to a constant
    zeros = [n for n in ast.walk(tree) if isinstance(n, ast.Constant) and n.value == 0.0]
    assert zeros == []  # no zero initialisations
