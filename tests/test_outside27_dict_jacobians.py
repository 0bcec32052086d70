"""``jacrev(f)(params, x)`` of a function taking a dict, inside differentiated code (issue 16,
outside27; JAX's cookbook: ``jacrev(predict_dict)({"W": W, "b": b}, inputs)["W"]``): the
dict of Jacobians, one per key, as ``srcad.jacobian`` gives at top level
(``srcad.nested.plain_jacobian``'s dict lines). Refused before ("whose argument is a dict").
Against central differences and autograd (each key's Jacobian taken by autograd of the
function of that key alone); a dict output stays refused with the precise message."""

from __future__ import annotations

import numpy as np
import pytest
from sampling import LONG
from test_robustness import load_module

import srcad

autograd = pytest.importorskip("autograd")
SR = "import numpy as np\nfrom srcad import jacrev, jacfwd\n"
AG = "import autograd.numpy as np\n"
BODY = """
INPUTS = np.array([[0.52, 1.12, 0.77], [0.88, -1.08, 0.15], [0.52, 0.06, -1.30]])
C = np.array([0.3, -0.5, 0.8])

def predict(params, inputs):
    return np.tanh(np.dot(inputs, params["W"]) + params["b"])
"""
USES = {
    "jacrev, one key": "def f(W, b):\n    J = jacrev(predict)({'W': W, 'b': b}, INPUTS)\n"
                       "    return np.sum(J['W'] * C[:, None])\n",
    "jacfwd, both keys": "def f(W, b):\n    J = jacfwd(predict)({'W': W, 'b': b}, INPUTS)\n"
                         "    return np.sum(J['b'] * C) + np.sum(J['W'] ** 2)\n",
}
AG_USES = {  # the same, each key's Jacobian by autograd alone
    "jacrev, one key": "def f(W, b):\n    JW = jacobian(lambda v: predict({'W': v, 'b': b}, "
                       "INPUTS))(W)\n    return np.sum(JW * C[:, None])\n",
    "jacfwd, both keys": "def f(W, b):\n    JW = jacobian(lambda v: predict({'W': v, 'b': b}, "
                         "INPUTS))(W)\n    Jb = jacobian(lambda v: predict({'W': W, 'b': v}, "
                         "INPUTS))(b)\n    return np.sum(Jb * C) + np.sum(JW ** 2)\n",
}
CASES = list(USES) if LONG else ["jacrev, one key"]
W, B = np.array([0.1, -0.3, 0.2]), 0.4


@pytest.mark.parametrize("use", CASES)
def test_a_jacobian_of_a_dict_in_differentiated_code(use, tmp_path):
    m = load_module(tmp_path, SR + BODY + USES[use])
    gW, gb = srcad.grad(m.f, argnums=(0, 1))(W, B)
    fW = np.array([(m.f(W + 1e-6 * e, B) - m.f(W - 1e-6 * e, B)) / 2e-6 for e in np.eye(3)])
    np.testing.assert_allclose(gW, fW, rtol=1e-6, atol=1e-8)
    np.testing.assert_allclose(gb, (m.f(W, B + 1e-6) - m.f(W, B - 1e-6)) / 2e-6, rtol=1e-6)
    a = load_module(tmp_path, AG + "from autograd import jacobian\n" + BODY + AG_USES[use])
    aW, ab = autograd.grad(a.f, (0, 1))(W, B)
    np.testing.assert_allclose(gW, aW, rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(gb, ab, rtol=1e-10, atol=1e-12)


@pytest.mark.skipif(not LONG, reason="seconds: the long run (SRCAD_LONG_PROPERTIES=1)")
def test_a_dict_output_stays_refused(tmp_path):
    m = load_module(tmp_path, SR + "def g(p):\n    return {'y': np.sin(p['W']), 'z': p['b']}\n\n"
                    "def f(W, b):\n    return np.sum(jacrev(g)({'W': W, 'b': b})['y']['W'])\n")
    with pytest.raises(srcad.SrcadError, match="output is a dict"):
        srcad.grad(m.f)(W, B)
