"""Calling a function srcad meets only when the code runs (round 11).

Found in a survival-analysis package (CamDavidsonPilon/lifelines): the objective its fitters
differentiate starts ``_, unflatten_array_to_dict = flatten(self._initial_point_dicts[0]);
params_dict = unflatten_array_to_dict(params_array)``, the ``unflatten`` a helper makes for a
tree's structure at run time. Refused before ("calling the local value ..., taken from a list,
tuple or dict whose functions srcad cannot know when it transforms the function"). Now such a
call is :func:`srcad.runtime.derivatives.call_value`, differentiated through its form
(``P(a0, ..) = fn(a0, ..)``, the function a constant) when it first runs, as a derivative
called in code is: srcad reads and differentiates the function it meets, or refuses it.

It is refused when the function is made from differentiated values (a closure over them:
their gradient would be lost), when it may change what it is given or a global (the calling
code was not made to follow that), or may make a complex number from real ones.

The family: where the function comes from (``flatten``'s ``unflatten``, a tuple a helper
returns, a dict a helper returns, a list passed in) x how its result is used (read once,
twice, in a loop), against central finite differences and autograd on the same text;
value_and_grad, jvp, Hessians in both modes; the refusals with their lines and hints.
"""

from __future__ import annotations

import importlib.util
import itertools
import textwrap

import numpy as np
import pytest
from srcad.check import numerical_grad

import srcad
from srcad.errors import MissingRuleError, MutationError, UnsupportedSyntaxError

autograd = pytest.importorskip("autograd")

HELPERS = """
def square(z):
    return z * z

def scaled_sin(z):
    return np.sin(z) * 1.5

def pair(k):
    return k, square if k > 0 else scaled_sin

def table():
    return {"sq": square, "sin": scaled_sin}

def structure():
    return {"a": np.zeros(2), "b": np.zeros(3)}
"""

#: how the function is had: (lines before the use, the function's expression)
SOURCES = {
    "unflatten": ("    _, unflatten = flatten(structure())\n", "unflatten"),
    "tuple": ("    _, h = pair(2)\n", "h"),
    "dict": ("    fs = table()\n", "fs['sin']"),
}

#: how it is used; ``FN`` is replaced by the function's expression
USES = {
    "once": "    p = FN(v)\n    return RESULT\n",
    "twice": "    p = FN(v)\n    q = FN(v * 0.5)\n    return RESULT + 0.1 * RESULT_Q\n",
    "loop": "    total = 0.0\n    for k in range(3):\n        p = FN(v * (k + 1))\n"
            "        total = total + RESULT\n    return total\n",
}

#: what a result is made into, by source kind (unflatten gives a dict of arrays)
RESULTS = {
    "unflatten": ("np.sum(np.tanh(p['a'])) * np.sum(p['b'] ** 2)",
                  "np.sum(np.tanh(q['a'])) * np.sum(q['b'] ** 2)"),
    "tuple": ("np.sum(np.cos(p) * v)", "np.sum(np.cos(q) * v)"),
    "dict": ("np.sum(np.cos(p) * v)", "np.sum(np.cos(q) * v)"),
}

V = np.array([0.3, -0.7, 1.2, 0.45, -0.2])


