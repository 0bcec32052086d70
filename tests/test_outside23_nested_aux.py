"""``srcad.grad(f, has_aux=True)`` / ``srcad.value_and_grad(f, has_aux=True)`` called inside
differentiated code (issue 16, outside23 item 5): the outer derivative sees through the inner
gradient and through the auxiliary value (``srcad/nested_aux.py``).

A generated family (maker x how the inner function is given x what ``aux`` is) is checked
against central differences and against autograd on a twin written without ``has_aux``
(``autograd.grad(lambda w: f(w)[0])`` and ``f(w)[1]``), in reverse and forward mode.
"""

from __future__ import annotations

import itertools

import numpy as np
import pytest
from sampling import sample
from test_robustness import load_module
from twin_checks import central

import srcad

autograd = pytest.importorskip("autograd")

W0 = np.array([0.3, -0.2, 0.7])
X0 = np.array([0.5, 1.5])

HEAD = """
def inner(w, x):
    return np.sum(np.sin(w) * x[0]) + np.sum(w ** 2) * x[1], {aux}
"""
AUX = {"number": "w[0] * x[1]", "array": "np.tanh(w) * x[0]", "tuple": "(w[1], w * x[1])"}
USE_AUX = {"number": "a", "array": "np.sum(a ** 2)", "tuple": "a[0] + np.sum(np.cos(a[1]))"}
FORMS = {  # how the srcad program gets (gradient, aux) / ((value, aux), gradient)
    "named": "{maker}(inner, has_aux=True)(w, x)",
    "local": None,  # dg = maker(...); dg(w, x)
    "lambda": "{maker}(lambda v: inner(v, x), has_aux=True)(w)",
    "module": "D_{maker}(w, x)",  # made outside the function, at module level
    "wrt_name": "{maker}(inner, wrt='w', has_aux=True)(w, x)",
}
MAKERS = ("grad", "value_and_grad")


def _texts(maker, form, aux):
    head = HEAD.format(aux=AUX[aux])
    call = FORMS[form]
    lead = ""
    if form == "local":
        lead, call = f"    dg = srcad.{maker}(inner, has_aux=True)\n", "dg(w, x)"
    else:
        call = call.format(maker=f"srcad.{maker}" if form != "module" else maker)
    if form == "module":
        head += f"\nD_{maker} = srcad.{maker}(inner, has_aux=True)\n"
    got = "g, a" if maker == "grad" else "(v, a), g"
    tail = "    return np.sum(g ** 2) * x[0] + " + USE_AUX[aux] + (" + v * x[1]" if maker !=
                                                          "grad" else "") + "\n"
    mine = "import numpy as np\nimport srcad\n" + head + \
        f"\ndef f(w, x):\n{lead}    {got} = {call}\n" + tail
    twin = ("import autograd\nimport autograd.numpy as np\n" + HEAD.format(aux=AUX[aux])
            + "\ndef f(w, x):\n    g = autograd.grad(lambda v: inner(v, x)[0])(w)\n"
            "    v, a = inner(w, x)\n" + tail)
    return mine, twin


CASES = list(itertools.product(MAKERS, FORMS, AUX))


@pytest.mark.parametrize("maker,form,aux", sample(CASES, 5))
def test_the_outer_derivative_sees_through_the_inner_one(maker, form, aux, tmp_path):
    mine, twin = _texts(maker, form, aux)
    m, t = load_module(tmp_path, mine), load_module(tmp_path, twin)
    value, g = srcad.value_and_grad(m.f)(W0, X0)
    assert value == pytest.approx(t.f(W0, X0), rel=1e-12)
    np.testing.assert_allclose(g, central(m.f, (W0, X0), 0), rtol=1e-6, atol=1e-8)
    np.testing.assert_allclose(g, autograd.grad(t.f)(W0, X0), rtol=1e-10, atol=1e-12)
    d = np.array([1.0, -2.0, 0.5])
    _, tangent = srcad.jvp(m.f, (W0, X0), (d, np.zeros(2)))
    assert tangent == pytest.approx(float(g @ d), rel=1e-9, abs=1e-12)


def test_the_aux_carries_gradient_in_the_second_argument(tmp_path):
    """wrt=1: the gradient in ``x`` goes through the inner gradient and the aux alike."""
    mine, twin = _texts("value_and_grad", "named", "tuple")
    m, t = load_module(tmp_path, mine), load_module(tmp_path, twin)
    g = srcad.grad(m.f, wrt=1)(W0, X0)
    np.testing.assert_allclose(g, central(m.f, (W0, X0), 1), rtol=1e-6, atol=1e-8)
    np.testing.assert_allclose(g, autograd.grad(t.f, 1)(W0, X0), rtol=1e-10, atol=1e-12)


def test_a_result_that_is_no_pair_is_refused_naming_the_function(tmp_path):
    text = ("import numpy as np\nimport srcad\n\ndef inner(w):\n    return np.sum(w ** 2)\n\n"
            "def f(w):\n    g, a = srcad.grad(inner, has_aux=True)(w)\n    return np.sum(g)\n")
    m = load_module(tmp_path, text)
    with pytest.raises(srcad.SrcadError, match="must return a pair") as err:
        srcad.grad(m.f)(W0)
    assert m.__file__ in str(err.value)


def test_a_hessian_through_the_inner_gradient(tmp_path):
    """Second order of the outer function: a third derivative of ``inner``."""
    mine, twin = _texts("grad", "named", "array")
    m, t = load_module(tmp_path, mine), load_module(tmp_path, twin)
    np.testing.assert_allclose(srcad.hessian(m.f)(W0, X0), autograd.hessian(t.f)(W0, X0),
                               rtol=1e-9, atol=1e-11)
