"""The SciPy rules (``scipy.special``, ``scipy.stats``), table-driven.

Each row of :data:`ROWS` is a call written once as text; the case function
``np.sum(np.sin(<call>))`` is generated into two modules, one over NumPy/SciPy (for srcad and
finite differences) and one over ``autograd.numpy``/``autograd.scipy`` (the second opinion,
where autograd has the function), so both engines run the same code. Every case, at every
shape of its row, is checked for:

* the reverse-mode gradient of each argument against central finite differences, and against
  autograd to 1e-8;
* forward mode against reverse mode (``srcad.jvp`` along a random direction equals the
  gradient dotted with it: the two are each other's transposes);
* second order: forward over reverse (``srcad.jvp`` of ``srcad.grad``) against finite
  differences of the gradient.

The cases skip cleanly when SciPy is not installed (``pip install srcad[scipy]``).
"""

from __future__ import annotations

import importlib.util
import sys

import numpy as np
import pytest
from sampling import sample_by
from srcad.check import numerical_grad

import srcad

pytest.importorskip("scipy")
try:
    import autograd  # noqa: F401
except ImportError:  # the autograd comparison is optional
    autograd = None

RNG = np.random.default_rng(20261202)
POS = (0.3, 1.5)  # positive arguments (logs, gamma functions, scales)
UNIT = (0.1, 0.9)  # inside (0, 1) (logit, erfinv, beta quantiles)
ANY = (-1.5, 1.5)


def _spd(n):
    a = RNG.normal(size=(n, n))
    return a @ a.T + n * np.eye(n)


def _simplex(k, n=None):
    x = RNG.uniform(0.2, 1.0, size=(k,) if n is None else (k, n))
    return x / np.sum(x, axis=0)


