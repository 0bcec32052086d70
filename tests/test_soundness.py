"""The soundness invariant (srcad/soundness.py): a differentiated value reaching a place no
rule covers is refused at its line, never treated as a constant.

Two families: one generated from the rule registry itself (every parameter of every rule that
has neither a template nor a declared zero derivative refuses a differentiated value), and the
outside-found cases of issue 14, each checked against finite differences or for its refusal.
"""

from __future__ import annotations

import inspect

import numpy as np
import pytest
from srcad.check import numerical_grad

import srcad
from srcad.analysis.soundness import DISCRETE
from srcad.rules import registry


def _uncovered(rule):
    zero = set(rule.templates) | set(rule.shape_only) | set(rule.zero)
    return [p for p in rule.params if p not in zero and p not in DISCRETE
            and rule.signature.parameters[p].kind not in (inspect.Parameter.VAR_POSITIONAL,
                                                          inspect.Parameter.VAR_KEYWORD)]


ALL_RULES = [rule for rules in registry.rules.values() for rule in rules]
UNCOVERED = [(rule, p) for rule in ALL_RULES for p in _uncovered(rule)]


def test_every_rule_parameter_is_classified():
    """Each parameter of each rule is a template, a declared zero, integer-valued, or refused;
    the refused ones are listed here so that a new one is a decision, not an accident."""
    refused = sorted({f"{rule.name}.{p}" for rule, p in UNCOVERED
                      if not getattr(rule, "user", False)})  # other tests add user rules
    assert set(refused) <= EXPECTED_REFUSED, sorted(set(refused) - EXPECTED_REFUSED)


#: parameters through which srcad has no derivative: a differentiated value there is refused
EXPECTED_REFUSED = {
    "amax.out", "amin.out", "max.out", "mean.out", "min.out", "prod.out", "std.out", "sum.out",
    "var.out", "full.device", "full.like", "full_like.device",
    "linspace.endpoint", "linspace.num", "norm.ord", "std.ddof", "var.ddof",
    # srcad/rules/numpy_more.py: out=, counts, flags and names (never a float that moves the
    # result), and the parameters whose derivative is not written: a quantile's q, np.interp's
    # xp, np.unwrap's period, np.logspace's base
    *(f"{fn}.out" for fn in ("add.accumulate", "add.reduce", "maximum.accumulate",
                             "maximum.reduce", "minimum.accumulate", "minimum.reduce",
                             "multiply.accumulate", "multiply.reduce", "median", "nanmax",
                             "nanmean", "nanmin", "nanprod", "nanstd", "nansum", "nanvar",
                             "percentile", "ptp", "quantile")),
    "bincount.minlength", "cond.p", "eigvalsh.UPLO", "geomspace.endpoint", "geomspace.num",
    "logspace.endpoint", "logspace.num", "logspace.base", "matrix_norm.ord", "vector_norm.ord",
    "meshgrid.indexing", "nanstd.ddof", "nanvar.ddof", "percentile.method", "quantile.method",
    "percentile.q", "quantile.q", "interp.xp", "grad_interp_fp.xp", "grad_interp_slope.xp",
    "resize.new_shape", "unwrap.period", "vander.N", "vander.increasing",
    # srcad/rules/numpy_matrices.py: out=, np.cov's second variables and weights (their
    # derivative is not written), the point of multi_dot's second-order helpers (a third
    # derivative); srcad/rules/numpy_more.py: the nan quantiles as the quantiles
    "choose.out", "multi_dot.out", "multi_dot_d2.arrays", "multi_dot_hvp.arrays",
    "cov.y", "cov.fweights", "cov.aweights", "corrcoef.y",
    "nanmedian.out", "nanpercentile.out", "nanquantile.out", "nanpercentile.q",
    "nanquantile.q", "nanpercentile.method", "nanquantile.method",
    # the spacing of np.gradient (its derivative there is not written)
    "gradient.h", "grad_gradient.h",
    # the point of srcad's Hessian helpers: a derivative there is a third one (a fourth one
    # for np.prod and np.cumprod, whose third-derivative helpers' points are refused)
    "prod_d3.a", "cumprod_d3.a", "cumprod_hvp3.a", "norm_hvp.x", "norm_hvp.norm",
    "solve_gans.a", "grad_solve_a_ans.a",
    # SciPy (when installed): the real order of a Bessel function has no rule
    "scipy.special.jv.v", "scipy.special.iv.v", "scipy.special.ive.v", "scipy.special.yv.v",
    "scipy.special.kv.v", "scipy.special.kve.v",
    # SciPy: shape parameters with no closed-form derivative (as in autograd): the incomplete
    # gamma and beta functions, and the distribution functions built on them
    "scipy.special.gammainc.a", "scipy.special.gammaincc.a", "scipy.special.betainc.a",
    "scipy.special.betainc.b",
    # sound27 (JAX's records): hyp1f1's parameters and zeta's power (no closed form written),
    # boxcox's lmbda (its closed form loses accuracy for a small lmbda)
    "scipy.special.hyp1f1.a", "scipy.special.hyp1f1.b", "scipy.special.zeta.x",
    "scipy.special.boxcox.lmbda", "scipy.special.boxcox1p.lmbda",
    *(f"scipy.stats.{dist}.{method}.{shape}"
      for dist, shapes in (("t", ["df"]), ("chi2", ["df"]), ("gamma", ["a"]), ("beta", ["a", "b"]))
      for method in ("cdf", "logcdf", "sf", "logsf") for shape in shapes),
    # SciPy: odeint's func reading a differentiated value other than through args (a closure)
    "scipy.integrate.odeint.func",
    # rules29: parameters the rule holds at only some constants (fixed=), named in the
    # signature so that they may be given by position: a differentiated value is refused
    "pinv.rcond", "pinv.hermitian", "linspace.retstep", "scipy.special.logsumexp.return_sign",
}


