"""A number's gradient that a rule made a 0-d array (``multivariate_normal.logpdf`` of a
float: ``unbroadcast`` of ``np.reshape(g, ())`` returned the 0-d array as it was), then held by
two names of the sweep (``dx = dx_1``) and added into in place for the loop's other uses
(``dx += dx_1 * j``, in place on a 0-d array): ``dx_1`` changed under its readers (-12.16
where -8.11; the mutant fuzzer's run 5, seed 3005, on a toy example's ``real_pdf`` with ``k =
0; for j in range(1, 3): k += x * j``). ``unbroadcast`` gives a number's gradient as a number
now. Each form against central differences and autograd. Imports NumPy, SciPy, autograd,
pytest, srcad and the tests' helpers."""

from __future__ import annotations

import itertools

import autograd
import autograd.numpy as anp
import autograd.scipy.stats as astats
import numpy as np
import pytest
import scipy.stats as stats
from program_files import load

import srcad

#: head -> (srcad's text, the autograd twin's: autograd's multivariate_normal takes arrays only)
HEADS = {"mvn_logpdf": ("stats.multivariate_normal.logpdf(x, 0.3, 0.8)",
                        "stats.multivariate_normal.logpdf(np.reshape(x, (1,)), np.array([0.3]), "
                        "np.array([[0.8]]))"),
         "mvn_logpdf_scaled": ("2.0 * stats.multivariate_normal.logpdf(x * 0.5, -0.1, 1.3)",
                               "2.0 * stats.multivariate_normal.logpdf(np.reshape(x * 0.5, (1,)), "
                               "np.array([-0.1]), np.array([[1.3]]))"),
         "norm_logpdf": ("stats.norm.logpdf(x, 0.3, 0.8)",) * 2}
LOOPS = {"accumulated": "    k = 0\n    for j in range(1, 3):\n        k += x * j\n"
                        "    x = x + k\n",
         "aliased": "    k = 0\n    for j in range(1, 3):\n        k += x * j\n    c = k\n"
                    "    c *= 1.5\n    x = x + k\n",
         "twice": "    k = x * 1.0\n    for j in range(3):\n        k = k + x * j\n    x = x * k\n"}


@pytest.mark.parametrize("head,loop", list(itertools.product(HEADS, LOOPS)))
def test_number_gradient_in_loop(tmp_path, head, loop):
    text, twin_text = (f"import numpy as np\n\n\ndef f(x):\n{LOOPS[loop]}    return {h}\n"
                       for h in HEADS[head])
    f = load(tmp_path, f"n_{head}_{loop}", text)
    f.__globals__["stats"] = stats
    twin = load(tmp_path, f"t_{head}_{loop}", twin_text, (anp,))
    twin.__globals__["stats"] = astats
    for x in (0.4268, -0.71):
        got = srcad.grad(f)(x)
        assert np.isclose(got, (f(x + 1e-6) - f(x - 1e-6)) / 2e-6, rtol=1e-5, atol=1e-7)
        assert np.isclose(got, autograd.grad(twin)(x), rtol=1e-10, atol=1e-12)
        assert np.isclose(srcad.jvp(f, (x,), (1.0,))[1], got, rtol=1e-10)
