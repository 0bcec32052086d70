"""A keyword written out at its default value is the call without it (rules29).

Found: ``scipy.special.logsumexp(a, axis=0, return_sign=False)`` and ``np.linalg.pinv(a,
hermitian=False)`` were refused ("this call form"): a rule could say "parameter refused" but not
"accepted only at this constant". The registry's ``fixed=`` (``accept`` for tables,
:mod:`srcad.rules.numpy_defaults`; every ufunc's keywords) says it now: a constant the user
wrote is checked where the call is (refused at the line, saying what to write, where another
value is written), a value known only when the code runs when the gradient runs.

The generated family: every example call of every NumPy and ``math`` rule (the table of
tests/test_forward_rules.py) and a table of SciPy calls, each with each keyword parameter of
the function's own signature written out at its default (and the next positional one given by
position): the vector-Jacobian product must equal the plain call's and central differences
along a random direction, or the call must be refused with a SrcadError at its line (the
refusals are listed in :data:`REFUSED`: each a decision). Cheap by default (a sample:
tests/sampling.py), the whole family under ``SRCAD_LONG_PROPERTIES=1``.
"""

from __future__ import annotations

import ast
import atexit
import importlib.util
import inspect
import math
import shutil
import sys
import tempfile
from pathlib import Path

import numpy as np
import pytest
from sampling import LONG
from test_forward_rules import EXAMPLES, HEADER, _direction, _dot, _like, _value

import srcad
from srcad.rules.registry import registry

pytest.importorskip("scipy")
import scipy.integrate  # noqa: E402
import scipy.linalg  # noqa: E402
import scipy.special  # noqa: E402

#: literal defaults a user can write out
_LITERALS = (type(None), bool, int, float, str)
_NAMESPACE = {"np": np, "math": math, "special": scipy.special, "linalg": scipy.linalg,
              "integrate": scipy.integrate}


def ode(y, t, a):
    return -a * y


#: SciPy calls (expression, {argument: spec as in tests/test_forward_rules.py})
SCIPY = [
    ("special.logsumexp(a, axis=0)", {"a": (2, 3)}),
    ("special.logsumexp(a, b=w)", {"a": (3,), "w": ("pos", (3,))}),
    ("special.gammaln(x)", {"x": ("pos", (3,))}),
    ("special.erf(x)", {"x": (3,)}),
    ("special.expit(x)", {"x": (2, 3)}),
    ("special.xlogy(x, y)", {"x": ("pos", (3,)), "y": ("pos", (3,))}),
    ("special.zeta(3.0, q)", {"q": ("pos", (3,))}),
    ("special.softmax(x, axis=0)", {"x": (3,)}),
    ("linalg.inv(M)", {"M": ("spd", 3)}),
    ("linalg.solve(M, v)", {"M": ("spd", 3), "v": (3,)}),
    ("linalg.lu(M)[2]", {"M": ("spd", 3)}),
    ("linalg.eigh(M)[0]", {"M": ("spd", 3)}),
    ("linalg.det(M)", {"M": ("spd", 3)}),
    ("integrate.odeint(ode, y0, np.linspace(0.0, 1.0, 4), args=(a,))",
     {"y0": ("pos", (2,)), "a": ("pos", ())}),
]

#: (function name, parameter, default) whose written-out default is refused, and why
REFUSED = {
    # np.sort(stable=None) beside kind=: accepted; nothing else listed yet
}


def _call_of(expr):
    """The called function of ``expr`` when it is one call (or a call indexed), else None."""
    node = ast.parse(expr, mode="eval").body
    while isinstance(node, ast.Subscript):
        node = node.value
    if not isinstance(node, ast.Call) or any(isinstance(a, ast.Starred) for a in node.args):
        return None, None
    try:
        fn = eval(compile(ast.Expression(node.func), "<call>", "eval"), _NAMESPACE)  # noqa: S307
    except Exception:  # noqa: BLE001 - an example calling a local helper
        return None, None
    return fn, node


def _variants(expr, specs):
    """``(rule name, parameter, default, how, new expression)`` for each parameter of the
    called function's signature left to its default in ``expr``."""
    fn, node = _call_of(expr)
    if fn is None or not registry.has_rule(fn) or (
            getattr(fn, "__module__", None) or "").startswith("srcad"):
        return []  # (srcad's own helpers: their calls are srcad's)
    try:
        signature = inspect.signature(fn)
    except (TypeError, ValueError):
        return []
    given = {k.arg for k in node.keywords}
    params = list(signature.parameters.values())
    positional = [p for p in params if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]
    given |= {p.name for p in positional[:len(node.args)]}
    if any(p.kind is p.VAR_POSITIONAL for p in params):
        return []
    out = []
    name = getattr(fn, "__name__", str(fn))
    for p in params:
        if p.name in given or p.default is p.empty or type(p.default) not in _LITERALS:
            continue
        if p.kind is p.POSITIONAL_ONLY:
            continue
        written = ast.unparse(node)  # keyword form
        call = ast.parse(written, mode="eval").body
        call.keywords.append(ast.keyword(arg=p.name, value=ast.Constant(p.default)))
        out.append((name, p.name, p.default, "keyword", expr.replace(ast.unparse(node),
                                                                     ast.unparse(call), 1)))
        if p.kind is p.POSITIONAL_OR_KEYWORD and positional.index(p) == len(node.args) and \
                not node.keywords:
            call = ast.parse(written, mode="eval").body
            call.args.append(ast.Constant(p.default))
            out.append((name, p.name, p.default, "position",
                        expr.replace(ast.unparse(node), ast.unparse(call), 1)))
    return out


