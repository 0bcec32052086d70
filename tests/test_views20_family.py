"""A generated family of small programs writing through basic-index views of a local array
(srcad/frontend/views.py) and reading both names after: each against NumPy running the
program (the value) and autograd running a twin written with explicit base indices (the
gradient, jvp; the Hessian in both modes on every fifth). 60 programs with
SRCAD_LONG_PROPERTIES=1, every fourth by default."""

from __future__ import annotations

import linecache
import random
import types

import autograd
import autograd.numpy as anp
import numpy as np
import pytest

import srcad
from tests.sampling import sample
from tests.test_views20_forms import central, put

SHAPE = (3, 4)
P = np.arange(12).reshape(SHAPE)

#: views of the base y (3 x 4): the index as written, and the index itself
VIEWS = [("1:3", np.s_[1:3]), (":, 2", np.s_[:, 2]), ("1", np.s_[1]),
         ("1:-1, 1:-1", np.s_[1:-1, 1:-1]), ("::2", np.s_[::2]), ("::-1", np.s_[::-1]),
         ("..., 1:3", np.s_[..., 1:3]), ("2, 1:", np.s_[2, 1:]), ("-1", np.s_[-1]),
         (":, ::-2", np.s_[:, ::-2]), ("0:2, 3", np.s_[0:2, 3])]
#: write indices into a view, by the view's rank
WRITES = {1: [("0", np.s_[0]), ("-1", np.s_[-1]), ("1:", np.s_[1:]), ("::2", np.s_[::2]),
              ("...", np.s_[...])],
          2: [("0", np.s_[0]), ("-1, 1", np.s_[-1, 1]), (":, 0", np.s_[:, 0]),
              ("1:, ::2", np.s_[1:, ::2]), ("...", np.s_[...])]}


def _at(positions):
    rows, cols = np.unravel_index(positions, SHAPE)
    return f"(np.array({rows.tolist()}), np.array({cols.tolist()}))"


def _picks(positions, index):
    """Whether ``positions[index]`` picks some elements (no IndexError, not empty)."""
    try:
        return np.size(positions[index]) > 0
    except IndexError:
        return False


def program(seed):
    """(text of f, text of its twin)."""
    rnd = random.Random(seed)
    views = {}
    f = ["def f(x):", "    y = np.reshape(x, (3, 4)) * 1.0", "    acc = 0.0"]
    t = ["def twin(x):", "    y = anp.reshape(x, (3, 4)) * 1.0", "    acc = 0.0"]

    def take(name, source=None):
        if source is None:
            text, index = rnd.choice(VIEWS)
            f.append(f"    {name} = y[{text}]")
            views[name] = P[index]
        else:
            text, index = rnd.choice(WRITES[views[source].ndim])
            if np.ndim(views[source][index]) == 0 or not _picks(views[source], index):
                text, index = "1:", np.s_[1:]
                if views[source].ndim != 1:
                    text, index = "...", np.s_[...]
            f.append(f"    {name} = {source}[{text}]")
            views[name] = views[source][index]

    take("v")
    for _ in range(rnd.randint(3, 6)):
        c = round(rnd.uniform(-1.5, 1.5), 2)
        kind = rnd.choice(["item", "item", "whole", "base", "read", "view", "view2"])
        name = rnd.choice(sorted(views))
        here = views[name]
        if kind == "view" and "w" not in views:
            take("w")
            continue
        if kind == "view2" and "u" not in views and views["v"].ndim >= 1 and \
                views["v"].size > 1:
            take("u", "v")
            continue
        if kind == "item":
            fits = [(text, index) for text, index in WRITES[here.ndim] if _picks(here, index)]
            if not fits:
                continue
            text, index = rnd.choice(fits)
            at = _at(here[index])
            op = rnd.choice(["=", "+=", "*="])
            if op == "=":
                f.append(f"    {name}[{text}] = np.sin({name}[{text}]) * {c}")
                t.append(f"    y = put(y, {at}, anp.sin(y[{at}]) * {c})")
            elif op == "+=":
                f.append(f"    {name}[{text}] += {c} * acc")
                t.append(f"    y = put(y, {at}, y[{at}] + {c} * acc)")
            else:
                f.append(f"    {name}[{text}] *= {c}")
                t.append(f"    y = put(y, {at}, y[{at}] * {c})")
        elif kind == "whole":
            at = _at(here)
            f.append(f"    {name}[...] += {c} * np.tanh({name})")
            t.append(f"    y = put(y, {at}, y[{at}] + {c} * anp.tanh(y[{at}]))")
        elif kind == "base":
            i, j = rnd.randrange(3), rnd.randrange(4)
            f.append(f"    y[{i}, {j}] += {c} * acc + y[{(i + 1) % 3}, {j}]")
            t.append(f"    y = put(y, ({i}, {j}), y[{i}, {j}] + {c} * acc + "
                     f"y[{(i + 1) % 3}, {j}])")
        else:
            at = _at(here)
            f.append(f"    acc = acc + np.sum(np.tanh({name}) * {name}) + {c} * np.sum(y)")
            t.append(f"    acc = acc + anp.sum(anp.tanh(y[{at}]) * y[{at}]) + {c} * anp.sum(y)")
    last = rnd.choice(sorted(views))
    f.append(f"    return acc + np.sum(y ** 2) * 0.1 + np.sum(np.cos({last}))")
    t.append(f"    return acc + anp.sum(y ** 2) * 0.1 + anp.sum(anp.cos(y[{_at(views[last])}]))")
    return "\n".join(f) + "\n", "\n".join(t) + "\n"


def _load(seed):
    text, twin = program(seed)
    name = f"<views20 family {seed}>"
    linecache.cache[name] = (len(text), None, text.splitlines(True), name)
    module = types.ModuleType("views20_family")
    module.np, module.anp, module.put = np, anp, put
    exec(compile(text, name, "exec"), module.__dict__)  # noqa: S102
    exec(compile(twin, name + " twin", "exec"), module.__dict__)  # noqa: S102
    return module.f, module.twin, text


@pytest.mark.parametrize("seed", sample(range(60), 4))
def test_family(seed):
    f, twin, text = _load(seed)
    x = np.linspace(-0.9, 1.1, 12) + 0.05 * seed % 0.3
    value = f(x.copy())
    assert np.allclose(twin(x), value), text
    expect = autograd.grad(twin)(x)
    assert np.allclose(central(f, x), expect, rtol=1e-5, atol=1e-5), text
    v, g = srcad.value_and_grad(f)(x)
    assert np.allclose(v, value), text
    assert np.allclose(g, expect, rtol=1e-8, atol=1e-9), text
    d = np.random.RandomState(seed).randn(12)
    v, tangent = srcad.jvp(f, (x,), (d,))
    assert np.allclose(tangent, np.sum(expect * d)), text
    if seed % 5 == 0:
        h = autograd.hessian(twin)(x)
        assert np.allclose(srcad.hessian(f, mode="fwd")(x), h, rtol=1e-7, atol=1e-8), text
        assert np.allclose(srcad.hessian(f, mode="rev")(x), h, rtol=1e-7, atol=1e-8), text
