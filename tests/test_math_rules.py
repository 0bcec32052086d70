"""math functions with rules added in the third session that the corpus cannot check against
PyTorch (no IEEE remainder there): reverse and forward mode against finite differences."""

import math

import pytest
from srcad.check import numerical_grad

import srcad


def remainder_ldexp_fsum(x, y):
    return math.remainder(3.0 * x, y) + math.ldexp(x * y, 3) + math.fsum([x, x * y, y * y])


@pytest.mark.parametrize("args", [(1.3, 0.7), (-2.2, 0.45), (0.4, -1.1)])
def test_reverse_and_forward_mode_match_finite_differences(args):
    expected = numerical_grad(remainder_ldexp_fsum, args, (0, 1))
    assert srcad.grad(remainder_ldexp_fsum, wrt=(0, 1))(*args) == pytest.approx(expected,
                                                                                rel=1e-7)
    for i, tangent in enumerate([(1.0, 0.0), (0.0, 1.0)]):
        value, t = srcad.jvp(remainder_ldexp_fsum, args, tangent)
        assert value == remainder_ldexp_fsum(*args)
        assert t == pytest.approx(expected[i], rel=1e-7)
