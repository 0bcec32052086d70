"""Loops with many ``continue``s: the analysis reads them in as many passes as a loop without
one (the ``if`` a ``continue`` leaves nests the rest of the body in its arm; an ``if``'s phis
were joined before its arms were read, one pass more a level: 44 passes for 20 ``continue``s,
the first call quadratic in their number), and the gradients stay exact: central differences
(tests/twin_checks.central), srcad's tape, ``value_and_grad`` and the tangent, over a
generated family (more under ``SRCAD_LONG_PROPERTIES=1``). Speed itself is measured in
benchmarks/tidy_scaling.py, not here."""

import importlib.util
import itertools

import numpy as np
import pytest
from sampling import LONG
from twin_checks import close

import srcad
from srcad import tape
from srcad.analysis import analyse

_counter = itertools.count()


def _source(skips, seed, bound=0.9, returned="v0"):
    """``3 * skips`` statements in a loop, each reading the one or two before, a ``continue``
    after every third (``if v > bound``); the last value is carried to the next iteration,
    and ``returned`` returned (``"last"``: the last statement's value, which a ``continue`` in
    every iteration would leave unbound: the analysis joins it across every level)."""
    rng = np.random.default_rng(seed)
    lines = ["import math", "", "", "def f(x, y):", "    v0 = x * y",
             "    for k in range(3):"]
    n = 3 * skips
    for i in range(1, n + 1):
        a, b = f"v{i - 1}", f"v{max(i - 3, 0)}" if i % 2 else "x"
        op = ("math.sin({a}) * 0.5 + {b} * 0.25", "{a} * 0.9 + math.tanh({b}) * 0.1",
              "{a} * {b} * 0.3 + y * 0.01", "math.cos({a} - {b}) * 0.7")[int(rng.integers(4))]
        lines.append(f"        v{i} = " + op.format(a=a, b=b))
        if i % 3 == 0 and i < n:
            lines += [f"        if v{i} > {bound}:", "            continue"]
    lines += [f"        v0 = v{n}", f"    return {f'v{n}' if returned == 'last' else 'v0'}"]
    return "\n".join(lines) + "\n"


def _load(tmp_path, text):
    name = f"quality33_continues_{next(_counter)}"
    path = tmp_path / f"{name}.py"
    path.write_text(text)
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module.f


def _check(f, x, y, h=1e-6):
    """grad against central differences and the tape, value_and_grad, the tangent."""
    g = srcad.grad(f, wrt=(0, 1))(x, y)
    fd = ((f(x + h, y) - f(x - h, y)) / (2 * h), (f(x, y + h) - f(x, y - h)) / (2 * h))
    assert close(np.array(g), np.array(fd), 1e-5), (g, fd)
    assert close(np.array(g), np.array([tape.grad(f, wrt=k)(x, y) for k in (0, 1)]), 1e-12)
    value, g2 = srcad.value_and_grad(f, wrt=(0, 1))(x, y)
    assert close(value, f(x, y), 1e-14) and close(np.array(g2), np.array(g), 1e-14)
    _, tangent = srcad.jvp(f, (x, y), (0.5, -1.0))
    assert close(tangent, 0.5 * g[0] - g[1], 1e-10)


def _passes(f, args, monkeypatch):
    """How many times the analysis of ``f``'s gradient compares its state (once a pass)."""
    count = [0]
    state = analyse.lists.state

    def counted(*args):
        count[0] += 1
        return state(*args)

    with monkeypatch.context() as patch:
        patch.setattr(analyse.lists, "state", counted)
        srcad.clear_cache()
        srcad.grad(f)(*args)
    return count[0]


def test_the_analysis_passes_do_not_grow_with_the_continues(tmp_path, monkeypatch):
    few = _passes(_load(tmp_path, _source(1, 0, 5.0, "last")), (0.2, 0.3), monkeypatch)
    many = _passes(_load(tmp_path, _source(8, 0, 5.0, "last")), (0.2, 0.3), monkeypatch)
    assert many == few, (few, many)


@pytest.mark.parametrize("skips", [2, 5])
def test_gradients_of_loops_with_continues(tmp_path, skips):
    rng = np.random.default_rng(33 + skips)
    for seed in range(4 if LONG else 1):
        f = _load(tmp_path, _source(skips, seed))
        for _ in range(6 if LONG else 2):
            _check(f, *rng.uniform(-1.2, 1.2, 2))
