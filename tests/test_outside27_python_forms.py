"""Python as programs written for JAX write it (issue 16, outside27), each form refused
before:

* ``if is_leaf is not None and is_leaf(t):`` with ``is_leaf`` given None (or ``if f is None``
  with ``f`` given a function): the specialisation fixes the first operand, so the branch that
  cannot run is not read (``srcad/frontend/lower_stmts.py``, ``fixed_ways``);
* ``h = make(g); h(c, *params)`` with ``params`` a callee's tuple parameter (JAX's ``advi``
  example, ``vmap(partial(elbo, logprob))(rngs, *params)``): a call of unknown length through
  ``star_call``, the function a helper made passed its held values first, a partial of the
  user's function read as that function (``srcad/runtime/spread_calls.py``);
* ``n * [np.sin(w)]``, ``[f(w)] * n`` (``srcad/frontend/list_repeats.py``);
* refusals naming the user's function (``sgd``, not srcad's copy ``sgd_fields``) and, for
  ``W -= g * lr`` on an argument, the rewrite JAX's meaning of it takes in NumPy.

Against central differences and autograd (the same text with ``autograd.numpy``)."""

from __future__ import annotations

import numpy as np
import pytest
from sampling import LONG
from test_robustness import load_module

import srcad
from srcad.errors import MutationError

autograd = pytest.importorskip("autograd")
NP, AG = "import numpy as np\nimport functools\n", \
    "import autograd.numpy as np\nimport functools\n"
W = np.array([0.3, -0.7, 1.1])

PROGRAMS = {
    "is_leaf None": """
def leaves(tree, is_leaf=None):
    if is_leaf is not None and is_leaf(tree):
        return [tree]
    if isinstance(tree, (list, tuple)):
        out = []
        for t in tree:
            out.extend(leaves(t, is_leaf))
        return out
    return [tree]

def f(w):
    tree = [w * 2.0, (np.sin(w), [w ** 2])]
    return sum(np.sum(v * v) for v in leaves(tree))
""",
    "f is None or": """
def apply(f, x, g=None):
    if g is None or g(x) is None:
        return f(x)
    return g(f(x))

def maybe(f, x):
    if f is None:
        return x
    if not f:
        return -x
    return f(x)

def f(w):
    return np.sum(apply(np.sin, w) * maybe(np.tanh, w) + maybe(None, w))
""",
    "star of a made function": """
def mapped_over(fun):
    def mapped(xs, *args):
        return [fun(x, *args) for x in xs]
    return mapped

def elbo(scale, x, mean, log_std):
    return np.sum(scale * x * mean) - np.sum(log_std ** 2)

def batch(params, xs):
    each = mapped_over(functools.partial(elbo, 0.5))
    return sum(each(xs, *params))

def f(w):
    return batch((w * 2.0, np.cos(w)), [w, w ** 2])
""",
    "repeated calls": """
def f(w):
    n = 3
    xs = n * [np.sin(w)]
    ys = [np.exp(0.2 * w), w] * 2
    return np.sum(xs[0] * xs[1] + xs[2]) + np.sum(ys[1] * ys[2])
""",
}
CASES = list(PROGRAMS) if LONG else ["is_leaf None", "star of a made function"]


def _fd(f, w):
    return np.array([(f(w + 1e-6 * e) - f(w - 1e-6 * e)) / 2e-6 for e in np.eye(len(w))])


@pytest.mark.parametrize("program", CASES)
def test_python_as_jax_programs_write_it(program, tmp_path):
    m = load_module(tmp_path, NP + PROGRAMS[program])
    g = srcad.grad(m.f)(W)
    np.testing.assert_allclose(g, _fd(m.f, W), rtol=1e-6, atol=1e-8)
    a = load_module(tmp_path, AG + PROGRAMS[program])
    np.testing.assert_allclose(g, autograd.grad(a.f)(W), rtol=1e-10, atol=1e-12)


def test_refusals_name_the_users_function_and_jaxs_rewrite(tmp_path):
    m = load_module(tmp_path, NP + """
def sgd(ps, gs, lr):
    for i in range(len(ps)):
        ps[i] -= lr * gs[i]

def f(w):
    ps = [w, w * 2.0]
    sgd(ps, [w, w], 0.1)
    return np.sum(ps[0] * ps[1])

def step(W, g):
    W -= g * 0.1
    return np.sum(W ** 2)

def backprop(W, b, lr):
    W -= np.tanh(W) * lr
    return W, b

def after(W, b):
    W1, b1 = backprop(W, b, 0.1)
    return np.sum(W1 * b1)
""")
    with pytest.raises(MutationError) as e:
        srcad.grad(m.f)(W)
    assert "sgd(...)" in str(e.value) and "sgd_fields" not in str(e.value)
    # (state36) step's and backprop's W -= ... into the caller's array: differentiated, the
    # caller's W left as the plain run leaves it
    mine, plain = W.copy(), W.copy()
    np.testing.assert_allclose(srcad.grad(m.step)(mine, W), 2.0 * (W - W * 0.1))
    m.step(plain, W)
    np.testing.assert_array_equal(mine, plain)
    mine, plain = W.copy(), W.copy()
    np.testing.assert_allclose(srcad.grad(m.after)(mine, 0.5),
                               0.5 * (1.0 - 0.1 * (1.0 - np.tanh(W) ** 2)))
    m.after(plain, 0.5)
    np.testing.assert_array_equal(mine, plain)


def test_a_count_a_call_may_change_keeps_the_refusal(tmp_path):
    # n * [f()] with n a global that f may rebind: Python reads n first; not rewritten
    m = load_module(tmp_path, NP + "N = 2\n\ndef bump(w):\n    global N\n    N = 3\n"
                    "    return w * 2.0\n\ndef f(w):\n    xs = N * [bump(w)]\n"
                    "    return np.sum(xs[0] * xs[-1])\n")
    with pytest.raises(srcad.SrcadError):
        srcad.grad(m.f)(W)
