"""Derivative rules for ``scipy.stats`` distributions: ``norm`` (logpdf, pdf, cdf, logcdf, sf,
logsf), ``t``, ``gamma``, ``beta``, ``chi2``, ``laplace``, ``logistic``, ``cauchy``, ``expon``,
``halfnorm`` (logpdf, pdf; cdf, logcdf, sf, logsf in ``x``, ``loc`` and ``scale``),
``poisson`` (logpmf, pmf, cdf, logcdf, sf, logsf), ``bernoulli``, ``binom``, ``geom``
(logpmf, pmf in ``p``), ``dirichlet`` (logpdf, pdf) and
``multivariate_normal`` (logpdf, pdf, entropy).

Loaded the first time srcad looks a rule up after the user's code has imported
``scipy.stats`` (see :mod:`srcad.rules.scipy_special`). A rule is keyed by the bound method of
SciPy's distribution object, ``scipy.stats.norm.logpdf``; ``loc`` and ``scale`` may be given by
position or by keyword. Throughout, ``Z`` stands for the standardised value
``(x - loc) / scale`` (written out in each template).

Univariate distributions are element-wise in all their arguments (forward mode uses the same
templates with the tangent in place of ``g``); ``dirichlet`` and ``multivariate_normal``
reduce the last axis of ``x`` and carry ``jvp=`` templates. ``multivariate_normal`` takes
``allow_singular=False`` (its derivative refuses ``True``: ``mvn_dim``); its ``cov`` may be
a number, a diagonal or a matrix, of which, as SciPy does, only the lower triangle is read
(``mvn_cov``).
"""

from scipy import stats

from ..runtime import scipy_helpers as H
from .registry import defvjp

SQRT_2PI = "2.5066282746310002"  # sqrt(2 pi)
LN2 = "0.6931471805599453"
Z = "((x - loc) / scale)"
PHI = f"exp(-0.5 * {Z} ** 2)"  # sqrt(2 pi) times the standard normal density at Z


def _location_scale(dist, method, signature, x, scale, *, times_ans=False, **others):
    """A rule for ``dist.method``, whose ``loc`` gradient is minus that of ``x`` (the
    templates are of a density in ``Z``: ``x`` and ``loc`` enter only through it)."""
    def weigh(template):
        return f"g * ans * {template}" if times_ans else f"g * {template}"

    templates = {p: weigh(t) for p, t in others.items()}
    defvjp(getattr(dist, method), signature, broadcast=True, name=f"scipy.stats.{dist.name}."
           f"{method}", x=weigh(x), loc=weigh(f"-({x})"), scale=weigh(scale), **templates)


# ---------------------------------------------------------------- normal
for method, times_ans in (("logpdf", False), ("pdf", True)):
    _location_scale(stats.norm, method, "x, loc=0, scale=1", f"-{Z} / scale",
                    f"({Z} ** 2 - 1) / scale", times_ans=times_ans)
# cdf, logcdf, sf, logsf: the density at Z (divided by the result for the logs), sf = 1 - cdf
for method, sign, over in (("cdf", "", ""), ("logcdf", "", " - ans"), ("sf", "-", ""),
                           ("logsf", "-", " - ans")):
    density = f"exp(-0.5 * {Z} ** 2{over}) / {SQRT_2PI}"
    _location_scale(stats.norm, method, "x, loc=0, scale=1", f"{sign}{density} / scale",
                    f"-({sign}{density}) * {Z} / scale")

# the normal's moments (a frozen d.mean(), d.std(): frontend.frozen_dists), elementwise in
# loc and scale: mean = median = loc, std = scale, var = scale ** 2, entropy = log(scale) + c
for method, loc, scale in (("mean", "g", None), ("median", "g", None), ("std", None, "g"),
                           ("var", None, "2 * scale * g"), ("entropy", None, "g / scale")):
    parts = {k: v for k, v in (("loc", loc), ("scale", scale)) if v is not None}
    defvjp(getattr(stats.norm, method), "loc=0, scale=1", broadcast=True,
           name=f"scipy.stats.norm.{method}",
           zero=tuple(k for k in ("loc", "scale") if k not in parts), **parts)

# ---------------------------------------------------------------- Student's t
T_DF = (f"0.5 * (special.digamma(0.5 * (df + 1)) - special.digamma(0.5 * df) - 1 / df "
        f"- log1p({Z} ** 2 / df) + (df + 1) * {Z} ** 2 / (df * (df + {Z} ** 2)))")