@pytest.mark.parametrize("rule,param", UNCOVERED, ids=lambda v: getattr(v, "name", v))
def test_an_uncovered_parameter_refuses_a_differentiated_value(rule, param):
    """Bind a varied atom to the parameter in the check's own terms: it must raise."""
    from srcad.analysis.soundness import Check
    from srcad.core import ir

    class FakeAnalysis:
        varied = {"x"}
        kinds = {}

        def kind(self, atom):
            return "scalar"

    bound = {p: ir.Const(None) for p in rule.params}
    bound[param] = ir.Var("x")
    prim = ir.Prim(rule.fn, [], {})
    stmt = ir.Assign("y", prim, line=1)
    check = Check.__new__(Check)
    check.fn, check.an, check.forward, check.reaching = ir.Function("f", ["x"], []), \
        FakeAnalysis(), False, {"y"}
    with pytest.raises(srcad.MissingRuleError, match=param):
        check.rule_call(stmt, prim, rule, bound, matters=True)


# ---------------------------------------------------------------- issue 14's cases


def linspace_start(x):
    return np.sum(np.linspace(x, 3.4, 5) ** 2)


def linspace_both(x, y):
    return np.sum(np.linspace(x, y, 7, endpoint=False) ** 2)


def full_fill(x):
    return np.sum(np.full(3, x) * np.arange(3.0))


def std_of_scalar(x):
    return np.std(x) + x


def std_of_equal(x):
    return np.std(np.array([x, x])) + x


def abs_of_numpy_scalars(a):
    return abs(a[1]) + abs(np.sum(a))


def max_in_loop(x):
    ys = []
    for i in range(3):
        ys.append(max(i, x))
    s = 0.0
    for k in range(3):
        s = s + ys[k] * (k + 1)
    return s


def min_in_loop(x):
    ys = []
    for i in range(4):
        ys.append(min(x, i) * x)
    return ys[0] + 2 * ys[1] + 3 * ys[2] + 4 * ys[3]


def slice_object(x):
    s = slice(None, -1)
    y = x[s]
    return y[0] * 2.0 + y[1]


def einsum_ellipsis(a, b):
    return np.sum(np.einsum("...i,i->...", a, b) * np.arange(2.0))


def einsum_broadcast_label(a, b):
    return np.sum(np.einsum("ij,jk->ik", a, b) ** 2)


def sum_out(x):
    y = np.zeros(2)
    np.sum(np.outer(x, x), axis=0, out=y)  # written as y[...] = np.sum(...)
    z = np.zeros(())
    np.sum(x, out=z)
    return np.sum(y * np.arange(2.0)) + z * 3.0


CASES = [
    (linspace_start, (1.0,)), (linspace_start, (np.array([1.0, 2.0]),)),
    (linspace_both, (1.0, 2.0)), (full_fill, (1.5,)), (std_of_scalar, (2.0,)),
    (std_of_equal, (2.0,)), (abs_of_numpy_scalars, (np.array([1.0, -2.0]),)),
    (max_in_loop, (1.5,)), (max_in_loop, (0.5,)), (min_in_loop, (1.5,)), (min_in_loop, (2.5,)),
    (slice_object, (np.array([1.0, 2.0, 3.0]),)), (sum_out, (np.array([1.0, 2.0]),)),
    (einsum_ellipsis, (np.ones((2, 3)) * 0.5, np.arange(3.0))),
    (einsum_broadcast_label, (np.arange(2.0).reshape(2, 1), np.arange(4.0).reshape(1, 4))),
]


