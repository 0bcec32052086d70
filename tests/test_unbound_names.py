"""A name bound on some paths only (issue 14): where Python raises UnboundLocalError at a read,
srcad's primal, value_and_grad, grad, jvp and vjp raise it too; where the name is bound they
give Python's value and the finite-difference gradient. A generated family: where the name is
bound (an ``if`` branch, a ``for`` or ``while`` body, both), whether that runs (a flag, zero or
more trips), ``del name`` in a branch or a loop body, and where it is read (a return, an
expression, a call).
"""

from __future__ import annotations

import itertools

import numpy as np
import pytest
from test_robustness import load_module

import srcad

_BINDS = {  # how y gets bound: runs(x, k) is whether it does
    "if": "if k > 0:\n    y = x * x",
    "if_else_other": "if k > 0:\n    y = x * x\nelse:\n    z = x + 1.0",
    "nested_if": "if k > 0:\n    if k > 1:\n        y = np.sin(x)\n    else:\n        y = x * 3.0",
    "for": "for i in range(k):\n    y = x * (i + 1.0)",
    "while": "i = 0\nwhile i < k:\n    y = x * x + i\n    i += 1",
    "for_if": "for i in range(k):\n    if i > 0:\n        y = x * i",
    "del_branch": "y = x * x\nif k > 0:\n    del y",
    "del_rebind": "y = x * x\nif k > 0:\n    del y\n    y = 2.0 * x",
}
_DEL_LOOPS = {  # del name in a loop body: unset for the next iteration and after the loop
    "del_for": "y = x * x\nfor i in range(k):\n    t = y * x\n    del y\n    if i < 1:\n"
               "        y = t + 1.0",
    "del_while": "y = x * x\ni = 0\nwhile i < k:\n    y = y * x\n    if i == 1:\n"
                 "        del y\n    i += 1",
    "bind_del_for": "for i in range(k):\n    y = x * (i + 1.0)\n    if i > 0:\n        del y",
    "del_alternate": "y = x * x\nfor i in range(k):\n    if i % 2 == 0:\n        del y\n"
                     "    else:\n        y = x * i",  # bound again after a del: jvp's tangent
}
_READS = ["return y", "return y * x + 1.0", "return np.exp(y) * 0.5", "s = x\ns = s + y\nreturn s"]
_TRIPS = [0, 1, 2]

_CASES = list(itertools.product(_BINDS, _READS)) + list(itertools.product(_DEL_LOOPS,
                                                                           _READS[1:3]))
_BINDS.update(_DEL_LOOPS)


@pytest.fixture(scope="module")
def module(tmp_path_factory):
    text = "import numpy as np\n\n\n"
    for i, (bind, read) in enumerate(_CASES):
        body = _BINDS[bind] + "\n" + read
        text += f"def case_{i}(x, k):\n" + "".join(f"    {line}\n" for line in
                                                   body.split("\n")) + "\n\n"
    return load_module(tmp_path_factory.mktemp("unbound"), text)


def _outcome(thunk):
    try:
        return thunk()
    except UnboundLocalError:
        return UnboundLocalError


@pytest.mark.parametrize("i", range(len(_CASES)), ids=[f"{b}-{_READS.index(r)}"
                                                        for b, r in _CASES])
def test_like_python(module, i):
    f = getattr(module, f"case_{i}")
    for k in _TRIPS:
        _check(f, 0.7, k)


def _check(f, x, k):
    want = _outcome(lambda: f(x, k))
    unary = lambda v: f(v, k)  # noqa: E731 - k fixed by the specialisation
    got = {
        "value_and_grad": _outcome(lambda: srcad.value_and_grad(f)(x, k)),
        "grad": _outcome(lambda: srcad.grad(f)(x, k)),
        "jvp": _outcome(lambda: srcad.jvp(unary, (x,), (1.0,))),
        "vjp": _outcome(lambda: srcad.vjp(unary, x)[1](1.0)),
    }
    if want is UnboundLocalError:
        for how, result in got.items():
            assert result is UnboundLocalError, (how, k, result)
        return
    fd = (f(x + 1e-6, k) - f(x - 1e-6, k)) / 2e-6
    value, grad = got["value_and_grad"]
    assert np.isclose(value, want, rtol=1e-12), k
    for g in (grad, got["grad"], got["jvp"][1], got["vjp"][0]):
        assert np.isclose(g, fd, rtol=1e-6, atol=1e-8), (k, g, fd)
    assert np.isclose(got["jvp"][0], want, rtol=1e-12)


def test_unset_or_none_is_told_apart():
    """A name None on one path and unset on another: a flag, not ``is None``, tells them
    apart (test_unbound_flags.py has the family)."""
    def f(x, k):
        if k > 0:
            y = None
        if k > 1:
            y = x
        return y * x

    assert np.isclose(srcad.grad(f)(0.5, 2), 1.0)
    with pytest.raises(TypeError):
        srcad.grad(f)(0.5, 1)  # None * x, as in Python
    with pytest.raises(UnboundLocalError):
        srcad.grad(f)(0.5, 0)
