"""Forward/reverse parity, generated from the rule registry (no hand list to forget).

* every rule has a reverse form (a template, or parameters declared flat) and a forward form:
  element-wise (its templates with the tangent for ``g``), linear (the function of the
  tangent) or explicit ``jvp=`` templates; a rule may lack a forward form only with its
  reason in the rule table (``defvjp(..., no_forward="why")``), and at most a handful may;
* an explicit forward form covers exactly the parameters its reverse form covers (a parameter
  with a gradient template but no tangent template would get a zero tangent);
* every rule is run: each is the callee of at least one case of the table-driven runners,
  which check it against finite differences, vjp/jvp duality and second order (jvp of vjp):
  ``tests/test_forward_rules.py`` (operators, ``math``, NumPy, srcad's own helpers) and
  ``tests/test_scipy_rules.py`` (SciPy, when installed). The SciPy rules are loaded here
  when SciPy is importable, so they are checked like the rest.
"""

from __future__ import annotations

import ast
import importlib.util
import sys

import numpy as np
import pytest

from srcad.rules.registry import registry
from srcad.runtime import family_of
from srcad.transform.forward import forward_kind

HAVE_SCIPY = importlib.util.find_spec("scipy") is not None
if HAVE_SCIPY:
    import scipy.integrate  # noqa: F401
    import scipy.linalg  # noqa: F401
    import scipy.signal  # noqa: F401
    import scipy.special  # noqa: F401  (loads srcad's SciPy rules at the next lookup)
    import scipy.stats  # noqa: F401

    registry.load_pending()

import test_forward_rules  # noqa: E402  (the NumPy runner: its table of examples)

MAX_EXEMPT = 5


def _rules():
    return [(fn, rule) for fn, rules in registry.rules.items() for rule in rules
            if not rule.user]


def _is_scipy(fn):
    module = getattr(fn, "__module__", None) or ""
    special = sys.modules.get("scipy.special")  # its ufuncs have no module of their own
    return module.startswith("scipy") or family_of(fn) == "scipy" or (
        special is not None and getattr(special, getattr(fn, "__name__", ""), None) is fn
        and getattr(np, fn.__name__, None) is not fn)  # np.sinc is scipy.special.sinc


RULES = _rules()
IDS = [f"{rule.name}({', '.join(rule.params)})" for _, rule in RULES]


@pytest.mark.parametrize(("fn", "rule"), RULES, ids=IDS)
def test_reverse_and_forward_forms(fn, rule):
    assert rule.templates or rule.zero, f"{rule.name}: no gradient template and nothing flat"
    kind = forward_kind(rule, fn)
    if kind is None:
        assert rule.no_forward, (f"{rule.name} has a reverse form but no forward form: give it "
                                 "jvp= templates, or its reason in no_forward=")
        return
    assert not rule.no_forward, f"{rule.name} has a forward form now: drop its no_forward="
    if kind == "explicit":
        missing = set(rule.templates) - set(rule.jvp)
        assert not missing, f"{rule.name}: gradient templates but no tangent for {missing}"
        extra = set(rule.jvp) - set(rule.templates)
        assert not extra, f"{rule.name}: tangent templates but no gradient for {extra}"
    for key, by_param in rule.ranks.items():
        assert set(by_param) <= set(rule.templates), f"{rule.name}: ranks {key} adds params"


def test_few_exemptions():
    exempt = [rule.name for _, rule in RULES if rule.no_forward]
    assert len(exempt) <= MAX_EXEMPT, f"too many rules without a forward form: {exempt}"


def _scipy_callees():
    """The functions the SciPy table calls, and the helpers their templates call."""
    import test_scipy_rules
    from scipy import integrate, linalg, signal, special, stats

    namespace = {"special": special, "stats": stats, "signal": signal, "linalg": linalg,
                 "integrate": integrate,
                 "np": np}
    called = set()
    for _, call, _ in test_scipy_rules.ROWS:
        for node in ast.walk(ast.parse(call, mode="eval")):  # every call the row makes
            if isinstance(node, ast.Call) and not isinstance(node.func, ast.Name):
                called.add(eval(compile(ast.Expression(node.func), "<row>", "eval"),  # noqa: S307
                                namespace))
    reached = set()
    for fn, rule in RULES:
        if fn in called:
            for template in list(rule.templates.values()) + list(rule.jvp.values()):
                reached |= {n.id for n in ast.walk(template) if isinstance(n, ast.Name)}
                reached |= {n.attr for n in ast.walk(template) if isinstance(n, ast.Attribute)}
    return called, reached


def test_every_rule_is_run():
    covered = set(test_forward_rules.EXAMPLES)
    uncovered = []
    called, reached = _scipy_callees() if HAVE_SCIPY else (set(), set())
    for fn, rule in RULES:
        if _is_scipy(fn):
            name = getattr(fn, "__name__", "")
            if fn in called or name in reached:
                continue  # a row calls it, or a called rule's gradient does (second order)
            uncovered.append(rule.name)
        elif test_forward_rules._ids(rule, fn) not in covered:
            uncovered.append(rule.name)
    assert not uncovered, f"rules no runner exercises: {sorted(uncovered)}"