@pytest.mark.parametrize("f,args", CASES, ids=lambda v: getattr(v, "__name__", ""))
def test_case_matches_finite_differences(f, args):
    for i in range(len(args)):
        got = srcad.grad(f, wrt=i)(*args)
        np.testing.assert_allclose(got, numerical_grad(f, args, wrt=i), rtol=1e-6, atol=1e-8)


@pytest.mark.parametrize("n", range(2, 6))
@pytest.mark.parametrize("weights", [(1.0, 2.0, 3.0, 4.0, 5.0), (-1.0, 0.5, 2.0, 0.0, 1.0)])
def test_max_min_in_loop_family(n, weights):
    """A family around the tidy bug: a list's gradient popped inside a conditional rule."""
    src = ["def f(x):", "    ys = []", f"    for i in range({n}):",
           "        ys.append(max(i * 0.7, x) * min(x, 2.0 - i))",
           "    s = 0.0", f"    for k in range({n}):", "        s = s + ys[k] * W[k]",
           "    return s"]
    import linecache
    import types

    name = f"<soundness family {n} {weights}>"
    text = "\n".join(src) + "\n"
    linecache.cache[name] = (len(text), None, text.splitlines(True), name)
    module = types.ModuleType("family")
    module.W = weights
    exec(compile(text, name, "exec"), module.__dict__)  # noqa: S102
    f = module.f
    for x in (-0.3, 0.9, 1.6, 3.1):
        assert srcad.grad(f)(x) == pytest.approx(numerical_grad(f, (x,)), rel=1e-6, abs=1e-8)
    assert srcad.source(srcad.grad(f))


def slice_object_list(x):
    s = slice(None, -1)
    y = x[s]
    return y[0] * 2.0 + y[1]


def test_slice_object_on_a_list():
    assert srcad.grad(slice_object_list)([1.0, 2.0, 3.0]) == [2.0, 1.0, 0.0]


# ---------------------------------------------------------------- refusals


def r_trick(x):  # np.r_[a, b] is joined, an arange too; a complex step (a linspace) is not
    return np.sum(np.r_[x, 0:1:3j] ** 2)  # bad


def c_trick(x):
    return np.sum(np.c_[0:2, x] ** 2)  # bad


def einsum_eleven(a):  # np.einsum's rules take 2 to 10 positional arguments
    return np.sum(np.einsum(a, [0], a, [0], a, [0], a, [0], a, [0], [0]))  # bad


def arange_start(x):
    return np.sum(np.arange(x, 5.0))  # bad


def var_ddof(x):
    return np.var(np.array([1.0, 2.0, 4.0]), ddof=x)  # bad


def unknown_call(x):
    return np.sum(np.poly(x))  # bad


SCALE = np.poly1d([2.0, 0.0])  # a callable object srcad cannot see into, and unhashable (a
# class of the user's with a __call__ is differentiated: tests/test_higher_order_python.py;
# np.vectorize objects: tests/test_forms17_vectorize.py)


def callable_object(x):
    return SCALE(x)  # bad


REFUSED = [
    (r_trick, np.ones(2), "np.concatenate"), (c_trick, np.ones(2), "np.column_stack"),
    (einsum_eleven, np.ones(2), "np.einsum"), (arange_start, 1.5, "np.arange"),
    (var_ddof, 1.0, "ddof"), (unknown_call, np.ones(3), "poly"),
    (callable_object, 1.0, "callable object"),
]


@pytest.mark.parametrize("f,arg,words", REFUSED, ids=lambda v: getattr(v, "__name__", ""))
def test_refused_at_its_line(f, arg, words):
    lines, first = inspect.getsourcelines(f)
    line = first + next(i for i, t in enumerate(lines) if "# bad" in t)
    with pytest.raises(srcad.SrcadError) as info:
        srcad.grad(f)(arg)
    err = info.value
    assert err.lineno == line, str(err)
    assert words in str(err), str(err)
    assert err.hint


def test_a_user_rule_without_a_template_refuses_rather_than_zero():
    def scaled(a, b):
        return a * b

    srcad.extend.defvjp(scaled, "a, b", a="g * b")  # b forgotten: not a zero

    def f(x):
        return scaled(2.0, x)

    with pytest.raises(srcad.MissingRuleError, match="'b'"):
        srcad.grad(f)(3.0)

    def also(a, b):
        return a * b

    srcad.extend.defvjp(also, "a, b", a="g * b", b=None)  # declared zero: accepted

    def h(x):
        return also(2.0, x)

    assert srcad.grad(h)(3.0) == 0.0


