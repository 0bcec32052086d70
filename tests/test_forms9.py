"""Python as people write it, round 9 (issue 16).

- ``nonlocal`` in a nested function the enclosing function calls
  (:mod:`srcad.frontend.nonlocals`): several names, writes in loops and branches, a value
  returned beside them, called in a loop or inside an expression; what cannot keep Python's
  order refused at its line;
- iterators passed to a function of yours (:mod:`srcad.frontend.iterators_passed`):
  ``iter(xs)``, generator expressions, ``map``/``zip``/``enumerate``/``reversed``, a generator
  helper's call, ``itertools.starmap``/``accumulate``, consumed by ``for``, ``next``, ``sum``,
  passed on; a second loop over one sees nothing left (before, a generator expression passed
  on or kept in a name was read as a list: a second loop counted every item twice);
- ``itertools.accumulate``, ``itertools.starmap`` (:mod:`srcad.frontend.folds`);
- lists and dicts of functions (lambdas, ``def``'s, NumPy functions, partials) passed to a
  function of yours that loops over, indexes or passes them on.

Gradients are checked against central finite differences and autograd running the same
text; ``jvp`` against the gradient, Hessians in both modes against finite differences of the
gradient.
"""

from __future__ import annotations

import itertools
import textwrap

import numpy as np
import program_files
import pytest
from sampling import sample_by
from srcad.check import numerical_grad

import srcad
from srcad.errors import SrcadError, UnsupportedSyntaxError

autograd = pytest.importorskip("autograd")

X = np.array([0.3, -1.2, 0.5, 0.7])
Y = np.array([-0.4, 0.8, -0.6, 1.1])  # other signs: the other paths


def _module(source, tmp_path, numpy_name, tag=""):
    head = "import math\nimport functools\nimport itertools\nimport operator\n"
    return program_files.module(tmp_path, f"forms9_{tag}{abs(hash((source, numpy_name)))}",
                                f"import {numpy_name} as np\n" + head + textwrap.dedent(source))


def _agree(source, tmp_path, points=(X, Y), hessian=False):
    """srcad's value and gradient against Python's value, finite differences and autograd;
    its jvp against the gradient; with ``hessian``, its Hessian in both modes against finite
    differences of the gradient."""
    f = _module(source, tmp_path, "numpy").f
    ag = autograd.grad(_module(source, tmp_path, "autograd.numpy", "ag").f)
    df = srcad.grad(f)
    for x in points:
        value, g = srcad.value_and_grad(f)(x)
        assert value == pytest.approx(f(x), rel=1e-12, abs=1e-12)
        np.testing.assert_allclose(df(x), g, rtol=1e-12, atol=1e-14)
        np.testing.assert_allclose(g, numerical_grad(f, (x,)), rtol=1e-6, atol=1e-8)
        np.testing.assert_allclose(g, ag(x), rtol=1e-10, atol=1e-12)
        u = np.cos(np.arange(np.size(x)) + 0.5)
        _, t = srcad.jvp(f, (x,), (u,))
        assert t == pytest.approx(float(np.sum(g * u)), rel=1e-9, abs=1e-12)
    if hessian:
        x = points[0]
        rows = np.array([numerical_grad(lambda v, i=i: df(v)[i], (x,))
                         for i in range(np.size(x))])
        for mode in ("fwd", "rev"):
            np.testing.assert_allclose(srcad.hessian(f, mode=mode)(x), rows, rtol=1e-5,
                                       atol=1e-7)
    return f


def _refused(source, tmp_path, line, *words, cls=SrcadError):
    f = _module(source, tmp_path, "numpy").f
    with pytest.raises(cls) as info:
        srcad.grad(f)(X)
    text = str(info.value)
    assert info.value.lineno is not None, text
    with open(f.__code__.co_filename) as handle:
        at = handle.read().splitlines()[info.value.lineno - 1]
    assert at.strip() == line, text  # the line named is the offending one
    for word in words:
        assert word in text, text
    return text


# ---------------------------------------------------------------- nonlocal

