"""Python as people write it, round 8 (issue 16).

- the Numba backend's digamma family (``polygamma_real``, the gradient of ``math.lgamma``
  and ``math.gamma``), against the Python backend;
- ``it = iter(xs)`` read by a ``for`` loop, ``enumerate``, ``zip(it, it)``, ``list(it)``,
  comprehensions (:mod:`srcad.frontend.lower_next`); passed on, refused with a hint;
- a list of made functions (:mod:`srcad.frontend.lower_made_lists`) built by a comprehension,
  a display or appends, used through ``zip``, ``enumerate``, ``reversed``; a name bound to
  what ``make`` returns in branches doing more than that;
- a ``make`` defined inside the function differentiated (:mod:`srcad.frontend.lower_local_makes`,
  or lifted with the values it reads); different functions bound to one name on different
  paths, refused (they were read as the last one);
- ``make`` returning partials, tuples, or functions with other parameter names on its paths
  (:mod:`srcad.frontend.closures_paths`).

Gradients are checked against central finite differences and autograd running the same text
(or a form of it autograd runs).
"""

from __future__ import annotations

import math
import textwrap

import numpy as np
import program_files
import pytest
from srcad.check import numerical_grad

import srcad
from srcad.errors import SrcadError

autograd = pytest.importorskip("autograd")

X = np.array([0.3, -1.2, 0.5, 0.7])
Y = np.array([-0.4, 0.8, -0.6, 1.1])  # other signs: the other paths


def _module(source, tmp_path, numpy_name, tag=""):
    head = "import math\nimport functools\n"
    return program_files.module(tmp_path, f"forms8_{tag}{abs(hash((source, numpy_name)))}",
                                f"import {numpy_name} as np\n" + head + textwrap.dedent(source))


def _agree(source, points, tmp_path, second=None, hessian=False):
    """At each point: srcad's gradient against finite differences and autograd (``second``:
    the text autograd runs, if not ``source``); ``hessian``: srcad's Hessian against finite
    differences of its gradient."""
    f = _module(source, tmp_path, "numpy").f
    ag = autograd.grad(_module(second or source, tmp_path, "autograd.numpy", "ag").f)
    df = srcad.grad(f)
    for x in points:
        g = df(x)
        np.testing.assert_allclose(g, numerical_grad(f, (x,)), rtol=1e-6, atol=1e-8)
        np.testing.assert_allclose(g, ag(x), rtol=1e-10, atol=1e-12)
    if hessian:
        x = points[0]
        h = srcad.hessian(f)(x)
        rows = [numerical_grad(lambda v, i=i: df(v)[i], (x,)) for i in range(np.size(x))]
        np.testing.assert_allclose(h, np.array(rows), rtol=1e-5, atol=1e-7)


def _refused(source, tmp_path, *words):
    f = _module(source, tmp_path, "numpy").f
    with pytest.raises(SrcadError) as info:
        srcad.grad(f)(X)
    text = str(info.value)
    assert info.value.lineno is not None, text
    for word in words:
        assert word in text, text
    return text


# ---------------------------------------------------------------- Numba: math.gamma, lgamma


def _gammas(x, c):
    return math.lgamma(x * x + 1.0) * c + math.gamma(x - c) + math.lgamma(c - x)


def test_numba_digamma_family_matches_the_python_backend():
    pytest.importorskip("numba")
    fast, slow = (srcad.grad(_gammas, wrt=(0, 1), backend=b) for b in ("numba", "python"))
    for x, c in ((0.3, 2.5), (1.7, -0.6), (-2.4, 0.2), (12.3, 0.5)):
        for a, b in zip(fast(x, c), slow(x, c)):
            assert a == pytest.approx(b, rel=1e-12, abs=1e-12)
    with pytest.raises(ValueError):
        fast(0.5, 2.5)  # gamma at the pole -2, as Python raises


# ---------------------------------------------------------------- iter(xs) beyond next(it)

