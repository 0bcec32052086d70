"""``np.vectorize`` read as the loop it stands for (issue 16, forms17).

``np.vectorize(f)(x)``, ``vf = np.vectorize(f)`` then ``vf(x)``, and a module-level
``@np.vectorize`` function were refused ("calling the result of an expression", "a callable
object (vectorize)"). srcad now reads a call of a vectorized function as ``f`` of each
element of the broadcast arguments, the results in an array of NumPy's shape
(:mod:`srcad.frontend.vectorized`).

A generated family: scalar functions (arithmetic, a branch, a lambda reading a local) × the
ways of writing the vectorized function (inline, held in a name, ``otypes=[float]``,
decorated) × arguments (a vector, a matrix, a number, two arguments broadcast together),
against central finite differences and autograd running the loop NumPy's ``vectorize``
stands for; grad, value_and_grad, jvp; Hessians in both modes on samples. Refusals: the
options srcad does not read, keywords in the call, and what NumPy would build otherwise.
"""

from __future__ import annotations

import numpy as np
import pytest
from call_checks import check_first_order
from program_files import load
from sampling import sample_by

import srcad
from srcad.errors import UnsupportedSyntaxError

autograd = pytest.importorskip("autograd")
anp = pytest.importorskip("autograd.numpy")

#: scalar functions of one or two numbers
SCALAR = {
    "poly": ("def h(v):\n    return v * v * 0.5 + np.sin(v)\n", 1),
    "branch": ("def h(v):\n    if v > 0.0:\n        return np.exp(-v) * v\n    return v ** 3\n",
               1),
    "two": ("def h(a, b):\n    return a * np.cos(b) + a * a * b\n", 2),
}
#: how the vectorized function is written; {A}: the call's arguments
FORMS = {
    "inline": "    return np.sum(np.vectorize(h)({A}) * W)\n",
    "named": "    vf = np.vectorize(h)\n    out = vf({A})\n    return np.sum(out * out)\n",
    "otypes": "    return np.sum(np.vectorize(h, otypes=[float])({A}) * W)\n",
    "decorated": "    return np.sum(hv({A}) * W)\n",
    "lambda": "    k = x[0] * 0.5\n    return np.sum(np.vectorize(lambda {P}: h({P}) * k)({A}))\n",
}
#: the arguments: one-argument and two-argument forms
ARGS = {
    "vector": ("x", "x, x[::-1] * 0.5"),
    "matrix": ("np.reshape(np.concatenate([x, x * x]), (2, 3))",
               "np.reshape(np.concatenate([x, x]), (2, 3)), x[1]"),
    "number": ("x[1] * 2.0", "x[1], x[2]"),
    "broadcast": ("x[:, None] * x[None, :]", "x[:, None], x[None, :]"),
}

VECTORIZE_LOOP = '''
def vectorize(func, otypes=None):
    def call(*args):
        shape = np.broadcast(*[np.zeros(np.shape(a)) for a in args]).shape
        bs = [a * np.ones(shape) for a in args]
        outs = [func(*[b[at] for b in bs]) for at in np.ndindex(*shape)]
        return np.reshape(np.array(outs), shape)
    return call
'''


def _text(scalar, form, args, reference):
    body, arity = SCALAR[scalar]
    a = ARGS[args][arity - 1]
    text = "import numpy\n\n" + body + "\n\n"
    if reference:
        text += VECTORIZE_LOOP + "\n\nhv = vectorize(h)\n"
    else:
        text += "@np.vectorize\n" + body.replace("def h(", "def hv(") + "\n"
    text += "W = numpy.array([[1.0, -2.0, 0.5], [0.3, 0.7, -1.1], [0.2, 0.4, 0.6]])[:2]\n"
    text += f"\n\ndef f(x):\n{FORMS[form].format(A=a, P=', '.join('uv'[:arity]))}"
    if form in ("inline", "otypes", "decorated"):
        text = text.replace("* W)", "* 1.5)") if args in ("vector", "number", "broadcast") \
            else text
    if reference:
        text = text.replace("np.vectorize(", "vectorize(").replace(", otypes=[float])", ")")
    return text


def _cases():
    for scalar in SCALAR:
        for form in FORMS:
            for args in ARGS:
                if form == "lambda" and SCALAR[scalar][1] == 2 and args == "number":
                    continue
                yield scalar, form, args


X = np.array([0.3, -0.7, 1.1])


def _pair(tmp_path, scalar, form, args):
    stem = f"v17_{scalar}_{form}_{args}"
    f = load(tmp_path, stem, _text(scalar, form, args, False), modules=(np,))
    fa = load(tmp_path, stem + "_ag", _text(scalar, form, args, True), modules=(anp,))
    return f, fa


