"""The Numba form of srcad's digamma family (``polygamma_real``, the gradient of
``math.lgamma`` and ``math.gamma``; :mod:`srcad.runtime.special` is its Python form): the
same steps in the same order, compiled for a number.

Imports ``numba`` (only :mod:`.numba_helpers` imports this module, when the backend compiles).
"""

from __future__ import annotations

import math

from numba import types
from numba.core.errors import TypingError
from numba.extending import overload


def polygamma_real(n, x):
    """Stub: srcad's digamma family of a number (math.lgamma's and math.gamma's gradient)."""
    raise NotImplementedError


#: B_2, B_4, ..., B_20 (as srcad.runtime.special's)
_BERNOULLI = (1 / 6, -1 / 30, 1 / 42, -1 / 30, 5 / 66, -691 / 2730, 7 / 6, -3617 / 510,
              43867 / 798, -174611 / 330)


@overload(polygamma_real)
def _polygamma_real(n, x):
    """srcad.runtime.special._polygamma's steps in the same order (the same rounding)."""
    if not (isinstance(n, types.Integer) and isinstance(x, (types.Float, types.Integer))):
        raise TypingError(f"srcad's numba backend takes digamma's family of a number, not {x}")
    import numba

    bern = _BERNOULLI

    @numba.njit
    def factorial(k):
        out = 1.0
        for i in range(2, k + 1):
            out *= i
        return out

    def number(n, x):
        x = float(x)
        if x <= 0 and x == math.floor(x):
            return math.nan
        sign_n = -1.0 if n % 2 else 1.0
        fact_n = factorial(n)
        shifted = 0.0
        while x < 10 + n:
            shifted -= sign_n * fact_n / x ** (n + 1)
            x += 1.0
        if n == 0:
            total = math.log(x) - 0.5 / x
            for k in range(1, len(bern) + 1):
                total -= bern[k - 1] / (2 * k * x ** (2 * k))
            return shifted + total
        total = factorial(n - 1) / x ** n + fact_n / (2 * x ** (n + 1))
        for k in range(1, len(bern) + 1):
            total += bern[k - 1] * factorial(2 * k + n - 1) / (factorial(2 * k) * x ** (
                2 * k + n))
        return shifted - sign_n * total
    return number
