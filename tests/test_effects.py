"""A user function called for its effect (its result does not reach the output) on an array
or a list that carries a gradient: accepted when the callee provably writes nothing (srcad
looks at its code, and at the code of what it calls), refused at the call's line otherwise.

A generated family: callee bodies x the ways of calling them x argument kinds. Accepted
cases are checked against plain Python (the value), central finite differences and the
reference tape; refused ones assert the error class and the line.
"""

from __future__ import annotations

import itertools
import uuid

import numpy as np
import pytest
import srcad.tape
from srcad.check import numerical_grad

import srcad
from srcad.errors import MissingRuleError, MutationError, SrcadError

#: callee bodies that change nothing their caller sees (v: the argument)
QUIET = [
    "return np.sum(v * v)",
    "w = v[:2]\n    return w[0] + 1.0",
    "w = v.copy()\n    w[0] = 3.0\n    return np.sum(w)",
    "w = v * 2.0\n    w += 1.0\n    return np.sum(w)",
    "return np.sum(inner(v)) * 2.0",
    "return 0.0 if n == 0 else helper(v, n - 1) + v[0]",
    "w = np.zeros(3)\n    np.copyto(w, v)\n    return np.sum(w)",
    "t = 0.0\n    for e in v:\n        t = t + e\n    return t",
]
#: callee bodies that change the argument (or a global)
NOISY = [
    "v[0] = 3.0\n    return 1.0",
    "v += 1.0\n    return 1.0",
    "w = v[:2]\n    w[0] = 0.0\n    return 1.0",
    "v.fill(2.0)\n    return 1.0",
    "np.copyto(v, 0.5)\n    return 1.0",
    "np.multiply(v, 2.0, out=v)\n    return 1.0",
    "writer(v)\n    return 1.0",
    "return 0.0 if n == 0 else helper(v, n - 1) + writer(v)",
    "SEEN.append(v)\n    return 1.0",
]
#: the same for a list argument
QUIET_LIST = ["return v[0] * v[1]", "w = list(v)\n    w.append(1.0)\n    return len(w)",
              "return inner(v[0])"]
NOISY_LIST = ["v.append(1.0)\n    return 1.0", "v[0] = 2.0\n    return 1.0",
              "v.pop()\n    return 1.0", "v.reverse()\n    return 1.0"]

#: how the caller calls it: the result unused, or used only to decide a branch
CALLERS = [
    "    helper({arg})  # the call\n    return {use}",
    "    t = helper({arg})  # the call\n    if t > 1.0:\n        return {use}\n"
    "    return 2.0 * {use}",
]

_counter = itertools.count()


def _module(tmp_path, body, caller, as_list):
    arg, use = (("ys", "ys[0] * ys[1] + ys[1]") if as_list else
                ("b", "np.sum(b * b)"))
    make = "    ys = [a[0] * 1.0, a[1] * 2.0]\n" if as_list else "    b = a * 1.0\n"
    text = (
        "import numpy as np\n\nSEEN = []\n\n\n"
        "def inner(v):\n    return v * 1.0\n\n\n"
        "def writer(v):\n    v[0] = 0.5\n    return 0.0\n\n\n"
        f"def helper(v, n=2):\n    {body}\n\n\n"
        f"def f(a):\n{make}" + caller.format(arg=arg, use=use) + "\n"
    )
    from test_robustness import load_module

    name = f"effects_{next(_counter)}_{uuid.uuid4().hex[:8]}"
    return load_module(tmp_path, text, name), text


def _line_of_call(text):
    return next(i + 1 for i, line in enumerate(text.splitlines()) if "# the call" in line)


CASES = [(b, c, False, True) for b in QUIET for c in range(len(CALLERS))] + \
    [(b, c, False, False) for b in NOISY for c in range(len(CALLERS))] + \
    [(b, c, True, True) for b in QUIET_LIST for c in range(len(CALLERS))] + \
    [(b, c, True, False) for b in NOISY_LIST for c in range(len(CALLERS))]


@pytest.mark.parametrize("body, caller, as_list, quiet", CASES)
def test_called_for_effect(tmp_path, body, caller, as_list, quiet):
    module, text = _module(tmp_path, body, CALLERS[caller], as_list)
    f = module.f
    x = np.array([0.7, 1.3, -0.4])
    refused_inside = "helper(v, n - 1)" in body or "fill" in body  # (at the callee's line)
    if not quiet and "SEEN" not in body and (as_list or not refused_inside):
        # (outside26) a callee changing the caller's own list in place: the call is lowered as
        # returning the list, which the caller rebinds: exact, or Python's own error where the
        # function itself raises (``v.pop()`` then ``ys[1]``); (args33) an array too
        # (frontend.written_args), but a recursive writer, v.fill(c) of a value carrying a
        # gradient and a global holding v: refused
        try:
            f(x.copy())
        except Exception as error:  # noqa: BLE001 - the program's own error, whatever it is
            for make in (lambda: srcad.grad(f)(x.copy()),
                         lambda: srcad.jvp(f, (x.copy(),), (np.ones(3),))):
                with pytest.raises(type(error)):
                    make()
            return
        quiet = True
    if not quiet:
        for make in (lambda: srcad.grad(f)(x.copy()),
                     lambda: srcad.jvp(f, (x.copy(),), (np.ones(3),))):
            with pytest.raises(SrcadError) as info:
                make()
            assert info.value.lineno is not None, text
        # the call's own write (the callee changes what it is given) or its effect: refused
        with pytest.raises((MissingRuleError, MutationError)) as info:
            srcad.grad(f)(x.copy())
        assert info.value.lineno == _line_of_call(text) or refused_inside, text
        return
    value, grad = srcad.value_and_grad(f)(x.copy())
    assert np.isclose(value, f(x.copy())), text
    assert np.allclose(grad, numerical_grad(lambda a: f(a.copy()), (x,)), atol=1e-6), text
    try:  # the reference tape, where it has the rules (it has none for .copy(); its +=
        # on an argument binds a new value: not NumPy's write in place)
        assert "+=" in body or np.allclose(grad, srcad.tape.grad(f)(x.copy()), atol=1e-9), text
    except (NotImplementedError, AttributeError):
        pass
    except TypeError as error:  # (nor for a write in place: "a Var is immutable")
        assert "immutable" in str(error), text
    direction = np.array([0.3, -1.1, 0.7])
    _, tangent = srcad.jvp(f, (x.copy(),), (direction,))
    assert np.isclose(tangent, np.dot(grad, direction), atol=1e-6), text


# =============================================================================================
# srcad's runtime.add makes a new gradient (the alias analysis reads its result as fresh)
# =============================================================================================


@pytest.mark.parametrize("a, b", [
    ({"w": np.ones(2), "c": [np.ones(2), 1.0]}, {"w": np.ones(2)}),
    ({"w": np.ones(2)}, {"w": np.ones(2), "v": {"z": np.ones(3)}}),
    ([{"w": np.ones(2)}, 2.0], [{}, 1.0]),
])
def test_runtime_add_shares_nothing(a, b):
    from srcad.runtime.helpers import add

    def leaves(g):
        if isinstance(g, (list, tuple)):
            return [x for v in g for x in leaves(v)] + [g]
        if isinstance(g, dict):
            return [x for v in g.values() for x in leaves(v)] + [g]
        return [g] if isinstance(g, np.ndarray) else []

    made = add(a, b)
    ids = {id(x) for x in leaves(a) + leaves(b)}
    assert not any(id(x) in ids for x in leaves(made))
    keys = set(a) | set(b) if isinstance(a, dict) else None
    assert keys is None or set(made) == keys