# a for loop over what is left (break, else), enumerate, zip(it, it, ...) of any length,
# list/sum/max of it, comprehensions over it, then next(it) reading the position left
ITERS = [
    "first = next(it)\ns = 0.0\nfor v in it:\n    s = s + v * first\nreturn s",
    "for v in it:\n    if v < 0:\n        break\nreturn next(it) * x[0] + v",
    "s = x[0]\nfor v in it:\n    s = s * v\nelse:\n    s = s + 1.0\nreturn s + next(it, 0.5) * s",
    "h = next(it)\nys = [v * h for i, v in enumerate(it, 1)]\nreturn sum(ys) + next(it, h)",
    "next(it)\nreturn sum(v * v for v in list(it))",
    "h = next(it)\nreturn max(it) * h",
] + [f"s = 0.0\nfor {', '.join(f'a{j}' for j in range(k))} in zip({', '.join(['it'] * k)}):\n"
     f"    s = s + {' * '.join(f'a{j}' for j in range(k))}\nreturn s + next(it, 2.0) * x[0]"
     for k in (2, 3)] + [
    "pairs = [a - b for a, b in zip(it, it)]\nreturn sum(p * p for p in pairs)"]


@pytest.mark.parametrize("body", ITERS)
def test_an_iterator_read_other_than_by_next(body, tmp_path):
    n = 3 if "zip" in body else 4  # zip(it, it) of an odd length: the last item left over
    source = f"def f(x):\n    it = iter(x[:{n}])\n" + textwrap.indent(body, "    ") + "\n"
    _agree(source, [X, Y], tmp_path)


@pytest.mark.parametrize("use", ["take(it) + next(it)",
                                 "sum(v for v in it if v > 0) + (next(it) if x[0] else 1.0)"])
def test_an_iterator_passed_on_is_refused_with_a_hint(use, tmp_path):
    source = f"def take(it):\n    return next(it)\ndef f(x):\n    it = iter(x)\n" \
             f"    return {use}\n"
    _refused(source, tmp_path, "iter(xs)", "loop over xs itself")


# ---------------------------------------------------------------- lists of made functions

MADE = """
def make(a, p=2.0):
    b = a * p
    return lambda t: b * np.sin(t) + a
"""

# how the list is built x how it is used
BUILDS = {
    "comp": "fs = [make(x[i]) for i in range(3)]",
    "display": "fs = [make(x[0]), make(x[1], p=3.0), make(x[2])]",
    "append": "fs = []\nfor i in range(3):\n    fs.append(make(x[i] * x[3]))",
    "branch": "fs = []\nfor i in range(3):\n    if x[i] > 0:\n        fs.append(make(x[i]))"
              "\n    else:\n        fs.append(make(x[i], p=0.5))",
}
LIST_USES = [
    "return sum(np.sum(h(w * x)) for h, w in zip(fs, [1.0, 2.0, 3.0]))",
    "s = 0.0\nfor i, h in enumerate(fs, 1):\n    s = s + i * np.sum(h(x))\nreturn s",
    "s = 1.0\nfor w, h in zip(x, fs):\n    s = s * h(w)\nreturn s",
    "return sum(h(x[0]) * k for k, h in enumerate(reversed(fs)))",
]


@pytest.mark.parametrize("build, use", list(zip(BUILDS, LIST_USES)))  # each build, each use
def test_a_list_of_made_functions_through_zip_enumerate_and_appends(build, use, tmp_path):
    source = MADE + "def f(x):\n" + textwrap.indent(BUILDS[build] + "\n" + use, "    ") + "\n"
    _agree(source, [X, Y], tmp_path)


def test_a_list_of_made_functions_passed_on_is_refused_with_a_hint(tmp_path):
    source = MADE + "def total(fs, x):\n    return sum(np.sum(h(x)) for h in fs)\n" \
        "def f(x):\n    fs = [make(x[i]) for i in range(3)]\n    return total(fs, x)\n"
    _refused(source, tmp_path, "used other than by calling it", "zip(fs, vs)")


