"""A refusal made while a derivative runs names the user's innermost line that made the call,
through every level of generated code (place27): a generated family of programs places the
refusing call (``scipy.linalg.lu_solve`` of the factors of a stack of matrices, refused by the
runtime helper ``lu_pivots``) at different lines, inside a loop, a branch, a ``while``, a
callee, a callee's callee and a derivative called in the code (``srcad.grad(inner)``), and
takes ``grad``, ``jvp``, ``vjp``, ``hessian`` (forward over reverse, and reverse over reverse)
and ``jacobian`` of each: the error names the user's file and the refusing line, and
``called_from`` the user's line of the call further out (a callee's caller). Python's own
errors (NumPy's ``LinAlgError`` of the user's own call, the user's ``ValueError``) pass
unchanged, and a run-time check that names its line keeps it.
Imports numpy, pytest, srcad; scipy (skipped without it); tests' helpers.
"""

from __future__ import annotations

import numpy as np
import pytest

import srcad

pytest.importorskip("scipy.linalg")

from sampling import LONG  # noqa: E402
from test_merge25_operand_checks import Holder, Scaled  # noqa: E402
from test_place27_census import load  # noqa: E402

REFUSED = "s = s + np.sum(sl.lu_solve(sl.lu_factor(A), b))  # HERE"

#: context -> the program (REFUSED at {R}, {PAD} lines of padding before it; CALL marks the
#: line of the call further out that reached it, where there is one)
CONTEXTS = {
    "straight": """
def f(A, b):
    s = np.sum(A)
{PAD}    {R}
    return s
""",
    "loop and branch": """
def f(A, b):
    s = 0.0
    for i in range(3):
{PAD}        if i > 1:
            {R}
        else:
            s = s + np.sum(A) * i
    return s
""",
    "while": """
def f(A, b):
    s = 0.0
    k = 0
    while k < 2:
        k = k + 1
{PAD}        {R}
    return s
""",
    "callee": """
def h(A, b):
    s = 0.0
{PAD}    {R}
    return s


def f(A, b):
    t = np.sum(A)
    return t + 2.0 * h(A, b)  # CALL
""",
    "callee in a loop (written into its caller)": """
def h(A, b):
    s = 0.0
{PAD}    {R}
    return s


def f(A, b):
    t = 0.0
    for i in range(2):
        t = t + h(A, b) * (i + 1)  # CALL
    return t
""",
    "callee's callee": """
def h2(A, b):
    s = np.sum(b)
{PAD}    {R}
    return s


def h(A, b):
    return h2(A, b) * 3.0  # CALL


def f(A, b):
    return np.sum(A) + h(A, b)  # CALL
""",
    "derivative in the code": """
def inner(A, b):
    s = 0.0
{PAD}    {R}
    return s


def f(A, b):
    return np.sum(srcad.grad(inner)(A, b) * A)  # CALL
""",
}

MODES = {
    "grad": lambda f, A, b: srcad.grad(f)(A, b),
    "jvp": lambda f, A, b: srcad.jvp(f, (A, b), (A, b)),
    "vjp": lambda f, A, b: srcad.vjp(f, A, b)[1](1.0),
    "hessian": lambda f, A, b: srcad.hessian(f)(A, b),
    "hessian rev": lambda f, A, b: srcad.hessian(f, mode="rev")(A, b),
    "jacobian fwd": lambda f, A, b: srcad.jacobian(f, mode="fwd")(A, b),
}

FAMILY = [(context, mode, pad) for context in CONTEXTS for mode in MODES for pad in (0, 3)]
#: the default run: each context once, in a first-order mode (second order costs a second or
#: more a case to transform; hvp below takes one); the long run takes the whole family
CHEAP = ["grad", "jvp", "vjp", "jacobian fwd"]
DEFAULT = [(context, CHEAP[i % len(CHEAP)], 3 * (i % 2)) for i, context in enumerate(CONTEXTS)]


def _program(context, pad):
    text = CONTEXTS[context]
    after = text.split("{PAD}")[1]
    indent = after[:len(after) - len(after.lstrip())]
    padding = "".join(f"{indent}c{k} = {k}.5\n" for k in range(pad))
    return "import srcad\n\n\n" + text.replace("{PAD}", padding).replace("{R}", REFUSED)


def _stack():
    a = np.random.default_rng(1).normal(size=(2, 3, 3))
    return a @ np.swapaxes(a, -1, -2) + 3.0 * np.eye(3), np.random.default_rng(2).normal(
        size=(2, 3, 2))


