"""The finite-difference reference of the property tests, honest on steep and oscillatory
programs as well as on gentle ones.

Central differences at one fixed step are wrong by ``h**2 * f'''/6``: for a random program
such as ``cos((1 + v**2) ** 2)`` at ``v = 10`` (a phase of about 10^4 that turns a full circle
when ``x`` moves by 5e-4) no fixed step is both small enough for that and large enough for
rounding, and the old harness reported a "mismatch" or a "kink nearby" where srcad was exact
(srcad 1.44528329547733, the exact derivative by mpmath 1.445283295477, central differences
at 1e-5 1.44477).

So each derivative is estimated by Ridders' method: differences at the steps ``h, h/1.4,
h/1.4**2, ...`` extrapolated to step 0 in a Neville table (``h**2`` at a time for central
differences, ``h`` at a time for one-sided ones), which also gives an estimate of its own
error. It is run from several starting steps (the program's local scale decides which does
best) and the estimate with the smallest error estimate is kept. A reference is *used* only
where its error estimate is far below the tolerance it is compared at; else the point is
not judged (the comparison is never loosened to fit a rough reference).

Kinks: the derivatives from the left and from the right are estimated the same way, one-
sided; where they and the central one agree the function is smooth there, else srcad must
give the derivative of one side.
"""

from __future__ import annotations

import math
from typing import NamedTuple

#: the starting steps tried (the steps go down from each by factors of 1.4)
STARTS = (1e-4, 1e-5, 1e-6)
CON = 1.4
NTAB = 10
#: Ridders' stop: the diagonal grew this much beyond the best error estimate
SAFE = 2.0
#: a reference is used only where its error estimate is below this share of the tolerance
USABLE = 0.1


class Reference(NamedTuple):
    """Derivative estimates at a point and their error estimates."""

    central: float
    central_err: float
    left: float
    left_err: float
    right: float
    right_err: float


def ridders(phi, h, side=0):
    """``(estimate of phi'(0), error estimate)`` by Ridders' extrapolation from step ``h``:
    central differences (``side`` 0), or one-sided from the right (1) or the left (-1)."""
    con2 = CON * CON if side == 0 else CON

    def diff(step):
        if side == 0:
            return (phi(step) - phi(-step)) / (2 * step)
        return (phi(side * step) - phi(0.0)) / (side * step)

    table = [[diff(h)]]
    best, err = table[0][0], math.inf
    for i in range(1, NTAB):
        h /= CON
        row = [diff(h)]
        fac = con2
        for j in range(1, i + 1):
            row.append((row[j - 1] * fac - table[i - 1][j - 1]) / (fac - 1))
            fac *= con2
            errt = max(abs(row[j] - row[j - 1]), abs(row[j] - table[i - 1][j - 1]))
            if errt <= err:
                err, best = errt, row[j]
        table.append(row)
        if abs(row[i] - table[i - 1][i - 1]) >= SAFE * err:
            break
    return best, err


def best_estimate(phi, side=0):
    """The estimate with the smallest error estimate over the starting steps :data:`STARTS`."""
    found = (math.nan, math.inf)
    for h in STARTS:
        estimate, err = ridders(phi, h, side)
        if math.isfinite(estimate) and err < found[1]:
            found = (estimate, err)
        if found[1] <= 1e-12 * (1.0 + abs(found[0])):
            break
    return found


def reference(phi):
    """The :class:`Reference` of ``phi'(0)``, or None where ``phi`` fails or is not finite
    nearby."""
    try:
        central = best_estimate(phi, 0)
        left = best_estimate(phi, -1)
        right = best_estimate(phi, 1)
    except (ArithmeticError, ValueError):
        return None
    if not all(math.isfinite(e) for e, _ in (central, left, right)):
        return None
    return Reference(*central, *left, *right)


def close(a, b, rtol, scale):
    return abs(a - b) <= rtol * (1.0 + abs(b) + scale)


def usable(estimate, err, rtol, scale):
    """Whether an estimate is precise enough to judge a value at tolerance ``rtol``."""
    return err <= USABLE * rtol * (1.0 + abs(estimate) + scale)


def smooth(ref, rtol, scale):
    """Whether the left, right and central derivatives agree (no kink or jump nearby)."""
    return all(close(e, ref.central, rtol, scale) for e in (ref.left, ref.right))


def judge(value, ref, scale, rtol=1e-5, kink_rtol=1e-4):
    """``(problem, judged)`` for a derivative ``value`` against ``ref``: where the function is
    smooth, ``value`` must equal the central derivative to ``rtol``; at a kink, the derivative
    from the left or from the right to ``kink_rtol``. ``judged`` is False where the reference
    is too rough to tell (then ``problem`` is None)."""
    if smooth(ref, rtol, scale):
        if not usable(ref.central, ref.central_err, rtol, scale):
            return None, False
        if close(value, ref.central, rtol, scale):
            return None, True
        return f"finite differences {ref.central!r} (error estimate {ref.central_err:.1e})", True
    sides = [(ref.left, ref.left_err), (ref.right, ref.right_err)]
    if any(close(value, e, kink_rtol, scale) and usable(e, err, kink_rtol, scale)
           for e, err in sides):
        return None, True
    if not all(usable(e, err, kink_rtol, scale) for e, err in sides):
        return None, False
    return (f"neither the left ({ref.left!r}) nor the right ({ref.right!r}) derivative "
            "(kink nearby)"), True
