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


@pytest.mark.parametrize("passed", PASSED)
@pytest.mark.parametrize("form", sorted(FORMS))
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
