"""``dataclasses.replace(rec, field=value)`` on a record argument inside differentiated code
(issue 16, outside23 item 6): read as the construction ``Rec(field=value, other=rec.other)``
(``srcad/frontend/record_replace.py``), a record built in the function whose fields srcad
follows. A generated family (how ``replace`` is named x the fields changed x how the result
is used) against central differences and autograd (on ``f(Rec(a, b), x)`` as a function of
the fields); a class with ``__post_init__`` stays refused.
"""

from __future__ import annotations

import itertools

import numpy as np
import pytest
from sampling import sample
from test_robustness import load_module
from twin_checks import central

import srcad

autograd = pytest.importorskip("autograd")

A0, B0 = np.array([0.3, -0.2]), np.array([0.9, 0.4])
X0 = np.array([0.5, 1.5])

HEAD = """
import dataclasses
from dataclasses import replace


@dataclasses.dataclass
class Rec:
    a: object
    b: object


def use(r, x):
    return np.sum(np.tanh(r.a * x)) * np.sum(r.b)


def twin(a, b, x):
    return f(Rec(a, b), x)
"""
NAMES = {"module": "dataclasses.replace", "imported": "replace"}
CHANGES = {"a": "a=rec.a * 2.0 + x", "b": "b=np.sin(x) * rec.a", "both": "a=rec.b, b=rec.a ** 2",
           "none": ""}
USES = {"fields": "    return np.sum(r.a * x) + np.sum(r.b ** 2) + np.sum(rec.a)\n",
        "passed": "    return use(r, x) + np.sum(rec.b * x)\n",
        "loop": "    for i in range(2):\n        r = {name}(r, a=r.a * r.b)\n"
                "    return np.sum(r.a) + np.sum(r.b)\n"}

CASES = list(itertools.product(NAMES, CHANGES, USES))


def _text(name, change, use):
    call = f"{NAMES[name]}(rec, {CHANGES[change]})".replace(", )", ")")
    return HEAD + f"\n\ndef f(rec, x):\n    r = {call}\n" + USES[use].format(name=NAMES[name])


@pytest.mark.parametrize("name,change,use", sample(CASES, 3))
def test_replace_on_a_record_argument(name, change, use, tmp_path):
    text = _text(name, change, use)
    m = load_module(tmp_path, "import numpy as np\n" + text)
    t = load_module(tmp_path, "import autograd.numpy as np\n" + text)
    rec = m.Rec(A0, B0)
    value, g = srcad.value_and_grad(m.f)(rec, X0)
    assert value == pytest.approx(m.f(rec, X0), rel=1e-12)
    assert isinstance(g, m.Rec)
    np.testing.assert_allclose(g.a, central(m.twin, (A0, B0, X0), 0), rtol=1e-6, atol=1e-8)
    np.testing.assert_allclose(g.b, central(m.twin, (A0, B0, X0), 1), rtol=1e-6, atol=1e-8)
    np.testing.assert_allclose(g.a, autograd.grad(t.twin, 0)(A0, B0, X0), rtol=1e-10,
                               atol=1e-12)
    np.testing.assert_allclose(g.b, autograd.grad(t.twin, 1)(A0, B0, X0), rtol=1e-10,
                               atol=1e-12)


POST = """
import dataclasses


@dataclasses.dataclass
class Rec:
    a: object
    b: object

    def __post_init__(self):
        self.b = self.b * 1.0


def f(rec, x):
    r = dataclasses.replace(rec, a=rec.a * 2.0)
    return np.sum(r.a * x)
"""


def test_a_class_running_post_init_stays_refused(tmp_path):
    m = load_module(tmp_path, "import numpy as np\n" + POST)
    with pytest.raises(srcad.SrcadError) as err:
        srcad.grad(m.f)(m.Rec(A0, B0), X0)
    assert "dataclasses.replace(rec" in err.value.construct
