"""Nested functions whose default values read locals (issue 16): ``lambda v, k=k: v ** k`` made
in a loop and put in a list, in a comprehension, held in a name, passed to a function of yours
or to ``map``, ``def g(v, k=k, c=w * k)`` in a loop; keyword-only defaults too.

srcad reads such a function as ``make(k)`` for a function it makes, ``def make(k): return
lambda v: v ** k`` (``srcad/frontend/lower_defaults.py``): the defaults are values the function
holds from where it is made, and the gradient flows through them (``c=w * k``). A generated
family (where the function goes x its defaults x its body) is checked with ``grad``,
``value_and_grad``, ``jvp`` and Hessians in both modes against autograd running the same
program and central finite differences; then the forms still refused, with their messages.
"""

import itertools
import uuid

import numpy as np
import pytest
from sampling import sample_by
from srcad.check import numerical_grad
from test_robustness import load_module

import srcad

autograd = pytest.importorskip("autograd")

HEAD = "import numpy as np\n\n\ndef apply(g, v):\n    return g(v)\n\n\ndef f(x, w):\n"

#: where the function is made and called; FN is the lambda (or the def's parameters, BODY)
PLACES = {
    "append": "    fs = []\n    for k in range(1, 4):\n        fs.append(lambda FN)\n"
              "    return sum(f(x) for f in fs)\n",
    "comprehension": "    fs = [lambda FN for k in range(1, 4)]\n    out = 0.0\n"
                     "    for f in fs:\n        out = out + f(x)\n    return out * fs[1](x)\n",
    "name_in_loop": "    total = 0.0\n    for k in range(1, 4):\n        h = lambda FN\n"
                    "        total = total + h(x) * h(w)\n    return total\n",
    "passed_on": "    total = 0.0\n    for k in range(1, 4):\n"
                 "        total = total + apply(lambda FN, x)\n    return total\n",
    "map": "    k = 2\n    return sum(map(lambda FN, [x, 2.0 * x]))\n",
    "def_in_loop": "    total = 0.0\n    for k in range(1, 4):\n        def g(DEF):\n"
                   "            return BODY\n        total = total + g(x)\n    return total\n",
}
DEFAULTS = {"k": "v, k=k", "k_and_value": "v, k=k, c=w * k", "keyword_only": "v, *, k=k, c=w"}
BODIES = {"power": "v ** k * C", "sin": "np.sin(C * v) * k + v"}


def program(place, params, body):
    body = body.replace("C", "c" if "c=" in params else "w")
    text = PLACES[place].replace("lambda FN", f"lambda {params}: {body}")
    return HEAD + text.replace("DEF", params).replace("BODY", body)


CASES = [(f"{p}-{d}-{b}", program(p, DEFAULTS[d], BODIES[b]))
         for p, d, b in sample_by(itertools.product(PLACES, DEFAULTS, BODIES), lambda c: c[0], 2)]
X, W = 0.7, 1.3


@pytest.fixture(scope="module")
def directory(tmp_path_factory):
    return tmp_path_factory.mktemp("misc16_defaults")


def both(directory, text):
    name = f"defaults_{uuid.uuid4().hex[:8]}"
    plain = load_module(directory, text, name).f
    mirror = load_module(directory, text.replace("import numpy as np",
                                                 "import autograd.numpy as np"), name + "_ag").f
    return plain, mirror


@pytest.mark.parametrize("text", [c[1] for c in CASES], ids=[c[0] for c in CASES])
def test_defaults_family(directory, text):
    f, mirror = both(directory, text)
    want = autograd.grad(mirror, (0, 1))(X, W)
    got = srcad.grad(f, wrt=(0, 1))(X, W)
    numeric = numerical_grad(f, (X, W), (0, 1))
    for a, b, n in zip(got, want, numeric):
        assert a == pytest.approx(b, rel=1e-10) and a == pytest.approx(n, rel=1e-6)
    value, grads = srcad.value_and_grad(f, wrt=(0, 1))(X, W)
    assert value == pytest.approx(f(X, W), rel=1e-12)
    assert grads[0] == pytest.approx(want[0], rel=1e-10)
    tangent = srcad.jvp(f, (X, W), (0.4, -1.1))[1]
    assert tangent == pytest.approx(0.4 * want[0] - 1.1 * want[1], rel=1e-10)
    hessian = autograd.hessian(lambda p: mirror(p[0], p[1]))(np.array([X, W]))
    for wrt in (0, 1):
        first = srcad.grad(f, wrt=wrt)
        assert srcad.grad(first, wrt=(0, 1))(X, W) == pytest.approx(tuple(hessian[wrt]),
                                                                      rel=1e-9)
    assert srcad.hessian(f)(X, W) == pytest.approx(hessian[0, 0], rel=1e-9)
    assert srcad.hessian(f, mode="rev")(X, W) == pytest.approx(hessian[0, 0], rel=1e-9)


def test_a_default_holds_the_value_of_its_iteration(directory):
    """Each function keeps the ``k`` of the pass that made it (not the last one)."""
    f, _ = both(directory, program("append", "v, k=k", "v ** k * w"))
    assert f(X, W) == pytest.approx(W * (X + X ** 2 + X ** 3), rel=1e-12)
    assert srcad.grad(f)(X, W) == pytest.approx(W * (1 + 2 * X + 3 * X ** 2), rel=1e-12)


# ---------------------------------------------------------------- still refused

REFUSED = {
    # the body reads a local too: Python reads w when the function is called
    "body_reads_local": ("    fs = []\n    for k in range(1, 3):\n"
                         "        fs.append(lambda v, k=k: v ** k * w)\n"
                         "        w = w * 2.0\n    return sum(f(x) for f in fs)\n",
                         "whose body reads the local 'w'", "w=w"),
    # a call giving the parameter that has a default
    "override": ("    s = w * 2.0\n    g = lambda v, s=s: v * s\n    return g(x) + g(x, 3.0)\n",
                 "called with that parameter given", "without the parameters"),
}


@pytest.mark.parametrize("name", sorted(REFUSED))
def test_refused(directory, name):
    body, message, hint = REFUSED[name]
    f, _ = both(directory, HEAD + body)
    with pytest.raises(srcad.UnsupportedSyntaxError) as info:
        srcad.grad(f)(X, W)
    assert message in info.value.message and hint in info.value.hint
    assert "lambda" in info.value.construct