def _module(source, tmp_path, flavour):
    imports = ("import numpy as np\nfrom srcad.misc import flatten\n" if flavour == "np" else
               "import autograd.numpy as np\nfrom autograd.misc import flatten\n")
    path = tmp_path / f"value11_{flavour}_{abs(hash(source))}.py"
    path.write_text(imports + textwrap.dedent(HELPERS) + source)
    spec = importlib.util.spec_from_file_location(path.stem, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _line(module, text):
    with open(module.__file__) as f:
        return next(i for i, line in enumerate(f, 1) if text in line)


def _source(kind, use):
    before, fn = SOURCES[kind]
    result, result_q = RESULTS[kind]
    body = USES[use].replace("FN", fn).replace("RESULT_Q", result_q).replace("RESULT", result)
    return "\ndef f(v):\n" + before + body


@pytest.mark.parametrize("kind,use", list(itertools.product(SOURCES, USES)))
def test_a_function_met_at_run_time(kind, use, tmp_path):
    source = _source(kind, use)
    f = _module(source, tmp_path, "np").f
    af = _module(source, tmp_path, "ag").f
    g = srcad.grad(f)(V)
    np.testing.assert_allclose(g, numerical_grad(f, (V,)), rtol=1e-6, atol=1e-8)
    np.testing.assert_allclose(g, autograd.grad(af)(V), rtol=1e-10, atol=1e-12)
    value, g2 = srcad.value_and_grad(f)(V)
    assert value == pytest.approx(af(V), rel=1e-12)
    np.testing.assert_allclose(g2, g, rtol=1e-12)
    u = np.cos(np.arange(V.size) + 0.25)
    _, t = srcad.jvp(f, (V,), (u,))
    assert t == pytest.approx(float(g @ u), rel=1e-9, abs=1e-12)
    np.testing.assert_allclose(srcad.grad(f)(V * 1.1), autograd.grad(af)(V * 1.1), rtol=1e-10)


@pytest.mark.parametrize("kind", list(SOURCES))
def test_hessians_in_both_modes(kind, tmp_path):
    source = _source(kind, "twice")
    f = _module(source, tmp_path, "np").f
    expected = autograd.hessian(_module(source, tmp_path, "ag").f)(V)
    for mode in ("fwd", "rev"):
        np.testing.assert_allclose(srcad.hessian(f, mode=mode)(V), expected, rtol=1e-8,
                                   atol=1e-10)


def test_functions_passed_in_a_list(tmp_path):
    """A list of functions passed as an argument (not differentiated): read when it runs."""
    source = "\ndef f(v, fs):\n    return np.sum(fs[0](v) * fs[1](v))\n"
    m, a = _module(source, tmp_path, "np"), _module(source, tmp_path, "ag")
    fs_np, fs_ag = [m.square, m.scaled_sin], [a.square, a.scaled_sin]
    np.testing.assert_allclose(srcad.grad(m.f)(V, fs_np), autograd.grad(a.f)(V, fs_ag),
                               rtol=1e-10)
    swapped = [m.scaled_sin, m.square]  # other functions, the same code: met when it runs
    np.testing.assert_allclose(srcad.grad(m.f)(V, swapped),
                               numerical_grad(lambda v: m.f(v, swapped), (V,)), rtol=1e-6)


def test_the_generated_code_calls_it(tmp_path):
    f = _module(_source("tuple", "once"), tmp_path, "np").f
    text = srcad.source(srcad.grad(f))
    assert "form_fwd(call_value" in text and "derivative_bwd" in text


def test_a_function_made_from_differentiated_values_is_refused(tmp_path):
    source = textwrap.dedent("""
        def make(w):
            fs = []
            for k in range(2):
                fs.append(lambda z, k=k: z * w + k)
            return fs

        def f(w, z):
            fs = make(w)
            return fs[1](z)
        """)
    m = _module(source, tmp_path, "np")
    with pytest.raises(MissingRuleError) as info:
        srcad.grad(m.f)(2.0, 3.0)
    assert info.value.lineno == _line(m, "return fs[1](z)")
    assert "made from differentiated values" in info.value.message
    assert "pass the values the function needs as arguments" in info.value.hint
    # with respect to z only, w is a constant: the function is too, met when the code runs
    assert srcad.grad(m.f, wrt=1)(2.0, 3.0) == pytest.approx(2.0)
    assert srcad.grad(m.f, wrt=1)(-0.5, 3.0) == pytest.approx(-0.5)


def test_a_function_changing_its_argument_is_refused(tmp_path):
    source = textwrap.dedent("""
        def zero_first(a):
            a[0] = 0.0
            return 1.0

        def helpers():
            return (zero_first,)

        def f(x, arr):
            y = np.sum(x * arr)
            fs = helpers()
            fs[0](arr)
            return y
        """)
    m = _module(source, tmp_path, "np")
    with pytest.raises(MutationError) as info:
        srcad.grad(m.f)(np.array([1.0, 2.0]), np.array([3.0, 4.0]))
    assert info.value.lineno == _line(m, "fs[0](arr)")
    assert "zero_first" in info.value.message and "may change what it is given" in (
        info.value.message)
    assert "return new values" in info.value.hint


def test_a_function_making_complex_numbers_is_refused(tmp_path):
    source = textwrap.dedent("""
        def rotate(z):
            return z * np.exp(0.5j)

        def helpers():
            return (rotate,)

        def f(x):
            fs = helpers()
            return np.sum(np.real(fs[0](x)) ** 2)
        """)
    m = _module(source, tmp_path, "np")
    with pytest.raises(UnsupportedSyntaxError) as info:
        srcad.grad(m.f)(np.array([1.0, 2.0]))
    assert info.value.lineno == _line(m, "np.real(fs[0](x))")
    assert "may return a complex number for real arguments" in info.value.message


LATE = textwrap.dedent("""
    def helper():
        return [lambda t: t * i for i in range(3)]

    def from_a_helper(x):
        fs = helper()
        return sum(g(x) for g in fs)

    def built_here(x):
        fs = [lambda t: t * i for i in range(3)]
        return sum(g(x) for g in fs)
    """)


def test_a_helpers_lambdas_keep_pythons_late_binding(tmp_path):
    """The helper runs as Python: its three lambdas all read ``i`` as 2, and so does the
    derivative (the value 6 x, the gradient 6)."""
    m, a = _module(LATE, tmp_path, "np"), _module(LATE, tmp_path, "ag")
    value, g = srcad.value_and_grad(m.from_a_helper)(0.71)
    assert value == pytest.approx(m.from_a_helper(0.71)) and value == pytest.approx(6 * 0.71)
    assert g == pytest.approx(autograd.grad(a.from_a_helper)(0.71))
    assert g == pytest.approx(6.0)


def test_lambdas_built_in_the_function_stay_refused(tmp_path):
    """A container built in the function may hold lambdas srcad made of the function's own:
    a call of one it cannot choose stays refused (never a value of other bindings)."""
    m = _module(LATE, tmp_path, "np")
    with pytest.raises(UnsupportedSyntaxError) as info:
        srcad.grad(m.built_here)(0.71)
    assert "taken from a list, tuple or dict whose functions srcad cannot know" in (
        info.value.message)
    assert info.value.lineno in (_line(m, "fs = [lambda"), _line(m, "fs = [lambda") + 1)


APPENDED = textwrap.dedent("""
    def helper():
        return [np.sin]

    def appended_in_a_loop(x):
        fs = helper()
        for i in range(3):
            fs.append(lambda z: z * i)
        return fs[1](x) + fs[2](x) + fs[3](x)

    def stored(x):
        fs = helper()
        fs.append(lambda z: z * 2.0)
        return fs[1](x)
    """)


@pytest.mark.parametrize("name", ["appended_in_a_loop", "stored"])
def test_a_lambda_of_the_function_put_into_an_outside_container_is_refused(name, tmp_path):
    """srcad's own form of the function's lambda (its bindings early, Python's late) is never
    called as a function met at run time: Python gives 6 x for the loop, srcad's would be 3 x."""
    m = _module(APPENDED, tmp_path, "np")
    f = getattr(m, name)
    with pytest.raises(UnsupportedSyntaxError) as info:
        srcad.value_and_grad(f)(0.7)
    assert "a function srcad made of a lambda or def of yours" in info.value.message
    assert "call the lambda where it is made" in info.value.hint
    assert info.value.lineno == _line(m, "return fs[1](x)\n" if name == "stored" else
                                      "return fs[1](x) + fs[2](x)")
