"""Frozen SciPy distributions (``norm(mu, s).logpdf(x)``, ``d = gamma(a, scale=s)`` then
``d.logpdf(x)``, a module-level ``prior = norm(0, 2)`` read as ``prior.logpdf(theta)``): read
as calls of the distribution's own methods (srcad/frontend/frozen_dists.py). Refused before
("a callable object (norm_gen)"). A generated family: distribution x how it is frozen x
method, against finite differences and autograd running the unfrozen call
(``norm.logpdf(x, mu, s)``), with grad, value_and_grad, jvp and a Hessian.
"""

from __future__ import annotations

import itertools

import numpy as np
import program_files
import pytest

import srcad

pytest.importorskip("scipy")
autograd = pytest.importorskip("autograd")
anp = pytest.importorskip("autograd.numpy")
astats = pytest.importorskip("autograd.scipy.stats")

_DISTS = {  # name: (frozen arguments, as theta reads them; the values x the method takes)
    "norm": ("theta[0], np.exp(theta[1])", "x"),
    "norm_keywords": ("loc=theta[0], scale=np.exp(theta[1])", "x"),
    "t": ("4.0, theta[0], np.exp(theta[1])", "x"),
    "gamma": ("np.exp(theta[0]), scale=np.exp(theta[1])", "np.abs(x) + 0.5"),
    "beta": ("np.exp(theta[0]), np.exp(theta[1])", "0.5 + 0.4 * np.tanh(x)"),
}
_METHODS = {"logpdf": True, "pdf": True, "cdf": True, "logcdf": True, "sf": True}


@pytest.mark.parametrize("method", ["mean", "median", "std", "var", "entropy"])
def test_the_normals_moments(tmp_path, method):
    """``d.mean()``, ``d.std()``, ... of a frozen normal: its own rules (mean = loc, ...)."""
    text = (f"from scipy import stats\n\n\ndef f(theta):\n    d = stats.norm(theta[0], "
            f"np.exp(theta[1:]))\n    return np.sum(d.{method}() * theta[1:])\n")
    f = program_files.load(tmp_path, f"moment_{method}", text, (np,))
    theta = np.array([0.3, -0.2, 0.4])
    fd = np.array([(f(theta + e) - f(theta - e)) / 2e-6 for e in np.eye(3) * 1e-6])
    assert np.allclose(srcad.grad(f)(theta), fd, rtol=1e-5, atol=1e-7)
    assert np.isclose(srcad.jvp(f, (theta,), (np.ones(3),))[1], np.sum(fd), rtol=1e-5)
    hessian = srcad.hessian(f)(theta)
    step = np.array([(srcad.grad(f)(theta + e) - srcad.grad(f)(theta - e)) / 2e-6
                     for e in np.eye(3) * 1e-6])
    assert np.allclose(hessian, step, rtol=1e-5, atol=1e-6)
_FORMS = {  # form: (frozen, the same unfrozen: dist.m(v) is stats.d.m(v, args))
    "inline": ("return np.sum(stats.{d}({a}).{m}({v}))",
               "return np.sum(stats.{d}.{m}({v}, {a}))"),
    "named": ("dist = stats.{d}({a})\n    return np.sum(dist.{m}({v})) + "
              "np.sum(dist.{m}({v} * 0.5))",
              "return np.sum(stats.{d}.{m}({v}, {a})) + np.sum(stats.{d}.{m}({v} * 0.5, {a}))"),
    "comprehension": ("dist = stats.{d}({a})\n    return sum(dist.{m}(v) for v in {v})",
                      "return sum(stats.{d}.{m}(v, {a}) for v in {v})"),
    "loop": ("total = 0.0\n    for k in range(2):\n        dist = stats.{d}({a})\n"
             "        total = total + np.sum(dist.{m}({v})) * (k + 1)\n    return total",
             "total = 0.0\n    for k in range(2):\n"
             "        total = total + np.sum(stats.{d}.{m}({v}, {a})) * (k + 1)\n"
             "    return total"),
}
_UNFROZEN = {"norm_keywords": "norm"}
#: the arguments by position for autograd (its SciPy functions take no keywords)
_POSITIONAL = {"norm_keywords": "theta[0], np.exp(theta[1])"}
_NO_AUTOGRAD = {"gamma"}  # autograd's gamma takes no scale
_SHAPES = {"beta", "gamma", "t"}  # autograd's forms of their cdfs are missing: pdf-like only
_CASES = [(d, m, f) for d, m, f in itertools.product(_DISTS, _METHODS, _FORMS)
          if not (d in _SHAPES and m in ("cdf", "logcdf", "sf"))]


def _texts(dist, method, form):
    args, values = _DISTS[dist]
    name = _UNFROZEN.get(dist, dist)
    frozen = _FORMS[form][0].format(d=name, a=args, m=method, v=values)
    plain = _FORMS[form][1].format(d=name, a=_POSITIONAL.get(dist, args), m=method, v=values)
    return ("from scipy import stats\n\n\ndef f(theta, x):\n    " + frozen + "\n",
            "def f(theta, x):\n    " + plain + "\n")