# how the nested function changes the names x where it is called
NONLOCAL_BODIES = {
    "plain": "total = total + v * w",
    "augmented": "total += np.sin(v) * w",
    "branch": "if v > 0.0:\n        total = total * v\n    else:\n        total = total - v * w",
    "loop": "for k in range(2):\n        total = total + v * w ** k",
    "two": "total = total + v\n    count += 1\n    w = w * 1.5",
}
NONLOCAL_CALLS = {
    "statements": "add(x[0])\n    add(x[1] * x[2])",
    "in_loop": "for i in range(len(x)):\n        add(x[i])",
    "in_branch": "if x[0] > 0.0:\n        add(x[1])\n    else:\n        add(x[2] * 2.0)\n"
                 "    add(x[3])",
    "in_expression": "y = 2.0 * add(x[0]) + np.cos(x[1])\n    add(y)",
    "assigned": "y = add(x[0])\n    z = add(y * x[3])",
    "returned": "return add(x[2]) * add(x[0])",
}


def _nonlocal_source(body, calls):
    names = "total, count, w" if "count" in body else "total, w" if "w =" in body else "total"
    ret = "return total * w + count" if "count" in body else "return total"
    return f'''
def f(x):
    total = x[3]
    count = 0
    w = 1.5

    def add(v):
        nonlocal {names}
        {textwrap.indent(body, "    ").strip()}
        return total * 0.5

    {calls}
    {ret}
'''


@pytest.mark.parametrize("body,calls", list(itertools.product(NONLOCAL_BODIES,
                                                                NONLOCAL_CALLS)))
def test_nonlocal_family(body, calls, tmp_path):
    _agree(_nonlocal_source(NONLOCAL_BODIES[body], NONLOCAL_CALLS[calls]), tmp_path,
           hessian=(body, calls) in (("plain", "in_loop"), ("two", "in_expression")))


def test_nonlocal_the_issue_case_and_its_code(tmp_path):
    f = _agree('''
def f(x):
    total = 0.0

    def add(v):
        nonlocal total
        total = total + v
    add(x[0] * x[0])
    add(np.sin(x[1]))
    return total
''', tmp_path, hessian=True)
    text = srcad.source(srcad.grad(f), X)
    assert "total" in text and "nonlocal" not in text


def test_nonlocal_read_by_another_nested_function(tmp_path):
    _agree('''
def f(x):
    scale = x[0]

    def get(t):
        return t * scale

    def grow(c):
        nonlocal scale
        scale = scale * c
    a = get(x[1])
    grow(x[2])
    b = get(x[1])
    grow(3.0)
    return a + b * get(x[3])
''', tmp_path, hessian=True)


NONLOCAL_REFUSALS = [
    ("passed on", '''
def f(x):
    total = 0.0

    def add(v):
        nonlocal total
        total = total + v
    return sum(map(add, x))
''', "return sum(map(add, x))", ("'add'", "used other than by calling it", "return total")),
    ("read in the statement", '''
def f(x):
    total = x[0]

    def add(v):
        nonlocal total
        total = total + v
        return v
    y = total * add(x[1])
    return y
''', "y = total * add(x[1])", ("'add'", "also reads 'total'", "on a line of its own")),
    ("in a comprehension", '''
def f(x):
    total = x[0]

    def add(v):
        nonlocal total
        total = total + v
        return v
    return sum([add(v) for v in x])
''', "return sum([add(v) for v in x])", ("'add'", "may not run", "write the loop out")),
    ("in a while test", '''
def f(x):
    total = x[0]

    def add(v):
        nonlocal total
        total = total + v
        return total
    while add(0.5) < 3.0:
        pass
    return total
''', "while add(0.5) < 3.0:", ("'add'", "on a line of its own")),
    ("under if-else", '''
def f(x):
    total = x[0]

    def add(v):
        nonlocal total
        total = total + v
        return total
    return add(x[1]) if x[2] > 0 else 0.0
''', "return add(x[1]) if x[2] > 0 else 0.0", ("'add'", "may not run")),
    ("returned", '''
def f(x):
    total = x[0]

    def add(v):
        nonlocal total
        total = total + v
    add(x[1])
    return add
''', "return add", ("'add'", "used other than by calling it")),
]


@pytest.mark.parametrize("name,source,line,words", NONLOCAL_REFUSALS,
                         ids=[r[0] for r in NONLOCAL_REFUSALS])
def test_nonlocal_refusals(name, source, line, words, tmp_path):
    _refused(source, tmp_path, line, *words, cls=UnsupportedSyntaxError)


# ---------------------------------------------------------------- iterators passed on

