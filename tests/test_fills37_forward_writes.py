"""Forward mode's element fills (session 37): ``out[k] = v`` in a loop was written ``out_2 =
out_1.copy(); out_2[k] = v; dout_2 = copy_tangent(dout_1, out_2); dout_2[k] = dv`` at every
step (O(n²) copying in ``jvp``, ``jacfwd`` and the forward pass of ``hessian``/``hvp``).
Where the array is this function's own and nothing reads the old one afterwards, the value
is written in place (``srcad.transform.owned_writes.forward_in_place``); its tangent too
where the code made that tangent new (a zero, a copy's, ``a + b``'s) and no value whose
tangent may be it (``b = a + 1.0``: ``db`` is ``da``) is read afterwards.

Each program's ``jvp`` against central differences along the tangent and PyTorch's
(``torch.autograd.functional.jvp`` of the same source on tensors, each write made on a copy),
the caller's arrays and tangents checked unchanged, and the generated text checked for the
copies kept or gone; the Hessians against PyTorch's and central differences of the
gradient."""

import ast
import textwrap

import numpy as np
import pytest
import torch

import srcad
from srcad.api import jvp_source
from srcad.backend import numba_update
from tests.sampling import LONG
from tests.test_fills36_owned_writes import (
    CALLEE,
    EARLY_RETURN,
    FILL,
    GRID,
    LISTED,
    RECURRENCE,
    _torch_text,
)
from tests.test_fills36_owned_writes import (
    ROWS_FILLED as ROWS,
)
from tests.test_fills36_owned_writes import (
    SAVED_PER_STEP as READ_BEFORE,
)
from tests.twin_checks import central

# the value's memory new, its tangent the caller's (``out = x + 1.0``: ``dout = dx``)
SHIFTED = """
def f(x, w):
    n = x.shape[0]
    out = x + 1.0
    for k in range(n):
        out[k] = out[k] * w[k]
    return np.sum(out * out)
"""
# a value not sharing the array's memory whose tangent is the array's (``b = a + 1.0``) read
# after the writes: the tangent copied, the value written in place
TANGENT_SHARED = """
def f(x, w):
    n = x.shape[0]
    a = x * w
    b = a + 1.0
    for k in range(n):
        a[k] = np.sin(x[k])
    return np.sum(a * b)
"""
# the old array read after the write in the same step: both copied
READ_AFTER = """
def f(x, w):
    n = x.shape[0]
    out = np.zeros(n) + w
    s = 0.0
    for k in range(n):
        old = out
        out[k] = x[k] * w[k]
        s = s + np.sum(old * w)
    return s + np.sum(out)
"""
# READ_BEFORE (fills36's SAVED_PER_STEP): an array read before its write in each step (forward
# mode keeps nothing: in place; its tangent dw, np.zeros(n) + w's, the caller's: copied)
# a copy's tangent (``dout = dx.copy()``) written in place; x and dx the caller's, unchanged
COPIED = """
def f(x, w):
    n = x.shape[0]
    out = x.copy()
    for k in range(1, n):
        out[k] = out[k - 1] * w[k] + x[k]
    return np.sum(out * w)
"""
#: program -> (whether the value is written in place, whether its tangent is; None: refused
#: or either way; the derivatives are checked whatever it is)
PROGRAMS = {"fill": (FILL, True, True), "recurrence": (RECURRENCE, True, True),
            "grid": (GRID, True, True), "shifted": (SHIFTED, True, False),
            "tangent_shared": (TANGENT_SHARED, True, False),
            "read_after": (READ_AFTER, None, None), "read_before": (READ_BEFORE, True, False),
            "copied": (COPIED, True, True), "early_return": (EARLY_RETURN, None, None),
            "callee": (CALLEE, None, None), "listed": (LISTED, None, None)}
SIZES = [3, 6] if LONG else [4]
CASES = [(p, n) for p in PROGRAMS for n in SIZES]
#: the Hessian's forward pass over grad's code (the fills the backward sweep makes too)
HESSIANS = ["fill", "tangent_shared"] + (
    ["recurrence", "shifted", "copied", "grid", "read_before"] if LONG else [])


def _programs(load_module, program):
    text = PROGRAMS[program][0]
    f = load_module(f"fwd_fills_{program}", "import numpy as np\n" + text).f
    twin = load_module(f"fwd_fills_twin_{program}", "import torch\n" + _torch_text(
        text.replace("x.copy()", "x.clone()"))).f
    return f, twin


