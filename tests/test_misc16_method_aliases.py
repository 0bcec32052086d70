"""A method held in a name (issue 16): ``fn = d.logpdf; fn(x)`` for a frozen SciPy
distribution ``d`` made in the function or read from the module, and ``step = self.step``,
``g = obj.method`` for objects of the user's classes.

srcad reads ``fn(x)`` as ``d.logpdf(x)`` when ``d`` is bound once before and ``fn`` is bound once
and only called after (``srcad/frontend/frozen_dists.py``, ``_Frozen.aliases``); a bound
method of an object of a class of yours is the method with the object first (as before). A
generated family (distribution x method x how the name is used) is checked with ``grad``,
``value_and_grad``, ``jvp`` and Hessians in both modes against ``autograd.scipy.stats`` and
central finite differences; then the forms refused, with their message.
"""

import itertools
import uuid

import numpy as np
import pytest
from srcad.check import numerical_grad
from test_robustness import load_module

import srcad

pytest.importorskip("scipy")
autograd = pytest.importorskip("autograd")
ag_stats = pytest.importorskip("autograd.scipy.stats")
anp = pytest.importorskip("autograd.numpy")

HEAD = "import numpy as np\nfrom scipy import stats\n\nPRIOR = stats.norm(0.3, 1.7)\n\n\n" \
       "def f(x, mu, s):\n"

def ag_gamma(method, v, a, scale):
    """autograd's gamma has no scale: the density of v / scale, over scale."""
    if method == "logpdf":
        return ag_stats.gamma.logpdf(v / scale, a) - anp.log(scale)
    return ag_stats.gamma.pdf(v / scale, a) / scale


#: name -> (the frozen distribution in srcad's program, autograd's function of (method, v,
#: mu, s), the point x, the methods)
DISTS = {
    "norm": ("stats.norm(mu, s)",
             lambda m, v, mu, s: getattr(ag_stats.norm, m)(v, mu, s), 0.7,
             ("logpdf", "pdf", "cdf", "logcdf", "sf", "logsf")),
    "norm_scale_keyword": ("stats.norm(mu, scale=s)",
                           lambda m, v, mu, s: getattr(ag_stats.norm, m)(v, mu, s), -0.4,
                           ("logpdf", "cdf")),
    "gamma": ("stats.gamma(s + 1.0, scale=mu + 1.0)",
              lambda m, v, mu, s: ag_gamma(m, v, s + 1.0, mu + 1.0), 1.3, ("logpdf", "pdf")),
    "t": ("stats.t(s + 2.0, mu, s)",
          lambda m, v, mu, s: getattr(ag_stats.t, m)(v, s + 2.0, mu, s), 0.9,
          ("logpdf", "pdf")),
    "beta": ("stats.beta(s + 1.0, mu + 1.5)",
             lambda m, v, mu, s: getattr(ag_stats.beta, m)(v, s + 1.0, mu + 1.5), 0.35,
             ("logpdf", "pdf")),
}
#: how the method is held and called (D the distribution, M the method), and the same in
#: terms of one call g(v) of the method
USES = {
    "twice": ("    d = D\n    fn = d.M\n    return fn(x) + fn(x * 0.9) * mu\n",
              lambda g, x, mu, s: g(x) + g(x * 0.9) * mu),
    "loop": ("    d = D\n    fn = d.M\n    total = 0.0\n    for k in range(3):\n"
             "        total = total + fn(x + 0.05 * k) * s\n    return total\n",
             lambda g, x, mu, s: sum(g(x + 0.05 * k) * s for k in range(3))),
    "with_the_module_prior": ("    d = D\n    fn = d.M\n    lp = PRIOR.logpdf\n"
                              "    return fn(x) + lp(mu) * s\n",
                              lambda g, x, mu, s: g(x) + ag_stats.norm.logpdf(mu, 0.3, 1.7) * s),
}
CASES = [(f"{d}-{m}-{u}", d, m, u) for d, (_, _, _, methods) in DISTS.items()
         for m, u in itertools.product(methods, USES)]
MU, S = 0.2, 1.4


@pytest.fixture(scope="module")
def directory(tmp_path_factory):
    return tmp_path_factory.mktemp("misc16_aliases")


def case(directory, dist, method, use):
    made, ag_method, x, _ = DISTS[dist]
    text = HEAD + USES[use][0].replace("D", made).replace(".M", f".{method}")
    f = load_module(directory, text, f"aliases_{uuid.uuid4().hex[:8]}").f

    def mirror(x, mu, s):
        return USES[use][1](lambda v: ag_method(method, v, mu, s), x, mu, s)
    return f, mirror, x


