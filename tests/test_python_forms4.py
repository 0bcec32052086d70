"""Python as people write it, round 4 (issue 16): forms met in public example programs.

- ``x.shape = s`` on a local array (a reshape that changes the array itself, refused where
  another name, an argument or a global holds it);
- ``copy.copy`` / ``copy.deepcopy`` of numbers, arrays, lists, tuples, dicts (a shallow copy
  holds the original's items: writing into one through the copy is refused);
- ``f = self.method; f(x)``: a bound method (static and class methods too) held in a local
  or a container and called;
- a derivative wrapped in a ``functools.partial`` at module level (what
  ``tools/example_shim.py`` makes of ``d = egrad(f)``) called inside differentiated code;
- a function a callee returns in a form closure conversion does not take (two functions on
  two paths, one calling another nested function, ``nonlocal``), called: refused at its line
  with the rewrite;
- each user function lowered once per process (:data:`srcad.pipeline.LOWERED`), made again
  when what its lowering read changes, and forgotten by ``srcad.clear_cache()``.

Gradients are checked against central finite differences and against autograd running the
same text (or, where autograd cannot run a form, the plain rewrite the docs give for it).
"""

from __future__ import annotations

import importlib.util
import textwrap

import numpy as np
import pytest
from srcad.check import numerical_grad

import srcad
from srcad import pipeline

autograd = pytest.importorskip("autograd")

X = np.array([0.3, -1.2, 0.5, 0.7, 1.1, -0.4])


