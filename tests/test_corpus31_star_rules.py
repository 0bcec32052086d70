"""autograd-form rules for a primitive taking ``*args`` (corpus31).

Met in fancompute/legume (7 programs: every program imports its primitives):
``fsolve_ag = primitive(fsolve)`` with ``fsolve(f, lb, ub, *args)`` solving ``f(x, *args) = 0``
for ``x``, and ``defvjp(fsolve_ag, None, None, None, m0, m1, m2)``: makers by argument number,
the last three for items of ``*args``. Refused before (srcad's rules name their parameters).
autograd gives argument ``i`` the maker ``i``, whatever parameter takes it; srcad now names the
items (``args_0, args_1, ...``) and makes the rule for calls passing that many positional
arguments. A call with another number, or a differentiated item without a maker, is refused
(so is an item without a maker in a list spread whole, ``solve_ag(eq, lb, ub, *items)``, when
the list holds a differentiated value: srcad differentiates the list as a whole).
Found on the way: a function of the user's with a rule, given a function argument
(``fsolve_ag(eq, ...)``), was copied for that function and the copy's source read instead
of the rule; it is now called as written, by its rule.

The family: the number of items (1 to 3) x which items have makers x which are
differentiated, against central differences and autograd running the same text with its own
``primitive``/``defvjp``; refusals for the rest.
"""

from __future__ import annotations

import importlib.util
import itertools

import numpy as np
import pytest
from sampling import LONG, sample
from twin_checks import central

import srcad
from srcad.errors import RuleError, SrcadError

autograd = pytest.importorskip("autograd")

SOURCE = """
import numpy as np
from scipy.optimize import brentq
{IMPORTS}


def solve(f, lb, ub, *args):
    # the root of f(x, *args) in [lb, ub]: SciPy's code, which no engine reads
    return brentq(f, lb, ub, args=tuple(float(a) for a in args), xtol=1e-14, rtol=1e-14)


solve_ag = primitive(solve)


def factory(ginds):
    makers = [None, None, None]

    def single(ia):
        def vjp_maker(ans, *args):
            f, fargs = args[0], args[3:]
            dfdx = grad(f, 0)(ans, *fargs)
            dfdy = grad(f, ia + 1)(ans, *fargs)

            def vjp(g):
                return g * (-dfdy / dfdx)

            return vjp

        return vjp_maker

    for ia, gind in enumerate(ginds):
        makers.append(single(ia) if gind else None)
    return tuple(makers)


defvjp(solve_ag, *factory({GINDS}))


def eq(x, *items):
    total = x ** 3 + 2.0 * x
    for i, a in enumerate(items):
        total = total - (i + 1.0) * a * np.cos(0.3 * i * x)
    return total


def objective(p, fixed):
    items = []
    for i in range({N}):
        items.append(p[i] if {DIFF}[i] else fixed[i])
    r = solve_ag(eq, -10.0, 10.0, *items)
    return r ** 2 + np.sin(r)


def spelled(p, fixed):
    return solve_ag(eq, -10.0, 10.0, {SPELLED}) * 1.5
"""

IMPORTS = {"srcad": "from srcad.extend import primitive, defvjp\nfrom srcad import grad",
           "autograd": "from autograd.extend import primitive, defvjp\nfrom autograd import grad"}


