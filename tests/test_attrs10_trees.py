"""pytrees and higher-order leftovers of issue 16 (round 10's notes): recursion down a list of
records, a record built in the function holding records, ``itertools.starmap`` of a function
with defaults, a Hessian through a list of functions holding values.

3. ``def f(layers, x): if not layers: return x; return f(layers[1:], lin(layers[0], x))``:
   srcad makes a copy of ``f`` per structure of the list (:mod:`srcad.frontend.passed_trees`),
   down to the empty list, where ``layers[0]`` is past the end: Python raises IndexError
   there, so srcad reads it as such (``out_of_range``) and the code after it is never reached;
   before, the copy for the empty list was refused, and ``if not layers`` too ("used whole").
   ``net = Net(layers=layers, scale=s)`` (a record built in the function holding a ``wrt``
   list of records) is followed as a ``wrt`` record is (built as the dict of its fields,
   :mod:`srcad.frontend.built_records`); before, "a container of records is used whole".
4. ``itertools.starmap(f, items)`` with ``f`` taking defaults: each item spread by its length
   (refused before); ``srcad.hessian`` of a function passing a list of functions holding
   differentiated values to another (refused before at second order: the partials the choice
   of callee compares were "used other than by calling").

Checked against central finite differences and autograd on the same module text.
"""

from __future__ import annotations

import importlib.util
import itertools

import numpy as np
import pytest
from sampling import LONG, sample_by
from srcad.check import numerical_grad
from test_pytrees_nested import HEAD, X, _check

import srcad
from srcad.errors import SrcadError, UnsupportedSyntaxError

autograd = pytest.importorskip("autograd")


