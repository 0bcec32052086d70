"""A Hessian called inside differentiated code (round 9: an AM207 Riemannian HMC notebook).

The metric of a Riemannian HMC is ``-hessian(log_prob)(q)``, and the Hamiltonian built from it
(its log-determinant, a solve with the momentum) is differentiated by ``grad`` w.r.t. the
concatenated ``(q, p)``, ``log_prob`` reaching the Hamiltonian as a parameter through a nested
function's closure. The example shim's ``hessian`` now declares itself srcad's maker (as its
``grad`` does), so the call is made while srcad transforms the caller; this file checks that
srcad's derivative through it is exact: against central finite differences and autograd running
the same text, for three densities x three ways of reaching ``log_prob``.
"""

from __future__ import annotations

import importlib.util
import itertools
import textwrap

import numpy as np
import pytest
from srcad.check import numerical_grad

autograd = pytest.importorskip("autograd")

DENSITIES = {
    "quartic": "def log_prob(q):\n    return -np.sum(q ** 4) - np.sum(q ** 2)\n",
    "coupled": "def log_prob(q):\n    return -np.sum(q ** 2) - 0.5 * (q[0] * q[1]) ** 2 "
               "- np.sum(np.cosh(q))\n",
    "banana": "def log_prob(q):\n    return -0.5 * q[0] ** 2 - (q[1] - q[0] ** 2) ** 2 "
              "- 0.1 * np.sum(q ** 4)\n",
}

HAMILTONIAN = """
def hamiltonian(q, p, log_prob):
    metric = -hessian(log_prob)(q)
    return (-log_prob(q) + 0.5 * np.linalg.slogdet(metric)[1]
            + 0.5 * np.dot(p, np.linalg.solve(metric, p)))
"""

#: how the differentiated function reaches ``log_prob``
REACH = {
    "global": """
        def f(qp):
            return hamiltonian(qp[:2], qp[2:], log_prob)
        """,
    "closure": """
        def make(lp):
            def inner(qp):
                return hamiltonian(qp[:2], qp[2:], lp)
            return inner

        def f(qp):
            return make(log_prob)(qp)
        """,
    "parameter": """
        def energy(qp, lp):
            n = len(qp) // 2
            return hamiltonian(qp[:n], qp[n:], lp)

        def f(qp):
            return energy(qp, log_prob)
        """,
}

POINT = np.array([0.3, -0.7, 0.2, 0.1])


def _module(source, tmp_path, engine):
    head = ("import numpy as np\nfrom srcad import hessian as _h\n\n"
            "def hessian(fun):\n    return _h(fun)\n\n"
            "hessian.__srcad_derivative_maker__ = (_h, {})\n" if engine == "srcad" else
            "import autograd.numpy as np\nfrom autograd import hessian\n")
    path = tmp_path / f"nested_hessian9_{engine}_{abs(hash(source))}.py"
    path.write_text(head + textwrap.dedent(source))
    spec = importlib.util.spec_from_file_location(path.stem, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.mark.parametrize("density,reach", list(itertools.product(DENSITIES, REACH)))
def test_grad_through_a_hessian_called_in_code(density, reach, tmp_path):
    import srcad

    source = DENSITIES[density] + HAMILTONIAN + textwrap.dedent(REACH[reach])
    f = _module(source, tmp_path, "srcad").f
    g = srcad.grad(f)(POINT)
    np.testing.assert_allclose(g, numerical_grad(f, (POINT,)), rtol=1e-6, atol=1e-7)
    expected = autograd.grad(_module(source, tmp_path, "autograd").f)(POINT)
    np.testing.assert_allclose(g, expected, rtol=1e-9, atol=1e-11)