# ---------------------------------------------------------------- a made function chosen

# the caller's branches (or loop) bind h = make(...) among other statements: h is bound more
# than once, always to what make returns, and only called
CHOSEN = [
    "if x[0] > 0:\n    h = make(x[1])\n    k = 2.0\nelse:\n    k = np.cos(x[2])\n"
    "    h = make(x[2], p=k)\nreturn np.sum(h(x)) * k",
    "if x[0] > 0:\n    h = make(x[1])\nelif x[1] > 0:\n    h = make(x[2] * 2.0)\n    x = x * 1.5\n"
    "else:\n    h = make(x[3])\nreturn np.sum(h(x))",
    "h = make(x[0])\ns = h(x[1])\nfor i in range(3):\n    if x[i] > 0:\n        h = make(x[i] * s)"
    "\n    s = s + h(x[3])\nreturn s",
]


@pytest.mark.parametrize("body", CHOSEN)
def test_a_made_function_chosen_by_branches_doing_more(body, tmp_path):
    source = MADE + "def f(x):\n" + textwrap.indent(body, "    ") + "\n"
    _agree(source, [X, Y], tmp_path)


# ---------------------------------------------------------------- make inside the function

INSIDE_MAKE = "def make(a, p=2.0):\n    b = a * p\n    return lambda t: b * np.sin(t) + a\n"
INSIDE = [  # make reading nothing of f: out of the body, every form a module-level make has
    INSIDE_MAKE + "return sum(make(x[i])(x[3]) for i in range(3))",
    INSIDE_MAKE + "fs = [make(x[i]) for i in range(3)]\nreturn sum(np.sum(h(x)) for h in fs)",
    INSIDE_MAKE + "h = make(x[0])\nif x[1] > 0:\n    h = make(x[1])\n    y = 3.0\nelse:\n"
    "    h = make(x[2])\n    y = 1.0\nreturn np.sum(h(x)) * y",
    "def make(a):\n    def g(t):\n        return a * t\n    def k(t):\n        return g(t) * t\n"
    "    return k\nreturn make(x[0])(x[1])",
    "make = lambda a: (lambda t: a * t * t)\nreturn make(x[0])(x[1]) * x[2]",
    # reading f's values: lifted with them, each call converted
    "s = np.sum(x) * 0.5\ndef make(a):\n    def g(t):\n        return a * t * s\n    return g\n"
    "h = make(x[0])\nreturn np.sum(h(x))",
    "c = x[3]\ndef make(a):\n    if a > 0:\n        return lambda t: a * t + c\n"
    "    return lambda t: a - t * c\nreturn make(x[0])(x[1]) + make(x[1])(x[2])",
    "s = x[3] * 2.0\ndef make(a):\n    return lambda t: a * t * s\n"
    "fs = [make(x[i]) for i in range(3)]\nreturn sum(h(x[0]) for h in fs)",
    # a nested function with a function inside, not returned
    "def outer(v):\n    def inner(t):\n        return t * v\n    return inner(v) * 2.0\n"
    "return outer(x[0]) + outer(x[1])",
    "def helper(v):\n    return sum(map(lambda t: t * v, x))\nreturn helper(x[0]) * helper(x[2])",
]


@pytest.mark.parametrize("body", INSIDE)
def test_a_make_defined_inside_the_function(body, tmp_path):
    _agree("def f(x):\n" + textwrap.indent(body, "    ") + "\n", [X, Y], tmp_path)


# a name bound to a different function on each path: never the last def's body everywhere
# (these gave the last def's gradient on every path before: now a value merged, refused)
MERGED = [
    "if x[1] > 0:\n    h = lambda t: t * x[0] * x[0]\nelse:\n    h = lambda t: t * x[2]\n"
    "return h(x[3])",
    "a = x[0] * 2\nif x[1] > 0:\n    def h(t):\n        return t * a\nelse:\n    def h(t):\n"
    "        return t * x[2]\nreturn h(x[3])",
    "h = make(x[0]) if x[1] > 0 else (lambda t: t * x[2])\nreturn h(x[3])",
]


