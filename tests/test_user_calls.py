"""One predicate decides which calls are calls of a function of yours that srcad reads and
differentiates, and one binder binds them (srcad/analysis/user_calls.py): every analysis pass
and both sweeps ask them, so no two can disagree (a disagreement is a wrong gradient: one pass
reading a function's code while another applies its rule, as copy.copy once was).

Checked three ways: no pass or sweep decides on its own (the source is scanned); the
predicate's answer for a family of callees; and, for a program around each member of that
family, the gradient in reverse mode, the derivative in forward mode and the second
derivative against central differences and the reference tape, or a SrcadError."""

import ast
import copy
import functools
import math
import pathlib

import numpy as np
import pytest
from call_checks import check_gradient, check_second_derivative, close, family
from srcad.check import numerical_grad

import srcad
from srcad.analysis.user_calls import bind_call, default_atom, is_user_call, user_callee
from srcad.core import ir

ROOT = pathlib.Path(srcad.__file__).parent


def test_no_pass_decides_on_its_own():
    """In srcad/analysis and srcad/transform only user_calls.py asks is_user_function, and
    binds a call of a user function (a derivative's call binds with functions.bind too)."""
    found = []
    for path in sorted((ROOT / "analysis").glob("*.py")) + sorted(
            (ROOT / "transform").glob("*.py")):
        if path.name == "user_calls.py":
            continue
        tree = ast.parse(path.read_text())
        for fn in ast.walk(tree):
            if not isinstance(fn, (ast.FunctionDef, ast.AsyncFunctionDef)):
                continue
            for node in ast.walk(fn):
                if isinstance(node, ast.Attribute) and node.attr == "is_user_function" or \
                        isinstance(node, ast.Name) and node.id == "is_user_function":
                    found.append(f"{path.name}:{node.lineno} is_user_function")
                if isinstance(node, ast.Attribute) and node.attr == "bind" and isinstance(
                        node.value, ast.Name) and node.value.id == "functions" and \
                        "derivative" not in fn.name:
                    found.append(f"{path.name}:{node.lineno} functions.bind in {fn.name}")
    assert not found


# ---------------------------------------------------------------- the family of callees


def sq(t):
    return t * t


def ruled(u):
    return u * u


srcad.extend.defvjp(ruled, "u", u="g * 2.0 * u", jvp={"u": "2.0 * u * t"})


def constant_of(t):
    return float(round(t))


srcad.extend.nondiff(constant_of)


def triple(fn):
    @functools.wraps(fn)
    def wrapper(t):
        return 3.0 * fn(t)
    return wrapper


@triple
def tripled(t):
    return t * t


def twice(*args):
    return args[0] * 2.0 + args[1]


def keyed(**kw):
    return kw["a"] * kw["b"]


def scaled(t, c=2.5):
    return c * t * t


def kwonly(t, *, c=1.5):
    return c * math.sin(t)


def complex_default(t, c=1j):
    return (t * c * c).real  # -t


class Box:
    def __init__(self, k):
        self.k = k

    def m(self, t):
        return self.k * t * t

    @staticmethod
    def s(t):
        return t * t * t

    @classmethod
    def c(cls, t):
        return 2.0 * t * t


BOX = Box(1.5)
LAM = lambda t: t * t  # noqa: E731 - a lambda is one of the callees asked about
PART = functools.partial(scaled, c=0.5)


@pytest.mark.parametrize("fn, expected", [
    (sq, True), (tripled, True), (twice, True), (keyed, True), (LAM, True),
    (Box.s, True), (constant_of, True),  # read for what it returns; the sweeps take it as 0
    (ruled, False), (copy.copy, False), (copy.deepcopy, False),  # a rule's, in every form
    (PART, False), (BOX.m, False), (Box.c, False),  # rewritten by the front end first
    (abs, False), (max, False), (math.sin, False), (np.sin, False), (np.sum, False),
    (srcad.grad(sq), False),  # a derivative: its generated code, by derivative_call
    (ir.Method("append"), False), (ir.Attr("shape"), False), (ir.BUILD_LIST, False),
])
def test_the_predicate(fn, expected):
    assert user_callee(fn) is expected
    assert is_user_call(ir.Prim(fn, [ir.Var("x")], {})) is expected


