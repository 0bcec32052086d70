"""Second derivatives through every rule of the registry, generated from the rule table of
``tests/test_forward_rules.py`` (every rule has at least one example there; a rule without
one fails ``test_every_rule_has_an_example``).

For each example ``f(*args)`` and each of its arguments, the Hessian of
``s = sum(sin(f(*args)))`` with respect to that argument is computed by forward over reverse
(``srcad.hessian``) and by reverse over reverse (``mode="rev"``), and checked

* against finite differences of srcad's gradient along a random direction (both modes),
* the two modes against each other, and
* against autograd's Hessian of the same expression, where autograd has the function.

A rule whose gradient calls a helper without a rule of its own would stop here with a
``MissingRuleError`` (``no derivative rule for grad_...``); ``test_every_helper_has_a_rule``
walks every template of the registry so that no helper is forgotten again. The few helpers
that are allowed no rule (a third derivative) are listed with their reason, and
``test_third_derivatives_are_refused`` checks they stop cleanly.
"""

from __future__ import annotations

import ast
import importlib.util
import inspect
import re

import numpy as np
import pytest
import test_forward_rules as table
from sampling import sample_by
from srcad.check import numerical_grad

import srcad
from srcad.rules.registry import registry
from srcad.runtime import HELPERS

#: helpers some template calls that have no rule: a derivative through them is a third one
THIRD_ORDER = {
    "tangent_grad_solve_a": "the forward form of grad_solve_a's rule (a batched solve)",
    "tangent_grad_solve_b": "the forward form of grad_solve_b's rule (a batched solve)",
}

#: the Hessian helpers: linear in their vectors; a derivative at their point is a third one
#: (np.prod's has one, prod_d3: a fourth derivative is refused)
HESSIAN_HELPERS = {
    "H.prod_d3(w, v, a, 1)": dict(w=(2, 3), v=(2, 3), a=(2, 3)),
    "H.cumprod_hvp3(w, u, v, a, 0)": dict(w=(2, 3), u=(2, 3), v=(2, 3), a=(2, 3)),
    "H.cumprod_d3(u, v, w, a)": dict(u=(3,), v=(3,), w=(3,), a=(3,)),
    "H.norm_hvp(w, a, np.linalg.norm(a), u)": dict(w=(), u=(3,), a=(3,)),
    "H.solve_gans(m, a, b, x)": dict(m=(3, 3), a=(3, 3), b=(3,), x=(3,)),
}


#: how a third derivative is refused: a helper without a rule, or a Hessian helper's point
_THIRD_HELPERS = "|".join(THIRD_ORDER)
_HESSIANS = "|".join([name.split("(")[0][2:] for name in HESSIAN_HELPERS]
                      + ["grad_solve_a_ans", "multi_dot_hvp", "multi_dot_d2"])
THIRD = re.compile(rf"no derivative rule for ({_THIRD_HELPERS})\b|"
                   rf"no derivative of ({_HESSIANS}) with respect to")


def _template_names(rule):
    trees = list(rule.templates.values()) + list(rule.jvp.values())
    trees += [t for by_param in rule.ranks.values() for t in by_param.values()]
    return {n.id for tree in trees for n in ast.walk(tree) if isinstance(n, ast.Name)}


def test_every_helper_has_a_rule():
    """Every srcad helper a derivative template of the operators, ``math`` and NumPy calls has
    a rule (so its result can be differentiated again), or is a third derivative listed with
    its reason."""
    missing = set()
    for fn, rules in list(registry.rules.items()):
        for rule in rules:
            if rule.user or table._scipy(fn):  # SciPy's: tests/test_scipy_rules.py
                continue
            for name in _template_names(rule) & set(HELPERS):
                helper = HELPERS[name]
                if inspect.ismodule(helper) or type(helper).__name__ == "_LazyModule":
                    # special.iv(...): a module (SciPy's, loaded lazily): its functions' rules
                    continue
                if not (registry.has_rule(helper) or registry.is_nondiff(helper)
                        or name in THIRD_ORDER):
                    missing.add(f"{name} (called by the rule of {rule.name})")
    assert not missing, f"helpers without a rule: {sorted(missing)}"
    for name in THIRD_ORDER:
        assert name in HELPERS and not registry.has_rule(HELPERS[name]), name