# id, call text, parameter -> (low, high) or a fixed array factory, shapes to try.
# A parameter's shape comes from the row's shapes: a dict parameter -> shape per variant.
ROWS = [
    # scipy.special: element-wise
    ("gammaln", "special.gammaln(x)", dict(x=POS)),
    ("digamma", "special.digamma(x)", dict(x=POS)),
    ("polygamma", "special.polygamma(2, x)", dict(x=POS)),
    ("gamma", "special.gamma(x)", dict(x=POS)),
    ("beta", "special.beta(a, b)", dict(a=POS, b=POS)),
    ("betaln", "special.betaln(a, b)", dict(a=POS, b=POS)),
    ("erf", "special.erf(x)", dict(x=ANY)),
    ("erfc", "special.erfc(x)", dict(x=ANY)),
    ("erfinv", "special.erfinv(x)", dict(x=(-0.9, 0.9))),
    ("erfcinv", "special.erfcinv(x)", dict(x=(0.1, 1.9))),
    ("expit", "special.expit(x)", dict(x=ANY)),
    ("log_expit", "special.log_expit(x)", dict(x=ANY)),
    ("special_log1p", "special.log1p(x)", dict(x=(-0.5, 1.5))),
    ("special_expm1", "special.expm1(x)", dict(x=ANY)),
    ("special_cbrt", "special.cbrt(x)", dict(x=POS)),
    ("special_exp2", "special.exp2(x)", dict(x=ANY)),
    ("special_exp10", "special.exp10(x)", dict(x=ANY)),
    ("special_cosm1", "special.cosm1(x)", dict(x=ANY)),
    ("logit", "special.logit(x)", dict(x=UNIT)),
    ("xlogy", "special.xlogy(a, b)", dict(a=ANY, b=POS)),
    ("xlog1py", "special.xlog1py(a, b)", dict(a=ANY, b=POS)),
    ("ndtr", "special.ndtr(x)", dict(x=ANY)),
    ("log_ndtr", "special.log_ndtr(x)", dict(x=ANY)),
    ("ndtri", "special.ndtri(x)", dict(x=UNIT)),
    ("i0", "special.i0(x)", dict(x=ANY)),
    ("i1", "special.i1(x)", dict(x=ANY)),
    ("ive", "special.ive(1, x)", dict(x=ANY)),
    ("k0", "special.k0(x)", dict(x=POS)),
    ("k1", "special.k1(x)", dict(x=POS)),
    ("kv", "special.kv(1.5, x)", dict(x=POS)),
    ("kn", "special.kn(2, x)", dict(x=POS)),
    ("kve", "special.kve(0.5, x)", dict(x=POS)),
    ("i0e", "special.i0e(x)", dict(x=ANY)),
    ("i1e", "special.i1e(x)", dict(x=ANY)),
    ("k0e", "special.k0e(x)", dict(x=POS)),
    ("k1e", "special.k1e(x)", dict(x=POS)),
    ("j0", "special.j0(x)", dict(x=ANY)),
    ("j1", "special.j1(x)", dict(x=ANY)),
    ("jn", "special.jn(2, x)", dict(x=ANY)),
    ("y0", "special.y0(x)", dict(x=POS)),
    ("y1", "special.y1(x)", dict(x=POS)),
    ("yn", "special.yn(2, x)", dict(x=POS)),
    ("multigammaln", "special.multigammaln(x, 3)", dict(x=(1.5, 3.0))),
    ("rgamma", "special.rgamma(x)", dict(x=POS)),
    ("loggamma", "special.loggamma(x)", dict(x=POS)),
    ("erfi", "special.erfi(x)", dict(x=ANY)),
    ("erfcx", "special.erfcx(x)", dict(x=ANY)),
    ("dawsn", "special.dawsn(x)", dict(x=ANY)),
    ("wofz", "np.real(special.wofz(x)) + 0.5 * np.imag(special.wofz(x))", dict(x=ANY)),
    ("gammasgn", "special.gammasgn(x) * x", dict(x=ANY)),
    # incomplete gamma and beta: in the limit x only (the shape parameters are constants)
    ("gammainc", "special.gammainc(1.7, x)", dict(x=POS)),
    ("gammaincc", "special.gammaincc(0.8, x)", dict(x=POS)),
    ("betainc", "special.betainc(1.5, 2.5, x)", dict(x=UNIT)),
    ("entr", "special.entr(x)", dict(x=POS)),
    ("rel_entr", "special.rel_entr(a, b)", dict(a=POS, b=POS)),
    # exponential integrals, Owen's T, Pochhammer, 1F1 and Hurwitz's zeta in x (sound27)
    ("expi", "special.expi(x)", dict(x=POS)),
    ("exp1", "special.exp1(x)", dict(x=POS)),
    ("expn", "special.expn(3, x) + special.expn(0, x)", dict(x=POS)),
    ("kl_div", "special.kl_div(a, b)", dict(a=POS, b=POS)),
    ("owens_t", "special.owens_t(a, b)", dict(a=ANY, b=ANY)),
    ("poch", "special.poch(a, b)", dict(a=POS, b=POS)),
    ("hyp1f1", "special.hyp1f1(1.3, 2.1, x)", dict(x=ANY)),
    ("zeta", "special.zeta(2.5, x)", dict(x=POS)),
    ("boxcox", "special.boxcox(x, 0.7) + special.boxcox(x, 0.0)", dict(x=POS)),
    ("boxcox1p", "special.boxcox1p(x, -0.4) + special.boxcox1p(x, 0.0)", dict(x=POS)),
    # scipy.special: reductions and normalisations
    ("logsumexp", "special.logsumexp(x)", dict(x=ANY)),
    ("logsumexp_b", "special.logsumexp(x, b=w)", dict(x=ANY, w=POS)),
    ("logsumexp_axis", "special.logsumexp(x, axis=-1)", dict(x=ANY)),
    ("logsumexp_axis_keepdims", "special.logsumexp(x, axis=0, keepdims=True)", dict(x=ANY)),
    ("logsumexp_axis_b", "special.logsumexp(x, axis=1, b=w)", dict(x=ANY, w=POS)),
    ("softmax", "special.softmax(x)", dict(x=ANY)),
    ("softmax_axis", "special.softmax(x, axis=1)", dict(x=ANY)),
    ("log_softmax", "special.log_softmax(x)", dict(x=ANY)),
    ("log_softmax_axis", "special.log_softmax(x, axis=0)", dict(x=ANY)),
    # scipy.stats
    ("norm_logpdf", "stats.norm.logpdf(x, m, s)", dict(x=ANY, m=ANY, s=POS)),
    ("norm_logpdf_kw", "stats.norm.logpdf(x, loc=m, scale=s)", dict(x=ANY, m=ANY, s=POS)),
    ("norm_logpdf_x", "stats.norm.logpdf(x)", dict(x=ANY)),
    # the normal's moments (what a frozen distribution's d.mean(), d.std() call)
    *[(f"norm_{m}", f"stats.norm.{m}(m, s)", dict(m=ANY, s=POS))
      for m in ("mean", "median", "std", "var", "entropy")],
    ("norm_pdf", "stats.norm.pdf(x, m, s)", dict(x=ANY, m=ANY, s=POS)),
    ("norm_cdf", "stats.norm.cdf(x, m, s)", dict(x=ANY, m=ANY, s=POS)),
    ("norm_logcdf", "stats.norm.logcdf(x, m, s)", dict(x=ANY, m=ANY, s=POS)),
    ("norm_sf", "stats.norm.sf(x, m, s)", dict(x=ANY, m=ANY, s=POS)),
    ("norm_logsf", "stats.norm.logsf(x, m, s)", dict(x=ANY, m=ANY, s=POS)),
    ("t_logpdf", "stats.t.logpdf(x, d, m, s)", dict(x=ANY, d=(1.5, 4.0), m=ANY, s=POS)),
    ("t_pdf", "stats.t.pdf(x, d, loc=m, scale=s)", dict(x=ANY, d=(1.5, 4.0), m=ANY, s=POS)),
    ("gamma_logpdf", "stats.gamma.logpdf(x, a, m, s)",
     dict(x=(2.0, 3.0), a=(1.5, 3.0), m=(0.0, 0.5), s=POS)),
    ("gamma_pdf", "stats.gamma.pdf(x, a, loc=m, scale=s)",
     dict(x=(2.0, 3.0), a=(1.5, 3.0), m=(0.0, 0.5), s=POS)),
    ("beta_logpdf", "stats.beta.logpdf(x, a, b)", dict(x=UNIT, a=(1.5, 3.0), b=(1.5, 3.0))),
    ("beta_pdf", "stats.beta.pdf(x, a, b, 0.0, 1.0)",
     dict(x=UNIT, a=(1.5, 3.0), b=(1.5, 3.0))),
    ("chi2_pdf", "stats.chi2.pdf(x, d)", dict(x=(2.0, 3.0), d=(1.5, 4.0))),
    ("chi2_logpdf", "stats.chi2.logpdf(x, d, m, s)",
     dict(x=(2.0, 3.0), d=(1.5, 4.0), m=(0.0, 0.5), s=POS)),
    # distribution functions: in x, loc and scale (the shape parameters are constants)
    *[(f"{dist}_{method}", f"stats.{dist}.{method}(x, {shape}, m, s)", dict(x=x, m=m, s=s))
      for method in ("cdf", "logcdf", "sf", "logsf")
      for dist, shape, x, m, s in (("t", "3.5", ANY, ANY, POS),
                                   ("gamma", "1.7", (2.0, 3.0), (0.0, 0.5), POS),
                                   ("chi2", "2.5", (2.0, 3.0), (0.0, 0.5), POS),
                                   ("beta", "1.5, 2.5", (0.3, 0.5), (-0.1, 0.1), (1.0, 1.5)))],
    ("t_cdf_kw", "stats.t.cdf(x, 2.5, loc=m, scale=s)", dict(x=ANY, m=ANY, s=POS)),
    # location-scale families without shape parameters: every method, both sides of zero
    # (expon and halfnorm on their support: x >= loc)
    *[(f"{dist}_{method}", f"stats.{dist}.{method}(x, m, s)", dict(x=x, m=m, s=POS))
      for method in ("logpdf", "pdf", "cdf", "logcdf", "sf", "logsf")
      for dist, x, m in (("laplace", ANY, (-0.2, 0.2)), ("logistic", ANY, ANY),
                         ("cauchy", ANY, ANY), ("expon", (0.6, 2.0), (-0.5, 0.4)),
                         ("halfnorm", (0.6, 2.0), (-0.5, 0.4)))],
    ("laplace_logpdf_x", "stats.laplace.logpdf(x)", dict(x=ANY)),
    ("expon_logpdf_kw", "stats.expon.logpdf(x, scale=s)", dict(x=POS, s=POS)),
    ("gamma_cdf_x", "stats.gamma.cdf(x, 2.5)", dict(x=POS)),
    ("poisson_cdf", "stats.poisson.cdf(K, mu)", dict(mu=POS)),
    ("poisson_logcdf", "stats.poisson.logcdf(K, mu)", dict(mu=POS)),
    ("poisson_logpmf", "stats.poisson.logpmf(K, mu)", dict(mu=POS)),
    ("poisson_pmf", "stats.poisson.pmf(K, mu)", dict(mu=POS)),
    ("poisson_sf", "stats.poisson.sf(K, mu)", dict(mu=POS)),
    ("poisson_logsf", "stats.poisson.logsf(K, mu)", dict(mu=POS)),
    *[(f"{dist}_{method}", f"stats.{dist}.{method}({k}, p)", dict(p=UNIT))
      for method in ("logpmf", "pmf")
      for dist, k in (("bernoulli", "K % 2"), ("binom", "K, 7"), ("geom", "K + 1"))],
    ("binom_outside", "stats.binom.pmf(K + 9, 7, p) + p", dict(p=UNIT)),  # pmf 0 there
    # x is normalised in the case, so that finite differences stay on the simplex
    ("dirichlet_logpdf", "stats.dirichlet.logpdf(x / np.sum(x, axis=0), alpha)",
     dict(x="simplex", alpha=POS)),
    ("dirichlet_pdf", "stats.dirichlet.pdf(x / np.sum(x, axis=0), alpha)",
     dict(x="simplex", alpha=POS)),
    ("mvn_entropy", "stats.multivariate_normal.entropy(mu, C)", dict(mu="mean", C="spd")),
    ("mvn_entropy_number", "stats.multivariate_normal.entropy(cov=c)", dict(c=POS)),
    ("mvn_logpdf", "stats.multivariate_normal.logpdf(x, mu, C)",
     dict(x="points", mu="mean", C="spd")),
    ("mvn_pdf", "stats.multivariate_normal.pdf(x, mean=mu, cov=C)",
     dict(x="points", mu="mean", C="spd")),
    ("mvn_logpdf_diag", "stats.multivariate_normal.logpdf(x, mu, c)",
     dict(x="points", mu="mean", c=(1.0, 2.0))),
    # allow_singular=False (SciPy's default) given: a peer's tests pass it by keyword
    ("mvn_logpdf_not_singular", "stats.multivariate_normal.logpdf(x, mu, C, "
     "allow_singular=False)", dict(x="points", mu="mean", C="spd")),
    ("mvn_pdf_not_singular", "stats.multivariate_normal.pdf(x, mu, C, False)",
     dict(x="points", mu="mean", C="spd")),
    # scipy.signal.convolve: every mode, both inputs larger in turn, 1 to 3 axes
    *[(f"convolve_{mode}_{'x'.join(map(str, sa))}_{'x'.join(map(str, sb))}",
       f"signal.convolve(a, b, mode={mode!r})" if mode != "full" else "signal.convolve(a, b)",
       dict(a=ANY + (sa,), b=ANY + (sb,)))
      for mode in ("full", "valid", "same")
      for sa, sb in (((5,), (3,)), ((3,), (6,)), ((4,), (4,)), ((4, 3), (2, 2)),
                     ((2, 3), (4, 5)), ((3, 4, 2), (2, 2, 2)))],
    # scipy.linalg (square: well conditioned; spd: symmetric positive definite)
    ("linalg_inv", "linalg.inv(M)", dict(M="square")),
    ("linalg_det", "linalg.det(M)", dict(M="square")),
    ("linalg_det_batch", "linalg.det(M)", dict(M="squares")),
    ("linalg_solve_vector", "linalg.solve(M, v)", dict(M="square", v=ANY + ((3,),))),
    ("linalg_solve_matrix", "linalg.solve(M, B)", dict(M="square", B=ANY + ((3, 2),))),
    ("linalg_solve_batch", "linalg.solve(M, v)", dict(M="squares", v=ANY + ((3,),))),
    ("linalg_solve_batch_b", "linalg.solve(M, B)", dict(M="square", B=ANY + ((2, 3, 2),))),
    *[(f"solve_triangular_{trans}_{lower}_{unit}_{len(shape)}",
       f"linalg.solve_triangular(M, B, trans={trans!r}, lower={lower}, unit_diagonal={unit})",
       dict(M="square", B=ANY + (shape,)))
      for trans in (0, "T", 2) for lower in (False, True) for unit in (False, True)
      for shape in ((3,), (3, 2))],
    ("solve_triangular_C", "linalg.solve_triangular(M, B, 'C', True)",
     dict(M="square", B=ANY + ((3, 2),))),
    ("lu_factor", "linalg.lu_factor(M)[0]", dict(M="square")),
    ("lu_p", "linalg.lu(M)[0] * M", dict(M="square")),
    ("lu_l", "linalg.lu(M)[1]", dict(M="square")),
    ("lu_u", "linalg.lu(M)[2]", dict(M="square")),
    *[(f"lu_solve_{trans}_{len(shape)}", f"linalg.lu_solve((F, PIV), B, {trans})",
       dict(F="square", B=ANY + (shape,))) for trans in (0, 1, 2) for shape in ((3,), (3, 2))],
    ("lu_factor_solve", "linalg.lu_solve(linalg.lu_factor(M), B)",
     dict(M="square", B=ANY + ((3, 2),))),
    ("solve_triangular_positional", "linalg.solve_triangular(M, B, 1, True)",
     dict(M="square", B=ANY + ((3, 2),))),
    ("cholesky", "linalg.cholesky(0.5 * (C + C.T))", dict(C="spd")),
    ("cholesky_lower", "linalg.cholesky(0.5 * (C + C.T), lower=True)", dict(C="spd")),
    ("cho_factor", "linalg.cho_factor(0.5 * (C + C.T))[0]", dict(C="spd")),
    ("cho_factor_lower", "linalg.cho_factor(0.5 * (C + C.T), lower=True)[0]", dict(C="spd")),
    ("cho_solve_vector", "linalg.cho_solve((F, False), v)", dict(F="upper", v=ANY + ((3,),))),
    ("cho_solve_matrix", "linalg.cho_solve((F, True), B)", dict(F="lower", B=ANY + ((3, 2),))),
    ("cho_factor_solve", "linalg.cho_solve(linalg.cho_factor(0.5 * (C + C.T), lower=True), v)",
     dict(C="spd", v=ANY + ((3,),))),
    ("solve_banded_vector", "linalg.solve_banded((1, 1), ab, v)",
     dict(ab="band_1_1", v=ANY + ((5,),))),
    ("solve_banded_matrix", "linalg.solve_banded((2, 0), ab, B)",
     dict(ab="band_2_0", B=ANY + ((5, 2),))),
    ("sqrtm", "linalg.sqrtm(C)", dict(C="spd")),
    ("logm", "linalg.logm(C)", dict(C="spd")),
    ("svd", "linalg.svd(M, full_matrices=False)[0] ** 2 + linalg.svd(M)[1][None, :]",
     dict(M=ANY + ((3, 3),))),
    ("svd_values", "linalg.svd(M, compute_uv=False)", dict(M=ANY + ((4, 3),))),
    ("qr", "linalg.qr(M, mode='economic')[0] * 2.0", dict(M=ANY + ((4, 3),))),
    ("qr_full", "linalg.qr(M)[1]", dict(M=ANY + ((3, 3),))),
    ("expm", "linalg.expm(M)", dict(M=ANY + ((3, 3),))),
    ("expm_batch", "linalg.expm(M)", dict(M=ANY + ((2, 3, 3),))),
    ("eigh", "linalg.eigh(C)[0] + linalg.eigh(C)[1][0] ** 2", dict(C="spd")),
    ("eigh_upper", "linalg.eigh(C, lower=False)[1] ** 2 * linalg.eigh(C, lower=False)[0]",
     dict(C="spd")),
    ("eigh_values", "linalg.eigh(C, eigvals_only=True)", dict(C="spd")),
    ("expm_frechet", "linalg.expm_frechet(M, N)[1] + linalg.expm_frechet(M, N)[0] ** 2",
     dict(M=ANY + ((3, 3),), N=ANY + ((3, 3),))),
    ("expm_frechet_only", "linalg.expm_frechet(M, N, compute_expm=False)",
     dict(M=ANY + ((3, 3),), N=ANY + ((3, 3),))),
    ("solve_sylvester", "linalg.solve_sylvester(M, N, Q)",
     dict(M="square", N="square", Q=ANY + ((3, 3),))),
    # scipy.integrate.odeint: in y0, the times and args (numbers, arrays, lists of tuples)
    ("odeint", "integrate.odeint(ode_decay, y, ts, (a, b), rtol=1e-12, atol=1e-12)",
     dict(y=ANY + ((3,),), ts="times", a=ANY + ((3,),), b=ANY + ((3,),))),
    ("odeint_y0", "integrate.odeint(ode_decay, y, TIMES, (A, A), rtol=1e-12, atol=1e-12)",
     dict(y=ANY + ((2,),))),
    ("odeint_nested", "integrate.odeint(ode_net, y, TIMES, ([(W, c), (W, -c)], 0.5), "
     "rtol=1e-12, atol=1e-12)", dict(y=ANY + ((2,),), W=ANY + ((2, 2),), c=ANY + ((2,),))),
    ("odeint_scalar_arg", "integrate.odeint(ode_decay, y, ts, (k, 0.3), rtol=1e-12, atol=1e-12)",
     dict(y=ANY + ((3,),), ts="times", k=POS + ((),))),
    ("convolve_direct", "signal.convolve(a, b, 'same', 'direct')",
     dict(a=ANY + ((6,),), b=ANY + ((3,),))),
    ("convolve_fft", "signal.convolve(a, b, method='fft')",
     dict(a=ANY + ((4, 3),), b=ANY + ((3, 3),))),
]

