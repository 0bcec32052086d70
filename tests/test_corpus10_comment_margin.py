"""A comment line left of a nested function's body (round 10).

Found in a course project (sytseng/AM207_Final_Project_Fall_2020, ``src/models.py``): a method
builds ``def objective(W, t)`` whose body holds a line commented out at column 0
(``#             mean_error = ...``), as notebook and editor users often leave it. Python
ignores where a comment starts; srcad read the nested function's lines, dedented them by
their common margin (none, because of the comment) and could not parse the text
(``SourceUnavailableError``: "cannot parse the source"). Now the lines are moved left by the
margin of the ``def`` line, and a comment-only line left of it is only stripped
(:func:`srcad.frontend.source.dedent_definition`).

The family: where the function sits (a method, a function nested in a method, a closure in a
function, two levels of nesting, a decorated nested function) x where the comment sits
(column 0, between the margin and the body, inside an ``if`` block, after the last
statement, several) x a string holding ``#`` at the left of a line (kept as written);
against central finite differences and autograd on the same text, with value_and_grad, jvp
and Hessians in both modes.
"""

from __future__ import annotations

import importlib.util
import itertools

import numpy as np
import pytest
from srcad.check import numerical_grad

import srcad
from srcad.frontend.source import dedent_definition

autograd = pytest.importorskip("autograd")

#: the body of the differentiated function, written at 4 columns; ``{c}`` marks where a
#: comment line goes (its text and column come from COMMENTS)
BODY = """\
e = np.sum((Y - np.tanh(w[0] * X + w[1])) ** 2)
{c}
if e > -1.0:
    {c}
    e = e + 0.5 * w[2] ** 2 * np.sum(X ** 2)
n = len(X)
{c}
return e / n
"""

#: the comment line written at a column of the file (not of the body)
COMMENTS = {
    "col0": lambda text: "# " + text,
    "col1": lambda text: " # " + text,
    "two_lines": lambda text: "#   e = e * 2.0\n# " + text,
    "hash_only": lambda text: "#",
}

#: where the function sits: (the module's text around it, how the test reaches it, the
#: column of its ``def`` line); ``{body}`` is the body, indented by the caller
PLACES = {
    "method_nested": ("""
class Model:
    def __init__(self, scale):
        self.scale = scale

    def make(self):
        def objective(w):
{body}
        return objective
""", lambda m: m.Model(1.0).make(), 8),
    "closure": ("""
def make():
    def objective(w):
{body}
    return objective
""", lambda m: m.make(), 4),
    "two_levels": ("""
def outer():
    def middle():
        def objective(w):
{body}
        return objective
    return middle()
""", lambda m: m.outer(), 8),
    "method": ("""
class Model:
    def objective(self, w):
{body}
""", lambda m: m.Model().objective, 4),
    "decorated_nested": ("""
def same(f):
    return f

def make():
    @same
    def objective(w):
{body}
    return objective
""", lambda m: m.make(), 4),
}

POINT = np.array([0.6, -0.3, 0.8])


def _text(place, comment):
    wrapper, _reach, column = PLACES[place]
    lines = []
    for line in BODY.splitlines():
        if line.strip() == "{c}":
            for part in COMMENTS[comment]("e = e + 1.0  # not run").splitlines():
                # the comment keeps its own column: left of the body, as in the project
                lines.append(part)
        else:
            lines.append(" " * (column + 4) + line)
    return wrapper.format(body="\n".join(lines))


def _module(text, tmp_path, numpy_name, tag):
    path = tmp_path / f"margin10_{tag}_{numpy_name.replace('.', '_')}.py"
    path.write_text(f"import {numpy_name} as np\n\nX = np.linspace(-1.0, 1.0, 5)\n"
                    f"Y = np.cos(X)\n" + text)
    spec = importlib.util.spec_from_file_location(path.stem, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


CASES = list(itertools.product(PLACES, COMMENTS))


@pytest.mark.parametrize("place,comment", CASES)
def test_gradient_matches_finite_differences_and_autograd(place, comment, tmp_path):
    text = _text(place, comment)
    reach = PLACES[place][1]
    f = reach(_module(text, tmp_path, "numpy", f"{place}_{comment}"))
    fa = reach(_module(text, tmp_path, "autograd.numpy", f"{place}_{comment}"))
    g = srcad.grad(f)(POINT)
    np.testing.assert_allclose(g, numerical_grad(f, (POINT,)), rtol=1e-6, atol=1e-8)
    np.testing.assert_allclose(g, autograd.grad(fa)(POINT), rtol=1e-10, atol=1e-12)
    value, g2 = srcad.value_and_grad(f)(POINT)
    assert value == pytest.approx(f(POINT), rel=1e-12)
    np.testing.assert_allclose(g2, g, rtol=1e-12)
    v = np.array([0.3, -1.1, 0.5])
    _, tangent = srcad.jvp(f, (POINT,), (v,))
    assert tangent == pytest.approx(float(g @ v), rel=1e-10, abs=1e-12)


@pytest.mark.parametrize("place", list(PLACES))
def test_hessians_both_modes(place, tmp_path):
    text = _text(place, "col0")
    reach = PLACES[place][1]
    f = reach(_module(text, tmp_path, "numpy", f"h_{place}"))
    fa = reach(_module(text, tmp_path, "autograd.numpy", f"h_{place}"))
    want = autograd.hessian(fa)(POINT)
    for mode in ("fwd", "rev"):
        np.testing.assert_allclose(srcad.hessian(f, mode=mode)(POINT), want,
                                   rtol=1e-8, atol=1e-10)


def test_the_projects_form(tmp_path):
    """The project's shape: a method returning its nested objective and ``grad`` of it,
    the old line commented out at column 0 between two statements."""
    module = _module('''
class Net:
    def __init__(self, reg):
        self.reg = reg

    def forward(self, W, x):
        return np.tanh(W[:3].reshape((3, 1)) * x).sum(axis=0) * W[3]

    def make_objective(self, x, y):
        def objective(W, t):
            squared_error = (y - self.forward(W, x)) ** 2
#             mean_error = np.mean(squared_error) + self.reg * np.linalg.norm(W)
            mean_error = np.mean(squared_error) + self.reg * (np.linalg.norm(W) ** 2) / W.size
            return mean_error
        return objective
''', tmp_path, "numpy", "project")
    objective = module.Net(0.1).make_objective(np.linspace(-1, 1, 6), np.sin(np.arange(6.0)))
    w = np.array([0.4, -0.7, 1.2, 0.9])
    g = srcad.grad(objective)(w, 0)
    np.testing.assert_allclose(g, numerical_grad(lambda v: objective(v, 0), (w,)),
                               rtol=1e-6, atol=1e-8)


def test_strings_keep_their_text():
    """A line of a multi-line string left of the margin is part of the string: it is kept
    as written, even when it begins with ``#``; a real comment is stripped."""
    lines = ['    def f(x):\n', '        s = """a\n', '# kept\n', '  b"""\n',
             '# a comment\n', '        return x\n']
    out = dedent_definition(lines)
    assert out.splitlines() == ['def f(x):', '    s = """a', '# kept', '  b"""',
                                '# a comment', '    return x']
    assert 'return x' in out
    namespace = {}
    exec(compile(out, "<test>", "exec"), namespace)
    assert namespace["f"](3) == 3


def test_the_generated_code_is_plain(tmp_path):
    text = _text("closure", "col0")
    f = PLACES["closure"][1](_module(text, tmp_path, "numpy", "source"))
    code = srcad.source(srcad.grad(f))
    assert "not run" not in code  # the comment is no code
    assert "def " in code
