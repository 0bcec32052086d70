"""Refusals say what is true (session 31, sampling the mutant fuzzer's refusals): a callee
that changes what a list of its own holds (``L = [z, z * 2.0]; for t in L: t *= 2.0``),
called on a copy of the caller's array (``h(x.copy())``, ``y = x.copy(); h(y)``), was refused
as "h(...) changes the argument x in place: the caller would see a change srcad does not
make", with the hint "write x = x.copy() first" (which the program did): a differentiated
array parameter was taken to hold objects (what a list holds) that the callee's write into
its items could change. Its items are numbers (srcad refuses other dtypes there): the
refusal is now the callee's own (``t`` shares memory with ``L``, read afterwards), at its
line, or (nothing reading the copy after) the program is differentiated. Each other program
is refused with file, line, construct and hint, and the message must not claim the caller's
argument changes. Imports NumPy, pytest, srcad and the tests' helpers."""

from __future__ import annotations

import itertools

import numpy as np
import pytest
from program_files import load
from twin_checks import central

import srcad

CALLEES = {
    "list_loop": "def h(z):\n    L = [z, z * 2.0]\n    for t in L:\n        t *= 2.0\n"
                 "    return L[0] + L[1]\n",
    "list_items": "def h(z):\n    L = [z * 1.0, z]\n    L[1] *= 3.0\n    return L[0] * L[1]\n",
    "pair_loop": "def h(z):\n    P = (z, z + 1.0)\n    for t in P:\n        t += 1.0\n"
                 "    return P[0] * P[1]\n",
}
CALLS = {
    "copy_arg": "    return np.sum(h(x.copy()) * x)\n",
    "copy_name": "    y = x.copy()\n    return np.sum(h(y))\n",
    "copy_scaled": "    y = x.copy()\n    y = y * 2.0\n    return np.sum(h(y) * y)\n",
}

#: the forms that are differentiated (checked against central differences instead)
DIFFERENTIATED = {("list_items", "copy_arg"), ("list_items", "copy_name")}


@pytest.mark.parametrize("callee,call", list(itertools.product(CALLEES, CALLS)))
def test_callee_writing_a_copy_is_refused_for_its_own_reason(tmp_path, callee, call):
    text = f"import numpy as np\n\n\n{CALLEES[callee]}\n\ndef f(x):\n{CALLS[call]}"
    f = load(tmp_path, f"c_{callee}_{call}", text)
    x = np.array([0.3, -0.5, 0.8])
    try:
        got = srcad.grad(f)(x)
    except srcad.SrcadError as e:
        message = str(e)
    else:  # (the copy changed, nothing reading it after: exact, as Python runs it)
        assert (callee, call) in DIFFERENTIATED
        np.testing.assert_allclose(got, central(lambda v: f(v.copy()), [x], 0), rtol=1e-6)
        return
    assert (callee, call) not in DIFFERENTIATED
    assert f"c_{callee}_{call}.py, line " in message.splitlines()[0]
    assert "hint:" in message and len(message.splitlines()) >= 3
    assert "the argument x" not in message and "x = x.copy()" not in message, message


#: a list changed in place while another name for it is read after: the hint is a list's
#: (it said "build a new array (np.concatenate, np.where)" for lists too); an array's stays
ALIASED = {
    "list_item": ("    L = [x, x * 2.0]\n    M = L\n    L[0] = x * 5.0\n    return M[0] * L[-1]\n",
                  "new list"),
    "list_augment": ("    L = [x, x * 2.0]\n    M = L\n    L += [x * 3.0]\n"
                     "    return M[0] * L[-1]\n", "new list"),
    "callee_append": ("    def grow(L, t):\n        L.append(t * 2.0)\n        return L\n"
                      "    L = grow([x], x)\n    return L[0] * L[-1]\n", "new list"),
    "array_item": ("    a = np.array([x, x * 2.0])\n    b = a\n    a[0] = x * 5.0\n"
                   "    return b[0] * a[-1]\n", "new array"),
}


@pytest.mark.parametrize("case", ALIASED)
def test_alias_refusal_hint_fits_the_kind(tmp_path, case):
    body, want = ALIASED[case]
    f = load(tmp_path, f"a_{case}", f"import numpy as np\n\n\ndef f(x):\n{body}")
    with pytest.raises(srcad.SrcadError) as info:
        srcad.grad(f)(0.7)
    message = str(info.value)
    assert f"a_{case}.py, line " in message.splitlines()[0] and "hint:" in message
    hint = message.split("hint:")[1]
    assert want in hint, message
    assert ("np.concatenate" in hint) == (want == "new array"), message


def test_numba_refusal_of_a_ruled_function_shows_its_line(tmp_path):
    """backend='numba' refusing a function with a user's rule said it was "used otherwise than
    called with positional arguments" (it was called so) and showed no source line."""
    text = ("import numpy as np\nimport srcad\n\n\n"
            "@srcad.extend.defvjp(x='g * 2.0 * x')\ndef sq(x):\n    return x * x\n\n\n"
            "def f(x, y):\n    return sq(x) + np.sum(y * x)\n")
    f = load(tmp_path, "numba_ruled", text)
    with pytest.raises(srcad.SrcadError) as info:
        srcad.grad(f, wrt=(0, 1), backend="numba")(0.7, np.array([1.0, 2.0]))
    lines = str(info.value).splitlines()
    assert "numba_ruled.py, line 11" in lines[0] and "rule of yours" in lines[0], lines
    assert lines[1].strip() == "return sq(x) + np.sum(y * x)" and "hint:" in lines[2], lines


def test_an_error_given_a_place_shows_its_line(tmp_path):
    path = tmp_path / "placed.py"
    path.write_text("x = 1\ny = x + 2\n")
    text = str(srcad.SrcadError("a construct", filename=str(path), lineno=2, hint="do this"))
    assert text.splitlines()[1].strip() == "y = x + 2", text
