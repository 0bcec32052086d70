"""Forward mode of a list or tuple repeated (``L * 2``, ``2 * L``, ``L *= n``, ``T * n``) when
its items carry tangents: the rule of ``*`` wrote the tangent ``dL * 2.0`` (the int written as
a float beside the float arguments), a ``TypeError`` in ``srcad.jvp`` and ``srcad.jacfwd``
(found by the session 32 fuzzer's probes of ``len()`` of growing lists). Reverse mode refuses
the repetition (the gradient of a repeated item is the sum of its copies'); forward mode now
refuses it the same way (``transform/forward``), naming the line, and a repetition of items
that carry no tangent (``[0.0] * n``, filled later) is still differentiated.

A generated family: the repetition (four spellings), where it stands (straight, in a loop, in a
branch), and the items (carrying tangents, or constants); ``jvp`` and ``jacfwd`` against
central differences and autograd's ``jacobian``, or a ``SrcadError`` naming file and line
where the items carry tangents. Imports NumPy, autograd, pytest, srcad and the tests'
helpers."""

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

REPEATS = {
    "times": "M = L * 2",
    "left": "M = 2 * L",
    "augmented": "M = L\n{i}M *= n",
    "tuple": "M = tuple(L) * n",
}
ITEMS = {"active": "L = [x * 0.5, np.sin(x)]", "constant": "L = [0.5, 1.5]"}
PLACES = {
    "straight": "{body}\n    y = x * 1.0\n",
    "loop": "    y = x * 1.0\n    for k in range(2):\n{body}\n        y = y + M[3] * k\n",
    "branch": "    y = x * 1.0\n    if np.sum(x) > 0.5:\n{body}\n    else:\n{body}\n",
}
CASES = sample_by(list(itertools.product(REPEATS, ITEMS, PLACES)),
                  lambda case: (case[0], case[1]), 3)


def _text(repeat, items, place):
    depth = "        " if place != "straight" else "    "
    body = "\n".join(depth + line for line in (ITEMS[items] + "\n" + REPEATS[repeat].format(
        i="")).splitlines())
    head = "def f(x):\n    n = 2\n"
    return head + PLACES[place].format(body=body) + "    return y * M[0] + M[3] * x\n"


@pytest.mark.parametrize("repeat,items,place", CASES)
def test_a_repeated_list_in_forward_mode(tmp_path, repeat, items, place):
    text = _text(repeat, items, place)
    key = f"{repeat}_{items}_{place}"
    f = load(tmp_path, f"r_{key}", "import numpy as np\n\n\n" + text)
    twin = load(tmp_path, f"t_{key}", text, (anp,))
    x = np.array([0.3, 0.9])
    want = autograd.jacobian(twin)(x)
    v = np.array([0.7, -0.4])
    fd = (f(x + 1e-6 * v) - f(x - 1e-6 * v)) / 2e-6
    assert close(want @ v, fd, 1e-6)
    for run in (lambda: srcad.jvp(f, (x,), (v,))[1], lambda: srcad.jacfwd(f)(x) @ v):
        try:
            got = run()
        except srcad.SrcadError as e:
            assert items == "active", str(e)  # a repetition of constants is differentiated
            assert f"r_{key}.py" in str(e) and "line" in str(e) and "repeat" in str(e)
            continue
        assert close(got, want @ v, 1e-10)