def test_the_binder():
    x, y = ir.Var("x"), ir.Var("y")
    kinds = {"x": "scalar", "y": "array"}.get
    call = bind_call(ir.Prim(twice, [x, y], {}), lambda a: kinds(a.name))
    assert call.arity.items == ("args_0", "args_1") and call.kinds == {
        "args_0": "scalar", "args_1": "array"}
    assert all(default_atom(a) is a for a in call.arguments.values())  # the caller's atoms
    call = bind_call(ir.Prim(complex_default, [x], {}), lambda a: "scalar", lambda a: False)
    assert call.arguments["c"] == 1j and default_atom(call.arguments["c"]).value == 1j
    assert default_atom(object()) is None  # a default srcad cannot tell: no atom
    assert call.kinds[srcad.core.kinds.COMPLEX] == ("c",)  # a complex default is complex
    assert "c" not in call.passed
    assert bind_call(ir.Prim(sq, [x, y], {}), lambda a: "scalar") is None  # does not fit


# ---------------------------------------------------------------- a program around each


def p_plain(x):
    return sq(x) + sq(2.0 * x)


def p_ruled(x):
    return ruled(x) * x


def p_nondiff(x):
    return constant_of(x) * x + x


def p_copy(x):
    ys = copy.copy([x, x * x])
    return ys[0] * ys[1]


def p_deepcopy(x):
    ys = copy.deepcopy([x, x * x])
    return ys[0] + ys[1] * 3.0


def p_partial(x):
    return PART(x) + scaled(x)


def p_bound(x):
    return BOX.m(x) + Box.s(x) + Box.c(x)


def p_lambda(x):
    return LAM(x) * 2.0


def p_builtins(x):
    return abs(x - 3.0) + max(x, 0.5 * x) + math.sin(x)


def p_decorated(x):
    return tripled(x)


def p_star(x):
    return twice(x * x, x) + keyed(a=x, b=3.0)


def p_defaults(x):
    return scaled(x) + scaled(x, 0.5) + kwonly(x) + kwonly(x, c=-1.0)


def p_complex_default(x):
    return complex_default(x) * x


CASES, IDS = family([(p, (0.7,), 0, True) for p in (
    p_plain, p_ruled, p_nondiff, p_copy, p_deepcopy, p_partial, p_bound, p_lambda,
    p_builtins, p_decorated, p_star, p_defaults, p_complex_default)], (1.0, 1.9))


@pytest.mark.parametrize("func, args, wrt, second", CASES, ids=IDS)
def test_every_callee_both_modes(func, args, wrt, second):
    check_gradient(func, args, wrt, taped=func not in (p_ruled, p_nondiff, p_complex_default))
    tangent = srcad.jvp(func, args, (1.0,))[1]
    assert close(tangent, numerical_grad(func, args, wrt), 1e-6, 1e-8)
    if second:
        check_second_derivative(func, args, wrt)


# ---------------------------------------------------------------- what a ruled callee returns
# A rule of yours (or a nondiff declaration) says nothing of what the function returns: it may
# be its argument or a view of it, so a write into the result is a write into the argument
# (srcad took the result for a new array: a wrong value and gradient, no error)


def ident_ruled(a):
    return a


def view_ruled(a):
    return a[1:]


def ident_constant(a):
    return a


def fresh_ruled(a):
    return a * 1.0


srcad.extend.defvjp(ident_ruled, "a", a="g", jvp={"a": "t"})
srcad.extend.defvjp(view_ruled, "a", a="unbroadcast(np.concatenate([np.zeros(1), g]), a)",
                    jvp={"a": "t[1:]"})
srcad.extend.defvjp(fresh_ruled, "a", a="g", jvp={"a": "t"})
srcad.extend.nondiff(ident_constant)


def w_ident(x):
    y = x * 1.0
    z = ident_ruled(y)
    z[0] = 5.0
    return np.sum(y * x)


def w_view(x):
    y = x * 1.0
    z = view_ruled(y)
    z += x[0]
    return np.sum(y * x)


def w_constant(x):
    y = x * 1.0
    z = ident_constant(y)
    z[1] = 2.0
    return np.sum(y * x)


def w_fresh(x):
    y = x * 1.0
    z = fresh_ruled(y)
    z[0] = 5.0
    return np.sum(y * x) + np.sum(z)


@pytest.mark.parametrize("func", [w_ident, w_view, w_constant, w_fresh])
@pytest.mark.parametrize("scale", [1.0, -1.7])
def test_a_write_into_what_a_ruled_callee_returns(func, scale):
    x = np.array([0.3, 0.7, -0.4]) * scale
    try:
        value, grad = srcad.value_and_grad(func)(x.copy())
    except srcad.SrcadError as e:
        assert e.lineno is not None and "copy" in e.hint
        return
    assert value == pytest.approx(func(x.copy()), rel=1e-12)
    assert close(grad, numerical_grad(lambda v: func(v.copy()), (x,), 0), 1e-6, 1e-8)