def _body(source):
    """The generated text after its first loop starts (the steps' copies)."""
    return source[source.index("for "):]


@pytest.mark.parametrize("program, n", CASES)
def test_jvp_writes_in_place_only_where_nothing_reads_the_old_array(load_module, program, n):
    _, value_in_place, tangent_in_place = PROGRAMS[program]
    f, twin = _programs(load_module, program)
    rng = np.random.default_rng(n)
    x, w, dx, dw = (rng.uniform(0.2, 0.9, n) for _ in range(4))
    kept = [a.copy() for a in (x, w, dx, dw)]
    try:
        value, tangent = srcad.jvp(f, (x, w), (dx, dw))
    except srcad.SrcadError:
        assert value_in_place is None, f"{program}: refused"
        return
    for a, b in zip((x, w, dx, dw), kept):  # the caller's arrays as they were
        np.testing.assert_array_equal(a, b)
    h = 1e-6
    want = (f(x + h * dx, w + h * dw) - f(x - h * dx, w - h * dw)) / (2 * h)
    np.testing.assert_allclose(tangent, want, rtol=1e-6, atol=1e-7)
    got = torch.autograd.functional.jvp(twin, tuple(map(torch.tensor, (x, w))),
                                        tuple(map(torch.tensor, (dx, dw))))
    np.testing.assert_allclose(value, got[0].numpy(), rtol=1e-12)
    np.testing.assert_allclose(tangent, got[1].numpy(), rtol=1e-10, atol=1e-12)
    source = _body(jvp_source(f, x, w))
    if value_in_place is not None:
        assert (".copy()" not in source) == value_in_place, source
        assert ("copy_tangent(" not in source) == tangent_in_place, source


@pytest.mark.parametrize("program", HESSIANS)
def test_hessian_of_fills(load_module, program):
    f, twin = _programs(load_module, program)
    n = 4
    rng = np.random.default_rng(7)
    x, w = rng.uniform(0.2, 0.9, n), rng.uniform(0.2, 0.9, n)
    kept = x.copy(), w.copy()
    hess = srcad.hessian(f, wrt=0)(x, w)
    np.testing.assert_array_equal(x, kept[0])
    np.testing.assert_array_equal(w, kept[1])
    want = torch.autograd.functional.hessian(lambda t: twin(t, torch.tensor(w)),
                                             torch.tensor(x)).numpy()
    np.testing.assert_allclose(hess, want, rtol=1e-9, atol=1e-11)
    grad = srcad.grad(f, wrt=0)
    g = lambda x_: grad(x_, w)  # noqa: E731
    columns = [(g(x + 1e-6 * e) - g(x - 1e-6 * e)) / 2e-6 for e in np.eye(n)]
    np.testing.assert_allclose(hess, np.array(columns).T, rtol=1e-5, atol=1e-6)
    v = rng.uniform(-1.0, 1.0, n)
    np.testing.assert_allclose(srcad.hvp(lambda x_: f(x_, w), x, v), want @ v, rtol=1e-9,
                               atol=1e-11)


COLUMNS = """
def f(x, w):
    n = x.shape[0]
    out = np.zeros((n, n))
    for k in range(n):
        out[:, k] = np.sin(x * w[k])
    return np.sum(out * np.cos(out))
"""
# a part read again (the value's gradient a view of the written part: copied before zeroing)
PARTS = """
def f(x, w):
    n = x.shape[0]
    out = np.zeros(n)
    for k in range(1, n):
        out[:k] = out[:k] * w[k] + x[:k]
    return np.sum(out * out)
"""
#: slice writes: (program, whether the backward sweep zeroes the part in place)
SLICES = {"rows": (ROWS, True), "columns": (COLUMNS, True), "parts": (PARTS, True)}