@pytest.mark.parametrize("dist, method, form", _CASES, ids=["-".join(c) for c in _CASES])
def test_a_frozen_distribution(tmp_path, dist, method, form):
    frozen, unfrozen = _texts(dist, method, form)
    f = program_files.load(tmp_path, f"frozen_{dist}_{method}_{form}", frozen, (np,))
    theta = np.array([0.3, -0.2])
    x = np.array([-0.4, 0.1, 0.8])
    if dist in _NO_AUTOGRAD:  # the unfrozen call differentiated by srcad (and, below, fd)
        plain = program_files.load(tmp_path, f"unfrozen_{dist}_{method}_{form}",
                                   "from scipy import stats\n\n\n" + unfrozen, (np,))
        want, f_autograd = srcad.grad(plain)(theta, x), None
    else:
        stats_ns = type("stats", (), {n: getattr(astats, n) for n in ("norm", "t", "beta")})
        g = {"np": anp, "stats": stats_ns}
        exec(compile(unfrozen, "<unfrozen>", "exec"), g)  # noqa: S102 - the test's own text
        f_autograd = g["f"]
        want = autograd.grad(f_autograd)(theta, x)
    got = srcad.grad(f)(theta, x)
    assert np.allclose(got, want, rtol=1e-8, atol=1e-10), (got, want)
    value, g2 = srcad.value_and_grad(f)(theta, x)
    assert np.isclose(value, f(theta, x), rtol=1e-12) and np.allclose(g2, want, rtol=1e-8)
    fd = np.array([(f(theta + e, x) - f(theta - e, x)) / 2e-6 for e in np.eye(2) * 1e-6])
    assert np.allclose(got, fd, rtol=1e-5, atol=1e-7)
    v = np.array([0.7, -0.4])
    assert np.isclose(srcad.jvp(f, (theta, x), (v, np.zeros(3)))[1], want @ v, rtol=1e-8)
    if method in ("logpdf", "pdf") and dist.startswith("norm") and f_autograd is not None:
        expected = autograd.hessian(f_autograd)(theta, x)
        assert np.allclose(srcad.hessian(f)(theta, x), expected, rtol=1e-7, atol=1e-10)


_PRIORS = {
    "norm": "stats.norm(0.5, 2.0)",
    "norm_keywords": "stats.norm(loc=0.5, scale=2.0)",
    "gamma": "stats.gamma(2.0, scale=1.5)",
    "t": "stats.t(3.0)",
}


@pytest.mark.parametrize("prior", list(_PRIORS))
def test_a_frozen_distribution_the_function_reads(tmp_path, prior):
    text = ("from scipy import stats\n\nPRIOR = " + _PRIORS[prior] + "\n\n\n"
            "def f(theta, x):\n    return np.sum(PRIOR.logpdf(np.abs(theta) + 0.1)) + "
            "np.sum(theta * x)\n")
    module = program_files.module(tmp_path, f"prior_{prior}", "import numpy as np\n" + text)
    f = module.f
    theta, x = np.array([0.3, -0.7]), np.array([1.0, 2.0])
    fd = np.array([(f(theta + e, x) - f(theta - e, x)) / 2e-6 for e in np.eye(2) * 1e-6])
    assert np.allclose(srcad.grad(f)(theta, x), fd, rtol=1e-5, atol=1e-7)
    module.PRIOR = module.stats.norm(-1.0, 0.5)  # bound to another one: the code is made again
    fd = np.array([(f(theta + e, x) - f(theta - e, x)) / 2e-6 for e in np.eye(2) * 1e-6])
    assert np.allclose(srcad.grad(f)(theta, x), fd, rtol=1e-5, atol=1e-7)


def test_other_uses_stay_refused(tmp_path):
    """The frozen object passed on, or a keyword argument: left as it is, refused."""
    text = ("from scipy import stats\n\n\ndef helper(d, x):\n    return d.logpdf(x)\n\n\n"
            "def f(theta, x):\n    d = stats.norm(theta[0], 1.0)\n"
            "    return np.sum(helper(d, x))\n")
    f = program_files.load(tmp_path, "passed_on", text, (np,))
    with pytest.raises(srcad.SrcadError):
        srcad.grad(f)(np.array([0.3]), np.array([1.0, 2.0]))


@pytest.mark.parametrize("theta0", [0.4, -0.4])
def test_a_name_frozen_in_two_branches(tmp_path, theta0):
    """``d = norm(a, 1.0)`` in one branch, ``d = norm(0.0, s)`` in the other: one form, the
    same argument names in both (merged as any local)."""
    text = ("from scipy import stats\n\n\ndef f(theta, x):\n    if theta[0] > 0:\n"
            "        d = stats.norm(theta[0], 1.0)\n    else:\n"
            "        d = stats.norm(0.0, np.exp(theta[1]))\n    return np.sum(d.logpdf(x))\n")
    f = program_files.load(tmp_path, f"branches_{theta0 > 0}", text, (np,))
    theta, x = np.array([theta0, -0.3]), np.array([0.1, 0.5, -1.0])
    fd = np.array([(f(theta + e, x) - f(theta - e, x)) / 2e-6 for e in np.eye(2) * 1e-6])
    assert np.allclose(srcad.grad(f)(theta, x), fd, rtol=1e-5, atol=1e-7)
    other = text.replace("stats.norm(0.0, np.exp(theta[1]))", "stats.t(3.0, 0.0, 1.0)")
    g = program_files.load(tmp_path, f"branches_other_{theta0 > 0}", other, (np,))
    with pytest.raises(srcad.SrcadError):  # two distributions: left as it is, refused
        srcad.grad(g)(theta, x)
