"""Functions read from a module table with constant keys (issue 16, found by the random
programs): ``acts = [ACTS["tanh"], ACTS["soft"]]`` (a list or tuple display of reads of a
module-level dict of functions), then ``acts[i](h)`` in a loop or ``acts[i]`` passed on to a
helper, was refused ("a container that may hold a lambda or partial holding values computed
in the loop"). Each item is now the one function its read found (``lower_choices``:
``read_constant``), and the call a checked choice among them: the code checks, when it runs,
that the function met is one it was made for (the table may have been changed in place).

A generated family (tables x displays x uses; sampled by default, whole with
SRCAD_LONG_PROPERTIES=1) against central differences and autograd on the twin, and the
check after the table changed.
"""

import itertools
import uuid

import autograd
import numpy as np
import pytest
from sampling import sample
from test_robustness import load_module
from twin_checks import central, close

import srcad

X = np.array([0.3, -0.7, 1.1])

_HEADER = '''

def soft(h):
    return np.log1p(np.exp(h))


def cube(h):
    return h * h * h * 0.2


ACTS = {"tanh": np.tanh, "soft": soft, "cube": cube, "sin": np.sin}


def apply(act, h):
    return act(h) * 2.0 - 0.1
'''

_KEYS = [("tanh", "soft"), ("soft", "cube", "tanh"), ("sin", "sin"), ("cube", "soft")]
_DISPLAYS = {"list": "[{}]", "tuple": "({},)"}
_USES = {
    "call": "        h = acts[i](h) * 1.5 + 0.1",
    "helper": "        h = apply(acts[i], h)",
    "both": "        h = acts[i](apply(acts[i], h) * 0.5)",
}


def _program(keys, display, use):
    reads = ", ".join(f'ACTS["{k}"]' for k in keys)
    return (f"def f(x):\n    acts = {_DISPLAYS[display].format(reads)}\n    h = x\n"
            f"    for i in range({len(keys)}):\n{_USES[use]}\n    return np.sum(h * h)\n")


CASES = sample(list(itertools.product(range(len(_KEYS)), sorted(_DISPLAYS), sorted(_USES))), 3)


def _load(tmp_path, text, numpy):
    return load_module(tmp_path, f"import {numpy} as np\n" + _HEADER + "\n\n" + text,
                       f"tables21_{uuid.uuid4().hex[:8]}")


@pytest.mark.parametrize(("k", "display", "use"), CASES)
def test_functions_read_from_a_table(tmp_path, k, display, use):
    text = _program(_KEYS[k], display, use)
    module = _load(tmp_path, text, "numpy")
    twin = _load(tmp_path, text, "autograd.numpy")
    got = srcad.grad(module.f)(X.copy())
    assert close(got, central(module.f, [X], 0), 1e-5), text
    assert close(got, autograd.grad(twin.f)(X), 1e-9), text


@pytest.mark.parametrize("display", sorted(_DISPLAYS))
def test_a_table_changed_in_place_is_seen(tmp_path, display):
    module = _load(tmp_path, _program(("tanh", "soft"), display, "call"), "numpy")
    df = srcad.grad(module.f)
    df(X.copy())
    module.ACTS["tanh"] = np.cos  # a function the code was not made for: made again
    assert close(df(X.copy()), central(module.f, [X], 0), 1e-5)  # (outside24: refused before)
    module.ACTS["tanh"] = module.soft  # one it was made for: its own derivative
    assert close(df(X.copy()), central(module.f, [X], 0), 1e-5)