#: the calls of the default run (the long run takes every example): the ones found refused
PICKED = [("np.linalg.pinv(a)", {"a": (3, 2)}), ("np.exp(x)", {"x": (2, 3)})]


def _cases(long=LONG):
    examples = [(expr, specs) for examples in EXAMPLES.values() for expr, specs in examples]
    examples = examples + SCIPY if long else PICKED + SCIPY[:1]
    seen, cases = set(), []
    for expr, specs in examples:
        for variant in _variants(ast.unparse(ast.parse(expr, mode="eval")), specs):
            key = (variant[0], variant[1], variant[3], variant[4])
            if key not in seen:
                seen.add(key)
                cases.append((ast.unparse(ast.parse(expr, mode="eval")), specs, *variant))
    return cases


def _build(cases):
    """Write the plain and written-out calls as functions of one module (srcad reads their
    source), ``plain{n}`` and ``given{n}``."""
    lines = HEADER.splitlines() + ["from scipy import integrate, linalg, special", "", "",
                                   "def ode(y, t, a):", "    return -a * y"]
    where = []
    for n, (expr, specs, *_, variant) in enumerate(cases):
        names = ", ".join(specs)
        lines += ["", "", f"def plain{n}({names}):", f"    return {expr}",
                  "", "", f"def given{n}({names}):", f"    return {variant}"]
        where.append(len(lines))
    directory = Path(tempfile.mkdtemp(prefix="srcad_rules29_"))
    atexit.register(shutil.rmtree, directory, ignore_errors=True)
    path = directory / "rules29_defaults.py"
    path.write_text("\n".join(lines) + "\n")
    spec = importlib.util.spec_from_file_location("rules29_defaults", path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return [(getattr(module, f"plain{n}"), getattr(module, f"given{n}"), line)
            for n, line in enumerate(where)]


ALL = _cases()
CASES = ALL if LONG else ALL[::3]
FUNCTIONS = dict(zip(map(id, CASES), _build(CASES)))


def _id(case):
    return f"{case[2]}.{case[3]}={case[4]!r}-{case[5]}-{case[0]}".replace(" ", "")


@pytest.mark.parametrize("case", CASES, ids=[_id(c) for c in CASES])
def test_a_default_written_out_is_the_plain_call(case):
    expr, specs, name, param, default, how, variant = case
    plain, given, line = FUNCTIONS[id(case)]
    rng = np.random.default_rng(len(variant))
    args = tuple(_value(s, rng) for s in specs.values())
    if np.linalg.eig(np.eye(2))[0].dtype.kind == "c" and "eig(" in expr:
        pytest.skip("this NumPy's eig is complex")
    try:
        value = given(*args)
    except (TypeError, ValueError, DeprecationWarning) as err:  # NumPy's own refusal
        pytest.skip(f"NumPy/SciPy refuse the call written so: {err}")
    try:
        _, pullback = srcad.vjp(given, *args)
        got = pullback(v := _like(value, rng))
    except srcad.SrcadError as err:
        assert err.lineno == line, f"{variant}: refused without its line: {err}"
        try:
            srcad.vjp(plain, *args)[1](_like(value, rng))
        except srcad.SrcadError as plain_err:  # refused as the plain call is (svd of a
            assert type(plain_err) is type(err), (err, plain_err)  # non-square matrix)
            return
        assert (name, param, default) in REFUSED, f"{variant}: refused: {err}"
        return
    assert (name, param, default) not in REFUSED, f"{variant} is accepted now"
    _, plain_back = srcad.vjp(plain, *args)
    want = plain_back(v)
    for g, w in zip(got, want):
        np.testing.assert_allclose(g, w, rtol=1e-10, atol=1e-12, err_msg=variant)
    u = tuple(_direction(s, a, rng) for s, a in zip(specs.values(), args))
    eps = 1e-6
    plus = _dot(given(*(a + eps * d for a, d in zip(args, u))), v)
    minus = _dot(given(*(a - eps * d for a, d in zip(args, u))), v)
    assert _dot(u, got) == pytest.approx((plus - minus) / (2 * eps), rel=1e-5, abs=1e-6), \
        variant


@pytest.mark.skipif(not LONG, reason="the whole family: SRCAD_LONG_PROPERTIES=1")
def test_the_family_covers_the_rules():
    """The family reaches the functions that were refused, and most rules."""
    names = {c[2] for c in ALL}
    assert {"pinv", "logsumexp", "exp", "svd", "take", "odeint", "inv"} <= names, sorted(names)
    assert len(names) > 150 and len(ALL) > 1000, (len(names), len(ALL))
