"""The generated code of a for loop, a while loop and an if inside a loop, reviewed by hand
once and locked here (regenerate a golden file only after reading the new code)."""

import math
import pathlib

import golden_cases as gc
import pytest
from srcad.check import numerical_grad
from test_robustness import load_module

import srcad

GOLDEN = pathlib.Path(__file__).parent / "golden"
CASES = [(gc.scalar_loop, (0.5, 10)), (gc.taylor_exp, (0.5,)), (gc.clipped_sum, (0.7, 4))]


@pytest.mark.parametrize(("func", "args"), CASES, ids=[c[0].__name__ for c in CASES])
def test_generated_loop_code_is_locked(func, args):
    text = srcad.source(srcad.grad(func), *args)
    assert text == (GOLDEN / f"grad_{func.__name__}.py.txt").read_text()


@pytest.mark.parametrize(("func", "args"), CASES, ids=[c[0].__name__ for c in CASES])
def test_golden_functions_are_right(func, args):
    assert srcad.grad(func)(*args) == pytest.approx(numerical_grad(func, args, 0), rel=1e-7)


def test_loop_saves_only_what_the_backward_sweep_reads():
    text = srcad.source(srcad.grad(gc.scalar_loop), 0.5, 10)
    assert "stack.append(x_1)" in text  # x, for cos(x); nothing else per iteration
    assert text.count(".append(") == 1


def target_in_derivative(x, n):
    for i in range(n):
        x = x * math.sin(i * x + 1.0)
    return x


def while_result_saved(x):
    y = x
    while y < 10.0:
        y = y * y + 1.0
    return y


def test_loop_walks_its_stack_backwards_with_the_target_on_it():
    """A loop inside no other loop, whose body alone pushes, reads its stack with
    ``for ... in reversed(stack)``; the loop target, when the derivative reads it, rides along."""
    text = srcad.source(srcad.grad(target_in_derivative), 0.3, 4)
    header = next(line for line in text.splitlines() if "in reversed(stack):" in line)
    assert " i," in header or ", i " in header  # i is pushed and comes back off the stack
    assert ".pop()" not in text and "n_iter" not in text
    got = srcad.grad(target_in_derivative)(0.3, 4)
    assert got == pytest.approx(numerical_grad(target_in_derivative, (0.3, 4), 0), rel=1e-7)


def test_a_while_loop_needs_no_trip_counter():
    text = srcad.source(srcad.grad(gc.taylor_exp), 0.5)
    assert "n_iter" not in text and "reversed(stack)" in text


def test_value_and_grad_keeps_the_value_the_backward_loop_rebinds():
    value, grad = srcad.value_and_grad(while_result_saved)(1.5)
    assert value == while_result_saved(1.5)
    assert grad == pytest.approx(numerical_grad(while_result_saved, (1.5,), 0), rel=1e-7)


def test_an_emptied_forward_branch_goes_when_the_backward_sweep_tests_the_flag():
    """The forward ``if t: pass`` (its work all dead in grad) goes: the backward sweep's
    ``if`` still evaluates the test (``t_1 = x > 1.0`` used once, written into it since
    quality30), so an array there would still raise."""
    df = srcad.grad(gc.branch_after_loop, wrt="x")
    text = srcad.source(df, 1.5, 3)
    ifs = [line.strip() for line in text.splitlines() if line.strip().startswith("if ")]
    assert "pass" not in text and ifs == ["if x > 1.0:"]
    for x in (0.5, 1.5):
        assert df(x, 3) == pytest.approx(numerical_grad(gc.branch_after_loop, (x, 3), 0))



def _branchy_loop(n_arms, body, folder):
    """``s`` summed in a loop whose ``if`` arms each add a term: the backward sweep's ``ds``
    passes through unchanged, so its SSA copies (``ds_3 = ds``, ``ds = ds_3``) must go."""
    arms = "".join(f"        {'if' if k == 0 else 'elif'} x > i + {k}:\n"
                   f"            s = s + {term}\n"
                   for k, term in enumerate(body[:n_arms]))
    text = (f"import numpy as np\n\n\ndef loop(x):\n    s = 0.0\n    for i in range(6):\n"
            f"{arms}        else:\n            s = s - np.sin(x) * i\n    return s\n")
    return load_module(folder, text, f"branchy_{n_arms}_{abs(hash(body))}").loop


@pytest.mark.parametrize("n_arms", [1, 2, 3])
@pytest.mark.parametrize("body", [("x * i", "x * x", "np.cos(x)"), ("x", "i * np.exp(x)", "x")])
def test_backward_branches_read_the_gradient_without_copies(n_arms, body, tmp_path):
    f = _branchy_loop(n_arms, body, tmp_path)
    df = srcad.grad(f)
    for x in (-0.5, 1.7, 2.6, 4.1):
        assert df(x) == pytest.approx(numerical_grad(f, (x,), 0), rel=1e-6, abs=1e-9)
    text = srcad.source(df, 1.7)
    backward = text.split("# backward")[1]
    assert "ds = " not in backward.replace("ds = 1.0", "")  # no copy back of the gradient


@pytest.mark.parametrize("n_arms", [1, 2, 3])
@pytest.mark.parametrize("body", [("x * i", "x * x", "np.cos(x)"), ("x", "i * np.exp(x)", "x")])
def test_forward_branches_write_the_loop_value_directly(n_arms, body, tmp_path):
    """SSA's join (``s_7 = s + x`` in each arm, ``s = s_7`` after the ``if``) reads as the
    loop a person writes: each arm updates ``s``; value and gradient unchanged."""
    f = _branchy_loop(n_arms, body, tmp_path)
    vg = srcad.value_and_grad(f)
    for x in (-0.5, 1.7, 2.6, 4.1):
        value, grad = vg(x)
        assert value == pytest.approx(f(x), rel=1e-14)
        assert grad == pytest.approx(numerical_grad(f, (x,), 0), rel=1e-6, abs=1e-9)
    forward = srcad.source(vg, 1.7).split("# backward")[0]
    assert "s = s_" not in forward and "pass" not in forward
    assert forward.count("s = s ") == n_arms + 1  # one update per arm