for method, times_ans in (("logpdf", False), ("pdf", True)):
    _location_scale(stats.t, method, "x, df, loc=0, scale=1",
                    f"-(df + 1) * {Z} / (scale * (df + {Z} ** 2))",
                    f"((df + 1) * {Z} ** 2 / (df + {Z} ** 2) - 1) / scale",
                    df=T_DF, times_ans=times_ans)

# ---------------------------------------------------------------- gamma, beta, chi-squared
# the density: its gradients are those of logpdf times the density (ans)
for method, times_ans in (("logpdf", False), ("pdf", True)):
    _location_scale(stats.gamma, method, "x, a, loc=0, scale=1", f"((a - 1) / {Z} - 1) / scale",
                    f"({Z} - a) / scale", a=f"(log({Z}) - special.digamma(a))",
                    times_ans=times_ans)
BETA_X = f"((a - 1) / {Z} - (b - 1) / (1 - {Z}))"
for method, times_ans in (("logpdf", False), ("pdf", True)):
    _location_scale(stats.beta, method, "x, a, b, loc=0, scale=1", f"{BETA_X} / scale",
                    f"-({BETA_X} * {Z} + 1) / scale",
                    a=f"(log({Z}) - special.digamma(a) + special.digamma(a + b))",
                    b=f"(log1p(-{Z}) - special.digamma(b) + special.digamma(a + b))",
                    times_ans=times_ans)
for method, times_ans in (("logpdf", False), ("pdf", True)):
    _location_scale(stats.chi2, method, "x, df, loc=0, scale=1",
                    f"((0.5 * df - 1) / {Z} - 0.5) / scale", f"(0.5 * {Z} - 0.5 * df) / scale",
                    df=f"0.5 * (log({Z}) - {LN2} - special.digamma(0.5 * df))",
                    times_ans=times_ans)

# ---------------------------------------------------------------- distribution functions
# cdf, logcdf, sf, logsf of t, gamma, chi-squared and beta: in x, loc and scale through the
# density at Z (cdf' = density, sf = 1 - cdf, the logs divide by the result). Their shape
# parameters (df, a, b) have no closed-form derivative: left without a template, a value
# carrying one there is refused, never a zero. Outside the support the density is zero (the
# log is taken of a value kept inside it).


def _inside(low, high):
    """``Z`` where it lies inside (low, high), else a point inside (logs stay finite)."""
    test = f"({Z} > {low})" if high is None else f"(({Z} > {low}) & ({Z} < {high}))"
    return test, f"where({test}, {Z}, {0.5 if high else 1.0})"


def _distribution_functions(dist, signature, log_density, low=None, high=None):
    """The cdf, logcdf, sf and logsf rules of ``dist``, whose log-density at a point ``z`` of
    its support is ``log_density.format(z)`` (standardised: loc 0, scale 1)."""
    test, safe = _inside(low, high) if low is not None else (None, Z)
    for method, sign, over in (("cdf", "", ""), ("logcdf", "", " - ans"), ("sf", "-", ""),
                               ("logsf", "-", " - ans")):
        density = f"exp({log_density.format(safe)}{over})"
        if test is not None:
            density = f"where({test}, {density}, 0.0)"
        _location_scale(dist, method, signature, f"{sign}{density} / scale",
                        f"-({sign}{density}) * {Z} / scale")


_distribution_functions(stats.t, "x, df, loc=0, scale=1",
                        "special.gammaln(0.5 * (df + 1)) - special.gammaln(0.5 * df) "
                        "- 0.5 * log(df * pi) - 0.5 * (df + 1) * log1p({0} ** 2 / df)")
_distribution_functions(stats.gamma, "x, a, loc=0, scale=1",
                        "(a - 1) * log({0}) - {0} - special.gammaln(a)", low=0)
_distribution_functions(stats.chi2, "x, df, loc=0, scale=1",
                        f"(0.5 * df - 1) * log({{0}}) - 0.5 * {{0}} - 0.5 * df * {LN2} "
                        "- special.gammaln(0.5 * df)", low=0)
_distribution_functions(stats.beta, "x, a, b, loc=0, scale=1",
                        "(a - 1) * log({0}) + (b - 1) * log1p(-{0}) - special.betaln(a, b)",
                        low=0, high=1)

