"""Python as people write it, round 2 (issue 16): ``zip``/``enumerate``/``reversed`` nested in
loops and consumed as values, ``sorted`` and the in-place ``ys.sort()``/``ys.reverse()``/
``y.sort()`` on a value nobody else sees (a permutation, exact), ``x.view()``, ``x.flat`` reads,
and lists of parameters (``for W, b in params``) as ``wrt``.

Every case is a generated family (forms x containers x points). Each gradient is checked
against central finite differences and against autograd running the same text with
``autograd.numpy`` (where a form has no autograd spelling, the case gives the text autograd
runs: the same mathematics written with ``np.sort``); forward mode by the dot-product test.
Refusals are checked for their class, line and rewrite.
"""

from __future__ import annotations

import importlib.util
import itertools
import re
import textwrap

import numpy as np
import pytest
from sampling import sample
from srcad.check import numerical_grad

import srcad

autograd = pytest.importorskip("autograd")

X = np.array([0.3, -1.2, 2.5, 0.7, -0.45])
W = np.array([1.1, 0.4, -0.8, 2.0, 0.6])


def _module(source, tmp_path, numpy_name):
    """The module made of ``source`` with ``np`` bound to ``numpy_name``."""
    path = tmp_path / f"forms2_{abs(hash((source, numpy_name)))}.py"
    path.write_text(f"import {numpy_name} as np\n\nW = np.array({W.tolist()})\n\n\n"
                    + textwrap.dedent(source))
    spec = importlib.util.spec_from_file_location(path.stem, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _check(source, x, tmp_path, autograd_source=None, forward=True):
    """srcad's gradient of ``f`` at ``x`` against finite differences and autograd, its value
    against the function's own, and (``forward``) its tangent by the dot-product test."""
    f = _module(source, tmp_path, "numpy").f
    g = srcad.grad(f)(x)
    np.testing.assert_allclose(g, numerical_grad(f, (x,)), rtol=1e-6, atol=1e-8)
    ag = _module(autograd_source or source, tmp_path, "autograd.numpy").f
    np.testing.assert_allclose(g, autograd.grad(ag)(x), rtol=1e-10, atol=1e-12)
    value, _ = srcad.value_and_grad(f)(x)
    assert value == pytest.approx(f(x), rel=1e-12)
    if forward:
        u = np.cos(np.arange(x.size) + 0.5).reshape(x.shape)
        _, t = srcad.jvp(f, (x,), (u,))
        assert t == pytest.approx(float(np.sum(g * u)), rel=1e-9, abs=1e-12)


# ---------------------------------------------------------------- zip, enumerate, reversed

#: sequences a program zips: of values carrying gradients, or constants
SEQUENCES = {"list": "[v * 1.5 for v in x]", "tuple": "tuple(x[1:] ** 2)", "array": "x",
             "slice": "x[::-1]", "mapped": "list(map(np.sin, x))", "range": "range(2, 9)"}
#: ways of walking them together (A, B: two of the sequences)
ZIP_FORMS = {
    "for_pairs": "s = 0.0\nfor a, b in zip(A, B):\n    s = s + a * b\nreturn s",
    "enumerate_zip": "s = 0.0\nfor i, (a, b) in enumerate(zip(A, B)):\n"
                     "    s = s + i * a * b\nreturn s",
    "enumerate_start": "s = 0.0\nfor i, (a, b) in enumerate(zip(A, B), start=1):\n"
                       "    s = s + a * b / i\nreturn s",
    "enumerate_start_pos": "s = 0.0\nfor k, (a, b) in enumerate(zip(A, B), 2):\n"
                           "    s = s + a * np.cos(b) * k\nreturn s",
    "tuple_target": "s = 0.0\nfor t in zip(A, B):\n    s = s + t[0] * np.cos(t[1])\nreturn s",
    "three": "s = 0.0\nfor a, b, c in zip(A, B, x):\n    s = s + a * b * c\nreturn s",
    "zip_enumerate": "return sum(a * b * i for (i, a), b in zip(enumerate(A), B))",
    "generator_sum": "return sum(a * b for a, b in zip(A, B))",
    "list_of_zip": "ps = list(zip(A, B))\nreturn ps[0][0] * ps[-1][1] + len(ps)",
    "tuple_of_zip": "ps = tuple(zip(A, B))\nreturn ps[1][0] * ps[2][1]",
    "dict_of_zip": "d = dict(zip(['p', 'q', 'r'], A))\nreturn d['p'] * d['r'] + d['q'] * B[0]",
    "map_in_comprehension": "return sum([f * b for f, b in zip(map(np.tanh, A), B)])",
    "list_of_enumerate": "ps = list(enumerate(A, 1))\nreturn sum(i * v for i, v in ps) * B[0]",
    "sum_reversed": "return sum(reversed(A)) * B[1]",
    "list_reversed": "r = list(reversed(A))\nreturn r[0] * B[0] + r[-1] ** 2",
    "enumerate_reversed": "s = 0.0\nfor i, a in enumerate(reversed(A)):\n"
                          "    s = s + (i + 1) * a\nreturn s * B[2]",
    "kept_zip": "it = zip(A, B)\ns = 0.0\nfor a, b in it:\n    s = s + a * b\nreturn s",
    "kept_enumerate": "it = enumerate(A, 1)\nreturn sum(i * a for i, a in it) * B[0]",
    "kept_map": "m = map(np.sin, A)\nn = len(B)\nreturn sum(m) * B[1] * n",
    "kept_reversed": "r = reversed(A)\nreturn np.sum(np.array(list(r)) * np.arange(3.0, 0, -1)[0]) "
                     "* B[0]",
    "unzip": "pairs = [(a, b * b) for a, b in zip(A, B)]\nu, v = zip(*pairs)\n"
             "return u[0] * v[1] + sum(v) * len(u)",
    "comprehension_enumerate": "return np.sum(np.array([i * a * b for i, (a, b) in "
                               "enumerate(zip(A, B), 1)]))",
}
# every form with a third of the pairs of sequences (each pair in some forms), two points
_NAMES = list(SEQUENCES)
ZIPS = [(form, a, b, scale) for k, (form, (a, b)) in enumerate(itertools.product(
    ZIP_FORMS, itertools.product(SEQUENCES, repeat=2))) if (a, b) != ("range", "range")
    and (k + _NAMES.index(a)) % 3 == 0 for scale in ((1.0, -0.7) if k % 2 else (1.3,))]


@pytest.mark.parametrize(("form", "a", "b", "scale"), sample(ZIPS, 4),
                         ids=[f"{f}-{a}-{b}-{s}" for f, a, b, s in sample(ZIPS, 4)])
def test_zip_enumerate_reversed(form, a, b, scale, tmp_path):
    body = ZIP_FORMS[form].replace("A", SEQUENCES[a]).replace("B", SEQUENCES[b])
    _check("def f(x):\n" + textwrap.indent(body, "    ") + "\n", X * scale, tmp_path)


def test_iterator_read_twice_is_refused():
    def f(x):
        it = zip(x, x * 2.0)  # here
        a = list(it)
        b = list(it)  # empty in Python
        return len(a) + len(b) * x[0]

    _refused(f, (X,), srcad.UnsupportedSyntaxError, "# here", "read the name once")


def test_iterator_taken_in_a_loop_body_is_refused():
    def f(x):
        it = enumerate(x)  # here
        s = 0.0
        for _ in range(2):
            s = s + sum(i * v for i, v in it)  # the second time: nothing left
        return s

    _refused(f, (X,), srcad.UnsupportedSyntaxError, "# here", "read the name once")


def test_iterator_whose_source_changes_before_it_is_read_is_refused():
    def f(x):
        ys = [v * 2.0 for v in x]
        it = zip(ys, x)  # here
        ys[0] = x[1]  # zip reads ys lazily: Python sees this write
        return sum(a * b for a, b in it)

    _refused(f, (X,), srcad.UnsupportedSyntaxError, "# here", "read the name once")


def test_unzip_checks_the_number_of_names():
    def f(x):
        rows = [(a, a) for a in x]
        u, v, w = zip(*rows)
        return u[0]

    with pytest.raises(ValueError, match="not enough values to unpack"):
        srcad.grad(f)(X)


def test_unzip_of_a_list_argument():
    def f(x, rows):
        u, v = zip(*rows)
        return sum(a * b for a, b in zip(u, v)) * x[0]

    rows = [[1.0, 2.0], [3.0, 4.0], [0.5, -1.0]]
    got = srcad.grad(f, wrt=(0, 1))(X, rows)
    want = numerical_grad(f, (X, rows), (0, 1))
    np.testing.assert_allclose(got[0], want[0], rtol=1e-6, atol=1e-8)
    np.testing.assert_allclose(np.array(got[1]), np.array(want[1]), rtol=1e-6, atol=1e-8)


def test_enumerate_start_given_by_a_variable(tmp_path):
    source = """
    def f(x):
        first = len(x) - 3
        return sum(i * v for i, v in enumerate(x, first))
    """
    _check(source, X, tmp_path)


def test_enumerate_start_must_be_an_integer():
    def f(x):
        return sum(i * v for i, v in enumerate(x, 1.5))

    with pytest.raises(TypeError):
        srcad.grad(f)(X)


# ---------------------------------------------------------------- sorting and reversing

#: (the program, what autograd runs instead where it has no in-place sort of arrays; its
#: np.sort takes 1-D arrays only: a matrix is sorted row by row)
SORTS = {
    "sorted_list": ("ys = sorted([np.sin(v) * 2.0 for v in x])\n"
                    "return ys[0] * 3.0 + ys[-1] * ys[1]", None),
    "sorted_generator_reverse": ("ys = sorted((v * w for v, w in zip(x, W)), reverse=True)\n"
                                 "return ys[0] - 2.0 * ys[2] ** 2", None),
    "sorted_key": ("ys = sorted(list(x), key=lambda t: (t - 0.45) ** 2)\n"
                   "return ys[0] * 3.0 + ys[1] * ys[4]", None),
    "enumerate_sorted": ("return sum(i * v for i, v in enumerate(sorted(x, reverse=True), 1))",
                         None),
    "list_sort": ("ys = [v * v for v in x]\nys.sort()\nreturn ys[0] * 2.0 + ys[1] * ys[-1]",
                  None),
    "list_sort_reverse": ("ys = [np.sin(v) for v in x]\nys.sort(reverse=True)\n"
                          "return ys[0] * 2.0 + ys[1] * ys[-1]", None),
    "list_sort_key": ("ys = list(x * W)\nys.sort(key=abs)\nreturn ys[0] * 2.0 + ys[3] ** 2",
                      None),
    "list_sort_key_lambda": ("ys = [v for v in x]\nys.sort(key=lambda t: -t * t, reverse=True)\n"
                             "return ys[0] * 2.0 + ys[1] * ys[3]", None),
    "list_reverse": ("ys = [v * w for v, w in zip(x, W)]\nys.reverse()\n"
                     "return ys[0] * 2.0 + ys[1] ** 2", None),
    "list_sort_then_reverse": ("ys = list(x)\nys.sort()\nys.reverse()\n"
                               "return ys[0] * W[0] + ys[1] * ys[4]", None),
    "pairs_sort_key": ("ps = [(v * v, w) for v, w in zip(x, W)]\nps.sort(key=lambda p: p[1])\n"
                       "return ps[0][0] * 3.0 + ps[-1][0] * ps[-1][1]", None),
    "array_sort": ("y = x * 2.0\ny.sort()\nreturn y[0] * 3.0 + y[-1] ** 2 + np.sum(y * W)",
                   "y = np.sort(x * 2.0)\nreturn y[0] * 3.0 + y[-1] ** 2 + np.sum(y * W)"),
    "array_copy_sort": ("y = x.copy()\ny.sort()\nreturn np.sum(y * W) * y[1]",
                        "y = np.sort(x)\nreturn np.sum(y * W) * y[1]"),
    "matrix_sort": ("y = np.outer(x, W)\ny.sort()\nreturn np.sum(y[:, 0] * W) + y[3, 1] ** 2",
                    "y = np.stack([np.sort(r) for r in np.outer(x, W)])\n"
                    "return np.sum(y[:, 0] * W) + y[3, 1] ** 2"),
    "matrix_sort_axis0": ("y = np.outer(x, W)\ny.sort(axis=0)\n"
                          "return np.sum(y[0] * W) + y[3, 1] ** 2",
                          "y = np.stack([np.sort(c) for c in np.outer(x, W).T]).T\n"
                          "return np.sum(y[0] * W) + y[3, 1] ** 2"),
    "matrix_sort_positional": ("y = np.outer(x, W) + x[0]\ny.sort(0, 'stable')\n"
                               "return np.sum(y[1] * W) * y[4, 4]",
                               "y = np.stack([np.sort(c) for c in (np.outer(x, W) + x[0]).T])"
                               ".T\n"
                               "return np.sum(y[1] * W) * y[4, 4]"),
    "sort_in_loop": ("y = x.copy()\nfor k in range(2):\n    y.sort()\n    y = y * y[::-1]\n"
                     "return np.sum(y * W)",
                     "y = x\nfor k in range(2):\n    y = np.sort(y)\n    y = y * y[::-1]\n"
                     "return np.sum(y * W)"),
    "read_then_sort": ("y = np.sin(x)\nt = y.sum()\ny.sort()\nreturn t * y[1] * 3.0",
                       "y = np.sin(x)\nt = y.sum()\ny = np.sort(y)\nreturn t * y[1] * 3.0"),
    "list_extend": ("ys = [x[0]]\nys.extend([x[1] * 2.0, x[2] ** 2])\n"
                    "ys.extend(v * 3.0 for v in x[:2])\nreturn sum(ys) * ys[2]", None),
    "extend_in_loop": ("terms = []\nfor i in range(3):\n"
                       "    terms.extend([x[i] * x[i + 1], np.sin(x[i])])\n"
                       "return sum(terms) + terms[1] * terms[4]", None),
    "sort_in_branch": ("ys = list(x * W)\nif ys[0] > 0.0:\n    ys.sort()\nelse:\n"
                       "    ys.reverse()\nreturn ys[0] * 2.0 + ys[1] * ys[-1]", None),
    "sum_then_list_sort": ("ys = [v * v for v in x]\ns = sum(ys)\nys.sort()\nreturn s * ys[0]",
                           None),
}


@pytest.mark.parametrize("name", SORTS)
@pytest.mark.parametrize("scale", [1.0, -0.8, 1.7])
def test_sorting_is_a_permutation(name, scale, tmp_path):
    source, other = SORTS[name]
    text = "def f(x):\n" + textwrap.indent(source, "    ") + "\n"
    theirs = None if other is None else "def f(x):\n" + textwrap.indent(other, "    ") + "\n"
    _check(text, X * scale, tmp_path, theirs)


@pytest.mark.parametrize("name", ["list_sort", "array_sort", "list_reverse", "matrix_sort"])
def test_sorting_second_order(name, tmp_path):
    f = _module("def f(x):\n" + textwrap.indent(SORTS[name][0], "    ") + "\n", tmp_path,
                "numpy").f
    d1 = srcad.grad(f)
    h = srcad.jacobian(d1)(X)
    step = 1e-6
    for j in range(X.size):
        e = np.zeros_like(X)
        e[j] = step
        np.testing.assert_allclose(h[:, j], (d1(X + e) - d1(X - e)) / (2 * step), rtol=1e-5,
                                   atol=1e-6)


def _refused(f, args, cls, marker, hint):
    with pytest.raises(cls) as info:
        srcad.grad(f)(*args)
    lines = textwrap.dedent(__import__("inspect").getsource(f)).splitlines()
    first = f.__code__.co_firstlineno
    assert info.value.lineno == first + next(i for i, t in enumerate(lines) if marker in t)
    assert hint in (info.value.hint or "")


GLOBAL_LIST = [3.0, 1.0, 2.0]  # never changed: the tests below check it


def test_sort_of_an_argument_is_differentiated():
    """(state36) the caller's array or list sorted in place as the plain run sorts it."""
    def f(x):
        y = x
        y.sort()
        return y[0]

    def g(x, ys):
        ys.sort()
        return ys[0] * x[0]

    x = X.copy()
    np.testing.assert_allclose(srcad.grad(f)(x), np.eye(X.size)[np.argmin(X)])
    np.testing.assert_array_equal(x, np.sort(X))
    ys = [3.0, 1.0]
    np.testing.assert_allclose(srcad.grad(g)(X, ys), np.eye(X.size)[0] * 1.0)
    assert ys == [1.0, 3.0]


def test_sort_of_a_list_another_name_reads_is_refused():
    def f(x):
        ys = [v * v for v in x]
        zs = ys
        ys.reverse()  # here
        return zs[0] * 2.0 + ys[1]

    _refused(f, (X,), srcad.MutationError, "# here", "copy()")


def test_sort_of_an_array_a_view_reads_is_refused():
    def f(x):
        y = x * 1.0
        b = y[:2]
        y.sort()  # here
        return b[0] + y[0]

    _refused(f, (X,), srcad.MutationError, "# here", "copy()")


def test_extend_of_a_list_another_name_reads_is_refused():
    def f(x):
        ys = [x[0], x[1]]
        zs = ys
        ys.extend([x[2]])  # here
        return sum(zs) * len(zs)

    _refused(f, (X,), srcad.MutationError, "# here", "copy()")


def test_sort_of_a_global_list_is_refused():
    def f(x):
        GLOBAL_LIST.sort()  # here
        return GLOBAL_LIST[0] * x[0]

    _refused(f, (X,), srcad.MutationError, "# here", "local name")


GLOBAL_ARRAY = np.array([3.0, 1.0])


def test_writes_into_globals_inside_loops_are_refused():
    def sorts(x):
        s = 0.0
        for i in range(2):
            GLOBAL_LIST.sort()  # here
            s = s + x[i] * GLOBAL_LIST[0]
        return s

    def extends(x):
        s = 0.0
        for i in range(2):
            GLOBAL_LIST.extend([x[i]])  # here
            s = s + x[i]
        return s

    def writes(x):
        s = 0.0
        for i in range(2):
            GLOBAL_ARRAY[0] = x[i]  # here
            s = s + x[i] * GLOBAL_ARRAY[1]
        return s

    for f in (sorts, extends, writes):
        _refused(f, (X,), srcad.MutationError, "# here", "local name")
    assert GLOBAL_LIST == [3.0, 1.0, 2.0] and GLOBAL_ARRAY.tolist() == [3.0, 1.0]


def test_sort_of_a_list_given_order_is_refused():
    def f(x):
        y = x * 1.0
        y.sort(order="a")  # here
        return y[0]

    with pytest.raises(srcad.SrcadError):
        srcad.grad(f)(X)


#: max/min with key=: the item Python picks gets the gradient
EXTREMES = {
    "array_abs": "return {fn}(x, key=abs) * 2.0",
    "list_lambda": "return {fn}([v * w for v, w in zip(x, W)], key=lambda t: (t - 0.3) ** 2)",
    "generator": "return {fn}((np.sin(v) for v in x), key=lambda t: -t) * x[0]",
    "pairs": "best = {fn}([(v, w) for v, w in zip(x, W)], key=lambda p: p[1] * p[0])\n"
             "return best[0] * best[1]",
    "enumerate": "i, v = {fn}(enumerate(x * x), key=lambda p: p[1])\nreturn v * (i + 1.0)",
    "tuple": "return {fn}(tuple(x[:3]), key=np.cos) ** 2",
}


@pytest.mark.parametrize("name", EXTREMES)
@pytest.mark.parametrize("fn", ["max", "min"])
@pytest.mark.parametrize("scale", [1.0, -1.3])
def test_max_and_min_with_key(name, fn, scale, tmp_path):
    body = EXTREMES[name].format(fn=fn)
    _check("def f(x):\n" + textwrap.indent(body, "    ") + "\n", X * scale, tmp_path)


# ---------------------------------------------------------------- views and flat reads

VIEWS = {
    "view": "y = x.view()\nreturn np.sum(y * y) + y.flat[1]",
    "flat_index": "return x.flat[1] * x.flat[-1] + np.sum(x.flat[1:3] ** 2)",
    "flat_loop": "s = 0.0\nfor v in x.flat:\n    s = s + v * v\nreturn s",
    "flat_sum": "return sum(x.flat) * x.ravel()[0]",
    "flatten": "return np.sum(x.flatten() ** 3) + x.ravel()[2]",
    "flat_fancy": "return np.sum(x.flat[[0, 2, 2]] * 1.5)",
}
SHAPES = [(5,), (2, 3), (2, 2, 2)]


@pytest.mark.parametrize("name", VIEWS)
@pytest.mark.parametrize("shape", SHAPES)
def test_view_and_flat_reads(name, shape, tmp_path):
    x = np.linspace(-1.3, 2.1, int(np.prod(shape))).reshape(shape)
    source = "def f(x):\n" + textwrap.indent(VIEWS[name], "    ") + "\n"
    # autograd has no .view() or .flat on its boxes: its text reads np.ravel(x) (the same values)
    theirs = re.sub(r"\b([xy])\.flat\b", r"np.ravel(\1)", source.replace("x.view()", "x"))
    _check(source, x, tmp_path, theirs)


def test_write_through_a_view_read_later_is_refused():
    def f(x):
        y = x * 1.0
        z = y.view()
        z[0] = 5.0  # here
        return np.sum(y * x)

    _refused(f, (X,), srcad.MutationError, "# here", "copy()")


@pytest.mark.parametrize("make", ["np.asarray(y)", "np.array(y, copy=False)",
                                  "np.array(y, copy=None)", "y.view()", "y.reshape(-1)",
                                  "y.ravel()"])
def test_a_name_for_the_same_memory_written_then_read_is_refused(make, tmp_path):
    source = f"""
    def f(x):
        y = x * 1.0
        z = {make}
        z[0] = 5.0
        return np.sum(y * x)
    """
    f = _module(source, tmp_path, "numpy").f
    with pytest.raises(srcad.MutationError):
        srcad.grad(f)(X)


@pytest.mark.parametrize("make", ["np.array(y)", "np.array(y, copy=True)", "y.copy()",
                                  "np.copy(y)", "y.flatten()"])
def test_a_copy_written_is_differentiated(make, tmp_path):
    source = f"""
    def f(x):
        y = x * 1.0
        z = {make}
        z[0] = 5.0 * x[1]
        return np.sum(y * x) + np.sum(z * z)
    """
    theirs = source.replace(f"z = {make}\n        z[0] = 5.0 * x[1]",
                            "z = np.concatenate([np.array([5.0 * x[1]]), y[1:]])")
    _check(source, X, tmp_path, theirs)


def test_write_through_flat_is_refused_with_the_rewrite():
    def f(x):
        y = x * 1.0
        y.flat[0] = 5.0  # here
        return np.sum(y * x)

    _refused(f, (X,), srcad.UnsupportedSyntaxError, "# here", "unravel_index")


def test_view_with_a_dtype_is_refused():
    def f(x):
        return np.sum(x.view(np.float64))  # here

    _refused(f, (X,), srcad.MissingRuleError, "# here", "")


# ---------------------------------------------------------------- lists of parameters

NETWORKS = {
    "for_pairs": """
        def predict(params, x):
            for W, b in params:
                x = np.tanh(x @ W + b)
            return x

        def f(params, x):
            return np.sum(predict(params, x) ** 2)
        """,
    "indexed": """
        def f(params, x):
            for i in range(len(params)):
                x = np.tanh(x @ params[i][0] + params[i][1])
            return np.sum(x ** 2)
        """,
    "last_layer_apart": """
        def f(params, x):
            *hidden, (Wl, bl) = params
            for W, b in hidden:
                x = np.tanh(x @ W + b)
            return np.sum((x @ Wl + bl) ** 2)
        """,
    "zipped_lists": """
        def f(params, x):
            Ws = [p[0] for p in params]
            bs = [p[1] for p in params]
            for W, b in zip(Ws, bs):
                x = np.tanh(x @ W + b)
            return np.sum(x)
        """,
    "passed_on": """
        def layer(p, x):
            W, b = p
            return np.tanh(x @ W + b)

        def f(params, x):
            for p in params:
                x = layer(p, x)
            return np.mean(x ** 2)
        """,
    "l2": """
        def f(params, x):
            out = x
            for W, b in params:
                out = np.maximum(out @ W + b, 0.0)
            reg = sum(np.sum(W ** 2) for W, _ in params)
            return np.sum(out) + 0.1 * reg
        """,
}


def _params(container, seed):
    rs = np.random.RandomState(seed)
    layers = [(rs.randn(3, 4), rs.randn(4)), (rs.randn(4, 2), rs.randn(2))]
    if container == "list_of_lists":
        return [list(p) for p in layers]
    if container == "tuple_of_tuples":
        return tuple(layers)
    return layers


def _leaves(tree):
    if isinstance(tree, (list, tuple)):
        return [leaf for item in tree for leaf in _leaves(item)]
    return [np.asarray(tree)]


@pytest.mark.parametrize("name", NETWORKS)
@pytest.mark.parametrize("container", ["list_of_tuples", "list_of_lists", "tuple_of_tuples"])
@pytest.mark.parametrize("seed", [0, 1])
def test_lists_of_parameters_as_wrt(name, container, seed, tmp_path):
    params = _params(container, seed)
    x = np.random.RandomState(seed + 7).randn(5, 3)
    f = _module(NETWORKS[name], tmp_path, "numpy").f
    ours = srcad.grad(f)(params, x)
    theirs = autograd.grad(_module(NETWORKS[name], tmp_path, "autograd.numpy").f)(params, x)
    assert type(ours) is type(params)
    for a, b in zip(_leaves(ours), _leaves(theirs), strict=True):
        np.testing.assert_allclose(a, b, rtol=1e-10, atol=1e-12)
    for a, b in zip(_leaves(ours), _leaves(numerical_grad(f, (params, x), 0)), strict=True):
        np.testing.assert_allclose(a, b, rtol=1e-5, atol=1e-7)


# ---------------------------------------------------------------- a list-valued function's vjp


def test_pullback_leaves_the_callers_cotangent_list_alone():
    def f(a, b):
        return [t * 2.0 for t in reversed([a, b])]  # the backward sweep pops a list

    value, pullback = srcad.vjp(f, 0.3, np.array([1.0, 2.0]))
    v = [np.array([1.0, -1.0]), 2.0]
    first = pullback(v)
    assert len(v) == 2 and v[1] == 2.0
    second = pullback(v)  # the same cotangent again: the same gradient
    assert first[0] == second[0] == 4.0
    np.testing.assert_allclose(first[1], [2.0, -2.0])
    np.testing.assert_allclose(second[1], [2.0, -2.0])
