"""Lists of objects passed on (issue 16, objlists19): a generated family.

A list of three objects (of one class, or of different classes: a direct class, a class built
by its ``__init__``, a dataclass), built the ways people build one (a list written of them, a
tuple, ``[]`` then appends, names first, written inside the call), passed on (to a function,
by keyword, through a second function, to a class storing it, as ``list(layers)``, for
``*layers``, written as ``Seq(a, b, c)``), used there (a ``for`` loop, ``enumerate``,
``reversed``, constant indices, ``range(len(...))``, a generator given to ``sum``, a list
comprehension, a slice), with the first, the last or all objects built from the
differentiated values. Each is written to a file, imported on NumPy and on autograd.numpy, and
checked against central differences and autograd (grad, value_and_grad, jvp); Hessians in
both modes on samples.
"""

from __future__ import annotations

import itertools

import autograd
import numpy as np
import pytest
from call_checks import check_first_order
from class_families import module_of

import srcad

CLASSES = """import numpy as np
from dataclasses import dataclass

rng = np.random.default_rng(19)
W0, W1, W2 = (rng.normal(size=(3, 3)) * 0.5 for _ in range(3))
B0, B1, B2 = (rng.normal(size=3) * 0.3 for _ in range(3))
X = rng.normal(size=3)


class Dense:
    def __init__(self, W, b):
        self.W = W
        self.b = b

    def __call__(self, x):
        return np.tanh(x @ self.W + self.b)


class Scale:
    def __init__(self, s):
        self.s = s * 1.0
        self.k = 2.0

    def __call__(self, x):
        return self.s * x + np.sin(x) / self.k


@dataclass
class Lin:
    W: np.ndarray
    b: np.ndarray

    def __call__(self, x):
        return np.tanh(x @ self.W) + self.b
"""

#: the callee's body over the list {L} (layers, or self.layers in a method)
USES = {
    "for": "for l in {L}:\n    x = l(x)\nreturn x",
    "enumerate": "for i, l in enumerate({L}):\n    x = l(x) * (1.0 + 0.1 * i)\nreturn x",
    "reversed": "for l in reversed({L}):\n    x = l(x)\nreturn x",
    "index": "return {L}[-1]({L}[0](x)) + {L}[1](x)",
    "range_len": "for i in range(len({L})):\n    x = {L}[i](x)\nreturn x",
    "sum": "return sum(l(x) for l in {L}) / len({L})",
    "listcomp": "ys = [l(x) ** 2 for l in {L}]\nreturn ys[0] + ys[-1] * ys[1]",
    "slice": "for l in {L}[1:]:\n    x = l(x)\nreturn {L}[0](x)",
}


def _indent(text, pad):
    return "\n".join(pad + line for line in text.splitlines())


def callees():
    out = []
    for u, body in USES.items():
        out.append(f"def run_{u}(layers, x):\n{_indent(body.format(L='layers'), '    ')}\n")
        out.append(f"def outer_{u}(layers, x):\n    return run_{u}(layers, x) * 1.5\n")
        method = _indent(body.format(L="self.layers"), "        ")
        out.append(f"class Seq_{u}:\n    def __init__(self, layers):\n"
                   f"        self.layers = layers\n\n    def __call__(self, x):\n{method}\n")
        out.append(f"class SeqL_{u}:\n    def __init__(self, layers, scale=2.0):\n"
                   f"        self.layers = list(layers)\n        self.scale = scale\n\n"
                   f"    def __call__(self, x):\n        return self.scale * self.run(x)\n\n"
                   f"    def run(self, x):\n{method}\n")
        out.append(f"class SeqS_{u}:\n    def __init__(self, *layers):\n"
                   f"        self.layers = list(layers)\n\n    def __call__(self, x):\n"
                   f"{method}\n")
    return "\n".join(out)


MIXES = {"DDD": "DDD", "DSL": "DSL", "LDS": "LDS"}
WHICH = ("first", "last", "all")