#: the shapes each row is tried at: every parameter takes the variant's shape
VARIANTS = {"scalar": (), "vector": (4,), "matrix": (2, 3)}
ONE_SHAPE = {"logsumexp_b", "rel_entr", "xlogy", "xlog1py", "beta", "betaln", "kl_div",
             "owens_t", "poch"}
K = np.array([0.0, 1.0, 3.0, 2.0])  # counts for the Poisson case


def _value(spec, shape, row_id):
    if spec == "simplex":
        return _simplex(3) if shape == () else _simplex(3, 4)
    if spec == "points":
        return RNG.normal(size=(3,) if shape == () else (4, 3))
    if spec == "mean":
        return RNG.normal(size=3)
    if spec == "spd":
        return _spd(3)
    if isinstance(spec, str) and spec.startswith("band_"):  # banded storage of (l, u)
        lower, upper = (int(k) for k in spec.split("_")[1:])
        ab = RNG.normal(size=(lower + upper + 1, 5))
        ab[upper] += 4.0
        return ab
    if spec == "times":
        return np.sort(RNG.uniform(0.1, 0.4, size=4))
    if spec in ("upper", "lower"):  # a factor from cho_factor (with a's other triangle)
        import scipy.linalg

        return scipy.linalg.cho_factor(_spd(3), lower=spec == "lower")[0]
    if spec == "square":
        return RNG.normal(size=(3, 3)) + 3 * np.eye(3)
    if spec == "squares":
        return RNG.normal(size=(2, 3, 3)) + 3 * np.eye(3)
    if len(spec) == 3:  # a fixed shape
        low, high, shape = spec
        return RNG.uniform(low, high, size=shape)
    low, high = spec
    if row_id.startswith("dirichlet"):
        return RNG.uniform(low, high, size=3)
    if row_id == "mvn_entropy_number":
        return float(RNG.uniform(low, high))
    if row_id.startswith("mvn"):
        return RNG.uniform(low, high, size=3)
    if row_id.startswith(COUNTED):
        return RNG.uniform(low, high, size=4) if shape else float(RNG.uniform(low, high))
    return RNG.uniform(low, high, size=shape) if shape else float(RNG.uniform(low, high))


