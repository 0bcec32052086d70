"""The reference tape's ``np.expand_dims`` and ``np.squeeze`` (round 11).

Found in linear response variational Bayes' tests (rgiordan/LinearResponseVariationalBayes.py,
``test_exponential_families``): its ``check_grads`` is srcad's checker, whose second engine
(``srcad.tape``) had no rule for ``np.expand_dims`` and stopped the program after srcad's
gradient had agreed with finite differences. Both are reshapes: the gradient is the result's
reshaped back. The family: axes x functions, through the tape and srcad, against central
finite differences and autograd.
"""

from __future__ import annotations

import numpy as np
import pytest
from srcad.check import check_grads, numerical_grad

import srcad
from srcad import tape

autograd = pytest.importorskip("autograd")
anp = autograd.numpy

X = np.array([[0.5, -1.0, 2.0], [0.25, 1.5, -0.75]])
W = np.arange(1.0, 13.0).reshape(2, 3, 2)


def _cases(m):
    return {
        "expand_last": lambda x: m.sum(m.expand_dims(x, -1) * W ** 2),
        "expand_first": lambda x: m.sum(m.tanh(m.expand_dims(x, 0)) * 1.5),
        "expand_middle": lambda x: m.sum(m.expand_dims(x, 1) ** 3),
        "squeeze_all": lambda x: m.sum(m.squeeze(x[None, :, :, None]) * X),
        "squeeze_axis": lambda x: m.sum(m.sin(m.squeeze(x[:, None, :], axis=1))),
    }


@pytest.mark.parametrize("name", list(_cases(np)))
def test_shape_functions_on_the_tape(name):
    f, af = _cases(np)[name], _cases(anp)[name]
    expected = autograd.grad(af)(X)
    np.testing.assert_allclose(tape.grad(f)(X), expected, rtol=1e-12)
    np.testing.assert_allclose(tape.grad(f)(X), numerical_grad(f, (X,)), rtol=1e-6, atol=1e-8)
    np.testing.assert_allclose(srcad.grad(f)(X), expected, rtol=1e-12)
    check_grads(f, X)  # srcad's checker: finite differences, then the tape
