"""``h(*p)`` of a function defined in the function differentiated, where ``p``'s length is known
only when the code runs (a tuple taken from a list in a loop, ``p, a = p, 2.0``): refused as
"f(*xs) of h_local, a function srcad made of a lambda or def of yours and met only when the
code ran" (24 of the 32 refusals of the session 32 fuzzer's run 1, ``star_calls``). The check
guards against a function made of the user's code that missed a rebinding of what it reads
(late binding); a nested def called by its name gets what it reads passed first, read where
the call runs, as Python reads its closure: it is let through now (``frontend/lower_calls``,
``frontend/lower_spread``), as a function a helper made was. A def that changes what it reads
in place is still refused, at the call's line.

A generated family: where ``p`` comes from (a loop over a list of tuples, a tuple rebound by
an unpacking), what the def reads of the enclosing function (nothing, a number rebound between
the calls, an array rebound), its parameters (fixed, ``*rest``); ``grad`` and ``jvp`` against
central differences and autograd. Imports itertools, NumPy, autograd, pytest, srcad and the
tests' helpers."""

from __future__ import annotations

import itertools

import autograd
import autograd.numpy as anp
import numpy as np
import pytest
from program_files import load
from sampling import sample_by
from twin_checks import close

import srcad

SOURCES = {
    "loop": "    s = 0.0\n    for p in [(x, 0.5), (x * x, 2.0)]:\n        s = s + h(*p)\n"
            "        {rebind}\n    return s\n",
    "unpacked": "    p = [x * 0.5, 1.5]\n    p, a = p, 2.0\n    s = h(*p) * a\n    {rebind}\n"
                "    return s + h(*p)\n",
}
READS = {
    "nothing": ("", "pass"),
    "number": ("    w = 2.0\n", "w = w * np.sin(x)"),
    "array": ("    w = x * 1.5\n", "w = w + x * x"),
}
PARAMS = {
    "fixed": "    def h(a, b):\n        return a * b{uses}\n",
    "rest": "    def h(a, *rest):\n        return a * sum(rest){uses}\n",
}
CASES = sample_by(list(itertools.product(SOURCES, READS, PARAMS)), lambda c: c[1], 3)


@pytest.mark.parametrize("source,reads,params", CASES)
def test_a_nested_def_called_with_a_starred_tuple(tmp_path, source, reads, params):
    made, rebind = READS[reads]
    uses = "" if reads == "nothing" else " + np.sum(w * a)"
    text = ("def f(x):\n" + made + PARAMS[params].format(uses=uses) +
            SOURCES[source].format(rebind=rebind))
    f, twin = load(tmp_path, f"s_{source}_{reads}_{params}", "import numpy as np\n\n\n" + text,
                   (np, anp))
    x = 0.7
    want = autograd.grad(twin)(x)
    assert close(want, (f(x + 1e-6) - f(x - 1e-6)) / 2e-6, 1e-6)
    assert close(srcad.grad(f)(x), want, 1e-10)
    assert close(srcad.jvp(f, (x,), (1.0,))[1], want, 1e-10)


def test_a_nested_def_changing_what_it_reads_is_refused(tmp_path):
    text = ("def f(x):\n    w = [x]\n    def h(a, b):\n        w.append(a)\n"
            "        return a * b\n    s = 0.0\n    for p in [(x, 1.0), (x * x, 0.5)]:\n"
            "        s = s + h(*p)\n    return s + w[-1]\n")
    f = load(tmp_path, "s_changes", "import numpy as np\n\n\n" + text)
    with pytest.raises(srcad.SrcadError, match=r"s_changes\.py, line 11"):
        srcad.grad(f)(0.7)


def test_a_def_bound_twice_is_refused_by_its_own_name(tmp_path):
    text = ("def f(x):\n    def h(a, b, c):\n        return a * b + c * a\n"
            "    p = [x * 0.5, 0.25]\n    y = h(*p, x)\n    def h(d, *p):\n        s = d\n"
            "        for q in p:\n            s = s * q\n        return s\n    p = (0.5, y)\n"
            "    return h(y, *p) + h(y)\n")
    f = load(tmp_path, "s_twice", "import numpy as np\n\n\n" + text)
    with pytest.raises(srcad.SrcadError) as info:
        srcad.grad(f)(0.7)
    message = str(info.value)
    assert "s_twice.py, line 8" in message and "h_local" not in message
    assert "f(*xs) of h," in message and "hint: pass the arguments one by one" in message