#: the rows of counts K (four of them): their probabilities are vectors of four
COUNTED = ("poisson", "bernoulli", "binom", "geom")


def _variants(row_id):
    if row_id.startswith(("convolve", "linalg", "solve_", "cho", "sqrtm", "logm", "expm", "odeint",
                          "svd", "qr", "lu_", "eigh")):
        return ["fixed"]
    if "_axis" in row_id:
        return ["matrix", "broadcast"] if row_id.endswith("_b") else ["matrix"]
    if row_id.startswith("mvn_entropy"):
        return ["scalar"]
    if row_id.startswith(("mvn", "dirichlet")):
        return ["scalar", "vector"]
    if row_id.startswith(COUNTED):
        return ["vector"]
    if row_id in ONE_SHAPE:
        return ["vector", "broadcast"]
    return list(VARIANTS)


#: the right-hand sides the odeint rows integrate (defined in each generated module)
ODE_FUNCTIONS = """
PIV = np.array([2, 1, 2], dtype=np.int32)  # LU pivots: rows 0 and 2 swapped
TIMES = np.linspace(0.1, 0.4, 4)
A = np.array([0.3, -0.2])


def ode_decay(y, t, a, b):
    return -np.sqrt(t) - y + a - np.mean((y + b) ** 2)


def ode_net(y, t, layers, scale):
    for W, c in layers:
        y = np.tanh(np.dot(y, W) + c)
    return scale * y
"""