# ---------------------------------------------------------------- the generated Hessian checks


def _float_arguments(case):
    _, _, specs, f, _ = case
    return [i for i, spec in enumerate(specs.values())]


CASES = [(case, i) for case in table.HESSIAN_CASES for i in _float_arguments(case)]


def _id(item):
    case, i = item
    return f"{table._case_id(case)}-wrt{i}"


def _autograd_function(expr, names):
    """The example as an autograd function, or None where autograd lacks a function."""
    if re.search(r"\b(H|R|C|I|SP)\.", expr):  # srcad's own helpers (table's aliases)
        return None
    anp = pytest.importorskip("autograd.numpy")
    namespace = {"np": anp, "math": __import__("math"), "copy": __import__("copy")}
    source = f"def f({', '.join(names)}):\n    return anp.sum(anp.sin({expr}))\n"
    namespace["anp"] = anp
    exec(compile(source, "<autograd example>", "exec"), namespace)  # noqa: S102
    return namespace["f"]


#: CI: the first case of each rule, and every sixth of the others (other shapes and
#: arguments); the long run (SRCAD_LONG_PROPERTIES=1) all of them
SAMPLED = sample_by(CASES, lambda item: item[0][0], 16)


@pytest.mark.parametrize("item", SAMPLED, ids=[_id(c) for c in SAMPLED])
def test_hessian_of_every_rule(item):
    case, i = item
    rid, expr, specs, f, _ = case
    table.skip_complex_eig(case)
    f, args, u, rng = table._setup(case, len(expr) * 5 + i)
    if np.ndim(args[i]) and np.size(args[i]) > 12:
        pytest.skip("kept small")
    s = table.SCALARS[f]
    try:
        hess_fwd = np.asarray(srcad.hessian(s, wrt=i)(*args))
        hess_rev = np.asarray(srcad.hessian(s, wrt=i, mode="rev")(*args))
    except srcad.MissingRuleError as err:
        # a helper's own rule, differentiated at its point: the original's third derivative
        assert expr.startswith("H.") and THIRD.search(str(err)), err
        return
    shape = np.shape(args[i])
    if np.size(args[i]) == 1 and hess_rev.shape != hess_fwd.shape:
        hess_rev = hess_rev.reshape(hess_fwd.shape)  # mode="rev" drops a length-1 axis
    assert hess_fwd.shape == shape + shape, expr
    np.testing.assert_allclose(hess_fwd, hess_rev, rtol=1e-8, atol=1e-9, err_msg=expr)
    grad = srcad.grad(s, wrt=i)
    direction, w = u[i], table._like(args[i], rng)

    def along(t):
        shifted = args[:i] + (args[i] + t * direction,) + args[i + 1:]
        return table._dot(grad(*shifted), w)

    expected = numerical_grad(along, (0.0,), 0)
    hu = np.tensordot(hess_fwd, direction, axes=len(shape)) if shape else hess_fwd * direction
    assert table._dot(hu, w) == pytest.approx(expected, rel=1e-5, abs=1e-6), expr
    reference = _autograd_function(expr, list(specs))
    if reference is None:
        return
    import autograd

    try:
        theirs = autograd.hessian(reference, i)(*args)
    except (NotImplementedError, AttributeError, TypeError, ValueError, KeyError,
            AssertionError, NameError):  # (NameError: a helper of srcad's, kept_dtype)
        return  # autograd has no second derivative of this function
    theirs = np.reshape(theirs, hess_fwd.shape)
    their_hu = np.tensordot(theirs, direction, axes=len(shape)) if shape else theirs * direction
    if not np.all(np.isfinite(theirs)) or table._dot(their_hu, w) != pytest.approx(
            expected, rel=1e-5, abs=1e-6):
        return  # autograd disagrees with finite differences (np.prod at a zero, np.full
        # with an integer dtype, 2-vectors in np.cross): srcad is checked against them above
    np.testing.assert_allclose(hess_fwd, theirs, rtol=1e-6,
                               atol=1e-8, err_msg=f"{expr}: srcad and autograd differ")


