"""A list read whole, then changed in place (append, insert, extend, pop, an item written),
differentiated to first and second order.

``test_summed_then_grown``: ``sum(ys)`` then the list grows. The reverse sweep used to make
``sum(ys)``'s gradient from ``ys`` as it is when the sweep runs, after the growth: one item too
many, which ``add`` dropped as it zipped. Forward over reverse kept the extra item, and the
later ``.pop()`` of each earlier append took the wrong one: a wrong Hessian, no error (found by
the long property run, 2026-12-03). Now the forward sweep keeps what the adjoint reads of the
list where it read it (its length, or a copy when a ``pop`` follows: ``alias._kept_for_reverse``,
``Rules.kept_read``). Each program is checked in reverse, forward and both Hessian modes,
against finite differences and against autograd.

``test_read_then_changed``: the family around it: ``len(ys)``, ``np.array(ys)``,
``np.mean(ys)``, ``max(ys)`` and a comprehension over ``ys``, each before two of the five
in-place changes (each change after two of the reads), the list built by a display or by
appends, and a read and an append inside one loop; first order against finite differences,
second order against autograd (forward over reverse on one diagonal, reverse over reverse on
the other, both in the loop).
"""

from __future__ import annotations

import itertools

import numpy as np
import pytest
from srcad.check import numerical_grad

import srcad

autograd = pytest.importorskip("autograd")

BUILDS = {
    "appends": "ys = []\n    ys.append(y)\n    ys.append(y * 0.5)",
    "loop": "ys = []\n    for i in range(2):\n        ys.append(y * (i + 1.0))",
}
WRITES = {
    "none": "",
    "one": "ys[0] = ys[0] * x",
    "loop": "for j in range(len(ys)):\n        ys[j] = ys[j] * x",
}
GROWS = {
    "append_const": ("ys.append(3.0)", "s * s * x"),
    "append_value": ("ys.append(s * s)", "s + ys[-1] * x"),
    "insert": ("ys.insert(0, s * x)", "s * s + ys[0]"),
    "extend": ("ys.extend([2.0, s * x])", "s * s + ys[3]"),
}
CASES = list(itertools.product(BUILDS, WRITES, GROWS))


def _program(tmp_path, build, write, grow):
    step, result = GROWS[grow]
    text = (f"def f(x, y):\n    {BUILDS[build]}\n    {WRITES[write]}\n    s = sum(ys)\n"
            f"    {step}\n    return {result}\n")
    path = tmp_path / f"grown_{build}_{write}_{grow}.py"
    path.write_text(text)
    namespace = {}
    exec(compile(text, str(path), "exec"), namespace)
    return namespace["f"]


@pytest.mark.parametrize("build, write, grow", CASES, ids=["-".join(c) for c in CASES])
def test_summed_then_grown(tmp_path, build, write, grow):
    f = _program(tmp_path, build, write, grow)
    args = (0.7, -0.4)
    fd = np.array(numerical_grad(f, args, (0, 1)))
    assert np.allclose(srcad.grad(f, wrt=(0, 1))(*args), fd, rtol=1e-6, atol=1e-8)
    tangents = [srcad.jvp(f, args, u)[1] for u in ((1.0, 0.0), (0.0, 1.0))]
    assert np.allclose(tangents, fd, rtol=1e-6, atol=1e-8)
    expected = autograd.hessian(lambda v: f(v[0], v[1]))(np.array(args))
    for mode in ("fwd", "rev"):
        got = np.array(srcad.hessian(f, wrt=(0, 1), mode=mode)(*args), dtype=float)
        assert np.allclose(got, expected, rtol=1e-9, atol=1e-12), (mode, got, expected)



def test_the_code_reads_the_list_as_it_was(tmp_path):
    """What a careful person writes for ``ys = [y, y * 0.5]; s = sum(ys); ys.append(3.0)``:
    the length kept where ``sum`` read the list, the appended constant's adjoint a zero
    gradient at the list's length before it (no ``zeros_like(ys)`` then ``.pop()``)."""
    f = _program(tmp_path, "appends", "none", "append_const")
    text = srcad.source(srcad.grad(f, wrt=(0, 1)), 0.7, -0.4)
    assert "ys_len = len(ys)" in text and "fill(ds, ys[:ys_len])" in text
    assert "dys = zeros_like(ys[:-1])" in text
    assert text.count(".pop()") == 2  # the two earlier appends' items only

READS = {
    "len": "r = len(ys) * x",
    "array": "r = np.sum(np.array(ys) * x)",
    "mean": "r = np.mean(ys)",
    "max": "r = max(ys)",
    "comprehension": "r = sum([v * x for v in ys])",
    "loop": "r = 0.0\n    for i in range(2):\n        r = r + max(ys) * x\n"
            "        ys.append(r * 0.5)",
}
CHANGES = {
    "append": "ys.append(r * y)",
    "insert": "ys.insert(0, r * x)",
    "extend": "ys.extend([2.0, r * x])",
    "pop": "t = ys.pop()\n    r = r + t * x",
    "write": "ys[1] = ys[1] * r",
}
LISTS = {
    "display": "ys = [x, y * 0.5, x * y]",
    "appends": "ys = []\n    for i in range(3):\n        ys.append(y * (i + 1.0) + x)",
}
# each read before two changes and each change after two reads (two diagonals of a Latin
# square), the list built by a display on one and by appends on the other
_ORDER = list(CHANGES)
FAMILY = [(read, _ORDER[(i + k) % 5], list(LISTS)[k])
          for k in (0, 1) for i, read in enumerate(list(READS)[:5])] + [
    ("loop", "pop", "display"), ("loop", "write", "appends")]


def _family_program(tmp_path, read, change, build):
    text = (f"def f(x, y):\n    {LISTS[build]}\n    {READS[read]}\n    {CHANGES[change]}\n"
            "    return r * r * x + ys[0] * y + ys[-1]\n")
    path = tmp_path / f"read_{read}_{change}_{build}.py"
    path.write_text(text)
    made = []
    for numpy in (np, autograd.numpy):  # srcad's; autograd's for its Hessian
        namespace = {"np": numpy}
        exec(compile(text, str(path), "exec"), namespace)
        made.append(namespace["f"])
    return made


@pytest.mark.parametrize("read, change, build", FAMILY, ids=["-".join(c) for c in FAMILY])
def test_read_then_changed(tmp_path, read, change, build):
    f, f_autograd = _family_program(tmp_path, read, change, build)
    args = (0.7, -0.4)
    fd = np.array(numerical_grad(f, args, (0, 1)))
    assert np.allclose(srcad.grad(f, wrt=(0, 1))(*args), fd, rtol=1e-6, atol=1e-8)
    expected = autograd.hessian(lambda v: f_autograd(v[0], v[1]))(np.array(args))
    # one Hessian mode per diagonal (each read and each change meets both), both in a loop
    modes = ("fwd", "rev") if read == "loop" else ("fwd",) if build == "display" else ("rev",)
    for mode in modes:
        got = np.array(srcad.hessian(f, wrt=(0, 1), mode=mode)(*args), dtype=float)
        assert np.allclose(got, expected, rtol=1e-9, atol=1e-12), (mode, got, expected)
