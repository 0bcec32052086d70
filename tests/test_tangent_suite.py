"""The Tangent test-function harness (tools/tangent_suite.py) judges correctly.

Its checker must pass srcad's right derivatives, call a wrong one WRONG (a rule registered
wrong on purpose here) and a refusal REFUSED, and its references are finite differences and
autograd, never srcad. The end-to-end run needs the fetched Tangent mirror and skips without it.
"""

import os
import sys

import autograd.numpy as anp
import numpy as np
import pytest

import srcad

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "tools"))
import tangent_suite as suite  # noqa: E402


@srcad.extend.defvjp(x="g * 3.0 * x", jvp={"x": "t * 3.0 * x"})  # wrong: d(x*x) is 2x
def bad_square(x):
    return x * x


def good(a, b):
    return np.sin(a) * b + a * a


def good_ag(a, b):
    return anp.sin(a) * b + a * a


def uses_bad(a):
    return bad_square(a) + a


def uses_bad_ag(a):
    return a * a + a


def writes_argument(x):
    x[0] = x[1] * 2.0
    return np.sum(x)


def vector_out(x):
    return np.sin(x) * 2.0


def vector_out_ag(x):
    return anp.sin(x) * 2.0


def outcomes(f, fa, args):
    return {stage: v[0] for stage, v in suite.check(f, fa, args,
                                                     np.random.default_rng(1)).items()}


def test_right_derivatives_pass_every_stage():
    got = outcomes(good, good_ag, [0.7, 1.3])
    assert got == {"reverse": "PASS", "forward": "PASS", "hessian fwd": "PASS",
                   "hessian rev": "PASS"}


def test_a_wrong_rule_is_called_wrong():
    got = outcomes(uses_bad, uses_bad_ag, [0.7])
    assert got["reverse"] == "WRONG" and got["forward"] == "WRONG"


def test_a_write_into_the_argument_is_checked_on_copies():
    """(session 36) a write into the argument is differentiated at the values it held when
    called: the checks give every call its own copies (the function changes them)."""
    got = outcomes(writes_argument, writes_argument, [np.array([1.0, 2.0, 3.0])])
    assert got["reverse"] == "PASS" and got["forward"] == "PASS", got


def test_a_vector_output_goes_through_vjp():
    got = outcomes(vector_out, vector_out_ag, [np.array([0.1, 0.5, 0.9])])
    assert got == {"reverse": "PASS", "forward": "PASS"}


def test_outside_the_domain_is_skipped():
    with np.errstate(invalid="ignore"):
        got = outcomes(lambda a: np.arccos(a), None, [1.5])
    assert got == {"all": "SKIP"}


@pytest.mark.skipif(not os.path.isdir(suite.DEFAULT_REPO),
                    reason="needs the Tangent mirror (fetch github:google/tangent)")
def test_tangent_functions_end_to_end():
    results = suite.run(suite.DEFAULT_REPO)
    outcomes = {name: r["outcome"] for name, r in results.items()}
    assert not [n for n, o in outcomes.items() if o in ("WRONG", "CRASH")]
    assert sum(o == "PASS" for o in outcomes.values()) >= 90
