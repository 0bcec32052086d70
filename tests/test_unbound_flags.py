"""Names set on some paths only, whose value on a path that sets them may be None (found by the
long property run: a second derivative with an early return before a ``**kwargs`` callee
raised UnboundLocalError where Python does not).

srcad raises Python's UnboundLocalError where a name is read on a path that left it unset. It
used to test that by ``is None`` (the generated code holds None for an unset name), so a name
set to a value that *is* None (a function that returns None, ``d.get(k)``, a callee's saved
context in a derivative read again) was taken as unset. Now a flag says whether it is set. A
generated family: how the name may be None (a call, a dict's ``get``, a constant), where it is
set (a branch, a loop, both), how it is read (``is None``, ``or``, a call), against Python's own
outcome and finite differences; and second derivatives through callees whose backward part
needs nothing saved, after an early return, against autograd.
"""

from __future__ import annotations

import itertools

import numpy as np
import program_files
import pytest
from test_early_return_second_order import check_second_derivatives

import srcad

autograd = pytest.importorskip("autograd")
anp = pytest.importorskip("autograd.numpy")

_HELPERS = """
def nothing(v):
    return None


def maybe(v, k):
    return None if k > 1 else v * 2.0


TABLE = {"a": 1.5}
"""
_SETS = {  # y is set under ``k > 0`` (or in a loop of k trips) to something that may be None
    "call_none": "if k > 0:\n    y = nothing(x)",
    "call_maybe": "if k > 0:\n    y = maybe(x, k)",
    "get": "if k > 0:\n    y = TABLE.get('b')",
    "constant": "if k > 0:\n    y = None",
    "loop_call": "for i in range(k):\n    y = maybe(x * i, k)",
    "loop_branch": "for i in range(k):\n    if i > 0:\n        y = nothing(x)",
}
_READS = {
    "is_none": "s = x * 2.0\nif k > 0:\n    if y is None:\n        s = s * 3.0\nreturn s * x",
    "or": "s = x * x\nif k > 0:\n    s = s * (y or 2.0)\nreturn s",
    "always": "s = np.sin(x)\nif y is None:\n    s = s + x\nreturn s",
}
_KS = (0, 1, 2, 3)
_CASES = list(itertools.product(_SETS, _READS))


def _outcome(fn, *args):
    try:
        return fn(*args)
    except (UnboundLocalError, TypeError) as e:
        return type(e)


@pytest.fixture(scope="module")
def programs(tmp_path_factory):
    path = tmp_path_factory.mktemp("flags")
    out = {}
    for name, read in _CASES:
        body = _SETS[name] + "\n" + _READS[read]
        text = _HELPERS + "\n\ndef f(x, k):\n" + "".join(f"    {line}\n" for line in
                                                        body.split("\n"))
        out[name, read] = program_files.load(path, f"flags_{name}_{read}", text, (np,))
    return out


@pytest.mark.parametrize("name, read", _CASES, ids=[f"{n}-{r}" for n, r in _CASES])
def test_set_to_none_is_not_unset(programs, name, read):
    f = programs[name, read]
    x = 0.7
    for k in _KS:
        want = _outcome(f, x, k)
        got = _outcome(srcad.value_and_grad(f), x, k)
        if isinstance(want, type):
            assert got is want, (k, got)
            assert _outcome(srcad.grad(f), x, k) is want
            continue
        assert not isinstance(got, type), (k, got)
        fd = (f(x + 1e-6, k) - f(x - 1e-6, k)) / 2e-6
        assert np.isclose(got[0], want, rtol=1e-12), k
        assert np.isclose(got[1], fd, rtol=1e-6, atol=1e-8), (k, got[1], fd)
        tangent = srcad.jvp(f, (x, k), (1.0, 0.0))[1]
        assert np.isclose(tangent, fd, rtol=1e-6, atol=1e-8), (k, tangent, fd)


_CALLEES = {  # backward parts that save nothing (constants), or a little
    "kwargs": "def h(a, **kwargs):\n    return a * kwargs['scale'] + kwargs.get('shift', 0.5)",
    "plain": "def h(a, scale, shift):\n    return a * scale + shift",
    "linear": "def h(a, scale=2.0, shift=0.0):\n    return scale * a - shift",
    "square": "def h(a, scale=1.0, shift=0.0):\n    return a * a * scale + shift",
}
_EARLY = {  # where the function may return before the call
    "branch": "if x > y:\n    return x * 2.0",
    "nested": "if x > y:\n    if y > 0.0:\n        return x * y\n    return x",
    "loop": "for i in range(2):\n    if x * i > y:\n        return x * 3.0",
}
_SECOND = list(itertools.product(_CALLEES, _EARLY))


@pytest.mark.parametrize("callee, early", _SECOND, ids=[f"{c}-{e}" for c, e in _SECOND])
def test_second_derivative_after_an_early_return(tmp_path, callee, early):
    body = _EARLY[early] + "\nreturn h(y, scale=1.5, shift=x) * x"
    text = _CALLEES[callee] + "\n\n\ndef f(x, y):\n" + "".join(
        f"    {line}\n" for line in body.split("\n"))
    f, f_autograd = program_files.load(tmp_path, f"early_{callee}_{early}", text, (np, anp))
    for args in ((0.3, 0.9), (1.3, 0.9), (0.8, 0.5), (0.8, -0.5)):
        expected = check_second_derivatives(f, f_autograd, args)
        for mode in ("rev", "fwd"):
            h = srcad.hessian(f, mode=mode)(*args)  # in x
            assert np.isclose(h, expected[0, 0], rtol=1e-9, atol=1e-12), (mode, h)