@pytest.mark.parametrize("program", sorted(SLICES))
def test_slice_writes_zero_the_gradient_in_place(load_module, program):
    text, in_place = SLICES[program]
    f = load_module(f"slice_fills_{program}", "import numpy as np\n" + text).f
    twin = load_module(f"slice_fills_twin_{program}", "import torch\n" + _torch_text(text)).f
    rng = np.random.default_rng(3)
    x, w = rng.uniform(0.2, 0.9, 4), rng.uniform(0.2, 0.9, 4)
    df = srcad.grad(f, wrt=(0, 1))
    gx, gw = df(x, w)
    np.testing.assert_allclose(gx, central(f, (x, w), 0), rtol=1e-6, atol=1e-7)
    np.testing.assert_allclose(gw, central(f, (x, w), 1), rtol=1e-6, atol=1e-7)
    xs, ws = (torch.tensor(v, requires_grad=True) for v in (x, w))
    twin(xs, ws).backward()
    np.testing.assert_allclose(gx, xs.grad.numpy(), rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(gw, ws.grad.numpy(), rtol=1e-10, atol=1e-12)
    assert ("cleared(" not in srcad.source(df)) == in_place, srcad.source(df)


def test_a_callers_cotangent_is_not_zeroed(load_module):
    """vjp of the array itself: its gradient is the caller's cotangent, copied (``cleared``)
    where the written part's gradient is zeroed, never changed."""
    f = load_module("slice_fills_returned", "import numpy as np\n" + ROWS.replace(
        "return np.sum(out * out)", "return out")).f
    x, w = np.linspace(0.2, 0.9, 3), np.linspace(0.3, 0.6, 3)
    value, pullback = srcad.vjp(f, x, w, wrt=(0, 1))
    cot = np.arange(9.0).reshape(3, 3)
    gx, gw = pullback(cot)
    np.testing.assert_array_equal(cot, np.arange(9.0).reshape(3, 3))
    np.testing.assert_allclose(gx, np.sum(cot * w, axis=1), rtol=1e-12)
    np.testing.assert_allclose(gw, x @ cot, rtol=1e-12)


CAST_HELPERS = {"add": "add", "kept_dtype_1": "kept_dtype"}


def _owned(source):
    fdef = ast.parse(textwrap.dedent(source)).body[0]
    return fdef, numba_update.owned(fdef, CAST_HELPERS, lambda ident: ident == "np")


@pytest.mark.parametrize("update, owned", [
    ("y = kept_dtype_1(y + x * t, y, '+')", True),  # y += x * t with its cast
    ("y = kept_dtype_1(y, y, '+')", False),  # the cast's value y itself: a second name
    ("y = kept_dtype_1(y + x * t, z, '+')", True),  # (z's dtype: y still owned, no rewrite)
])
def test_numba_writes_a_cast_update_into_its_array(update, owned):
    """augment36's ``y op= v`` carries ``kept_dtype``: under Numba ``y = kept_dtype(y + E, y,
    '+')`` is ``kept_dtype(numba_fused_wn_...(y, ...), y, '+')`` where ``y`` is owned (the
    cast reads the old ``y`` for its dtype alone), as ``y = y + E`` is."""
    fdef, found = _owned(f"""
    def f(x, w, n):
        y = x * 2.0
        z = x * 3.0
        for k in range(n):
            t = w[k]
            {update}
        return np.sum(y * y) + np.sum(z)
    """)
    assert ("y" in found) == owned, found
    loop = fdef.body[2]
    stmt = numba_update.in_place(loop.body[1], found, CAST_HELPERS,
                                 lambda h: ast.Name(id=f"numba_{h}", ctx=ast.Load()))
    text = ast.unparse(stmt)
    rewritten = owned and "z, '+'" not in update
    assert ("numba_fused_wn" in text) == rewritten, text
    if rewritten:
        assert text == "y = kept_dtype_1(numba_fused_wn_a_0_m_1_2(y, x, t), y, '+')", text


@pytest.mark.skipif(not LONG, reason="imports Numba (5 s): the long run")
def test_numba_code_of_a_users_update_writes_in_place(load_module):
    f = load_module("fills37_numba_update", "import numpy as np\n" + """
def f(x, w):
    y = x * 2.0
    for k in range(w.shape[0]):
        y += x * w[k]
    return np.sum(y * y)
""").f
    x, w = np.linspace(0.2, 0.9, 5), np.linspace(0.1, 0.3, 3)
    g = srcad.grad(f, wrt=0, backend="numba")
    assert "fused_wn" in srcad.source(g, x, w)
    np.testing.assert_allclose(g(x, w), srcad.grad(f, wrt=0)(x, w), rtol=1e-12)
    np.testing.assert_allclose(g(x.astype(np.float32), w), srcad.grad(f, wrt=0)(
        x.astype(np.float32), w), rtol=1e-6)