def test_the_hessian_cases_cover_the_helpers():
    """Each helper of the second-order rules is reached by some case (the table has them)."""
    exprs = " ".join(expr for (_, expr, _, _, _), _ in CASES)
    for name in ("np.prod", "np.cumprod", "np.linalg.norm", "np.einsum", "np.linalg.solve",
                 "np.linalg.svd", "np.linalg.eig", "np.linalg.eigh", "np.linalg.cholesky",
                 "np.gradient", "np.partition", "np.select", "np.append"):
        assert name + "(" in exprs, name


@pytest.mark.parametrize("call", list(HESSIAN_HELPERS))
def test_third_derivatives_are_refused(call, tmp_path):
    """A Hessian helper differentiated at its point (a third derivative of np.prod, ...)
    stops with a MissingRuleError naming it, never a zero."""
    specs = HESSIAN_HELPERS[call]
    names = list(specs)
    path = tmp_path / "third.py"
    path.write_text("import numpy as np\nfrom srcad.runtime import numpy_helpers as H\n\n\n"
                    f"def f({', '.join(names)}):\n    return np.sum({call})\n")
    spec = importlib.util.spec_from_file_location("third_derivative_example", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    rng = np.random.default_rng(0)
    args = [rng.uniform(0.5, 1.5, shape) if shape else 1.3 for shape in specs.values()]
    if call.startswith("H.solve_gans"):
        args[1] = args[1] @ args[1].T + 3 * np.eye(3)
    with pytest.raises(srcad.MissingRuleError, match="with respect to its argument '[ax]'"):
        srcad.grad(module.f, wrt=names.index("a"))(*args)


def _sinc_sum(x):
    return np.sum(np.sinc(x) * np.arange(1.0, 1.0 + x.shape[-1]))


def _cumprod_sum(x):
    return np.sum(np.cumprod(x, axis=-1) * np.arange(1.0, 1.0 + x.shape[-1]))


def _prod_sum(x):
    return np.sum(np.prod(x, axis=-1))


#: functions with third derivatives through a helper's rule: np.sinc (every order), np.prod,
#: np.cumprod
THIRD_ORDER_FUNCTIONS = {
    "sinc": (_sinc_sum, [np.array([0.0, 0.4, -0.999, 1.0, 2.7]), np.array([[1e-4, -1.3]])]),
    "prod": (_prod_sum, [np.array([0.5, -1.2, 0.0, 2.0]), np.array([[1.1, 0.7, -0.4]] * 2)]),
    "cumprod": (_cumprod_sum, [np.array([0.5, -1.2, 0.0, 2.0]), np.array([[1.1, 0.7, -0.4]] * 2)]),
}
THIRD_CASES = [(name, k) for name, (_, points) in THIRD_ORDER_FUNCTIONS.items()
               for k in range(len(points))]


@pytest.mark.parametrize("name, k", THIRD_CASES)
def test_third_derivatives(name, k):
    """The third derivative (reverse over reverse over reverse, and forward over that) against
    finite differences of srcad's second."""
    f, points = THIRD_ORDER_FUNCTIONS[name]
    x = points[k]
    rng = np.random.default_rng(k)
    u, v = rng.normal(size=x.shape), rng.normal(size=x.shape)

    def second(y):
        return np.sum(srcad.grad(lambda z: np.sum(srcad.grad(f)(z) * u))(y) * v)

    third = srcad.grad(second)(x)
    np.testing.assert_allclose(third, numerical_grad(second, (x,)), rtol=1e-5, atol=1e-6)
    w = rng.normal(size=x.shape)
    assert srcad.jvp(second, (x,), (w,))[1] == pytest.approx(np.sum(third * w), rel=1e-9,
                                                             abs=1e-12)