def _module(tmp_dir, name, header):
    lines = [header, f"K = {K.tolist()!r}", ODE_FUNCTIONS, ""]
    for row_id, call, params in ROWS:
        lines.append(f"def case_{row_id}({', '.join(params)}):")
        lines.append(f"    return np.sum(np.sin({call}))")
        lines.append("")
    path = tmp_dir / f"{name}.py"
    path.write_text("\n".join(lines))
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module


@pytest.fixture(scope="module")
def modules(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("scipy_cases")
    ours = _module(tmp, "srcad_scipy_cases", "import numpy as np\nfrom scipy import integrate, "
                   "linalg, signal, special, stats\nK = None")
    theirs = None
    if autograd is not None:
        theirs = _module(tmp, "autograd_scipy_cases", "import autograd.numpy as np\n"
                         "import autograd.scipy.integrate as integrate\n"
                         "import autograd.scipy.linalg as linalg\n"
                         "import autograd.scipy.signal as signal\n"
                         "import autograd.scipy.special as special\n"
                         "import autograd.scipy.stats as stats\nK = None")
    return ours, theirs


#: rows whose derivative helpers have no rules (odeint's adjoint): a second derivative through
#: them is refused, and the test checks that it is (sqrtm's goes through solve_sylvester,
#: whose rule holds for the complex values sqrtm is taken to give)
FIRST_ORDER_ONLY = {r for r, _, _ in ROWS if r.startswith("odeint")}
CASES = [(row_id, variant) for row_id, _, _ in ROWS for variant in _variants(row_id)]


def _args(row_id, variant):
    params = next(p for r, _, p in ROWS if r == row_id)
    args = []
    for i, spec in enumerate(params.values()):
        shape = VARIANTS.get(variant, (4,))
        if variant == "broadcast":
            shape = (4,) if i == 0 else (2, 1)
            if row_id.endswith("_axis_b"):  # x of one row, weights of several
                shape = (1, 3) if i == 0 else (2, 3)
        args.append(_value(spec, shape, row_id))
    if row_id == "mvn_logpdf_diag":
        args[2] = RNG.uniform(1.0, 2.0, size=3)
    return tuple(args)


def _direction(x):
    if isinstance(x, float):
        return float(RNG.normal())
    v = RNG.normal(size=np.shape(x))
    return (v + np.swapaxes(v, -1, -2)) / 2 if v.ndim == 2 and v.shape[0] == v.shape[1] else v


def _close(a, b, rtol, atol, what):
    np.testing.assert_allclose(np.asarray(a, dtype=float), np.asarray(b, dtype=float),
                               rtol=rtol, atol=atol, err_msg=what)


def _batched_linalg():
    """Whether scipy.linalg's det and solve take stacks of matrices (SciPy >= 1.16)."""
    try:
        from scipy import linalg

        linalg.det(np.stack([np.eye(2)] * 2))
        linalg.solve(np.stack([np.eye(2)] * 2), np.ones((2, 2, 1)))
    except ValueError:
        return False
    return True


#: CI: every row's first variant and every second of the others; the long run all of them
SAMPLED = sample_by(CASES, lambda case: case[0], 8)


@pytest.mark.parametrize(("row_id", "variant"), SAMPLED, ids=[f"{r}-{v}" for r, v in SAMPLED])
def test_scipy_rule(modules, row_id, variant):
    ours, theirs = modules
    if row_id in ("linalg_det_batch", "linalg_solve_batch", "linalg_solve_batch_b") and \
            not _batched_linalg():
        pytest.skip("this SciPy's linalg.det/solve take one matrix, not a stack")
    f = getattr(ours, f"case_{row_id}")
    ours.K = K if variant != "scalar" else 2.0
    args = _args(row_id, variant)
    n = len(args)
    grad_0 = srcad.grad(f, wrt=0)  # (one argument: the same code as wrt=(0,), made once)
    grads = (grad_0(*args),) if n == 1 else srcad.grad(f, wrt=tuple(range(n)))(*args)
    fd = numerical_grad(f, args, wrt=tuple(range(n)))
    for i in range(n):
        assert np.shape(grads[i]) == np.shape(args[i])
        _close(grads[i], fd[i], 1e-5, 1e-6, f"{row_id}: gradient {i} vs finite differences")
    # autograd, where it has the function (its solve_triangular reads the diagonal even with
    # unit_diagonal=True, where finite differences side with srcad; its odeint differentiates
    # args only when they are autograd's own tuple, not one built in the function)
    call = next(c for r, c, _ in ROWS if r == row_id)
    if theirs is not None and "unit_diagonal=True" not in call and "odeint" not in call:
        theirs.K = ours.K
        g = getattr(theirs, f"case_{row_id}")
        try:
            reference = autograd.grad(lambda *a: g(*a), tuple(range(n)) if n > 1 else 0)(*args)
        except (AttributeError, KeyError, NotImplementedError, TypeError, ValueError):
            reference = None
        if reference is not None:
            reference = reference if n > 1 else (reference,)
            for i in range(n):
                ours_i, theirs_i = grads[i], reference[i]
                if row_id.startswith("mvn") and np.ndim(args[i]) == 2 and \
                        np.shape(args[i])[0] == np.shape(args[i])[1]:
                    # SciPy reads cov's lower triangle (srcad's gradient, the one finite
                    # differences see); autograd's is symmetric: equal along symmetric moves
                    ours_i, theirs_i = ours_i + ours_i.T, theirs_i + theirs_i.T
                _close(ours_i, theirs_i, 1e-8, 1e-10, f"{row_id}: gradient {i} vs autograd")
    # forward mode is the transpose of reverse mode
    tangents = tuple(_direction(a) for a in args)
    _, dy = srcad.jvp(f, args, tangents)
    expected = sum(float(np.sum(np.asarray(gi) * ti)) for gi, ti in zip(grads, tangents))
    _close(dy, expected, 1e-9, 1e-10, f"{row_id}: jvp vs grad")
    # second order: forward over reverse, against finite differences of the gradient
    if row_id in FIRST_ORDER_ONLY:
        with pytest.raises(srcad.MissingRuleError):
            srcad.jvp(grad_0, args, (tangents[0],), wrt=(0,))
        return
    i = 0
    v = tangents[i]
    grad_i = grad_0
    _, hv = srcad.jvp(grad_i, args, (v,), wrt=(i,))

    def central(eps):
        plus = grad_i(*[a + eps * v if j == i else a for j, a in enumerate(args)])
        minus = grad_i(*[a - eps * v if j == i else a for j, a in enumerate(args)])
        return (np.asarray(plus) - np.asarray(minus)) / (2 * eps)

    # one Richardson step (steps 1e-5 and 5e-6): an ill-conditioned point (a triangular
    # matrix with a small diagonal, third derivatives of 1e9) keeps its 1e-4
    _close(hv, (4 * central(5e-6) - central(1e-5)) / 3, 1e-4, 1e-6,
           f"{row_id}: jvp of grad vs finite differences")


from scipy import special, stats  # noqa: E402  (SciPy is there: importorskip above)


def _return_sign(x):
    return special.logsumexp(x, return_sign=True)[0]


def _allow_singular(x):
    return stats.multivariate_normal.logpdf(x, np.zeros(2), np.eye(2), allow_singular=True)


def test_return_sign_is_refused():
    with pytest.raises(srcad.SrcadError, match="logsumexp"):
        srcad.grad(_return_sign)(np.ones(3))


def test_allow_singular_is_refused():
    with pytest.raises(srcad.SrcadError, match="allow_singular=True"):
        srcad.grad(_allow_singular)(np.ones(2))
    with pytest.raises(srcad.SrcadError, match="allow_singular=True"):
        srcad.jvp(_allow_singular, (np.ones(2),), (np.ones(2),))


def test_import_srcad_does_not_import_scipy():
    import subprocess

    code = "import srcad, sys; print('scipy' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True)
    assert out.stdout.strip() == "False"


# a shape parameter without a closed-form derivative: refused for that argument, never a zero
NO_DERIVATIVE = [
    ("gammainc", lambda a, x: special.gammainc(a, x), "a"),
    ("gammaincc", lambda a, x: special.gammaincc(a, x), "a"),
    ("betainc", lambda a, x: special.betainc(a, 2.0, x / 4.0), "a"),
    ("t_cdf", lambda a, x: stats.t.cdf(x, a), "df"),
    ("t_logcdf", lambda a, x: stats.t.logcdf(x, a), "df"),
    ("gamma_cdf", lambda a, x: stats.gamma.cdf(x, a), "a"),
    ("chi2_cdf", lambda a, x: stats.chi2.cdf(x, a), "df"),
    ("beta_cdf", lambda a, x: stats.beta.cdf(x / 4.0, a, 2.0), "a"),
    ("beta_sf_b", lambda a, x: stats.beta.sf(x / 4.0, 2.0, a), "b"),
    ("hyp1f1", lambda a, x: special.hyp1f1(a, 2.0, x), "a"),
    ("zeta", lambda a, x: special.zeta(a + 1.0, x), "x"),
    ("boxcox", lambda a, x: special.boxcox(x, a), "lmbda"),
]


def _shape_case(fn):
    def case(a, x):
        return np.sum(fn(a, x))

    return case


@pytest.mark.parametrize(("name", "fn", "param"), NO_DERIVATIVE,
                         ids=[n for n, _, _ in NO_DERIVATIVE])
def test_shape_parameter_is_refused(name, fn, param):
    a, x = np.array([1.5, 2.5]), np.array([0.7, 1.4])
    for engine in (lambda f: srcad.grad(f, wrt=0)(a, x),
                   lambda f: srcad.jvp(f, (a, x), (np.ones(2),), wrt=(0,))):
        with pytest.raises(srcad.SrcadError, match=f"'{param}'"):
            engine(_shape_case(fn))
    # the limit itself is differentiated
    g = srcad.grad(_shape_case(fn), wrt=1)(a, x)
    _close(g, numerical_grad(_shape_case(fn), (a, x), wrt=(1,))[0], 1e-5, 1e-7, name)


# odeint: what srcad cannot differentiate exactly is refused, never a zero
from scipy import integrate  # noqa: E402

TIMES = np.linspace(0.0, 1.0, 5)


def _decay(y, t, c):
    return -c * y


def _closure(y0, c):
    def rhs(y, t):
        return -c * y  # reads c, which carries a derivative: no rule can see it

    return np.sum(integrate.odeint(rhs, y0, TIMES))


def _lambda(y0, c):
    return np.sum(integrate.odeint(lambda y, t: -c * y, y0, TIMES))


def _times_by_keyword(y0, c):
    return np.sum(integrate.odeint(_decay, y0, t=TIMES, args=(c,)))


def _full_output(y0, c):  # (full_output=False, the default, is the plain call: rules29)
    return np.sum(integrate.odeint(_decay, y0, TIMES, (c,), full_output=True)[0])


def _tfirst(y0, c):
    return np.sum(integrate.odeint(lambda t, y, k: -k * y, y0, TIMES, (c,), tfirst=True))


def _opaque_rhs(y, t, c):
    return -c * np.asarray(np.frompyfunc(lambda v: v, 1, 1)(y), dtype=float)


def _opaque(y0, c):
    return np.sum(integrate.odeint(_opaque_rhs, y0, TIMES, (c,)))


def _power_rhs(y, t, c, n, mode):
    if mode == "decay":
        return -c[0] * y ** n
    return c[0] * y


def _mixed_item(y0, c):  # (c, 2): an item of args holding a float beside an integer
    return np.sum(integrate.odeint(_power_rhs, y0, TIMES, ((c, 2), 2, "decay")))


def _plain_items(y0, c):  # an integer and a string as items of their own: no derivative
    return np.sum(integrate.odeint(_power_rhs, y0, TIMES, ([c], 2, "decay"), rtol=1e-12,
                                   atol=1e-12))


def test_odeint_items_without_derivative():
    args = (np.array([1.0, 2.0]), 0.7)
    g = srcad.grad(_plain_items, wrt=(0, 1))(*args)
    fd = numerical_grad(_plain_items, args, wrt=(0, 1))
    for i in range(2):
        _close(g[i], fd[i], 1e-6, 1e-8, f"gradient {i}")
    _, dy = srcad.jvp(_plain_items, args, (np.array([0.3, -0.2]), 0.5))
    _close(dy, np.dot(g[0], [0.3, -0.2]) + 0.5 * g[1], 1e-8, 1e-10, "jvp")


@pytest.mark.parametrize("case", [_closure, _lambda, _times_by_keyword, _full_output, _tfirst,
                                  _opaque, _mixed_item], ids=lambda f: f.__name__.strip("_"))
def test_odeint_refusals(case):
    with pytest.raises(srcad.SrcadError):
        srcad.grad(case, wrt=1)(np.array([1.0, 2.0]), 0.7)


def test_odeint_matches_the_closed_form():
    # y' = -c y: y(t) = y0 exp(-c t); the gradient of sum(y) in y0 and in c, exactly
    def f(y0, c):
        return np.sum(integrate.odeint(_decay, y0, TIMES, (c,), rtol=1e-12, atol=1e-12))

    y0, c = np.array([1.0, 2.0]), 0.7
    gy, gc = srcad.grad(f, wrt=(0, 1))(y0, c)
    decay = np.exp(-c * TIMES)
    _close(gy, np.full(2, np.sum(decay)), 1e-8, 1e-10, "y0")
    _close(gc, -np.sum(y0) * np.sum(TIMES * decay), 1e-8, 1e-10, "c")


@pytest.mark.parametrize(("rtol", "atol"), [(1e-3, None), (None, 1e-6), (0.01, 1e-4)])
def test_odeint_loose_tolerance_is_refused(rtol, atol):
    # the derivative of the exact solution is then off that of odeint's values by ~100 x tol
    def f(y0, c, rtol=rtol, atol=atol):
        return np.sum(integrate.odeint(_decay, y0, TIMES, (c,), rtol=rtol, atol=atol))

    for engine in (lambda: srcad.grad(f, wrt=1)(np.array([1.0, 2.0]), 0.7),
                   lambda: srcad.jvp(f, (np.array([1.0, 2.0]), 0.7), (1.0,), wrt=(1,))):
        with pytest.raises(srcad.MissingRuleError, match="tolerance"):
            engine()