# ---------------------------------------------------------------- Laplace, logistic, Cauchy,
# exponential, half-normal: location-scale families without shape parameters. The log-density
# at z (standardised) and its derivative in z; expon and halfnorm live on z >= 0 (outside,
# logpdf is -inf and pdf 0 for every nearby point: their gradients are 0 there)
for dist, log_density, slope, low in (
        (stats.laplace, "-0.6931471805599453 - np.abs({0})", "-sign({0})", None),
        (stats.logistic, "-{0} - 2 * log1p(exp(-{0}))", "-tanh(0.5 * {0})", None),
        (stats.cauchy, "-1.1447298858494002 - log1p({0} ** 2)", "-2 * {0} / (1 + {0} ** 2)",
         None),
        (stats.expon, "-{0}", "-1.0", 0),
        (stats.halfnorm, "-0.22579135264472744 - 0.5 * {0} ** 2", "-{0}", 0)):
    for method, times_ans in (("logpdf", False), ("pdf", True)):
        d = slope.format(Z)  # the log-density's derivative in Z: x gets it over scale
        x, scale = f"{d} / scale", f"(-{d} * {Z} - 1) / scale"
        if low is not None:
            x, scale = f"where({Z} >= {low}, {x}, 0.0)", f"where({Z} >= {low}, {scale}, 0.0)"
        _location_scale(dist, method, "x, loc=0, scale=1", x, scale, times_ans=times_ans)
    _distribution_functions(dist, "x, loc=0, scale=1", log_density, low=low)

# ---------------------------------------------------------------- Poisson (in its mean mu)
defvjp(stats.poisson.logpmf, "k, mu, loc=0", mu="g * ((k - loc) / mu - 1)", zero=("k", "loc"),
       broadcast=True, name="scipy.stats.poisson.logpmf")
defvjp(stats.poisson.pmf, "k, mu, loc=0", mu="g * ans * ((k - loc) / mu - 1)",
       zero=("k", "loc"), broadcast=True, name="scipy.stats.poisson.pmf")
# cdf(k) = sum over j <= floor(k - loc) of pmf(j): its derivative in mu is -pmf(floor(k - loc))
POISSON_LAST = "np.floor(k - loc)"
POISSON_PMF_LAST = (f"exp(special.xlogy({POISSON_LAST}, mu) - mu "
                    f"- special.gammaln({POISSON_LAST} + 1))")
defvjp(stats.poisson.cdf, "k, mu, loc=0", mu=f"-g * {POISSON_PMF_LAST}", zero=("k", "loc"),
       broadcast=True, name="scipy.stats.poisson.cdf")
defvjp(stats.poisson.logcdf, "k, mu, loc=0", mu=f"-g * {POISSON_PMF_LAST} / exp(ans)",
       zero=("k", "loc"), broadcast=True, name="scipy.stats.poisson.logcdf")
# sf = 1 - cdf: the same term with the other sign
defvjp(stats.poisson.sf, "k, mu, loc=0", mu=f"g * {POISSON_PMF_LAST}", zero=("k", "loc"),
       broadcast=True, name="scipy.stats.poisson.sf")
defvjp(stats.poisson.logsf, "k, mu, loc=0", mu=f"g * {POISSON_PMF_LAST} / exp(ans)",
       zero=("k", "loc"), broadcast=True, name="scipy.stats.poisson.logsf")

# ---------------------------------------------------------------- Bernoulli, binomial,
# geometric (in their probability p; k' = k - loc): d/dp of the log-pmf, 0 where the pmf is
# (outside the support the log-pmf is -inf whatever p is)
for dist, signature, slope in (
        (stats.bernoulli, "k, p, loc=0", "(k - loc) / p - (1 - (k - loc)) / (1 - p)"),
        (stats.binom, "k, n, p, loc=0", "(k - loc) / p - (n - (k - loc)) / (1 - p)"),
        (stats.geom, "k, p, loc=0", "1 / p - ((k - loc) - 1) / (1 - p)")):
    zero = tuple(a for a in ("k", "n", "loc") if a in signature)
    defvjp(dist.logpmf, signature, p=f"g * np.where(np.isfinite(ans), {slope}, 0.0)",
           zero=zero, broadcast=True, name=f"scipy.stats.{dist.name}.logpmf")
    defvjp(dist.pmf, signature, p=f"g * np.where(ans > 0, ans * ({slope}), 0.0)",
           zero=zero, broadcast=True, name=f"scipy.stats.{dist.name}.pmf")