ITERATOR_MAKERS = {
    "iter": "iter([x[0], x[1] * 2.0, np.sin(x[2]), x[3]])",
    "genexp": "(v * x[0] for v in x)",
    "map": "map(lambda v: v * v + x[1], x)",
    "zip": "(a * b for a, b in zip(x, x[::-1]))",
    "enumerate_map": "map(lambda p: p[1] * (p[0] + 1.0), enumerate(x))",
    "reversed": "reversed([x[0], np.cos(x[1]), x[2]])",
    "helper": "pairs(x)",
    "starmap": "itertools.starmap(lambda a, b: a * b, [(x[0], x[1]), (x[2], x[3])])",
    "accumulate": "itertools.accumulate(x)",
}
ITERATOR_CONSUMERS = {
    "loop": "s = 0.0\n    for v in it:\n        s = s + v * v\n    return s",
    "twice": "s = 0.0\n    for v in it:\n        s = s + v\n    for v in it:\n        s = s + v\n"
             "    return s",
    "next_then_loop": "first = next(it)\n    s = first * first\n    for v in it:\n"
                      "        s = s + first * v\n    return s",
    "break": "s = 0.0\n    for v in it:\n        s = s + v\n        if s > 0.4:\n"
             "            break\n    return s + sum(it)",
    "next_default": "a = next(it)\n    b = next(it, 2.0)\n    return a * b + sum(it)",
    "passed_on": "a = next(it)\n    return a + consume(it)",
}


def _iterator_source(maker, consumer):
    return f'''
def pairs(xs):
    for i in range(len(xs) - 1):
        yield xs[i] * xs[i + 1]


def consume(it):
    s = 0.0
    for v in it:
        s = s + np.sin(v)
    return s


def take(it):
    {consumer}


def f(x):
    return take({maker})
'''


@pytest.mark.parametrize("maker,consumer", sample_by(list(itertools.product(
    ITERATOR_MAKERS, ITERATOR_CONSUMERS)), lambda c: c[0], 2))
def test_iterator_passed_family(maker, consumer, tmp_path):
    _agree(_iterator_source(ITERATOR_MAKERS[maker], ITERATOR_CONSUMERS[consumer]), tmp_path,
           hessian=(maker, consumer) in (("genexp", "twice"), ("iter", "passed_on")))


def test_iterator_the_issue_case_and_second_order(tmp_path):
    _agree('''
def consume(it):
    s = 0.0
    for v in it:
        s = s + v * v
    return s


def f(x):
    return consume(iter([x[0], x[1] * 2.0, x[2] * 3.0]))
''', tmp_path, hessian=True)


def test_iterator_made_in_the_caller_then_passed_on(tmp_path):
    _agree('''
def rest(it):
    return sum(v * v for v in it)


def f(x):
    it = iter(x)
    a = next(it)
    b = next(it)
    return a * b + rest(it)
''', tmp_path, hessian=True)


def test_iterator_to_a_nested_function(tmp_path):
    _agree('''
def f(x):
    def twice(it):
        s = 0.0
        for v in it:
            s = s + v * x[0]
        for v in it:
            s = s + v
        return s
    return twice(v * x[1] for v in x)
''', tmp_path)


CALLEE_FORMS = {
    "method": ("class Model:\n    def __init__(self, w):\n        self.w = w\n\n"
               "    def take(self, it):\n        return take(it) * self.w\n\n\n"
               "M = Model(1.5)\n", "M.take"),
    "function_passed": ("def apply(fn, it):\n    return fn(it)\n\n\n", "PASS"),
    "generator": ("def doubled(it):\n    for v in it:\n        yield v * 2.0\n"
                  "    for v in it:\n        yield v\n\n\n", "GEN"),
    "lambda": ("", "LAMBDA"),
}


@pytest.mark.parametrize("form", list(CALLEE_FORMS))
@pytest.mark.parametrize("consumer", ["twice", "next_then_loop"])
def test_iterator_to_other_callees(form, consumer, tmp_path):
    """Before, a generator expression given to a method or a function passed in was a list:
    a second loop over it counted every item again."""
    head, call = CALLEE_FORMS[form]
    maker = "(v * x[0] for v in x)"
    body = {"PASS": f"apply(take, {maker})", "GEN": f"sum(doubled({maker}))",
            "LAMBDA": f"(lambda it: take(it) + 1.0)({maker})"}.get(call, f"{call}({maker})")
    source = _iterator_source(maker, ITERATOR_CONSUMERS[consumer]).replace(
        "def f(x):\n    return take(" + maker + ")", head + "def f(x):\n    return " + body)
    assert body in source
    _agree(source, tmp_path)


