"""A list copied (``list(ys)``, ``ys[:]``, a comprehension, ``ys + []``), then the copy or the
original changed in place, differentiated to second order.

Found by the long property run (2026-12-04, shrunk by hand to :func:`test_the_long_run_case`):
reverse over reverse gave a wrong Hessian, no error. The first derivative's code reads
``dfill = add(dfill, seq_grad(dv3, fill))`` for ``v3 = list(fill)``; differentiated again, the
adjoint of ``seq_grad`` (``seq_back``) returned the gradient list it was given, and the adjoint
of ``dv3.pop()`` then appended to it in place: to ``dfill``'s gradient too, one item too many
in a later ``sum``. The class: a runtime helper that hands back the gradient list it was given
makes two names share one list, and the backward sweep changes list gradients in place
(``append``, ``pop``). ``seq_grad``, ``seq_back`` and ``unbroadcast`` of a list now return a new
list, as ``add`` always did.

Each program of the family is checked against finite differences (first order) and against
autograd's Hessian (both of srcad's Hessian modes).
"""

from __future__ import annotations

import itertools

import numpy as np
import program_files
import pytest
from sampling import sample
from srcad.check import numerical_grad

import srcad

autograd = pytest.importorskip("autograd")

BUILDS = {
    "display": "ys = [x, y * 0.5, x * y]",
    "appends": "ys = []\n    for i in range(3):\n        ys.append(x + (i + 1.0) * y)",
}
COPIES = {
    "list": "zs = list(ys)",
    "slice": "zs = ys[:]",
    "comprehension": "zs = [v for v in ys]",
    "concat": "zs = ys + []",
}
CHANGES = {
    "append": "{c}.append(x * y)\n    t = 0.0",
    "pop": "t = {c}.pop() * x",
    "write": "{c}[0] = {c}[0] * 2.0\n    t = 0.0",
    "append_pop": "{c}.append(x)\n    t = {c}.pop() * y + {c}[-1]",
}
WHICH = ("copy", "original")
CASES = sample(itertools.product(BUILDS, COPIES, CHANGES, WHICH), 3)


def _program(tmp_path, build, copy, change, which):
    changed = "zs" if which == "copy" else "ys"
    text = (f"def f(x, y):\n    {BUILDS[build]}\n    {COPIES[copy]}\n"
            f"    {CHANGES[change].format(c=changed)}\n"
            "    a = sum(zs) * 0.5\n    s = sum(ys)\n    return s * s * x + a * s + t * y\n")
    return program_files.load(tmp_path, f"copied_{build}_{copy}_{change}_{which}", text)


def _check(f, args=(0.7, -0.4)):
    fd = np.array(numerical_grad(f, args, (0, 1)))
    assert np.allclose(srcad.grad(f, wrt=(0, 1))(*args), fd, rtol=1e-6, atol=1e-8)
    expected = autograd.hessian(lambda v: f(v[0], v[1]))(np.array(args))
    for mode in ("fwd", "rev"):
        got = np.array(srcad.hessian(f, wrt=(0, 1), mode=mode)(*args), dtype=float)
        assert np.allclose(got, expected, rtol=1e-9, atol=1e-12), (mode, got, expected)


@pytest.mark.parametrize("build, copy, change, which", CASES,
                         ids=["-".join(c) for c in CASES])
def test_copied_then_changed(tmp_path, build, copy, change, which):
    f = _program(tmp_path, build, copy, change, which)
    if copy == "concat" and which == "original" and change != "write":
        # ``ys + []``'s adjoint reads ``len(ys)`` when the backward sweep runs: a change of
        # ``ys``'s length after it is refused at its line (sound; the other copies keep what
        # they read)
        with pytest.raises(srcad.MutationError, match="changes ys in place"):
            srcad.grad(f, wrt=(0, 1))(0.7, -0.4)
        return
    _check(f)


def test_the_long_run_case(tmp_path):
    """The long run's program, shrunk: 12 instead of 9 in reverse over reverse before."""
    text = ("def f(x, y):\n    fill = [x, x, x]\n    v3 = list(fill)\n    v3.append(x)\n"
            "    b = sum(v3) * 0.0\n    i_1 = sum(fill)\n    return i_1 * b + 0.5 * i_1 * i_1\n")
    _check(program_files.load(tmp_path, "long_run_case", text))
