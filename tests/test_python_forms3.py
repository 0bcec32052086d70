"""Python as people write it, round 3 (issue 16): functions passed on through ``*args`` and
``**kwargs`` (``def summed(*args): return np.sum(model(*args))`` called with a function among
the arguments, the way autograd's ``elementwise_grad`` wrappers and gradient estimators such as
duvenaud/relax's ``concrete(params, ..., f)`` pass their objective), as the function
differentiated, as a callee, and as a derivative made inside differentiated code.

Every case is a generated family (forms x functions passed x points). Each gradient is checked
against central finite differences and against autograd running the same text with
``autograd.numpy`` and ``autograd.grad``.
"""

from __future__ import annotations

import importlib.util
import textwrap

import numpy as np
import pytest
from sampling import sample_by
from srcad.check import numerical_grad

import srcad

autograd = pytest.importorskip("autograd")

X = np.array([0.3, -1.2, 0.5, 0.7])
NOISE = np.array([0.1, 0.2, -0.3, 0.05])

#: what every module holds: the model a function is passed to, and the functions passed
HEADER = """
import functools

def model(params, t, noise, f):
    return f(params * t + noise)

def square_sum(z):
    return np.sum(z ** 2)

def soft(z, scale):
    return np.sum(np.log(1.0 + np.exp(scale * z)))

lam = lambda z: np.sum(np.sin(z) * z)
part = functools.partial(soft, scale=1.5)
"""

#: functions a program passes on (names in HEADER, or NumPy's)
PASSED = ["square_sum", "lam", "part", "np.sum"]

#: ways a function travels through *args / **kwargs; F is the function passed
FORMS = {
    # the function differentiated calls a callee taking *args
    "callee_star": """
        def spread(*args):
            return model(*args)

        def f(x):
            return spread(x, 2.0, NOISE, F)
        """,
    "callee_star_after_named": """
        def spread(params, *rest):
            return model(params, *rest)

        def f(x):
            return spread(x, 0.5, NOISE, F) * 2.0
        """,
    "callee_kwargs": """
        def spread(params, **kw):
            return model(params, **kw)

        def f(x):
            return spread(x, t=1.5, noise=NOISE, f=F)
        """,
    "callee_star_two_levels": """
        def inner(*args):
            return model(*args)

        def outer(*args):
            return inner(*args) + 1.0

        def f(x):
            return outer(x, 1.2, NOISE, F)
        """,
    # a derivative of a *args function made and called inside the function differentiated
    "nested_grad_of_star": """
        def summed(*args):
            return np.sum(model(*args))

        def f(x):
            g = grad(summed)(x, 0.7, NOISE, F)
            return np.sum(g * np.cos(x))
        """,
    "nested_grad_passed_on": """
        def summed(*args):
            return np.sum(model(*args))

        def estimator(x, fn):
            return grad(summed)(x, 0.9, NOISE, fn)

        def f(x):
            return np.sum(estimator(x, F) ** 2)
        """,
}