@pytest.mark.parametrize("context, mode, pad", FAMILY if LONG else DEFAULT)
def test_the_refusing_line_is_named_through_every_level(context, mode, pad, tmp_path):
    module, path, line = load(tmp_path, _program(context, pad))
    lines = open(path).read().splitlines()
    calls = [(path, i) for i, t in enumerate(lines, 1) if "# CALL" in t]
    A, b = _stack()
    if context != "derivative in the code":
        module.f(A, b)  # SciPy takes the stack: only the derivative is refused
    with pytest.raises(srcad.MissingRuleError, match="lu_factor/lu_solve of a stack") as info:
        MODES[mode](module.f, A, b)
    e = info.value
    assert (e.filename, e.lineno) == (path, line), str(e)
    assert REFUSED in e.construct
    if calls and not (context == "derivative in the code" and mode == "vjp"):
        # the caller's line (a callee's callee written into its caller: the outer one's)
        assert e.called_from in calls, str(e)
        assert f"reached from {path}, line {e.called_from[1]}" in str(e)


def test_a_derivative_called_in_the_users_plain_code_names_its_line(tmp_path):
    """vjp runs the function itself first: ``srcad.grad(inner)`` called there refuses at the
    line of ``inner``, and Python's traceback shows the user's own line that called it."""
    module, path, line = load(tmp_path, _program("derivative in the code", 1))
    with pytest.raises(srcad.MissingRuleError) as info:
        srcad.vjp(module.f, *_stack())
    assert (info.value.filename, info.value.lineno, info.value.called_from) == (
        path, line, None)


PYTHONS = """
def chol(A):
    return np.sum(np.linalg.cholesky(A))  # HERE


def mine(x):
    if np.sum(x) > 10.0:
        raise ValueError("too large")  # HERE
    return np.sum(x ** 2)
"""


def test_pythons_own_errors_pass_unchanged(tmp_path):
    module, _, _ = load(tmp_path, PYTHONS)
    bad = -np.eye(2)  # not positive definite: NumPy's LinAlgError, in the user's own call
    for run in (lambda: srcad.grad(module.chol)(bad),
                lambda: srcad.jvp(module.chol, (bad,), (bad,))):
        with pytest.raises(np.linalg.LinAlgError) as info:
            run()
        assert not isinstance(info.value, srcad.SrcadError)
    x = np.full(3, 5.0)
    for run in (lambda: srcad.grad(module.mine)(x), lambda: srcad.jvp(module.mine, (x,), (x,)),
                lambda: srcad.hessian(module.mine)(x)):
        with pytest.raises(ValueError, match="^too large$") as info:
            run()
        assert type(info.value) is ValueError


CALLEE = """
def h(A, b):
    u = A * 1.0
    return np.sum(sl.lu_solve(sl.lu_factor(u), b))  # HERE
"""

CALLER = """
from MODULE import h


def f(A, b):
    s = 0.0
    for i in range(2):
        s = s + h(A, b) * i  # HERE
    return s
"""


def test_a_callee_of_another_file_written_into_its_caller_names_its_own_file(tmp_path):
    """A small callee called in a loop is written into the caller's code
    (:mod:`srcad.backend.inline`): its statements name the callee's file and line, and the
    call's."""
    callee, callee_path, line = load(tmp_path, CALLEE)
    caller, caller_path, call = load(tmp_path, CALLER.replace("MODULE", callee.__name__))
    A, b = _stack()
    g = srcad.grad(caller.f)
    g(A[0], b[0])
    assert "def h_fwd" in srcad.source(g) and "h_bwd" not in srcad.source(g)  # written in
    for run in (lambda: g(A, b), lambda: srcad.jvp(caller.f, (A, b), (A, b))):
        with pytest.raises(srcad.MissingRuleError) as info:
            run()
        assert (info.value.filename, info.value.lineno) == (callee_path, line)
        assert info.value.called_from == (caller_path, call)


def _scaled_sum(w, m):
    return np.sum(m.v * w)  # the run-time operand check's line


def _holding(w, m):
    return 2.0 * _scaled_sum(w, m)


def test_a_run_time_check_that_names_its_line_keeps_it():
    w = np.array([0.3, -0.7, 1.1])
    srcad.grad(_holding)(w, Holder(np.ones(3)))
    with pytest.raises(srcad.SrcadError, match="object of your class Scaled") as info:
        srcad.grad(_holding)(w, Holder(Scaled(2.0)))
    assert (info.value.filename, info.value.lineno) == (
        __file__, _scaled_sum.__code__.co_firstlineno + 1)
    assert info.value.called_from is None  # placed by the check, not by the stack


VECTOR = """
def f(A, b):
    y = sl.lu_solve(sl.lu_factor(A), b)  # HERE
    return np.ravel(y) * 2.0


def s(A, b):
    return np.sum(f(A, b) ** 2)  # CALL
"""


def test_jacobians_of_a_vector_function_and_hvp_name_the_line(tmp_path):
    module, path, line = load(tmp_path, VECTOR)
    call = line + 5
    A, b = _stack()
    runs = [(lambda: srcad.jacobian(module.f)(A, b), None),
            (lambda: srcad.jacobian(module.f, mode="fwd")(A, b), None),
            (lambda: srcad.hvp(module.s)(A, b, A), (path, call))]
    for run, called_from in runs if LONG else runs[1:]:
        with pytest.raises(srcad.MissingRuleError) as info:
            run()
        assert (info.value.filename, info.value.lineno, info.value.called_from) == (
            path, line, called_from)
