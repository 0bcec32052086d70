"""(forms35) ``upd(*xs)`` of a function of the user's writing into the arrays it is given, ``xs``
a name bound to a tuple or list display in the same function (``xs = (a, b, x)``): the call is
``upd(a, b, x)`` (``frontend/written_args._displays``), so srcad reads what ``upd`` writes into
as the new ``a`` and ``b``. At bcc0498f refused ("a is read afterwards ... write upd(a, b, x)
for upd(*xs)").

Differentiated (value, gradient, jvp) against central differences and srcad.tape on a
functional twin; still refused where ``xs`` is read after the call (``xs[0]``: Python's item is
the changed array, srcad's the old one), an item's name is rebound between (``a = a + 1.0``:
``xs`` holds the old object), or the list is changed before the call.
"""

from __future__ import annotations

import uuid

import numpy as np
import pytest
import srcad.tape
from sampling import LONG
from test_robustness import load_module
from twin_checks import central

import srcad
from srcad.errors import SrcadError

CALLEE = ("import numpy as np\n\n\ndef upd(a, b, x):\n    a[0] = x[0] * 2.0\n"
          "    b[1:] += x[1:] * b[1:]\n\n\ndef twin_upd(a, b, x):\n"
          "    a = np.concatenate([x[:1] * 2.0, a[1:]])\n"
          "    b = np.concatenate([b[:1], b[1:] + x[1:] * b[1:]])\n    return a, b\n\n\n")
#: name -> (how xs is built and the call made, the twin's)
FORMS = {
    "tuple": ("xs = (a, b, x)\n    upd(*xs)", "a, b = twin_upd(a, b, x)"),
    "list": ("xs = [a, b, x]\n    upd(*xs)", "a, b = twin_upd(a, b, x)"),
    "loop": ("xs = (a, b, x)\n    for k in range(2):\n        upd(*xs)",
             "for k in range(2):\n        a, b = twin_upd(a, b, x)"),
    "partly": ("xs = (b, x)\n    upd(a, *xs)", "a, b = twin_upd(a, b, x)"),
}
START = "a = x * np.arange(1.0, 4.0)\n    b = np.ones(3)\n    "
END = "\n    return np.sum(np.sin(a) * b) * x[0]\n"
X = np.array([0.7, 1.3, -0.4])


@pytest.mark.parametrize("form", list(FORMS) if LONG else ["list", "partly"])
def test_spread_name_of_a_display(tmp_path, form):
    call, twin_call = FORMS[form]
    text = CALLEE + "def f(x):\n    " + START + call + END
    module = load_module(tmp_path, text + "\n\ndef twin(x):\n    " + START + twin_call + END,
                         f"forms35_spread_{form}_{uuid.uuid4().hex[:8]}")
    f, twin = module.f, module.twin
    assert np.isclose(f(X.copy()), twin(X.copy())), text
    value, grad = srcad.value_and_grad(f)(X.copy())
    assert np.isclose(value, f(X.copy())), text
    assert np.allclose(grad, central(f, (X.copy(),), 0), atol=1e-5), text
    assert np.allclose(grad, srcad.tape.grad(twin)(X.copy()), atol=1e-9), text
    _, tangent = srcad.jvp(f, (X.copy(),), (np.array([0.3, -1.1, 0.7]),))
    assert np.isclose(tangent, grad @ np.array([0.3, -1.1, 0.7]), atol=1e-9), text


@pytest.mark.parametrize("body", [
    "xs = (a, b, x)\n    upd(*xs)\n    return np.sum(xs[0] * b) * x[0]",
    "xs = (a, b, x)\n    a = a + 1.0\n    upd(*xs)\n    return np.sum(a * b) * x[0]",
    "xs = [a, b, x]\n    xs[0] = np.ones(3)\n    upd(*xs)\n    return np.sum(a * b) * x[0]",
])
def test_spread_name_refused_where_it_differs(tmp_path, body):
    text = CALLEE + "def f(x):\n    " + START + body + "\n"
    f = load_module(tmp_path, text, f"forms35_spread_no_{uuid.uuid4().hex[:8]}").f
    with pytest.raises(SrcadError, match=r"upd\(\*xs\)"):
        srcad.grad(f)(X.copy())