# ---------------------------------------------------------------- forward mode, constant arrays

CONST = np.ones((2, 3))


def joined_with_a_constant(x):
    return np.sum(np.concatenate((CONST, x)) ** 2)


def constant_output(x):
    return CONST


def test_forward_zero_of_a_constant_array_has_its_shape():
    x = np.arange(6.0).reshape(2, 3)
    _, tangent = srcad.jvp(joined_with_a_constant, (x,), (np.ones_like(x),))
    assert tangent == pytest.approx(np.sum(srcad.grad(joined_with_a_constant)(x)))
    _, tangent = srcad.jvp(constant_output, (x,), (np.ones_like(x),))
    assert np.shape(tangent) == CONST.shape and not np.any(tangent)


# ---------------------------------------------------------------- a dict through a derivative


def dict_loss(d):
    return np.sum(np.sin(d["a"])) + np.sum(np.cos(d["b"]))


D_DICT_LOSS = srcad.grad(dict_loss)


def uses_a_dict_gradient(d):
    g = D_DICT_LOSS(d)
    return np.sum(g["a"]) + np.sum(np.sin(g["b"]))


def test_a_derivative_returning_a_dict_differentiated_again():
    d = {"a": np.array([0.3, -0.2]), "b": np.array([0.7, 0.1, 1.2])}
    got = srcad.grad(uses_a_dict_gradient)(d)
    for key in d:
        def along(v, key=key):
            return uses_a_dict_gradient({**d, key: v})
        np.testing.assert_allclose(got[key], numerical_grad(along, (d[key],)), rtol=1e-6)


# A user rule whose jvp= table leaves out an argument that carries a tangent: forward mode
# refuses it (it once gave that argument a zero tangent, silently).
def _partial_jvp_rule(kept):
    import srcad.extend

    def op(a, b, c):
        return a * b + c * c

    srcad.extend.defvjp(op, "a, b, c", a="g * b", b="g * a", c="2.0 * g * c",
                        jvp={p: {"a": "t * b", "b": "t * a", "c": "2.0 * t * c"}[p]
                             for p in kept})
    return op


@pytest.mark.parametrize("kept", [("a",), ("b",), ("a", "b"), ("a", "c"), ("b", "c"),
                                  ("a", "b", "c")])
def test_user_rule_with_a_partial_jvp_table(kept):
    op = _partial_jvp_rule(kept)

    def f(x, y):
        return op(x, y * 2.0, x + y)

    expected = srcad.grad(f, wrt=(0, 1))(0.7, -0.4)  # reverse mode: every template given
    if len(kept) == 3:
        _, t = srcad.jvp(f, (0.7, -0.4), (1.0, 0.0))
        assert t == pytest.approx(expected[0])
        return
    with pytest.raises(srcad.MissingRuleError, match="gives no tangent for its argument"):
        srcad.jvp(f, (0.7, -0.4), (1.0, 0.0))


# Random samplers have no derivative in their parameters: a value carrying a gradient passed to
# one is refused (it was a silent zero); a draw added to a value is fine.
_SAMPLER_CALLS = ["np.random.normal(x, 1.0)", "np.random.normal(0.0, x)",
                  "np.random.uniform(x, 2.0 * x + 3.0)", "np.random.exponential(x * x)",
                  "np.random.gamma(x * x + 1.0)", "np.random.laplace(x)",
                  "np.random.poisson(x * x)", "np.random.normal(loc=x)"]


@pytest.mark.parametrize("call", _SAMPLER_CALLS)
def test_sampler_of_a_differentiated_value_is_refused(tmp_path, call):
    from test_robustness import load_module

    mod = load_module(tmp_path, f"import numpy as np\n\n\ndef f(x):\n    return x * {call}\n")
    for make in (lambda: srcad.grad(mod.f)(1.5), lambda: srcad.jvp(mod.f, (1.5,), (1.0,))):
        with pytest.raises(srcad.SrcadError, match="random samplers no derivative"):
            make()


def test_draw_added_to_a_value_is_differentiated(tmp_path):
    from test_robustness import load_module

    mod = load_module(tmp_path, "import numpy as np\n\n\ndef f(x):\n"
                                "    return x * x + np.random.normal(0.0, 1.0)\n")
    assert srcad.grad(mod.f)(1.5) == pytest.approx(3.0)
