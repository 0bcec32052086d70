"""srcad.compare: every engine gives the same gradient, and the result reads as a table."""

import math
import operator

import numpy as np
import pytest
from corpus.straight import seed_g, seed_y
from srcad.compare import ENGINES, Comparison, EngineResult, compare

FAST = ("tape", "finite differences")  # no torch or autograd import: keeps these tests quick


def smooth(x, y):
    return math.sin(x) * math.exp(y) + x / (1.0 + y * y)


def looped(x, n):
    s = 0.0
    for i in range(n):
        if s < 2.0:
            s = s + math.tanh(x * i)
        else:
            s = s * 0.5
    return s


def arrays(x, w):
    return np.sum(np.tanh(x) * w) + np.sum(x**2)


# a callable object with no Python source and no rule (a methodcaller): srcad refuses it, the
# tape runs it (it calls Var.__mul__). A class of the user's with a __call__ is differentiated:
# see tests/test_higher_order_python.py. (np.vectorize would convert the Var to an array, which
# the tape refuses: the gradient would be lost.)
SCALE = operator.methodcaller("__mul__", 2.0)


def calls_object(x):
    return SCALE(x) + 1.0


CASES = [
    (seed_y, (2.0, 1.0), (2.0, 5.0)),
    (seed_g, (2.0, 1.0), (-252 - 180 * (5 * (5 - 3 * 2.0) + 6), -1.0)),
    (smooth, (0.7, 0.3), None),
    (looped, (0.4, 5), None),
    (arrays, (np.array([0.1, -0.2, 0.3]), np.array([1.0, 2.0, 3.0])), None),
]


@pytest.mark.parametrize("f, args, expected", CASES, ids=[c[0].__name__ for c in CASES])
def test_srcad_agrees_with_tape_and_finite_differences(f, args, expected):
    c = compare(f, *args, repeat=0, engines=FAST)
    assert c.engines == ["srcad", *FAST]
    assert c.agree, str(c)
    assert c["tape"].max_diff <= 1e-12 * max(1.0, *(np.max(np.abs(g)) for g in c.grads("srcad")))
    for s, t in zip(c.grads("srcad"), c.grads("tape")):
        np.testing.assert_allclose(s, t, rtol=1e-12, atol=1e-12)
    assert c["srcad"].value == pytest.approx(f(*args))
    if expected is not None:
        assert c.grads("srcad") == pytest.approx(expected)


def test_wrt_defaults_to_the_float_arguments():
    c = compare(looped, 0.4, 5, repeat=0, engines=FAST)
    assert c.wrt == ("x",)
    assert isinstance(c.grads("tape")[0], float)


def test_wrt_by_name_and_position():
    assert compare(seed_y, 2.0, 1.0, wrt="w", repeat=0, engines=FAST).grads("srcad") == (5.0,)
    assert compare(seed_y, 2.0, 1.0, wrt=(1, 0), repeat=0,
                   engines=FAST).grads("srcad") == (5.0, 2.0)
    with pytest.raises(ValueError, match="names no parameter"):
        compare(seed_y, 2.0, 1.0, wrt="z")
    with pytest.raises(ValueError, match="unknown engine"):
        compare(seed_y, 2.0, 1.0, engines=("jax",))


def test_array_gradients_keep_their_shape():
    x, w = np.array([0.1, -0.2, 0.3]), np.array([1.0, 2.0, 3.0])
    c = compare(arrays, x, w, repeat=0, engines=FAST)
    dx, dw = c.grads("srcad")
    assert dx.shape == x.shape and dw.shape == w.shape
    np.testing.assert_allclose(dw, np.tanh(x))


def test_table_and_show(capsys):
    c = compare(seed_g, 2.0, 1.0, repeat=2, engines=FAST)
    assert capsys.readouterr().out == ""  # nothing printed unless asked
    text = str(c)
    assert "seed_g(a=2.0, o=1.0)" in text
    for column in ("engine", "value", "d/da", "d/do", "max |diff| to srcad", "per call"):
        assert column in text
    for label in ("srcad (generated)", "srcad.tape", "finite differences"):
        assert label in text
    assert "-432.0" in text and "47.0" in text
    assert "agrees with srcad" in text
    assert c["srcad"].per_call > 0 and c["tape"].first_call > 0
    compare(seed_y, 2.0, 1.0, repeat=0, engines=FAST, show=True)
    assert "seed_y(x=2.0, w=1.0)" in capsys.readouterr().out


def test_an_engine_failure_is_a_row_not_an_exception():
    c = compare(calls_object, 1.5, repeat=0, engines=FAST)
    assert not c["srcad"].ok and "MissingRuleError" in c["srcad"].error
    assert c.grads("tape") == (2.0,)
    assert not c.agree
    assert "srcad (generated): MissingRuleError" in str(c)
    with pytest.raises(RuntimeError, match="srcad failed"):
        c.grads("srcad")


def test_a_disagreement_is_flagged():
    c = Comparison("f", ["x"], (1.0,), ("x",), [
        EngineResult("srcad", "srcad (generated)", 1.0, (2.0,)),
        EngineResult("tape", "srcad.tape", 1.0, (2.5,)),
    ])
    c.results[1].max_diff = 0.5
    assert c.disagreeing == ["tape"] and not c.agree
    assert "DIFFERS" in str(c) and "DISAGREE with srcad: tape" in str(c)


@pytest.mark.parametrize("engine", ["torch", "autograd"])
def test_torch_and_autograd_run_the_same_plain_function(engine):
    pytest.importorskip(engine)
    for f, args, _ in CASES:
        c = compare(f, *args, repeat=0, engines=(engine,))
        assert c[engine].ok, c[engine].error
        assert c.agree, str(c)
    assert set(ENGINES) >= {"srcad", engine}