@pytest.mark.parametrize(("dist", "method", "use"), [c[1:] for c in CASES],
                         ids=[c[0] for c in CASES])
def test_method_held_in_a_name(directory, dist, method, use):
    f, mirror, x = case(directory, dist, method, use)
    assert f(x, MU, S) == pytest.approx(mirror(x, MU, S), rel=1e-10)
    want = autograd.grad(mirror, (0, 1, 2))(x, MU, S)
    got = srcad.grad(f, wrt=(0, 1, 2))(x, MU, S)
    numeric = numerical_grad(f, (x, MU, S), (0, 1, 2))
    for a, b, n in zip(got, want, numeric):
        assert a == pytest.approx(b, rel=1e-8, abs=1e-10)
        assert a == pytest.approx(n, rel=1e-5, abs=1e-7)
    value, grads = srcad.value_and_grad(f, wrt=(0, 1, 2))(x, MU, S)
    assert value == pytest.approx(mirror(x, MU, S), rel=1e-10)
    assert grads[1] == pytest.approx(want[1], rel=1e-8, abs=1e-10)
    tangent = srcad.jvp(f, (x, MU, S), (0.3, -0.7, 0.5))[1]
    assert tangent == pytest.approx(0.3 * want[0] - 0.7 * want[1] + 0.5 * want[2], rel=1e-8,
                                    abs=1e-10)


SECOND = [c for c in CASES if c[2] in ("logpdf", "cdf") and c[3] == "twice"]


@pytest.mark.parametrize(("dist", "method", "use"), [c[1:] for c in SECOND],
                         ids=[c[0] for c in SECOND])
def test_second_order(directory, dist, method, use):
    f, mirror, x = case(directory, dist, method, use)
    want = autograd.grad(autograd.grad(mirror, 0), 0)(x, MU, S)
    assert srcad.hessian(f)(x, MU, S) == pytest.approx(want, rel=1e-7, abs=1e-9)
    assert srcad.hessian(f, mode="rev")(x, MU, S) == pytest.approx(want, rel=1e-7, abs=1e-9)
    mixed = autograd.grad(autograd.grad(mirror, 0), 1)(x, MU, S)
    assert srcad.grad(srcad.grad(f, wrt=0), wrt=1)(x, MU, S) == pytest.approx(
        mixed, rel=1e-7, abs=1e-9)


class Stepper:
    def __init__(self, w):
        self.w = w

    def step(self, x):
        return np.sin(x * self.w) + 0.5 * x

    def run(self, x):
        step = self.step
        for _ in range(3):
            x = step(x)
        return x


def user_method_alias(x, m):
    g = m.step
    return g(x) * g(2.0 * x) + m.run(x)


def test_a_method_of_a_users_object(directory):
    """``step = self.step`` and ``g = obj.method`` of a class of yours: the method with the
    object first (as before)."""
    m = Stepper(1.3)

    def numbers(x):
        return user_method_alias(x, m)
    assert srcad.grad(user_method_alias)(0.7, m) == pytest.approx(
        numerical_grad(numbers, (0.7,), 0), rel=1e-6)
    assert srcad.hessian(user_method_alias)(0.7, m) == pytest.approx(
        srcad.hessian(user_method_alias, mode="rev")(0.7, m), rel=1e-10)


# ---------------------------------------------------------------- refused

REFUSED = {
    "rebound": "    d = stats.norm(mu, s)\n    fn = d.logpdf\n    d = stats.norm(mu, 1.0)\n"
               "    return fn(x) + d.logpdf(x)\n",
    "passed_on": "    d = stats.norm(mu, s)\n    fn = d.logpdf\n    return apply(fn, x)\n",
    "keyword": "    d = stats.norm(mu, s)\n    fn = d.logpdf\n    return fn(x, loc=1.0)\n",
}
APPLY = "\n\ndef apply(g, v):\n    return g(v)\n"


@pytest.mark.parametrize("name", sorted(REFUSED))
def test_refused(directory, name):
    f = load_module(directory, HEAD + REFUSED[name] + APPLY,
                    f"aliases_{uuid.uuid4().hex[:8]}").f
    with pytest.raises(srcad.UnsupportedSyntaxError) as info:
        srcad.grad(f)(0.7, MU, S)
    assert info.value.construct == "fn = d.logpdf"
    assert "a method of a frozen SciPy distribution held in a name" in info.value.message
    assert "d.logpdf(x)" in info.value.hint
