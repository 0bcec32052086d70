"""A nested function's augmented assignment to its parameter (sound29's mutant fuzzer:
``def _m(_z): _z *= 2.0`` then ``_m(a)`` in tangent's ``listcomp``): with a NumPy array (or a
list) ``z *= 2.0`` changes the caller's object, and srcad gave the value and gradient of the
function as if it did not. Desugaring wrote ``z = z * 2.0`` into the nested ``def`` before it
was lifted into a function of its own (``m_local``), where it read as a new value, so the
analysis of what a call changes (``srcad.analysis.effects.written_params``) saw no write. A
nested function's statements are now desugared when it is lowered, as any function's
(``srcad.frontend.desugar._expand_aug_in``): the call is refused where the caller reads the
object afterwards, and differentiated where it does not, or where the parameter is a number.

A generated family: ``+=``, ``-=``, ``*=``, ``/=`` on the parameter (an array, a number, a
list for ``+=``), in straight code or a loop, reading a closure variable or not, the caller
reading its object afterwards or not. Each program is either refused with a ``SrcadError``
naming the call's line, or srcad's value, gradient and jvp agree with the plain function,
srcad.tape and central differences; a read-afterwards array or list is refused. Cheap by
default (one case), every case under ``SRCAD_LONG_PROPERTIES=1``. Imports NumPy, srcad, and
the tests' program_files, sampling."""

from __future__ import annotations

import itertools

import numpy as np
import pytest
from program_files import module
from sampling import LONG

import srcad
from srcad import tape

OPS = ["+=", "-=", "*=", "/="]
KINDS = ["array", "number", "list"]
BODIES = ["straight", "loop", "closure"]
READS = ["after", "not"]

TEMPLATE = """\
import numpy as np


def f(x):
    w = x * 0.5
    def m(z):
{body}
        return z * 1.0
{call}
"""


def program(op, kind, body, read):
    value = "[z[0] * 2.0]" if kind == "list" else ("w" if body == "closure" else "0.75")
    stmt = f"z {op} {value}"
    if body == "loop":
        stmt = f"for i in range(2):\n            {stmt}"
    arg = "[x, x * 2.0]" if kind == "list" else "x * 1.0"
    if read == "after":
        call = f"    b = {arg}\n    c = m(b)\n    return np.sum(c[0] * b[-1] if "\
               f"isinstance(b, list) else c * b)"
        if kind != "list":
            call = f"    b = {arg}\n    c = m(b)\n    return np.sum(c * b)"
    else:
        call = f"    c = m({arg})\n    return np.sum(c[0] * c[-1])" if kind == "list" else \
            f"    c = m({arg})\n    return np.sum(c * c)"
    return TEMPLATE.format(body="        " + stmt, call=call)


CASES = [c for c in itertools.product(OPS, KINDS, BODIES, READS)
         if c[1] != "list" or c[0] == "+="]
#: CI's case: the fuzzer's (refused now)
FIRST = [("*=", "array", "straight", "after")]


def _point(kind):
    return np.array([0.7, -0.4, 1.3]) if kind == "array" else 0.7


@pytest.mark.parametrize("op,kind,body,read", FIRST + (CASES if LONG else []))
def test_nested_augmented_parameter(tmp_path, op, kind, body, read):
    mod = module(tmp_path, "nested_aug", program(op, kind, body, read))
    x = _point(kind)
    try:
        value, g = srcad.value_and_grad(mod.f)(x)
    except srcad.SrcadError as e:
        assert "nested_aug.py" in str(e) and "line" in str(e)
        return
    assert not (read == "after" and kind in ("array", "list")), \
        "the caller's object changes in place: differentiated, not refused"
    assert np.isclose(value, mod.f(x), rtol=1e-12)
    assert np.allclose(g, tape.grad(mod.f)(x), rtol=1e-10, atol=1e-12)
    v = np.ones_like(x) if kind == "array" else 1.0
    h = 1e-6
    fd = (mod.f(x + h * v) - mod.f(x - h * v)) / (2 * h)
    assert np.isclose(np.sum(g * v), fd, rtol=1e-6, atol=1e-8)
    _, t = srcad.jvp(mod.f, (x,), (v,))
    assert np.isclose(t, np.sum(g * v), rtol=1e-10, atol=1e-12)