@pytest.mark.parametrize("body", MERGED)
def test_different_functions_bound_to_one_name_are_refused(body, tmp_path):
    source = MADE + "def f(x):\n" + textwrap.indent(body, "    ") + "\n"
    _refused(source, tmp_path, "that an if/else merges", "choose the values")


def test_a_dead_list_of_made_functions(tmp_path):  # was a NameError in the generated code
    source = MADE + "def f(x):\n    fs = [make(x[i]) for i in range(3)]\n    return x[0] * 2.0\n"
    _agree(source, [X], tmp_path)


# ---------------------------------------------------------------- make: functions on paths

PATH_HELPERS = """
def g1(a, t, k=1.0):
    return a * t * k


def g2(b, s):
    return np.sin(b * s)
"""
PATHS = {  # make(a, n) returning on its paths
    "partials": ("functools.partial(g1, a, k=a)", "functools.partial(g2, a * a)",
                 "h = make(x[0], 1)\nreturn np.sum(h(x)) + np.sum(make(x[1], -1)(x))"),
    "names": ("lambda t: a * t", "lambda u: a - u * a",
              "return np.sum(make(x[0], 1)(x)) * np.sum(make(x[1], -1)(x))"),
    "tuples": ("(lambda t: a * t), a + 1.0, (lambda t: a - t)",
               "(lambda t: a * a + t), a * 3.0, functools.partial(g2, a)",
               "p, m, q = make(x[0], 1)\nr, n, s = make(x[1], -1)\n"
               "return np.sum(p(x) * q(x)) * m + np.sum(r(x) * s(x)) * n"),
}


@pytest.mark.parametrize("kind", sorted(PATHS))
def test_a_helper_returning_other_functions_on_other_paths(kind, tmp_path):
    first, second, use = PATHS[kind]
    source = PATH_HELPERS + f"def make(a, n):\n    if n > 0:\n        return {first}\n" \
        f"    return {second}\n\n\ndef f(x):\n" + textwrap.indent(use, "    ") + "\n"
    _agree(source, [X, Y], tmp_path)


def test_functions_with_other_parameters_on_other_paths_are_refused(tmp_path):
    source = "def make(a, n):\n    if n > 0:\n        return lambda t: a * t\n" \
        "    return lambda t, s: a * t + s\n\n\ndef f(x):\n    return np.sum(make(x[0], 1)(x))\n"
    _refused(source, tmp_path, "make(...) returned", "the same parameters")


@pytest.mark.parametrize("where, words", [
    ("module", ("keeps state between its calls (nonlocal n)", "return y, n + 1")),
    ("inside", ("nonlocal", "pass the value in as an argument")),
])
def test_nonlocal_state_in_a_made_function_is_refused(where, words, tmp_path):
    make = "def make(a):\n    n = 0.0\n\n    def g(t):\n        nonlocal n\n        n = n + t\n" \
        "        return n * a\n\n    return g\n"
    use = "h = make(x[0])\nreturn h(x[1]) + h(x[2])\n"
    body = (make if where == "inside" else "") + use
    source = (make if where == "module" else "") + "def f(x):\n" + textwrap.indent(body, "    ")
    _refused(source, tmp_path, *words)


def test_a_made_function_reading_a_local_bound_in_a_loop_is_refused(tmp_path):
    # Python reads s when h is called (x[2]), not when make ran (x[0])
    body = "def make(a):\n    return lambda t: a * t * s\nh = None\nfor i in range(3):\n" \
        "    s = x[i]\n    if i == 0:\n        h = make(x[0])\nreturn h(x[3])\n"
    _refused("def f(x):\n" + textwrap.indent(body, "    "), tmp_path, "reading 's'",
             "pass s to make as an argument")
