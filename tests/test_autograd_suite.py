"""The autograd differential-testing harness (tools/autograd_suite.py) judges correctly.

The harness's checker must pass srcad's right derivatives, call a wrong one WRONG (a rule
registered wrong on purpose here), a refusal REFUSED, and it must never use srcad for its
reference. The end-to-end test needs the autograd mirror and skips without it.
"""

import functools
import json
import operator
import os
import subprocess
import sys

import numpy as np
import pytest

import srcad

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "tools"))
import autograd_shim as shim  # noqa: E402

MIRROR = "/work/.mirror/HIPS+autograd/repo"


@srcad.extend.defvjp(x="g * 3.0 * x")  # wrong on purpose: the derivative of x * x is 2 * x
def bad_square(x):
    return x * x


def good(x, y):
    return np.sum(np.sin(x) * y)


def uses_bad(x):
    return np.sum(bad_square(x))


def refused(x):
    for _ in range(1):  # an import in a loop: refused (docs/supported-python.md)
        import math

    return np.sum(x) * math.pi


def fails(x):
    raise ValueError("not srcad's doing")


@pytest.fixture(autouse=True)
def recorder(tmp_path):
    with open(tmp_path / "items.jsonl", "w") as stream:
        shim.RECORDER = shim.Recorder("test", stream)
        yield
    shim.RECORDER = None


def outcome_of(fun, *args, argnum=0, modes=None, order=2, **kwargs):
    try:
        shim.run_check(fun, argnum, args, kwargs, modes, order)
    except shim.Checked as e:
        return e.outcome
    except Exception as e:  # noqa: BLE001 - the harness's classifier is under test
        return shim.classify(e)
    return {"outcome": "PASS"}


X = np.array([0.3, -0.7, 1.1])

CASES = [  # function, arguments, options, expected outcome, expected failing stage
    (good, (X, X + 1.0), {"argnum": (0, 1)}, "PASS", None),
    (good, (X, 2.0), {"argnum": 1, "order": 1}, "PASS", None),
    (np.tanh, (X,), {}, "PASS", None),
    (operator.mul, (X, X), {"argnum": (0, 1)}, "PASS", None),
    (uses_bad, (X,), {"modes": ["rev"], "order": 1}, "WRONG", "rev:WRONG"),
    (refused, (X,), {"modes": ["rev"], "order": 1}, "REFUSED", "rev:REFUSED"),
    (fails, (X,), {}, "ERROR", None),
]


@pytest.mark.parametrize("fun, args, options, expected, stage", CASES,
                         ids=[f"{c[0].__name__}-{i}" for i, c in enumerate(CASES)])
def test_checker_outcomes(fun, args, options, expected, stage):
    result = outcome_of(fun, *args, **options)
    assert result["outcome"] == expected, result
    if stage:
        assert stage in result["stage"]


def test_refusal_names_the_error_class():
    result = outcome_of(refused, X, modes=["rev"], order=1)
    assert result["error_class"] == "UnsupportedSyntaxError"
    assert result["lineno"] == refused.__code__.co_firstlineno + 2  # the import in the loop


def test_exceptions_outside_srcad_are_not_srcad_bugs():
    try:
        raise KeyError("test code")
    except KeyError as e:
        assert shim.classify(e)["outcome"] == "ERROR"
    try:
        raise AssertionError("the test's own assert on srcad's result")
    except AssertionError as e:
        assert shim.classify(e)["outcome"] == "WRONG"


@pytest.mark.parametrize("scale", [0.5, 2.0, 5.0])
def test_wrong_rule_is_caught_at_any_scale(scale):
    assert outcome_of(uses_bad, scale * X, modes=["rev"], order=1)["outcome"] == "WRONG"


def test_reference_is_finite_differences_of_the_original():
    # the numeric directional derivative of sin at x along v is cos(x) * v
    v = np.array([1.0, 2.0, -1.0])
    got = shim.numeric_jvp(lambda xs: np.sin(xs[0]), (X,), (v,), 1e-4)
    assert np.allclose(got.real, np.cos(X) * v, atol=1e-9)
    # and the mixed second difference of x0 * x1**2 along (1, 0) and (0, 1) is 2 * x1
    second = shim.numeric_second(lambda xs: xs[0] * xs[1] ** 2, (1.5, 0.5), (1.0, 0.0),
                                 (0.0, 1.0), 1e-3)
    assert abs(second - 1.0) < 1e-8


def test_wrapper_source_is_readable():
    w = shim.Wrapper(functools.partial(np.sum, axis=0), 1, {"keepdims": True})
    assert w.expr == "np.sum(x0, axis=0, keepdims=True)"
    assert shim.Wrapper(operator.truediv, 2, {}).expr == "x0 / x1"
    fn = shim.Wrapper(np.linalg.det, 1, {}).function()
    assert "np.linalg.det(x0)" in fn.__srcad_suite_source__


def test_import_hook_maps_autograd_to_numpy_and_srcad():
    shim.install()
    try:
        import autograd
        import autograd.numpy as anp
        import autograd.numpy.random as npr
        from autograd.test_util import check_grads

        assert anp is np and npr is np.random and check_grads is shim.check_grads
        assert autograd.grad is shim.grad
        from autograd.core import vspace

        with pytest.raises(shim.HarnessSkip):
            float(vspace(1.0).inner_prod(1.0, 1.0))
        with pytest.raises(shim.HarnessUnsupported):
            autograd.holomorphic_grad(np.sin)(1.0)
    finally:
        shim.uninstall()
    assert not any(isinstance(f, shim.Finder) for f in sys.meta_path)


@pytest.mark.skipif(not os.path.exists(MIRROR), reason="no HIPS/autograd mirror")
def test_runs_a_file_of_the_mirror(tmp_path):
    out = tmp_path / "items.json"
    subprocess.run([sys.executable, os.path.join(ROOT, "tools", "autograd_suite.py"), MIRROR,
                    "--files", "test_scalar_ops.py", "--tests", "test_sin,test_sinc",
                    "--json", str(out), "--quiet", "--jobs", "1"], check=True,
                   capture_output=True, timeout=120)
    items = {i["item"]: i for i in json.load(open(out))["items"]}
    assert set(items) == {"test_sin", "test_sinc"}
    for item in items.values():
        assert item["outcome"] in shim.SEVERITY and item["file"] == "test_scalar_ops.py"
