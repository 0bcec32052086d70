"""Round 29: list or tuple, a fact of the specialisation. A list argument and a tuple argument
of the same items have different cache keys, so ``isinstance(like, list)``, ``type(like) is
tuple`` take one way while the code is made, and ``type(like)(items)`` is the class itself (the
JAX shim's tree helpers were written around its refusal). Checked against central differences
and autograd; a rebound name keeps the general code.
"""

import autograd
import autograd.numpy as anp
import numpy as np
import pytest

import srcad
from srcad.errors import SrcadError
from srcad.tools.check import numerical_grad
from tests.sampling import LONG


def made(np):
    def rebuild(like, x):
        if isinstance(like, (list, tuple)):
            items = [x * v for v in like]
            if isinstance(like, list):
                return items
            return type(like)(items)
        return x * like

    def f(x, like):
        r = rebuild(like, x)
        return np.sum(r[0] * np.sin(r[1]))

    def g(x, like):  # the test in the function differentiated
        if type(like) is not tuple:
            return np.sum(x * like[0] * like[1])
        return np.sum(type(like)([x, x * like[0]])[1] ** 2)

    def h(x, like):  # a ternary of the body
        kind = "list" if isinstance(like, list) else "tuple"
        if kind == "list":
            return np.sum(x * like[0])
        return np.sum(x ** 2 * like[1])

    return f, g, h


FUNCS, AFUNCS = made(np), made(anp)
X = np.array([0.7, -1.3])


@pytest.mark.parametrize("k", range(3) if LONG else [0])
@pytest.mark.parametrize("kind", [list, tuple], ids=["list", "tuple"])
def test_list_or_tuple(k, kind):
    like = kind([2.0, 0.5])
    got = srcad.grad(FUNCS[k])(X, like)
    np.testing.assert_allclose(got, autograd.grad(AFUNCS[k])(X, like), rtol=1e-10)
    np.testing.assert_allclose(got, numerical_grad(lambda x: FUNCS[k](x, like), (X,)),
                               rtol=1e-6)


def rebound(x, like):
    like = [v for v in like]  # rebound first: the test reads another object
    if isinstance(like, tuple):
        return np.sum(x * 100.0)
    return np.sum(x * like[0])


def maybe(x, like, flip):
    if flip:
        like = tuple(like)
    return np.sum(type(like)([x])[0])  # two kinds merged: not one class


def test_rebound_names_keep_the_general_code():
    if not LONG:
        pytest.skip("the long run")
    np.testing.assert_allclose(srcad.grad(rebound)(X, (2.0,)), [2.0, 2.0])
    with pytest.raises(SrcadError):
        srcad.grad(maybe)(X, [1.0], False)