def item(kind, j, active):
    if kind == "D":
        return f"Dense(W{j} * w[0], B{j})" if active else f"Dense(W{j}, B{j})"
    if kind == "S":
        return "Scale(w[1] + 0.5)" if active else "Scale(0.7)"
    return f"Lin(W{j}, B{j} * w[1])" if active else f"Lin(W{j}, B{j})"


def items(mix, which):
    act = {"first": (0,), "last": (2,), "all": (0, 1, 2)}[which]
    return [item(k, j, j in act) for j, k in enumerate(mix)]


def passing(p, u, lst):
    """The expression passing ``lst`` (an expression of the list) with the use ``u``."""
    return {"func": f"run_{u}({lst}, X)", "kw": f"run_{u}(x=X, layers={lst})",
            "outer": f"outer_{u}({lst}, X)", "class": f"Seq_{u}({lst})(X)",
            "classlist": f"SeqL_{u}({lst})(X)", "star": f"SeqS_{u}(*{lst})(X)"}[p]


def case(c, p, u, mix, which):
    """The differentiated function's source."""
    its = items(mix, which)
    name = f"f_{c}_{p}_{u}_{mix}_{which}"
    if c == "display":
        lines = [f"layers = [{', '.join(its)}]", f"return np.sum({passing(p, u, 'layers')})"]
    elif c == "tuple":
        lines = [f"layers = ({', '.join(its)},)", f"return np.sum({passing(p, u, 'layers')})"]
    elif c == "append":
        lines = ["layers = []"] + [f"layers.append({i})" for i in its] + [
            f"return np.sum({passing(p, u, 'layers')})"]
    elif c == "names":
        lines = [f"a{j} = {i}" for j, i in enumerate(its)] + [
            "layers = [a0, a1, a2]", f"return np.sum({passing(p, u, 'layers')})"]
    elif c == "inline" and p == "star":
        lines = [f"return np.sum(SeqS_{u}({', '.join(its)})(X))"]
    else:
        lines = [f"return np.sum({passing(p, u, '[' + ', '.join(its) + ']')})"]
    return name, f"def {name}(w):\n" + "\n".join("    " + line for line in lines) + "\n"


CONSTRUCTIONS = ("display", "tuple", "append", "names", "inline")
PASSINGS = ("func", "kw", "outer", "class", "classlist", "star")

# every passing with every use (construction, mix and which taken in turn) ...
CASES = [(CONSTRUCTIONS[k % 5], p, u, list(MIXES)[k % 3], WHICH[(k // 3) % 3])
         for k, (p, u) in enumerate(itertools.product(PASSINGS, USES))]
# ... and every construction with every passing (a for loop)
CASES += [(c, p, "for", list(MIXES)[k % 3], WHICH[k % 3])
          for k, (c, p) in enumerate(itertools.product(CONSTRUCTIONS, PASSINGS))]
SOURCES = dict(case(*c) for c in CASES)


@pytest.fixture(scope="module")
def modules(tmp_path_factory):
    where = tmp_path_factory.mktemp("objlists19")
    body = "\n\n" + callees() + "\n\n" + "\n\n".join(SOURCES.values())
    return (module_of(where, CLASSES, "objlists19_np", body),
            module_of(where, CLASSES, "objlists19_ag", body, "autograd.numpy"))


POINT = np.array([0.8, 1.1])


@pytest.mark.parametrize("name", list(SOURCES))
def test_family(modules, name):
    m, ma = modules
    check_first_order(getattr(m, name), getattr(ma, name), POINT, np.array([0.3, -0.7]))


SAMPLES = list(SOURCES)[::13]  # (a passing, a use, a construction each)


@pytest.mark.parametrize("name", SAMPLES)
@pytest.mark.parametrize("mode", ["fwd", "rev"])
def test_hessian(modules, name, mode):
    m, ma = modules
    got = srcad.hessian(getattr(m, name), mode=mode)(POINT)
    np.testing.assert_allclose(got, autograd.hessian(getattr(ma, name))(POINT), rtol=1e-8,
                               atol=1e-10)