def _module(engine, n, ginds, diff, tmp_path):
    spelled = ", ".join(f"p[{i}]" if diff[i] else f"fixed[{i}]" for i in range(n))
    text = SOURCE.replace("{IMPORTS}", IMPORTS[engine]).replace("{GINDS}", repr(list(ginds)))
    text = text.replace("{N}", str(n)).replace("{DIFF}", repr(list(diff)))
    text = text.replace("{SPELLED}", spelled)
    path = tmp_path / f"star_rules31_{engine}_{abs(hash(text))}.py"
    path.write_text(text)
    spec = importlib.util.spec_from_file_location(path.stem, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _cases():
    for n in (1, 2, 3):
        for ginds in itertools.product((False, True), repeat=n):
            for diff in itertools.product((False, True), repeat=n):
                if any(diff):
                    yield n, ginds, diff


CASES = list(_cases())
#: the differentiated items all have makers (computed), or some has none (refused)
COMPUTED = [c for c in CASES if all(g for g, d in zip(c[1], c[2]) if d)]
REFUSED = [c for c in CASES if c not in COMPUTED]
P = np.array([0.7, -0.4, 1.1])
FIXED = np.array([0.5, 0.9, -0.3])


@pytest.mark.parametrize("n,ginds,diff", sample(COMPUTED, 1 if LONG else 2)
                         + sample(REFUSED, 1 if LONG else 8))
def test_a_rule_for_the_items_of_args(n, ginds, diff, tmp_path):
    m = _module("srcad", n, ginds, diff, tmp_path)
    if not all(g for g, d in zip(ginds, diff) if d):  # a differentiated item without a maker
        with pytest.raises(SrcadError, match="no derivative of solve_ag"):
            srcad.grad(m.spelled)(P, FIXED)
        return
    a = _module("autograd", n, ginds, diff, tmp_path)
    names = ["spelled"]
    if all(ginds):
        names.append("objective")
    else:  # *items of a list built in a loop: differentiated as a whole, each item
        # differentiated there (autograd, tracing, sees which items carry a gradient)
        with pytest.raises(SrcadError, match="no derivative of") as info:
            srcad.grad(m.objective)(P, FIXED)
        assert info.value.filename == m.__file__  # the call's line, not srcad's form
    for name in names:
        got = srcad.grad(getattr(m, name))(P, FIXED)
        np.testing.assert_allclose(got, central(getattr(m, name), (P, FIXED), 0, h=1e-6),
                                   rtol=1e-6, atol=1e-8)
        np.testing.assert_allclose(got, autograd.grad(getattr(a, name))(P, FIXED),
                                   rtol=1e-10, atol=1e-12)


def test_another_number_of_items_is_refused(tmp_path):
    m = _module("srcad", 2, (True, True), (True, True), tmp_path)

    def three(p):
        return m.solve_ag(m.eq, -10.0, 10.0, p[0], p[1], 0.5)

    def one(p):
        return m.solve_ag(m.eq, -10.0, 10.0, p[0])

    for f in (three, one):
        with pytest.raises(SrcadError, match="call form of (m\\.)?solve_ag"):
            srcad.grad(f)(P)


def test_keywords_beside_args_are_refused():
    def solve(f, *args, scale=1.0):
        return scale * f(*args)

    with pytest.raises(RuleError, match="keyword-only parameters beside"):
        srcad.extend.defvjp(solve, None, lambda ans, *args, **kw: lambda g: g)


NAMED = """
import numpy as np
from scipy.optimize import brentq
from srcad.extend import defvjp
from srcad import grad


def solve3(f, lb, ub, a, b):
    return brentq(f, lb, ub, args=(a, b), xtol=1e-14, rtol=1e-14)


def maker(ans, f, lb, ub, a, b):
    return lambda g: g * (-grad(f, 2)(ans, a, b) / grad(f, 0)(ans, a, b))


defvjp(solve3, None, None, None, None, maker)


def eq(x, a, b):
    return x ** 3 + a * x - b


def objective(p):
    return solve3(eq, -10.0, 10.0, 2.0, p[0]) ** 2
"""


def test_a_rule_for_a_function_given_a_function(tmp_path):
    """The rule of a function of the user's given a function argument is used (the body,
    SciPy's, was read before, and refused)."""
    path = tmp_path / "star_rules31_named.py"
    path.write_text(NAMED)
    spec = importlib.util.spec_from_file_location(path.stem, path)
    m = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(m)
    p = np.array([1.3])
    np.testing.assert_allclose(srcad.grad(m.objective)(p), central(m.objective, (p,), 0),
                               rtol=1e-6)
