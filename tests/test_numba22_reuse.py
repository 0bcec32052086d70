"""The Numba backend's item writes into dead fresh arrays (srcad/backend/numba_reuse.py):
``T = A.copy(); T[c] = e`` (and a tangent's ``copy_tangent``) written into ``A`` itself only
where the code proves nothing reads ``A`` again nor holds its buffer. The rewrite is checked
on small functions (each condition broken once: the copy stays), and forward mode through
item writes (jvp, and jacfwd's column passes) against the Python backend (1e-12) and central
differences; and srcad's ``add`` fused into expression loops (numba_fuse), bit for bit.

Imports ``srcad`` and ``srcad.backend`` (numba_backend, numba_reuse, numba_fuse,
numba_helpers).
"""

from __future__ import annotations

import ast
import textwrap

import numpy as np
import pytest

import srcad
from srcad.backend import numba_backend, numba_reuse

needs_numba = pytest.mark.skipif(not numba_backend.available(), reason="numba not installed")

HELPERS = {"scatter": "scatter", "copy_tangent": "copy_tangent"}


def _rewritten(source):
    fdef = ast.parse(textwrap.dedent(source)).body[0]
    numba_reuse.reuse(fdef, HELPERS, lambda h: ast.Name(id=f"numba_{h}", ctx=ast.Load()),
                      lambda ident: ident == "np")
    return ast.unparse(fdef)


REUSED = """
def f(x, v):
    a = scatter(v, x, 1)
    da = scatter(2.0 * v, x, 1)
    a_1 = a.copy()
    a_1[0] = a[0] + v
    da_1 = copy_tangent(da, a_1)
    da_1[0] = da[0] * 2.0
    a_2 = a_1.copy()
    a_2[1] = a_1[1] * v
    return a_2, da_1
"""


def test_pairs_rewritten():
    text = _rewritten(REUSED)
    assert "copy" not in text.replace("numba_reuse_tangent", "")
    assert "a_1 = a\n" in text and "a_2 = a_1\n" in text
    assert "da_1 = numba_reuse_tangent(da, a_1)" in text


KEPT = {
    "read after": """
def f(x, v):
    a = np.zeros(3)
    a_1 = a.copy()
    a_1[0] = v
    return a_1 + a
""",
    "a parameter": """
def f(a, v):
    a_1 = a.copy()
    a_1[0] = v
    return a_1
""",
    "not fresh": """
def f(x, v):
    a = x[1:]
    a_1 = a.copy()
    a_1[0] = v
    return a_1
""",
    "np.asarray": """
def f(x, v):
    a = np.asarray(x)
    a_1 = a.copy()
    a_1[0] = v
    return a_1
""",
    "a view kept before": """
def f(x, v):
    a = np.zeros(3)
    b = a[0:2]
    a_1 = a.copy()
    a_1[0] = v
    return a_1, b
""",
    "a slice written": """
def f(x, v):
    a = np.zeros(3)
    a_1 = a.copy()
    a_1[0:2] = a[1:3]
    return a_1
""",
    "a slice read": """
def f(x, v):
    a = np.zeros(3)
    a_1 = a.copy()
    a_1[0] = np.sum(a[1:3])
    return a_1
""",
    "made outside the loop": """
def f(x, v):
    a = np.zeros(3)
    for i in range(3):
        a_1 = a.copy()
        a_1[0] = v
    return a_1
""",
    "assigned twice": """
def f(x, v):
    a = np.zeros(3)
    if v > 0:
        a = np.ones(3)
    a_1 = a.copy()
    a_1[0] = v
    return a_1
""",
    "not written next": """
def f(x, v):
    a = np.zeros(3)
    a_1 = a.copy()
    w = a[0]
    a_1[0] = w
    return a_1
""",
}


@pytest.mark.parametrize("case", sorted(KEPT))
def test_copies_kept(case):
    assert ".copy()" in _rewritten(KEPT[case])


def _writes(x):
    y = np.zeros(3)
    y[0] = x[0] * x[1]
    y[1] = y[0] + np.sin(x[1])
    y[2] = y[1] * x[0]
    z = y * 2.0
    z[1] = z[0] - z[2]
    return z * x[1]


@needs_numba
def test_forward_mode_through_item_writes():
    x, t = np.array([0.7, -1.3]), np.array([0.4, 1.1])
    value, tangent = srcad.jvp(_writes, (x,), (t,), backend="numba")
    ref_value, ref_tangent = srcad.jvp(_writes, (x,), (t,))
    assert np.allclose(value, ref_value, rtol=1e-12, atol=1e-12)
    assert np.allclose(tangent, ref_tangent, rtol=1e-12, atol=1e-12)
    h = 1e-6
    assert np.allclose(tangent, (_writes(x + h * t) - _writes(x - h * t)) / (2 * h),
                       rtol=1e-6, atol=1e-8)
    jac = srcad.jacfwd(_writes, backend="numba")(x)
    assert np.allclose(jac, srcad.jacfwd(_writes)(x), rtol=1e-12, atol=1e-12)
    assert np.array_equal(x, [0.7, -1.3]) and np.array_equal(t, [0.4, 1.1])


@needs_numba
def test_add_fused_into_expressions():
    """srcad's ``add`` of two gradients is an operation of a fused expression (one loop, no
    array between the operations): the same numbers to the bit as ``add`` of NumPy's
    product, in the loop and in the fallback (a strided operand); a tuple still refused."""
    import numba

    from srcad.backend import numba_fuse, numba_helpers

    tree = ast.parse("d = add(dx, dxdot * h)").body[0]
    numba_fuse.expressions(tree, lambda h: ast.Name(id=f"numba_{h}", ctx=ast.Load()),
                           frozenset({"add"}))
    assert ast.unparse(tree) == "d = numba_fused_en_p_0_m_1_2(dx, dxdot, h)"
    fused = numba_helpers.helper("fused_en_p_0_m_1_2")
    negated = numba_helpers.helper("fused_en_p_n_0_m_1_2")

    @numba.njit
    def run(a, b, h):
        return fused(a, b, h), negated(1.5, b, h), fused(a[::2], b[::2], h)

    rng = np.random.default_rng(7)
    a, b = rng.normal(size=6), rng.normal(size=6)
    got = run(a, b, 0.1)
    for g, w in zip(got, (a + b * 0.1, -1.5 + b * 0.1, a[::2] + b[::2] * 0.1)):
        assert np.array_equal(g, w)

    @numba.njit
    def of_a_tuple(a, b):
        return fused(a, b, 2.0)

    with pytest.raises(numba.core.errors.TypingError):
        of_a_tuple((1.0, 2.0), b)
