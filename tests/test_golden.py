"""The generated code of a for loop, a while loop and an if inside a loop, reviewed by hand
once and locked here (regenerate a golden file only after reading the new code)."""

import pathlib

import golden_cases as gc
import pytest

import srcad
from srcad.check import numerical_grad

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
