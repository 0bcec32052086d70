"""Special functions the gradients of ``math``'s functions need, without SciPy, and the power
of Python numbers their derivatives take (``power_of``).

``polygamma_real(n, x)`` is the ``n``-th derivative of the digamma function at a real ``x``
(``n = 0``: digamma itself, the derivative of ``math.lgamma``): the recurrence
``psi_n(x) = psi_n(x + 1) - (-1)**n n! / x**(n + 1)`` carries ``x`` up to at least ``10 + n``,
where the asymptotic series (Bernoulli numbers ``B_2`` ... ``B_20``) is accurate to a few units
in the last place. At ``0, -1, -2, ...`` (poles, where ``math.lgamma`` raises) it is ``nan``.

Imports only :mod:`.registry` and :mod:`.arrays`.
"""

from __future__ import annotations

import math

import numpy as np

from . import arrays
from .registry import helper

#: B_2, B_4, ..., B_20
_BERNOULLI = (1 / 6, -1 / 30, 1 / 42, -1 / 30, 5 / 66, -691 / 2730, 7 / 6, -3617 / 510,
              43867 / 798, -174611 / 330)


def _polygamma(n, x):
    if x <= 0 and x == math.floor(x):
        return math.nan
    sign_n = -1.0 if n % 2 else 1.0
    fact_n = math.factorial(n)
    shifted = 0.0
    while x < 10 + n:
        shifted -= sign_n * fact_n / x ** (n + 1)
        x += 1.0
    if n == 0:
        total = math.log(x) - 0.5 / x
        for k, b in enumerate(_BERNOULLI, 1):
            total -= b / (2 * k * x ** (2 * k))
        return shifted + total
    total = math.factorial(n - 1) / x ** n + fact_n / (2 * x ** (n + 1))
    for k, b in enumerate(_BERNOULLI, 1):
        total += b * math.factorial(2 * k + n - 1) / (math.factorial(2 * k) * x ** (2 * k + n))
    return shifted - sign_n * total  # (-1) ** (n + 1) times the series


@helper("runtime")
def polygamma_real(n, x):
    """The ``n``-th derivative of digamma at the real number ``x`` (``n = 0``: digamma, the
    gradient of ``math.lgamma``; ``math.gamma``'s is ``gamma(x) * polygamma_real(0, x)``). A
    NumPy array: element by element. Another array library's (Dask: it would be computed) is
    refused: ``math.lgamma`` takes numbers."""
    if isinstance(x, np.ndarray):
        return np.vectorize(lambda v: _polygamma(int(n), float(v)), otypes=[float])(x)
    if arrays.is_duck(x):
        raise TypeError("srcad's digamma (the derivative of math.lgamma and math.gamma) "
                        "takes a number, as math.lgamma does")
    return _polygamma(int(n), float(x))


@helper("runtime")
def power_of(a, b, below=-1.0):
    """``a ** b`` of Python numbers in a derivative of ``a ** (b + 1)`` (``x ** 0.5``'s is
    ``0.5 * power_of(x, -0.5)``): Python's value, a complex number for a negative base to a
    fraction as Python gives (``check_real`` refuses it for a real argument), and Python's
    ``ZeroDivisionError`` for 0 to a power below ``below``, where the function differentiated
    raised it too (``0.0 ** -1.5``; ``below`` is one less in each further derivative); but inf
    where only the derivative's power would raise (``0.0 ** -0.5``, an overflow), as NumPy."""
    try:
        return a ** b
    except ZeroDivisionError:
        if b < below:  # 0 to a negative power: the function differentiated raised this too
            raise
    except OverflowError:
        pass
    with np.errstate(all="ignore"):
        return np.power(np.float64(a), b)


power_of.__srcad_python_numbers__ = True  # its rule keeps Python's semantics (rules.registry)