@pytest.mark.parametrize("scalar,form,args", sample_by(list(_cases()), lambda c: c[0], 4))
def test_vectorized_functions(tmp_path, scalar, form, args):
    f, fa = _pair(tmp_path, scalar, form, args)
    assert f(X) == pytest.approx(fa(X), rel=1e-12)
    check_first_order(f, fa, X, np.array([0.4, -0.1, 0.6]))


@pytest.mark.parametrize("scalar,form,args", [
    ("poly", "inline", "vector"), ("branch", "named", "matrix"), ("two", "decorated", "broadcast"),
    ("two", "lambda", "vector"), ("poly", "otypes", "number")])
def test_hessians_through_vectorized_functions(tmp_path, scalar, form, args):
    f, fa = _pair(tmp_path, scalar, form, args)
    want = autograd.hessian(fa)(X)
    for mode in ("fwd", "rev"):
        np.testing.assert_allclose(srcad.hessian(f, mode=mode)(X), want, rtol=1e-8, atol=1e-10)


@pytest.mark.filterwarnings("ignore::RuntimeWarning")  # NumPy's first call: np.float64
def test_elements_are_python_numbers(tmp_path):
    """NumPy hands the function Python floats (items of object arrays): ``1.0 / 0.0`` raises
    as it does under NumPy, rather than giving inf."""
    text = ("import numpy as np\n\n\ndef h(v):\n    return 1.0 / v\n\n\n"
            "def f(x):\n    return np.sum(np.vectorize(h)(x - x[0]))\n")
    f = load(tmp_path, "v17_zero", text)
    with pytest.raises(ZeroDivisionError):
        f(X)
    with pytest.raises(ZeroDivisionError):
        srcad.grad(f)(X)


def test_generated_code_calls_the_loop(tmp_path):
    text = ("import numpy as np\n\n\ndef h(v):\n    return v * v\n\n\n"
            "def f(x):\n    return np.sum(np.vectorize(h)(x))\n")
    f = load(tmp_path, "v17_src", text)
    src = srcad.source(srcad.grad(f), X)
    assert "vectorized_fwd(h" in src and "vectorized_bwd(" in src


REFUSED = {
    "signature": ("np.vectorize(h, signature='(n)->()')(x)", "signature=", "apply_along_axis"),
    "excluded": ("np.vectorize(h, excluded=(1,))(x, 2.0)", "excluded=", "lambda"),
    "otypes_int": ("np.vectorize(h, otypes=[int])(x)", "otypes=", "otypes=[float]"),
    "positional": ("np.vectorize(h, 'd')(x)", "by position", "by keyword"),
    "computed": ("np.vectorize(h, otypes=[type(x[0])])(x)", "computed", "literal"),
    "keywords": ("np.vectorize(h)(x, k=2.0)", "keyword arguments", "lambda"),
}


@pytest.mark.parametrize("case", list(REFUSED))
def test_refused_options(tmp_path, case):
    call, words, hint = REFUSED[case]
    text = ("import numpy as np\n\n\ndef h(v, k=1.0):\n    return v * k\n\n\n"
            f"def f(x):\n    y = x * 2.0\n    return np.sum({call.replace('(x', '(y')})\n")
    f = load(tmp_path, f"v17_no_{case}", text)
    with pytest.raises(UnsupportedSyntaxError) as info:
        srcad.grad(f)(X)
    assert info.value.lineno == 10
    assert words in info.value.message and hint in info.value.hint


def test_refused_decorated_options(tmp_path):
    text = ("import functools\nimport numpy as np\n\n\n"
            "@functools.partial(np.vectorize, excluded={1})\n"
            "def h(v, k):\n    return v * k\n\n\n"
            "def f(x):\n    return np.sum(h(x, 2.0))\n")
    f = load(tmp_path, "v17_no_dec", text)
    with pytest.raises(UnsupportedSyntaxError) as info:
        srcad.grad(f)(X)
    assert info.value.lineno == 11 and "excluded=" in info.value.message


@pytest.mark.parametrize("body,error,words", [
    ("return v, v * 2.0", UnsupportedSyntaxError, "tuple"),
    ("return 0 if v < 0 else v", UnsupportedSyntaxError, "otypes=[float]"),
    ("return np.array([v, v])", ValueError, "sequence"),
])
def test_refused_results(tmp_path, body, error, words):
    """What NumPy would build other than the array of the results: refused when it runs."""
    text = (f"import numpy as np\n\n\ndef h(v):\n    {body}\n\n\n"
            "def f(x):\n    return np.sum(np.vectorize(h)(x)[0])\n")
    f = load(tmp_path, "v17_res_" + str(abs(hash(body))), text)
    with pytest.raises(error) as info:
        srcad.grad(f)(np.array([-0.3, 0.5, 1.1]))
    assert words in str(info.value)
    if error is UnsupportedSyntaxError:  # the line of the np.vectorize call
        assert info.value.lineno == 9 and info.value.filename.endswith(".py")