def _load(tmp_path, stem, text, numpy_name="numpy"):
    path = tmp_path / f"{stem}_{numpy_name.replace('.', '_')}.py"
    path.write_text(f"import {numpy_name} as np\n" + text)
    spec = importlib.util.spec_from_file_location(path.stem, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _head():
    return HEAD.replace("{PVALUES}", "p.layers")


# ---------------------------------------------------------------- 3. recursion down a list

#: the recursive function, reading ``layers`` (a list of records) and ``x``
RECURSIONS = {
    "not": """
def f(layers, x):
    if not layers:
        return x
    return f(layers[1:], lin(layers[0], x))
""",
    "len": """
def f(layers, x):
    if len(layers) == 0:
        return x
    return f(layers[1:], lin(layers[0], x))
""",
    "truthy": """
def f(layers, x):
    if layers:
        return f(layers[1:], lin(layers[0], x))
    return x
""",
    "from_the_end": """
def f(layers, x):
    if not layers:
        return x
    return lin(layers[-1], f(layers[:-1], x))
""",
    "fields_read": """
def f(layers, x):
    if not layers:
        return x
    first = layers[0]
    return f(layers[1:], np.sin(first.w @ x) + first.b * x)
""",
    "ternary": """
def f(layers, x):
    return x if not layers else f(layers[1:], lin(layers[0], x))
""",
}
RECORDS = {"dataclass": "DL", "namedtuple": "NL"}


def _recursion_text(form, record, count):
    size = 6 * count
    return _head() + RECURSIONS[form] + f"""
def loss(p, x):
    return np.sum(f(p, x) ** 2) + 0.1 * np.sum(x)


def build(theta):
    return [{RECORDS[record]}(np.reshape(theta[6 * k:6 * k + 4], (2, 2)),
                              theta[6 * k + 4:6 * k + 6]) for k in range({count})]


def flat(theta, x):
    return loss(build(theta[:{size}]), x)
"""


@pytest.mark.parametrize("form,record,count", [  # CI: every two-record case (the Hessians)
    c for c in sample_by([c for c in itertools.product(RECURSIONS, RECORDS, (1, 2, 3))
                          if LONG or c[2] == 2], lambda c: c[0], 3)][::1 if LONG else 2])
def test_a_function_recursing_down_a_list_of_records(form, record, count, tmp_path):
    theta = np.random.default_rng(count).normal(size=6 * count) * 0.7
    hessians = count == 2 and record == "dataclass"
    _check(_recursion_text(form, record, count), tmp_path, theta, hessians)


def test_recursion_without_its_base_case_raises_as_python_does(tmp_path):
    text = _head() + """
def f(layers, x):
    return f(layers[1:], lin(layers[0], x))


def loss(p, x):
    return np.sum(f(p, x))
"""
    module = _load(tmp_path, "rec10_nobase", text)
    p = [module.DL(np.eye(2), np.zeros(2))]
    with pytest.raises(IndexError):
        module.loss(p, X)
    with pytest.raises(IndexError):
        srcad.grad(module.loss)(p, X)


# ---------------------------------------------------------------- 3. records holding records

#: loss(p, x) with ``p`` a list of records; each builds a record holding it
HOLDING = {
    "passed": """
def loss(p, x):
    net = Net(layers=p, scale=np.sum(x) * 0.1 + 1.0)
    return np.sum(forward_net(net, x)) * net.scale
""",
    "loop": """
def loss(p, x):
    net = Net(p, 0.5)
    for layer in net.layers:
        x = np.tanh(layer.w @ x + layer.b)
    return np.sum(x ** 2) * net.scale
""",
    "indexed": """
def loss(p, x):
    net = Net(layers=p, scale=2.0)
    first = net.layers[0]
    return np.sum(np.tanh(first.w @ x) * net.layers[-1].b) * net.scale
""",
    "by_keyword_out_of_order": """
def loss(p, x):
    net = Net(scale=np.cos(x[0]), layers=p)
    return np.sum(forward_seq(net.layers, x)) + net.scale * len(net.layers)
""",
}


@pytest.mark.parametrize("form,record", list(itertools.product(HOLDING, RECORDS)))
def test_a_record_built_holding_a_list_of_records(form, record, tmp_path):
    text = _head() + HOLDING[form] + f"""

def build(theta):
    return [{RECORDS[record]}(np.reshape(theta[6 * k:6 * k + 4], (2, 2)),
                              theta[6 * k + 4:6 * k + 6]) for k in range(2)]


def flat(theta, x):
    return loss(build(theta[:12]), x)
"""
    theta = np.random.default_rng(3).normal(size=12) * 0.7
    _check(text, tmp_path, theta, hessians=record == "dataclass")


def test_a_record_built_holding_records_returned_stays_refused(tmp_path):
    text = _head() + """
def loss(p, x):
    net = Net(layers=p, scale=1.0)
    return net
"""
    module = _load(tmp_path, "hold10_ret", text)
    p = [module.DL(np.eye(2), np.zeros(2))]
    with pytest.raises(UnsupportedSyntaxError) as err:
        srcad.grad(module.loss)(p, X)
    assert err.value.lineno == text.splitlines().index("    return net") + 2
    assert "used whole" in str(err.value)


def test_a_list_of_records_built_in_the_function_passed_on(tmp_path):
    """Once refused where the list was passed on whole; followed item by item since
    objlists19 (frontend/object_lists.py): its gradient against differences and autograd."""
    text = _head() + """
def loss(w, x):
    layers = [DL(w, 0.1), DL(w * 2.0, -0.2)]
    return np.sum(forward_seq(layers, x))
"""
    module = _load(tmp_path, "hold10_built", text)
    taped = _load(tmp_path, "hold10_built", text, "autograd.numpy")
    w = np.array([[0.9, -0.3], [0.2, 1.1]])
    got = srcad.grad(module.loss)(w, X)
    np.testing.assert_allclose(got, numerical_grad(module.loss, (w, X), (0,))[0],
                               rtol=1e-6, atol=1e-8)
    np.testing.assert_allclose(got, autograd.grad(taped.loss)(w, X), rtol=1e-10, atol=1e-12)


# ---------------------------------------------------------------- 4. starmap with defaults

FUNCTIONS = {
    "one_default": "def term(a, b, c=2.0):\n    return a * np.sin(b) * c\n",
    "two_defaults": "def term(a, b=0.5, c=2.0):\n    return a * np.sin(b) * c + b\n",
    "lambda": "term = lambda a, b, c=3.0: a * b + c * a\n",
    "keyword_only": "def term(a, b, c=1.5, *, d=2.0):\n    return (a + b * c) * d\n",
}
ITEMS = {
    "short": "[(x[0], x[1]), (x[1], x[2])]",
    "mixed": "[(x[0], x[1]), (x[1], x[2], x[0])]",
    "long": "[(x[0], x[1], 1.5), [x[2], x[0], x[1]]]",
}
CONSUMERS = {
    "sum": "return sum(itertools.starmap(term, {items}))",
    "loop": "t = 0.0\n    for v in itertools.starmap(term, {items}):\n        t = t + v * v\n"
            "    return t",
    "list": "vs = list(itertools.starmap(term, {items}))\n    return vs[0] * vs[-1]",
}


def _starmap_text(function, items, consumer):
    body = CONSUMERS[consumer].format(items=ITEMS[items])
    return f"import itertools\n{FUNCTIONS[function]}\n\ndef f(x):\n    {body}\n"


def _check_scalar_function(f, fa, x, hessian):
    g = srcad.grad(f)(x)
    np.testing.assert_allclose(g, numerical_grad(f, (x,)), rtol=1e-5, atol=1e-7)
    np.testing.assert_allclose(g, autograd.grad(fa)(x), rtol=1e-9, atol=1e-11)
    value, g2 = srcad.value_and_grad(f)(x)
    assert value == pytest.approx(f(x), rel=1e-12)
    np.testing.assert_allclose(g2, g, rtol=1e-12, atol=1e-14)
    t = np.linspace(0.5, -0.4, x.size)
    _, tangent = srcad.jvp(f, (x,), (t,))
    assert tangent == pytest.approx(float(np.dot(g, t)), rel=1e-8, abs=1e-10)
    if hessian:
        want = autograd.hessian(fa)(x)
        for mode in ("fwd", "rev"):
            np.testing.assert_allclose(srcad.hessian(f, mode=mode)(x), want,
                                       rtol=1e-7, atol=1e-9)


@pytest.mark.parametrize("function,items,consumer", sample_by(list(itertools.product(
    FUNCTIONS, ITEMS, CONSUMERS)), lambda c: c[0], 12))
def test_starmap_of_a_function_with_defaults(function, items, consumer, tmp_path):
    text = _starmap_text(function, items, consumer)
    stem = f"star10_{function}_{items}_{consumer}"
    f = _load(tmp_path, stem, text).f
    fa = _load(tmp_path, stem, text, "autograd.numpy").f
    _check_scalar_function(f, fa, np.array([0.3, -0.7, 1.1]), hessian=consumer != "list")


def test_starmap_refusals_and_pythons_errors(tmp_path):
    text = FUNCTIONS["one_default"] + """
import itertools


def keyed(x):
    return sum(itertools.starmap(term, [{"a": x[0], "b": x[1]}]))


def too_long(x):
    return sum(itertools.starmap(term, [(x[0], x[1], x[2], x[0])]))


def star_args(x):
    return sum(itertools.starmap(spread, [(x[0], x[1])]))


def spread(*v):
    return v[0] * v[1]
"""
    module = _load(tmp_path, "star10_refused", text)
    x = np.array([0.3, -0.7, 1.1])
    with pytest.raises(UnsupportedSyntaxError) as err:
        srcad.grad(module.keyed)(x)
    assert err.value.lineno == text.splitlines().index(
        '    return sum(itertools.starmap(term, [{"a": x[0], "b": x[1]}]))') + 2
    assert "lists or tuples" in err.value.hint
    with pytest.raises(TypeError):
        module.too_long(x)
    with pytest.raises(TypeError, match="from 2 to 3 positional arguments"):
        srcad.grad(module.too_long)(x)
    with pytest.raises(SrcadError, match="starmap"):  # *args: no rule, as before
        srcad.grad(module.star_args)(x)


# ---------------------------------------------------------------- 4. lists of functions, twice

MAKERS = {
    "lambdas": "fs = [lambda t: t * x[0], lambda t: np.sin(t * x[1])]",
    "closures": "def g(t):\n        return np.cos(x[0] * t)\n    fs = [g, np.sin]",
    "partials": "fs = [functools.partial(scale, x[0]), functools.partial(scale, x[1])]",
    "made": "fs = [make(x[0]), make(x[1]), make(x[0] * x[1])]",
}
USERS = {
    "generator": "def use(fs, v):\n    return sum(h(v) for h in fs)\n",
    "loop": "def use(fs, v):\n    total = 0.0\n    for h in fs:\n"
            "        total = total + h(v) ** 2\n    return total\n",
    "zip": "def use(fs, v):\n    total = 0.0\n    for h, c in zip(fs, [1.0, -2.0, 0.5]):\n"
           "        total = total + c * h(v)\n    return total\n",
    "passed_on": "def use(fs, v):\n    return inner(fs, v * 2.0)\n\n\n"
                 "def inner(gs, v):\n    return sum(g(v) for g in gs)\n",
}


def _functions_text(maker, user):
    return f"""import functools


def scale(w, t):
    return w * t ** 2


def make(w):
    return lambda t: np.sin(w * t)


{USERS[user]}

def f(x):
    {MAKERS[maker]}
    return use(fs, x[2]) + x[0] * x[2]
"""


@pytest.mark.parametrize("maker,user", sample_by(list(itertools.product(MAKERS, USERS)),
                                                  lambda c: c[0], 4))
def test_a_hessian_through_a_list_of_functions_holding_values(maker, user, tmp_path):
    text = _functions_text(maker, user)
    stem = f"fns10_{maker}_{user}"
    f = _load(tmp_path, stem, text).f
    fa = _load(tmp_path, stem, text, "autograd.numpy").f
    _check_scalar_function(f, fa, np.array([0.3, -0.7, 1.1]), hessian=True)