def test_generator_expression_kept_in_a_name_read_twice(tmp_path):
    """Was read as a list: the second sum counted every item again (value and gradient)."""
    f = _agree('''
def f(x):
    g = (v * x[0] for v in x)
    a = sum(g)
    return a + sum(g)
''', tmp_path)
    assert srcad.value_and_grad(f)(X)[0] == pytest.approx(f(X))


ITERATOR_REFUSALS = [
    ("len of it", '''
def take(it):
    return len(it)


def f(x):
    return take(v for v in x)
''', "return len(it)", ("'it' of take", "given an iterator", "next(it)")),
    ("passed twice", '''
def consume(it):
    return sum(it)


def f(x):
    g = (v * x[0] for v in x)
    return consume(g) + consume(g)
''', "g = (v * x[0] for v in x)", ("generator expression kept in 'g'",
       "take its values where it is made")),
    ("read after being passed on", '''
def consume(it):
    return next(it)


def f(x):
    it = iter(x)
    a = consume(it)
    return a * next(it)
''', "it = iter(x)", ("iter(xs)", "loop over xs itself")),
    ("to *args", '''
def spread(*its):
    return sum(its[0])


def f(x):
    return spread(v for v in x)
''', "return spread(v for v in x)", ("iterator passed where srcad cannot read it as one",
                                   "list(...)")),
]


@pytest.mark.parametrize("name,source,line,words", ITERATOR_REFUSALS,
                         ids=[r[0] for r in ITERATOR_REFUSALS])
def test_iterator_refusals(name, source, line, words, tmp_path):
    _refused(source, tmp_path, line, *words)


# ---------------------------------------------------------------- itertools

ITERTOOLS = {
    "accumulate": "sum(itertools.accumulate(x))",
    "accumulate_mul": "list(itertools.accumulate(x, operator.mul))[-1]",
    "accumulate_lambda_initial": "sum(itertools.accumulate(x, lambda a, b: a * b + 1.0, "
                                 "initial=x[0]))",
    "accumulate_loop": "loop(itertools.accumulate([x[0], x[1] * x[2], 3.0], initial=1.0))",
    "accumulate_max": "max(itertools.accumulate(x, max))",
    "starmap": "sum(itertools.starmap(lambda a, b: a * b, [(x[0], x[0]), (x[1], 2.0)]))",
    "starmap_def": "sum(itertools.starmap(mul, zip(x, x[::-1])))",
    "starmap_ufunc": "loop(itertools.starmap(np.hypot, [(x[0], x[1]), (x[2], x[3])]))",
    "starmap_kept": "sum(v * v for v in itertools.starmap(mul, [(x[0], x[1])]))",
    "reduce": "functools.reduce(lambda a, b: a * b + b, x, 1.0)",
}


@pytest.mark.parametrize("name", list(ITERTOOLS))
def test_itertools_family(name, tmp_path):
    _agree(f'''
def mul(a, b):
    return a * b


def loop(it):
    s = 0.0
    for v in it:
        s = s + v * v
    return s


def f(x):
    return {ITERTOOLS[name]}
''', tmp_path, hessian=name in ("accumulate", "starmap"))


# ---------------------------------------------------------------- functions passed in a list

FUNCTION_CONTAINERS = {
    "list_display": "[lambda v: v * v, np.sin]",
    "named_list": "FS",
    "defs_and_partials": "[square, functools.partial(np.power, 2.0), np.tanh]",
    "tuple": "(np.cos, square)",
}
FUNCTION_USES = {
    "loop": "s = 0.0\n    for g in fs:\n        s = s + g(x)\n    return s",
    "index": "return fs[0](x) * fs[len(fs) - 1](x)",
    "enumerate": "return sum((i + 1.0) * g(x) for i, g in enumerate(fs))",
    "zip": "return sum(w * g(x) for g, w in zip(fs, [0.5, 2.0, 3.0]))",
    "passed_on": "return apply_first(fs, x) + 1.0",
}


def _functions_source(container, use):
    setup = "    FS = [np.exp, square, lambda v: np.sin(v) * v]\n" if container == "FS" else ""
    return f'''
def square(v):
    return v * v


def apply_first(fs, x):
    return fs[0](x)


def use(fs, x):
    {use}


def f(x):
{setup}    return np.sum(use({container}, x) * x)
'''


@pytest.mark.parametrize("container,use", list(itertools.product(FUNCTION_CONTAINERS,
                                                                   FUNCTION_USES)))
