"""``np.add.at`` into a view of a local array: ``np.add.at(acc[:, 0], ci, ax)``.

Found by corpus32 (tools/numpy_programs.py): a spring network's accelerations
(pmocz/springnetwork-python's ``getAcc``) accumulate each spring's force into the columns of
``acc = np.zeros(pos.shape)`` by ``np.add.at(acc[:, 0], ci, ax)``, which srcad refused
("np.add.at writes into something other than a local array"). A view by slices, integer
literals and ``...`` is ``acc``'s region, so the call is now ``acc[:, 0] = add_at(acc[:, 0],
ci, ax)``: a write into ``acc`` that the alias analysis checks like any other. The family:
row, column, stepped, strided, trailing-axis and 2-D views, indices that repeat, a value read
before the write, two writes into one view; gradients and jvps against central differences
and PyTorch (``index_add_`` into the same view). An index that may be an array (a copy, into
which NumPy adds without changing ``acc``) stays refused; a view of the caller's array is
differentiated since session 36 (srcad.written_state: the caller's array changed as the plain
run changes it).

Imports importlib, itertools, zlib, numpy, pytest, srcad, torch (skipped without it),
tests/sampling, tests/twin_checks.
"""

from __future__ import annotations

import importlib.util
import itertools
import zlib

import numpy as np
import pytest
from sampling import sample_by
from twin_checks import central

import srcad

torch = pytest.importorskip("torch")

SOURCE = """
import numpy as np


def f(pos, x, W):
    acc = pos * 2.0
    before = {READ}
    np.add.at(acc{VIEW}, I, x * x)
    {SECOND}
    return np.sum(acc * W) + before
"""
#: (base shape, the view's index as written)
VIEWS = [((5, 2), "[:, 0]"), ((5, 2), "[:, 1]"), ((4, 3), "[1, :]"), ((6,), "[1:5]"),
         ((6,), "[::2]"), ((3, 4, 2), "[..., 1]"), ((4, 5), "[1:, 2]"), ((5, 3), "[2:, :]")]
READS = {"none": "0.0", "read": "np.sum(np.sin(acc))"}
SECONDS = {"once": "", "twice": "np.add.at(acc{VIEW}, I[::-1], np.sin(x))"}
CASES = sample_by(list(itertools.product(VIEWS, READS, SECONDS)), key=lambda c: c[0],
                  every=4)


def _module(tmp_path, view, read, second, index):
    text = SOURCE.replace("{READ}", READS[read]).replace(
        "{SECOND}", SECONDS[second]).replace("{VIEW}", view)
    tag = zlib.crc32(text.encode())
    path = tmp_path / f"add_at32_{tag}.py"
    path.write_text(text)
    spec = importlib.util.spec_from_file_location(path.stem, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    module.I = index
    return module


def _torch_grads(view, read, second, pos, x, W, index):
    """PyTorch's gradients of the same computation, written with its in-place index_add_."""
    tp = torch.tensor(pos, requires_grad=True, dtype=torch.float64)
    tx = torch.tensor(x, requires_grad=True, dtype=torch.float64)
    at = eval(f"lambda a: a{view}")  # noqa: S307 - the view's index, as the source writes it
    acc = tp * 2.0
    before = torch.sum(torch.sin(acc.clone())) if read == "read" else 0.0  # (torch saves acc)
    at(acc).index_add_(0, torch.tensor(index), tx * tx)
    if second == "twice":
        at(acc).index_add_(0, torch.tensor(index[::-1].copy()), torch.sin(tx))
    (torch.sum(acc * torch.tensor(W)) + before).backward()
    return tp.grad.numpy(), tx.grad.numpy()


@pytest.mark.parametrize("case", CASES, ids=lambda c: f"{c[0][1]}-{c[1]}-{c[2]}")
def test_add_at_into_a_view(case, tmp_path):
    (shape, view), read, second = case
    rs = np.random.RandomState(zlib.crc32(repr(case).encode()))
    pos = rs.randn(*shape)
    region = eval(f"pos{view}")  # noqa: S307
    index = rs.randint(0, region.shape[0], size=6)
    index[1] = index[0]  # a repeat: add.at accumulates it
    x = rs.randn(6, *region.shape[1:])
    W = rs.randn(*shape)
    kept = pos.copy()
    m = _module(tmp_path, view, read, second, index)
    gp, gx = srcad.grad(m.f, wrt=(0, 1))(pos, x, W)
    np.testing.assert_allclose(gp, central(m.f, (pos, x, W), 0), rtol=1e-6, atol=1e-8)
    np.testing.assert_allclose(gx, central(m.f, (pos, x, W), 1), rtol=1e-6, atol=1e-8)
    tp, tx = _torch_grads(view, read, second, pos, x, W, index)
    np.testing.assert_allclose(gp, tp, rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(gx, tx, rtol=1e-10, atol=1e-12)
    vp, vx = np.cos(np.arange(pos.size)).reshape(shape), np.sin(np.arange(x.size)).reshape(
        x.shape)
    value, tangent = srcad.jvp(m.f, (pos, x, W), (vp, vx), wrt=(0, 1))
    assert value == pytest.approx(m.f(pos, x, W), rel=1e-12)
    assert tangent == pytest.approx(float(np.sum(gp * vp) + np.sum(gx * vx)), rel=1e-9,
                                    abs=1e-12)
    np.testing.assert_array_equal(pos, kept)  # (the caller's array untouched)


REFUSED = {
    # k may be an array: acc[:, k] is then a copy, which np.add.at changes, not acc
    "an index that may be an array": "def f(pos, x, k):\n    acc = pos * 2.0\n"
    "    np.add.at(acc[:, k], I, x)\n    return np.sum(acc)\n",
}

CALLERS = "def f(pos, x, k):\n    np.add.at(pos[:, 0], I, x)\n    return np.sum(pos * pos)\n"


def test_a_view_of_the_callers_array(tmp_path):
    """(session 36) the gradient at the values ``pos`` held when called, against central
    differences of the function on copies; the caller's array left as the plain run leaves it."""
    path = tmp_path / "add_at32_callers.py"
    path.write_text("import numpy as np\n\n\n" + CALLERS)
    spec = importlib.util.spec_from_file_location(path.stem, path)
    m = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(m)
    m.I = np.array([0, 2, 0])
    pos, x = np.linspace(0.5, 2.0, 8).reshape(4, 2), np.array([0.3, -0.7, 1.1])
    plain = pos.copy()
    m.f(plain, x, 0)

    def on_copies(p, v):
        return m.f(p.copy(), v, 0)

    given = pos.copy()
    got = srcad.grad(m.f, wrt=(0, 1))(given, x, 0)
    np.testing.assert_array_equal(given, plain)  # (the caller's array, as the plain run)
    for i in (0, 1):
        np.testing.assert_allclose(got[i], central(on_copies, (pos, x), i), rtol=1e-6,
                                   atol=1e-8)


@pytest.mark.parametrize("name", sorted(REFUSED))
def test_refused_with_its_line(name, tmp_path):
    path = tmp_path / f"add_at32_refused_{zlib.crc32(name.encode())}.py"
    path.write_text("import numpy as np\n\n\n" + REFUSED[name])
    spec = importlib.util.spec_from_file_location(path.stem, path)
    m = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(m)
    m.I = np.array([0, 2, 0])
    with pytest.raises(srcad.SrcadError) as info:
        srcad.grad(m.f, wrt=(0, 1))(np.ones((4, 2)), np.ones(3), 0)
    assert path.name in str(info.value) and "line" in str(info.value)