def _module(source, tmp_path, numpy_name, tag=""):
    path = tmp_path / f"forms4_{tag}{abs(hash((source, numpy_name)))}.py"
    path.write_text(f"import copy\nimport functools\nimport {numpy_name} as np\n\n"
                    + textwrap.dedent(source))
    spec = importlib.util.spec_from_file_location(path.stem, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _agree(source, x, tmp_path, autograd_source=None, forward=True):
    f = _module(source, tmp_path, "numpy").f
    g = srcad.grad(f)(x)
    np.testing.assert_allclose(g, numerical_grad(f, (x,)), rtol=1e-6, atol=1e-8)
    ag = _module(autograd_source or source, tmp_path, "autograd.numpy", "ag").f
    np.testing.assert_allclose(g, autograd.grad(ag)(x), rtol=1e-10, atol=1e-12)
    if forward:
        u = np.cos(np.arange(x.size) + 0.5)
        _, t = srcad.jvp(f, (x,), (u,))
        assert t == pytest.approx(float(np.sum(g * u)), rel=1e-9, abs=1e-12)
    return f


# ---------------------------------------------------------------- x.shape = s

SHAPES = {"matrix": "(2, 3)", "minus_one": "(3, -1)", "flat": "(6,)", "int": "6",
          "column": "(-1, 1)", "cube": "(1, 2, 3)"}
#: where the array whose shape is set comes from, and what is done with it afterwards
SHAPE_FORMS = {
    "product": """
        def f(x):
            y = x * x
            y.shape = S
            return np.sum(np.sin(y) * np.cos(y)) + x[0]
        """,
    "array_of": """
        def f(x):
            y = np.array(x)
            y.shape = S
            z = np.exp(y) * 2.0
            return np.sum(z ** 2)
        """,
    "twice": """
        def f(x):
            y = np.tanh(x)
            y.shape = S
            w = y * 3.0
            y.shape = (x.size,)
            return np.sum(y * x) + np.sum(w)
        """,
    "in_loop": """
        def f(x):
            total = 0.0
            for k in range(2):
                y = x * (k + 1.0)
                y.shape = S
                total = total + np.sum(y ** 3)
            return total
        """,
}


@pytest.mark.parametrize("shape", sorted(SHAPES))
@pytest.mark.parametrize("form", sorted(SHAPE_FORMS))
def test_setting_shape_of_a_local_array(form, shape, tmp_path):
    source = SHAPE_FORMS[form].replace("S", SHAPES[shape])
    rewrite = source  # autograd's boxes have no settable shape: the reshape the docs give
    for line in [v for v in source.splitlines() if ".shape = " in v]:
        name, value = line.strip().split(".shape = ")
        rewrite = rewrite.replace(line, line.replace(
            f"{name}.shape = {value}", f"{name} = np.reshape({name}, {value})"))
    _agree(source, X * 0.8, tmp_path, rewrite)


@pytest.mark.parametrize("body", [
    "x.shape = (2, 3)\n    return np.sum(x[0])",  # the caller's array
    "y = x * 2.0\n    z = y\n    y.shape = (2, 3)\n    return np.sum(z * x)",  # a second name
    "y = x * 2.0\n    ys = [y]\n    y.shape = (2, 3)\n    return np.sum(ys[0])",  # a list
])
def test_setting_shape_of_an_array_seen_elsewhere_is_refused(body, tmp_path):
    f = _module(f"def f(x):\n    {body}\n", tmp_path, "numpy").f
    with pytest.raises(srcad.SrcadError) as info:
        srcad.grad(f)(X.copy())
    assert "line" in str(info.value) and "shape" in str(info.value)


# ---------------------------------------------------------------- copy.copy, copy.deepcopy

COPY_FORMS = {
    "array": "w = C(x)\n    return np.sum(w * x) + np.sum(C(x[1:]) ** 2)",
    "number": "a = C(x[0] * 2.0)\n    return a * x[1] + C(a)",
    "list": "ys = [x * 2.0, np.sin(x)]\n    zs = C(ys)\n    zs.append(x ** 2)\n"
            "    return np.sum(zs[0] * zs[2]) + np.sum(ys[1]) + len(ys)",
    "tuple": "t = (x[0], x[1] * x[2])\n    u = C(t)\n    return u[0] * u[1] + t[1]",
    "dict": "d = {'a': x, 'b': x * 3.0}\n    e = C(d)\n    e['a'] = e['a'] * 4.0\n"
            "    return np.sum(e['a'] * d['b']) + np.sum(d['a'])",
    "nested": "d = {'w': [x[0], x[1:3] * 2.0]}\n    e = C(d)\n"
              "    return e['w'][0] * np.sum(e['w'][1] ** 2)",
    "argument_list": "return g(x, [x[0], x[2]])\n\n\ndef g(x, ps):\n    qs = C(ps)\n"
                     "    qs.append(x[1])\n    return qs[0] * qs[1] * qs[2] + len(ps)",
}


@pytest.mark.parametrize("which", ["copy.copy", "copy.deepcopy"])
@pytest.mark.parametrize("form", sorted(COPY_FORMS))
def test_copies(form, which, tmp_path):
    source = "def f(x):\n    " + COPY_FORMS[form].replace("C(", f"{which}(") + "\n"
    # autograd copies a box as itself: the same values (nothing here writes in place)
    rewrite = "def f(x):\n    " + COPY_FORMS[form].replace("C(", "list(") + "\n" if form in (
        "list", "argument_list") else "def f(x):\n    " + COPY_FORMS[form].replace(
        "C(", "(lambda v: v)(") + "\n"
    if form == "dict":
        rewrite = rewrite.replace("(lambda v: v)(d)", "dict(d)")
    _agree(source, X, tmp_path, rewrite, forward=form != "nested")


def test_writing_an_item_through_a_shallow_copy_is_refused(tmp_path):
    """``zs = copy.copy(ys); zs[0] += 1.0``: Python changes the array ``ys[0]`` holds too."""
    source = """
        def f(x):
            ys = [x * 2.0, np.sin(x)]
            zs = copy.copy(ys)
            zs[0] += 1.0
            return np.sum(ys[0])
        """
    f = _module(source, tmp_path, "numpy").f
    with pytest.raises(srcad.SrcadError, match="line 9"):
        srcad.grad(f)(X)
    deep = _module(source.replace("copy.copy", "copy.deepcopy"), tmp_path, "numpy").f
    np.testing.assert_allclose(srcad.grad(deep)(X), numerical_grad(deep, (X,)), rtol=1e-6)


# ---------------------------------------------------------------- bound methods as values

CLASS = """
class Model:
    def __init__(self, w):
        self.w = w

    def f(self, x):
        return np.sin(x) * self.w

    @staticmethod
    def s(x):
        return x ** 2

    @classmethod
    def c(cls, x):
        return np.cos(x) * cls.SCALE

    SCALE = 1.5

    def loss(self, x):
        BODY


def f(x):
    return Model(np.array(W)).loss(x)
"""

METHOD_FORMS = {
    "local": "g = self.f\n        return np.sum(g(x) ** 2)",
    "local_twice": "g = self.f\n        return np.sum(g(x) * g(x * 2.0))",
    "static": "g = self.s\n        return np.sum(g(x) * x)",
    "classmethod": "g = self.c\n        return np.sum(g(x) * x)",
    "in_list": "gs = [self.f, np.cos, self.s]\n        return np.sum(gs[0](x) + gs[1](x) + "
               "gs[2](x))",
    "in_loop": "total = 0.0\n        for g in (self.f, self.s):\n"
               "            total = total + np.sum(g(x))\n        return total",
    "passed": "return apply(self.f, x)",
    "chosen": "g = self.f if self.w[0] > 0 else self.s\n        return np.sum(g(x) ** 2)",
    "chosen_other": "g = self.s if self.w[0] > 0 else self.c\n        return np.sum(g(x) * x)",
    "chosen_function": "g = np.cos if self.w[0] > 0 else self.f\n"
                       "        return np.sum(g(x) * x)",
    "chosen_objects": "other = Model(self.w * 2.0)\n        g = self.f if x[0] > 0.0 else "
                      "other.f\n        return np.sum(g(x) ** 2)",
}


@pytest.mark.parametrize("form", sorted(METHOD_FORMS))
def test_bound_methods_held_and_called(form, tmp_path):
    source = CLASS.replace("BODY", METHOD_FORMS[form]).replace("W", str(X.tolist()))
    source += "\n\ndef apply(fn, x):\n    return np.sum(fn(x) ** 2)\n"
    _agree(source, X * 1.1, tmp_path)
    if form.startswith("chosen"):  # the other arm too (w[0] < 0, x[0] < 0)
        _agree(source.replace(str(X.tolist()), str((-X).tolist())), -X * 1.1, tmp_path)


# ---------------------------------------------------------------- derivatives in partials

def test_a_derivative_held_in_a_partial_is_called_inside_code(tmp_path):
    """``d = partial(grad(h))`` at module level (the example shim's checked derivatives are
    such partials) called in the function differentiated: the outer derivative sees
    through the inner one (second order)."""
    source = """
        def h(x):
            return np.sum(np.tanh(x) ** 2)

        d = functools.partial(GRAD(h))

        def f(x):
            return np.sum(d(x) * x) + np.sum(d(x * 0.5) ** 2)
        """
    ours = source.replace("GRAD", "srcad.grad")
    theirs = source.replace("GRAD", "autograd.grad")
    f = _module("import srcad\n" + textwrap.dedent(ours), tmp_path, "numpy").f
    g = srcad.grad(f)(X)
    np.testing.assert_allclose(g, numerical_grad(f, (X,)), rtol=1e-6, atol=1e-8)
    ag = _module("import autograd\n" + textwrap.dedent(theirs), tmp_path, "autograd.numpy").f
    np.testing.assert_allclose(g, autograd.grad(ag)(X), rtol=1e-10, atol=1e-12)


# ---------------------------------------------------------------- functions returned

@pytest.mark.parametrize("made", [  # the forms closure conversion leaves (test_python_forms5;
    # different functions on different paths and a made function calling another one make
    # defines are differentiated now: test_python_forms7)
    "def make(a):\n    def inner(x):\n        nonlocal a\n        a = a * x\n"
    "        return a\n    return inner\n",
])
def test_calling_a_function_a_callee_returned_is_refused(made, tmp_path):
    source = made + "\n\ndef f(x):\n    h = make(2.0)\n    return np.sum(h(x))\n"
    f = _module(source, tmp_path, "numpy").f
    with pytest.raises(srcad.SrcadError) as info:
        srcad.grad(f)(X)
    message = str(info.value)
    assert "make(...) returned" in message and "line" in message
    assert "h(x)" in message  # the line shown
    assert "hint" in message


# ---------------------------------------------------------------- the lowering, kept

HELPERS = """
SCALE = 2.0
POWER = 2

def unit(v):
    return v * SCALE

def norm2(v):
    return np.sum(unit(v) ** POWER)

def f(x):
    return norm2(x) + norm2(x[1:]) + norm2(np.sin(x))
"""


def test_each_function_is_lowered_once(tmp_path):
    module = _module(HELPERS, tmp_path, "numpy")
    srcad.clear_cache()
    before = pipeline.LOWERED.misses
    g = srcad.grad(module.f)(X)
    lowered = pipeline.LOWERED.misses - before
    assert lowered <= 4  # f, norm2, unit (each at most once more for a specialisation)
    assert pipeline.LOWERED.hits > 0
    np.testing.assert_allclose(g, numerical_grad(module.f, (X,)), rtol=1e-6)
    # another derivative of the same functions reads no source again
    before = pipeline.LOWERED.misses
    srcad.grad(module.norm2)(X)
    srcad.value_and_grad(module.f)(X * 2.0)
    assert pipeline.LOWERED.misses == before


def test_a_kept_lowering_is_made_again_when_what_it_read_changes(tmp_path):
    module = _module(HELPERS, tmp_path, "numpy")
    ag = _module(HELPERS, tmp_path, "autograd.numpy", "ag")
    np.testing.assert_allclose(srcad.grad(module.f)(X), autograd.grad(ag.f)(X), rtol=1e-10)
    module.POWER = ag.POWER = 3  # an int the code is specialised on: lowered again
    np.testing.assert_allclose(srcad.grad(module.f)(X), autograd.grad(ag.f)(X), rtol=1e-10)
    module.unit = ag.unit = lambda v: np.exp(v)  # another callee
    np.testing.assert_allclose(srcad.grad(module.f)(X), autograd.grad(ag.f)(X), rtol=1e-10)
    module.norm2.__defaults__ = None  # a function's own facts: its defaults, its code
    module.norm2.__code__ = (lambda v: np.sum(np.cos(v))).__code__
    ag.norm2.__code__ = module.norm2.__code__
    g = srcad.grad(module.f)(X)
    np.testing.assert_allclose(g, numerical_grad(module.f, (X,)), rtol=1e-6)


def test_a_rule_registered_later_is_used(tmp_path):
    module = _module(HELPERS, tmp_path, "numpy")
    srcad.grad(module.f)(X)  # unit lowered and split
    calls = []

    def unit_vjp(ans, v):
        calls.append(1)
        return lambda g: g * module.SCALE

    srcad.extend.defvjp(module.unit, unit_vjp)  # autograd's form of a rule
    srcad.clear_cache()  # as after any new rule (the splits made for unit are forgotten)
    g = srcad.grad(module.f)(X)
    assert calls  # the rule, not the code lowered before it existed
    np.testing.assert_allclose(g, numerical_grad(module.f, (X,)), rtol=1e-6)


def test_clear_cache_forgets_the_lowerings(tmp_path):
    module = _module(HELPERS, tmp_path, "numpy")
    srcad.grad(module.f)(X)
    srcad.clear_cache()
    before = pipeline.LOWERED.misses
    srcad.grad(module.f)(X)
    assert pipeline.LOWERED.misses > before


BOUND = """
from scipy.stats import norm


class Scaler:
    def __init__(self, k):
        self.k = k

    def apply(self, v):
        return np.tanh(v) * self.k


scaler = Scaler(1.5)


def helper(v):
    return np.sum(norm.logpdf(v, 0.5, 2.0)) + np.sum(scaler.apply(v) ** 2)


def f(x):
    return helper(x) + helper(x * 2.0)
"""


def test_a_bound_method_read_by_its_path_is_not_a_change(tmp_path):
    """``norm.logpdf``, ``scaler.apply``: each read makes a new bound method; the same
    function of the same object is the same callee, so nothing is made again (every call
    of the derivative made it again, and every question about a callee lowered it again)."""
    pytest.importorskip("scipy")
    module = _module(BOUND, tmp_path, "numpy")
    df = srcad.grad(module.f)
    g = df(X)
    np.testing.assert_allclose(g, numerical_grad(module.f, (X,)), rtol=1e-6, atol=1e-8)
    before = pipeline.LOWERED.misses, pipeline.LOWERED.hits
    for _ in range(3):
        np.testing.assert_allclose(df(X), g, rtol=1e-14)
    assert (pipeline.LOWERED.misses, pipeline.LOWERED.hits) == before  # nothing made again
    module.scaler = module.Scaler(-0.5)  # another object: its method is another callee
    g2 = df(X)
    np.testing.assert_allclose(g2, numerical_grad(module.f, (X,)), rtol=1e-6, atol=1e-8)
    assert not np.allclose(g2, g)


EGRAD_PROGRAM = """
from autograd import elementwise_grad as egrad
from autograd import grad


def tanh(x):
    return (1.0 - np.exp(-2 * x)) / (1.0 + np.exp(-2 * x))


d_tanh = egrad(tanh)  # at module level


def loss(w):
    return np.sum(d_tanh(w) ** 2) + np.sum(egrad(tanh)(w) * w)  # and inside the code


answer = grad(loss)(W)
"""


def test_elementwise_grad_of_the_autograd_shims_at_module_level_and_in_code(tmp_path):
    """``d = egrad(f)`` at module level and ``egrad(f)(w)`` inside the function
    differentiated, through both of srcad's autograd shims (tools/autograd_shim.py: the
    suite's; tools/example_shim.py: the example programs', whose derivatives check their
    first calls)."""
    import os
    import runpy
    import sys

    tools = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "tools")
    sys.path.insert(0, tools)
    try:
        import autograd_shim
    finally:
        sys.path.remove(tools)
    path = tmp_path / "egrad_program.py"
    path.write_text(f"import autograd.numpy as np\n\nW = np.array({X.tolist()})\n"
                    + EGRAD_PROGRAM)
    expected = runpy.run_path(str(path))["answer"]  # autograd itself
    autograd_shim.install()
    try:
        namespace = runpy.run_path(str(path))
    finally:
        autograd_shim.uninstall()
    np.testing.assert_allclose(namespace["answer"], expected, rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(namespace["answer"], numerical_grad(namespace["loss"], (X,)),
                               rtol=1e-6, atol=1e-8)
    import subprocess

    done = subprocess.run(
        [sys.executable, os.path.join(tools, "example_shim.py"), str(path), "60"],
        capture_output=True, text=True, cwd=tmp_path, timeout=300,
        env=dict(os.environ, PYTHONPATH=os.pathsep.join([os.path.dirname(tools)] + [
            p for p in [os.environ.get("PYTHONPATH")] if p])))
    assert '"outcome": "PASS"' in done.stdout, done.stdout[-2000:] + done.stderr[-2000:]