def test_functions_passed_family(container, use, tmp_path):
    _agree(_functions_source(FUNCTION_CONTAINERS[container], FUNCTION_USES[use]), tmp_path,
           hessian=(container, use) == ("defs_and_partials", "zip"))


def test_functions_the_issue_case(tmp_path):
    f = _agree('''
def apply_all(fs, x):
    s = 0.0
    for g in fs:
        s = s + g(x)
    return s


def f(x):
    return np.sum(apply_all([lambda v: v * v, np.sin], x))
''', tmp_path, hessian=True)
    assert "apply_all" in srcad.source(srcad.grad(f), X)


HELD_CONTAINERS = {
    "lambda": "[lambda v: v * w, np.sin]",
    "partial": "(functools.partial(np.multiply, w), square)",
    "two": "[lambda v: v + w, lambda v: v * x[1], np.tanh]",
}
HELD_USES = {k: FUNCTION_USES[k] for k in ("loop", "passed_on")}
HELD_USES["index"] = "return fs[0](x) * fs[1](x)"


@pytest.mark.parametrize("container,use", list(itertools.product(HELD_CONTAINERS,
                                                                   HELD_USES)))
def test_functions_holding_values_passed(container, use, tmp_path):
    """Functions reading the caller's values in the list: each function and each value it
    holds passed on its own (srcad.frontend.captured.held_items), gradients flowing into
    the values."""
    source = _functions_source(HELD_CONTAINERS[container], HELD_USES[use]).replace(
        "def f(x):\n", "def f(x):\n    w = np.cos(x[0]) * x\n")
    _agree(source, tmp_path)


def test_functions_holding_values_through_zip_and_len(tmp_path):
    """zip over functions holding differentiated values, and len of them, in the callee:
    refused before (the partials the choice of callee compares were "used other than by
    calling it"); they are only told apart (``is``) and counted, so differentiated now, to
    second order too (branch attrs10, srcad.analysis.soundness._identity_only)."""
    source = _functions_source(HELD_CONTAINERS["lambda"], FUNCTION_USES["zip"]).replace(
        "def f(x):\n", "def f(x):\n    w = np.cos(x[0]) * x\n")
    _agree(source, tmp_path, hessian=True)
    _agree('''
def use(fs, x):
    return fs[0](x) * len(fs)


def f(x):
    return np.sum(use([lambda v: v * x[0], np.sin], x))
''', tmp_path, hessian=True)


def test_a_dict_of_functions_passed(tmp_path):
    _agree('''
def named(d, x):
    return d["a"](x) * d["b"](x) + sum(g(x) for g in d.values())


def square(v):
    return v * v


def f(x):
    return np.sum(named({"a": np.sin, "b": square}, x))
''', tmp_path)


FUNCTION_REFUSALS = [
    ("appended to", '''
def more(fs, x):
    fs.append(np.cos)
    return fs[0](x)


def f(x):
    return np.sum(more([np.sin], x))
''', ("'fs' of more", "used other than by reading it", "[*fs, g]")),
]


@pytest.mark.parametrize("name,source,words", FUNCTION_REFUSALS,
                         ids=[r[0] for r in FUNCTION_REFUSALS])
def test_function_list_refusals(name, source, words, tmp_path):
    f = _module(source, tmp_path, "numpy").f
    with pytest.raises(SrcadError) as info:
        srcad.grad(f)(X)
    text = str(info.value)
    assert info.value.lineno is not None, text
    for word in words:
        assert word in text, text


def test_second_order_through_a_callee_slicing_at_a_computed_position(tmp_path):
    """The backward part of ``xs[k:]`` writes ``slice(k, None)``; differentiated again (a
    Hessian), ``slice`` of a position is piecewise constant (it had no rule: refused)."""
    _agree('''
def tail(xs):
    k = 1
    for i in range(2):
        k = k + i
    s = 0.0
    for v in xs[k:]:
        s = s + v * v * xs[0]
    return s


def f(x):
    return tail(tuple(x)) + np.sin(x[1])
''', tmp_path, hessian=True)


def test_iterator_to_a_helper_returning_a_function_is_refused(tmp_path):
    _refused('''
def make(it):
    a = next(it)

    def g(t):
        return a * t
    return g


def f(x):
    return np.sum(make(iter([x[0], 2.0]))(x))
''', tmp_path, "return np.sum(make(iter([x[0], 2.0]))(x))", "helper returning a function",
             "list(...)")