# ---------------------------------------------------------------- Dirichlet
# x holds the K components on its first axis (K, or K x N for N points); alpha has K entries
XT = "np.transpose(x)"  # N x K: broadcasts with alpha
DIR_ALPHA = f"(special.digamma(np.sum(alpha)) - special.digamma(alpha) + log({XT}))"
for method, weight, scale in (("logpdf", "g", ""), ("pdf", "(g * ans)", " * ans")):
    defvjp(getattr(stats.dirichlet, method), "x, alpha", name=f"scipy.stats.dirichlet.{method}",
           x=f"np.transpose(np.expand_dims({weight}, -1) * (alpha - 1) / {XT})",
           alpha=f"unbroadcast(np.expand_dims({weight}, -1) * {DIR_ALPHA}, alpha)",
           jvp=dict(x=f"np.sum(np.transpose(t) * (alpha - 1) / {XT}, axis=-1){scale}",
                    alpha=f"np.sum(t * {DIR_ALPHA}, axis=-1){scale}"))

# ---------------------------------------------------------------- multivariate normal
# with C the covariance matrix, r = x - mean per point (rows of R) and S = R C^-1:
# d logpdf = -s.dx + s.dmean + (s' dC s - tr(C^-1 dC)) / 2
DIM = "mvn_dim(x, mean, cov, allow_singular)"
COV = f"mvn_cov(cov, {DIM})"
DIFF = "(x - (0.0 if mean is None else mean))"
ROWS = f"np.reshape({DIFF}, (-1, {DIM}))"
SOLVED = f"np.transpose(np.linalg.solve({COV}, np.transpose({ROWS})))"  # n x d


def _mvn(method, weight):
    gcol = f"np.reshape({weight}, (-1, 1))"
    tangent_rows = f"np.reshape(np.broadcast_to(t, np.shape({DIFF})), (-1, {DIM}))"
    per_point = "np.reshape({}, np.shape(ans))"
    scale = " * ans" if method == "pdf" else ""
    tcov = f"mvn_cov(t, {DIM})"
    defvjp(getattr(stats.multivariate_normal, method), "x, mean=None, cov=1, "
           "allow_singular=False", zero="allow_singular",
           name=f"scipy.stats.multivariate_normal.{method}",
           x=f"unbroadcast(np.reshape(-{gcol} * {SOLVED}, np.shape({DIFF})), x)",
           mean=f"unbroadcast(np.reshape({gcol} * {SOLVED}, np.shape({DIFF})), mean)",
           cov=f"mvn_cov_adjoint(0.5 * (np.transpose({SOLVED}) @ ({gcol} * {SOLVED}) "
               f"- np.sum({weight}) * np.linalg.inv({COV})), cov)",
           jvp=dict(
               x=per_point.format(f"-np.sum({SOLVED} * {tangent_rows}, axis=-1)") + scale,
               mean=per_point.format(f"np.sum({SOLVED} * {tangent_rows}, axis=-1)") + scale,
               cov=per_point.format(f"0.5 * np.sum(({SOLVED} @ {tcov}) * {SOLVED}, axis=-1) "
                                    f"- 0.5 * np.trace(np.linalg.solve({COV}, {tcov}))")
               + scale))


_mvn("logpdf", "g")
_mvn("pdf", "(g * ans)")
# entropy = (d log(2 pi e) + log det C) / 2: flat in the mean
defvjp(stats.multivariate_normal.entropy, "mean=None, cov=1", zero="mean",
       name="scipy.stats.multivariate_normal.entropy",
       cov="mvn_cov_adjoint(0.5 * g * np.linalg.inv(mvn_cov(cov, mvn_dim(0.0, mean, cov))), cov)",
       jvp=dict(cov="0.5 * np.trace(np.linalg.solve(mvn_cov(cov, mvn_dim(0.0, mean, cov)), "
                    "mvn_cov(t, mvn_dim(0.0, mean, cov))))"))

# ---------------------------------------------------------------- srcad's own helpers
# mvn_cov is linear in cov; mvn_cov_adjoint is its adjoint (so each is the other's rule)
defvjp(H.mvn_cov, "cov, d", zero="d", cov="mvn_cov_adjoint(g, cov)",
       jvp=dict(cov="mvn_cov(t, d)"))
defvjp(H.mvn_cov_adjoint, "value, cov", zero="cov", value="mvn_cov(g, np.shape(value)[0])",
       jvp=dict(value="mvn_cov_adjoint(t, cov)"))