def _module(source, tmp_path, numpy_name, grad_name):
    path = tmp_path / f"forms3_{abs(hash((source, numpy_name)))}.py"
    path.write_text(f"import {numpy_name} as np\nfrom {grad_name} import grad\n\n"
                    f"NOISE = np.array({NOISE.tolist()})\n" + HEADER + textwrap.dedent(source))
    spec = importlib.util.spec_from_file_location(path.stem, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


#: CI: every form, every second function passed (each in turn); all in the long run
STAR_CASES = sample_by([(f, p) for f in sorted(FORMS) for p in PASSED], lambda c: c[0], 2)


@pytest.mark.parametrize("form, passed", STAR_CASES, ids=[f"{f}-{p}" for f, p in STAR_CASES])
def test_functions_passed_through_star_args(form, passed, tmp_path):
    source = FORMS[form].replace("F)", f"{passed})").replace("f=F", f"f={passed}")
    f = _module(source, tmp_path, "numpy", "srcad").f
    x = X * (1.0 + 0.1 * len(passed))
    g = srcad.grad(f)(x)
    np.testing.assert_allclose(g, numerical_grad(f, (x,)), rtol=1e-5, atol=1e-7)
    ag = _module(source, tmp_path, "autograd.numpy", "autograd").f
    np.testing.assert_allclose(g, autograd.grad(ag)(x), rtol=1e-9, atol=1e-11)


@pytest.mark.parametrize("passed", PASSED)
def test_a_star_args_function_differentiated_with_a_function_argument(passed, tmp_path):
    """``grad(summed)(x, t, noise, fn)`` with ``summed(*args)``: the function among the
    arguments is the one the code is made for (the gradient is w.r.t. ``x``)."""
    source = """
        def summed(*args):
            return np.sum(model(*args))
        """
    module = _module(source, tmp_path, "numpy", "srcad")
    fn = eval(passed, vars(module))
    g = srcad.grad(module.summed)(X, 1.3, NOISE, fn)
    np.testing.assert_allclose(
        g, numerical_grad(lambda x: module.summed(x, 1.3, NOISE, fn), (X,)),
        rtol=1e-5, atol=1e-7)
    agm = _module(source, tmp_path, "autograd.numpy", "autograd")
    np.testing.assert_allclose(g, autograd.grad(agm.summed)(X, 1.3, NOISE, eval(
        passed, vars(agm))), rtol=1e-9, atol=1e-11)
    # another function through the same derivative: code made for it, not the first one's
    other = srcad.grad(module.summed)(X, 1.3, NOISE, module.square_sum)
    np.testing.assert_allclose(other, 2 * (X * 1.3 + NOISE) * 1.3, rtol=1e-12)


# ---------------------------------------------------------------- in-place list methods

W = np.array([1.1, 0.4, -0.8, 2.0, 0.6, -1.3])
#: lists a program changes in place: of numbers carrying gradients, of NumPy scalars, mixed
ITEMS = {"mapped": "[np.sin(v) for v in x]", "mixed": "[x[3] * 2.0, 1.5, x[0]]"}
#: ys.insert / ys.pop(i) / ys.remove / ys.clear; P is a position
LIST_FORMS = {
    "insert": "ys.insert(P, x[1] * 3.0)",
    "insert_two": "ys.insert(P, x[0] ** 2)\n    ys.insert(0, np.cos(x[2]))",
    "pop_statement": "ys.pop(P)",
    "pop_value": "v = ys.pop(P)\n    ys = ys + [v * v]",
    "remove": "ys.insert(P, 7.0)\n    ys.remove(7.0)",
    "clear": "s = sum(ys)\n    ys.clear()\n    ys.append(s * x[2])",
}
POSITIONS = {"insert": (0, 1, -1, 10, -10), "insert_two": (2, -2), "pop_statement": (0, -1, 1),
             "pop_value": (0, -1, -3), "remove": (0, -1),
             "clear": (0,)}


def _list_cases():
    for form, positions in POSITIONS.items():
        for position in positions:
            for items in ITEMS:
                yield form, position, items


def _agree(source, x, tmp_path):
    f = _module(source, tmp_path, "numpy", "srcad").f
    g = srcad.grad(f)(x)
    np.testing.assert_allclose(g, numerical_grad(f, (x,)), rtol=1e-6, atol=1e-8)
    ag = _module(source, tmp_path, "autograd.numpy", "autograd").f
    np.testing.assert_allclose(g, autograd.grad(ag)(x), rtol=1e-10, atol=1e-12)
    u = np.cos(np.arange(x.size) + 0.5)
    _, t = srcad.jvp(f, (x,), (u,))
    assert t == pytest.approx(float(np.sum(g * u)), rel=1e-9, abs=1e-12)


@pytest.mark.parametrize("form, position, items", list(_list_cases()))
def test_list_methods_on_a_local_list(form, position, items, tmp_path):
    body = LIST_FORMS[form].replace("P", str(position))
    source = (f"W = np.array({W.tolist()})\n\n\ndef f(x):\n    ys = {ITEMS[items]}\n"
              f"    {body}\n    return sum(v * w for v, w in zip(ys, W)) + len(ys) * x[3]\n")
    _agree(source, X * 1.3, tmp_path)


@pytest.mark.parametrize("method, call", [("insert", "ys.insert(0, 1.0)"),
                                          ("pop(i)", "ys.pop(0)"),
                                          ("remove", "ys.remove(ys[0])"),
                                          ("clear", "ys.clear()")])
def test_list_methods_on_a_list_seen_elsewhere_are_refused(method, call, tmp_path):
    """On an argument, or a list another name holds: Python changes what the other name sees,
    srcad would not; refused at the line, with the rewrite."""
    source = f"""
        def on_argument(ys):
            {call}
            return ys[0] * ys[-1]

        def on_alias(x):
            ys = [x[0], x[1], x[2]]
            zs = ys
            {call.replace("ys.", "zs.")}
            return ys[0] * ys[-1]
        """
    module = _module(source, tmp_path, "numpy", "srcad")
    for f, arg in ((module.on_argument, [0.5, 2.0, 3.0]), (module.on_alias, X)):
        with pytest.raises(srcad.SrcadError) as info:
            srcad.grad(f)(arg)
        message = str(info.value)
        assert f".{method.split('(')[0]}(" in message and "line" in message
        assert "copy" in message  # the rewrite: work on a copy


# ---------------------------------------------------------------- max/min with default=

DEFAULT_FORMS = {
    "empty_max": "max([v for v in x if v > 10.0], default=x[0] * 3.0)",
    "full_max": "max([v * w for v, w in zip(x, W)], default=0.0)",
    "empty_min": "min((v for v in x if v < -10.0), default=np.sin(x[1]))",
    "full_min": "min([v * v for v in x], default=x[2])",
    "list_name": "max(ys, default=x[3])",
    "empty_list_name": "max(ys[:0], default=x[3] ** 2)",
}


@pytest.mark.parametrize("form", sorted(DEFAULT_FORMS))
def test_max_and_min_with_default(form, tmp_path):
    source = f"""
        W = np.array({W.tolist()})

        def f(x):
            ys = [x[0] * 2.0, x[1], x[2] - 1.0]
            return {DEFAULT_FORMS[form]} * x[1] + x[0]
        """
    _agree(source, X * 1.1, tmp_path)


# ---------------------------------------------------------------- attributes named like srcad's

#: attribute names that srcad also uses in the code it writes (the result ``y``, temporaries
#: ``t``, gradients ``dx``): read in a return expression, the read was named like the result
ATTRIBUTES = ("y", "t", "result", "dx", "dy", "x")
RETURNS = {"return_sum": "return np.sum((w - self.{a}) ** 2)",
           "return_dot": "return np.dot(w, self.{a}) * self.{a}[0]",
           "local_then_return": "y = w * self.{a}\n        return np.sum(y * self.{a})"}


@pytest.mark.parametrize("attribute", ATTRIBUTES)
@pytest.mark.parametrize("form", sorted(RETURNS))
def test_attributes_named_like_generated_names(attribute, form, tmp_path):
    body = RETURNS[form].format(a=attribute)
    source = (f"class Model:\n    def __init__(self, v):\n        self.{attribute} = v\n\n"
              f"    def loss(self, w):\n        {body}\n\n\n"
              f"def f(x):\n    return Model(np.array({W[:4].tolist()})).loss(x)\n")
    _agree(source, X, tmp_path)
    module = _module(source, tmp_path, "numpy", "srcad")
    model = module.Model(W[:4])
    np.testing.assert_allclose(srcad.grad(model.loss)(X), srcad.grad(module.f)(X), rtol=1e-12)


def test_calling_a_function_stored_in_an_object_built_in_the_function(tmp_path):
    """``Setup(np.sin).loss(x)`` inside the function, ``__init__`` storing the function in
    ``self.transform``: refused until issue 16's plain classes; now the object is named
    first and read field by field (its field ``transform`` the function), exact."""
    source = """
        class Setup:
            def __init__(self, transform):
                self.transform = transform

            def loss(self, w):
                return np.sum(self.transform(w) ** 2)

        def f(x):
            return Setup(np.sin).loss(x)
        """
    module = _module(source, tmp_path, "numpy", "srcad")
    got = srcad.grad(module.f)(X)
    np.testing.assert_allclose(got, 2.0 * np.sin(X) * np.cos(X), rtol=1e-12)


#: functions an object holds in an attribute of its own (names in HELD_HEADER, or NumPy's)
HELD = {"user": "cube", "numpy": "np.tanh", "lambda": "lambda z: z * np.sin(z)",
        "partial": "functools.partial(scaled, 0.7)"}
HELD_HEADER = """
import functools
import inspect

def cube(z):
    return z ** 3

def scaled(c, z):
    return np.exp(c * z)

class Setup:
    def __init__(self, transform, data):
        self.transform = transform
        self.data = data
        try:
            self.nargs = len(inspect.signature(transform).parameters)
        except ValueError:  # NumPy's ufuncs have no signature before NumPy 2.3 (Python 3.10)
            self.nargs = transform.nin

    def model(self, w):
        if self.nargs == 2:  # not taken: the call does not fit (Python's too)
            f = self.transform(w, self.data)
        else:
            f = self.transform(w)
        return f * self.data

    def loss(self, w):
        return np.sum(self.model(w) ** 2)

def objective(setup, w):
    return setup.loss(w) + w[0]
"""


@pytest.mark.parametrize("held", sorted(HELD))
def test_a_function_held_in_an_object(held, tmp_path):
    """``self.transform(w)`` with ``self.transform = transform`` set in ``__init__``: the code is
    made for the function the object holds (the textbook notebooks' ``self.feature_transforms``),
    through a bound method and through an object passed to the function differentiated; a call
    in a branch that does not fit that function raises if it runs, as Python does."""
    source = HELD_HEADER + f"\n\nHELD = {HELD[held]}\n"
    module = _module(source, tmp_path, "numpy", "srcad")
    agm = _module(source, tmp_path, "autograd.numpy", "autograd")
    data = np.array([0.5, -1.0, 2.0, 1.5])
    setup, ag_setup = module.Setup(module.HELD, data), agm.Setup(agm.HELD, data)
    g = srcad.grad(setup.loss)(X)
    np.testing.assert_allclose(g, numerical_grad(setup.loss, (X,)), rtol=1e-6, atol=1e-8)
    np.testing.assert_allclose(g, autograd.grad(ag_setup.loss)(X), rtol=1e-10, atol=1e-12)
    g2 = srcad.grad(module.objective, wrt=1)(setup, X)
    np.testing.assert_allclose(g2, g + np.eye(4)[0], rtol=1e-12, atol=1e-12)
    # another object of the class holding another function: code made for that one
    other = module.Setup(module.cube if held != "user" else np.sin, data)
    np.testing.assert_allclose(srcad.grad(module.objective, wrt=1)(other, X),
                               numerical_grad(lambda w: module.objective(other, w), (X,)),
                               rtol=1e-6, atol=1e-8)


def test_a_held_function_changed_after_the_code_was_made_raises(tmp_path):
    module = _module(HELD_HEADER, tmp_path, "numpy", "srcad")
    setup = module.Setup(module.cube, np.ones(4))
    derivative = srcad.grad(setup.loss)
    derivative(X)
    setup.transform = np.sin  # the code was made for cube: refused, never a wrong gradient
    with pytest.raises(srcad.SrcadError, match="holds another value"):
        derivative(X)
    two = module.Setup(module.scaled, np.ones(4))  # the branch of two parameters, taken
    np.testing.assert_allclose(srcad.grad(two.loss)(X), numerical_grad(two.loss, (X,)),
                               rtol=1e-6, atol=1e-8)


# ---------------------------------------------------------------- functools.reduce

#: functions a program folds with (names in REDUCE_HEADER, or NumPy's and operator's)
FOLDERS = {"lambda": "lambda a, b: a * b + 0.5", "operator": "operator.mul",
           "user": "damped", "numpy": "np.maximum", "partial": "functools.partial(mix, 0.3)"}
#: what it folds
FOLDED = {"list": "[x[0], x[1] * 2.0, x[2], x[3]]", "generator": "(np.sin(v) for v in x)",
          "rows": "list(x.reshape(2, 2))"}
REDUCE_HEADER = """
import functools
import operator
from functools import reduce

def damped(a, b):
    return a * np.cos(b) + b

def mix(t, a, b):
    return (1.0 - t) * a + t * b * b
"""


@pytest.mark.parametrize("initial", ["", ", x[1] * 1.5"])
@pytest.mark.parametrize("folded", sorted(FOLDED))
@pytest.mark.parametrize("folder", sorted(FOLDERS))
def test_functools_reduce(folder, folded, initial, tmp_path):
    """``functools.reduce(f, xs[, initial])``: a loop calling ``f``, differentiated through
    each call (it was refused: no derivative rule for functools.reduce)."""
    call = f"reduce({FOLDERS[folder]}, {FOLDED[folded]}{initial})"
    source = REDUCE_HEADER + f"\n\ndef f(x):\n    return np.sum({call}) * x[0]\n"
    _agree(source, X * 0.9, tmp_path)


def test_try_except_is_refused_at_its_line_with_the_rewrite(tmp_path):
    source = """
        def f(x):
            try:
                return np.sum(np.log(x))
            except FloatingPointError:
                return 0.0
        """
    module = _module(source, tmp_path, "numpy", "srcad")
    with pytest.raises(srcad.UnsupportedSyntaxError) as info:
        srcad.grad(module.f)(X)
    error = info.value
    assert error.filename.endswith(".py") and error.lineno is not None
    assert "try" in (error.construct or "") and "try/except" in error.message
    assert "if np.all(x > 0)" in error.hint and "srcad.grad(f)(x)" in error.hint
