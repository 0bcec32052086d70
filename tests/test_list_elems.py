"""Element kinds of list arguments carried into callees (``srcad.analysis.elems``).

A callee taking a list (``predict(main, state)`` with ``state`` a list of arrays) is
specialised on the kind of the list's elements when the caller knows it for certain: its
code then adds array gradients with ``+`` instead of the generic ``add``. The programs below
hand callees lists of arrays, of numbers, of both, lists a callee returned, lists joined at
a loop with lists of other kinds, and lists a callee appends to; every gradient is checked
against autograd and finite differences, and the facts (certain or not, the cache key) are
checked directly. ``replaced`` and ``branched`` (at n = 2) were wrong gradients before (the
phi joined only the lists whose contents it saw, so an item that is an array was taken for a
number).
"""

import itertools

import autograd
import autograd.numpy as anp
import numpy as np
import pytest
from srcad.check import numerical_grad

import srcad
from srcad import pipeline
from srcad.analysis import elems
from srcad.analysis.analyse import Analysis
from srcad.core.kinds import ARRAY, SCALAR


def _make(npm):
    def step(state, x):
        out = []
        for i in range(len(state)):
            out.append(state[i] * x + npm.sin(state[i]))
        return x * 2.0, out

    def arrays(x, n):  # a list of arrays built here, then the callee's result
        layers = [x * 1.0, npm.cos(x)]
        total = 0.0
        for _ in range(n):
            y, layers = step(layers, x)
            total = total + npm.sum(y * layers[0]) + npm.sum(layers[1])
        return total

    def numbers(x, n):  # a list of numbers (x a vector: its sum)
        s = npm.sum(x)
        layers = [s, s * s]
        total = 0.0
        for _ in range(n):
            y, layers = step(layers, s)
            total = total + y * layers[0] + layers[1]
        return total

    def both(x, n):  # a number and an array in one list: no element kind
        layers = [npm.sum(x), x * 3.0]
        total = 0.0
        for _ in range(n):
            y, layers = step(layers, x)
            total = total + npm.sum(y * layers[0]) + npm.sum(layers[1])
        return total

    def switched(x, n):  # numbers first, then the callee's arrays: joined at the loop
        layers = [npm.sum(x), npm.sum(x * x)]
        total = 0.0
        for _ in range(n):
            y, layers = step(layers, x)
            total = total + npm.sum(layers[0] * layers[1])
        return total

    def concatenated(x, n):  # numbers first, then a list made by + (contents unseen)
        s = npm.sum(x)
        layers = [s, s * 2.0]
        total = 0.0
        for _ in range(n):
            y, out = step(layers, s)
            total = total + npm.sum(y * out[0]) + npm.sum(out[1])
            layers = out[:1] + [x * 1.0]
        return total

    def replaced(x, n):  # the caller's own reads of a list the loop replaces (made by +)
        s = npm.sum(x)
        layers = [s, s * 2.0]
        total = 0.0
        for _ in range(n):
            a = layers[0]
            total = total + npm.sum(a * a) + npm.sum(a * layers[1])
            layers = [layers[1]] + [x * 1.0]
        return total

    def branched(x, n):  # the same through a branch's phi
        s = npm.sum(x)
        layers = [s, s * 2.0]
        if n > 1:
            layers = [layers[1]] + [x * 1.0]
        b = layers[1]
        return npm.sum(b * b) + npm.sum(layers[0] * b)

    def grow(state, v):
        state = list(state)
        state.append(v)
        return state

    def appended(x, n):  # a callee returns a list of arrays with a number appended
        layers = [x * 2.0]
        layers = grow(layers, npm.sum(x))
        total = 0.0
        for _ in range(n):
            y, layers = step(layers, x)
            total = total + npm.sum(y) + npm.sum(layers[0]) * layers[1] * 0.5
        return npm.sum(total)

    return {"arrays": arrays, "numbers": numbers, "both": both, "switched": switched,
            "concatenated": concatenated, "replaced": replaced, "branched": branched,
            "appended": appended}


PROGRAMS = _make(np)
A_PROGRAMS = _make(anp)
CASES = list(itertools.product(sorted(PROGRAMS), (1, 3), (1, 2)))


@pytest.mark.parametrize(("program", "size", "n"), CASES,
                         ids=[f"{p}-{s}-{n}" for p, s, n in CASES])
def test_list_elems_gradients(program, size, n):
    x = np.random.default_rng(size * 10 + n).normal(size=size) * 0.5
    f = PROGRAMS[program]
    got = srcad.grad(f)(x, n)
    want = autograd.grad(A_PROGRAMS[program])(x, n)
    np.testing.assert_allclose(got, want, rtol=1e-10, atol=1e-10)
    np.testing.assert_allclose(got, numerical_grad(f, (x, n), wrt=0), rtol=1e-5, atol=1e-7)


def _analysis(f):
    fn, _ = pipeline.to_ssa(f)
    return Analysis(fn, {"x": ARRAY, "n": SCALAR}, (), param_ranks={"x": 1},
                    callees=pipeline.CALLEES)


def _certain(f):
    """The element kinds certain in ``f``'s lists named ``layers...``."""
    an = _analysis(f)
    return {elems.certain(an, n) for n in an.kinds if n.startswith("layers")}


def test_certain_element_kinds():
    """Arrays, numbers: certain; a list of both, a loop joining numbers with arrays, a list
    a callee appended to: not (so the callee is not specialised on them)."""
    assert _certain(PROGRAMS["arrays"]) == {ARRAY}
    assert _certain(PROGRAMS["numbers"]) == {SCALAR}
    assert _certain(PROGRAMS["both"]) == {None}
    assert None in _certain(PROGRAMS["switched"])
    assert None in _certain(PROGRAMS["appended"])
    assert None in _certain(PROGRAMS["concatenated"])
    assert None in _certain(PROGRAMS["replaced"])


def _step_call(f):
    """The kinds ``f``'s analysis gives its call of ``step`` (what the split is keyed on)."""
    from srcad.core import ir

    an = _analysis(f)
    for stmt in ir.walk(an.fn.body):
        value = getattr(stmt, "value", None)
        if isinstance(value, ir.Prim) and getattr(value.fn, "__name__", "") == "step":
            return an._user_call(value)
    raise AssertionError("no call of step")


def test_element_kinds_are_in_the_key():
    """The callee is keyed on its list argument's element kind: lists of arrays and of
    numbers get two forward/backward pairs; a list of both is keyed on no element kind."""
    keys = {p: _step_call(PROGRAMS[p]) for p in ("arrays", "numbers", "both")}
    assert keys["arrays"][1][elems.ELEMS] == (("state", ARRAY),)
    assert keys["numbers"][1][elems.ELEMS] == (("state", SCALAR),)
    assert elems.ELEMS not in keys["both"][1]
    made = [pipeline.CALLEES.split(fn, ["state", "x"], kinds, arity, ranks)
            for fn, kinds, arity, ranks in keys.values()]
    assert len({id(m) for m in made}) == 3
