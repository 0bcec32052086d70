"""Derivative rules for ``scipy.special``: one line per function, grouped under headings.

Loaded by :mod:`srcad.rules` the first time srcad looks a rule up after the user's code has
imported ``scipy.special`` (``import srcad`` alone never imports SciPy; ``pip install
srcad[scipy]``). Templates are written as in :mod:`srcad.rules.numpy`; ``special.f`` in a
template is SciPy's own ``scipy.special.f`` (the runtime helper ``special``, see
:mod:`srcad.runtime.scipy_helpers`), so the derivative of a derivative uses these same rules.

SciPy's functions of ``scipy.special`` are ufuncs: element-wise, so forward mode uses the same
templates with the tangent in place of ``g``. The order ``n`` (``v``) of ``polygamma``,
Bessel functions and ``multigammaln``'s dimension ``d`` take no gradient: an integer order is
declared flat (``zero=``), a real order ``v`` is refused if it carries a derivative. The
incomplete gamma and beta functions (``gammainc``, ``gammaincc``, ``betainc``) are
differentiated in their limit ``x`` only: a derivative reaching a shape parameter is refused.
"""

import scipy.special as special

from ..runtime import scipy_helpers as H
from .numpy_complex import holomorphic
from .registry import defvjp as _defvjp
from .registry import nondiff


def defvjp(fn, signature, name=None, **rule):
    """A rule named ``scipy.special.<name>`` (SciPy's ufuncs have no qualified name)."""
    return _defvjp(fn, signature, name=name or f"scipy.special.{fn.__name__}", **rule)


SQRT_PI_2 = "0.886226925452758"  # sqrt(pi) / 2
TWO_SQRT_PI = "1.1283791670955126"  # 2 / sqrt(pi)
SQRT_2PI = "2.5066282746310002"  # sqrt(2 pi)

# ---------------------------------------------------------------- gamma and beta functions
defvjp(special.gammaln, "x", x="g * special.digamma(x)")
defvjp(special.digamma, "x", x="g * special.polygamma(1, x)",  # special.psi is digamma
       name="scipy.special.digamma")
defvjp(special.polygamma, "n, x", x="g * special.polygamma(n + 1, x)", zero="n",
       broadcast=True)
defvjp(special.gamma, "x", x="g * ans * special.digamma(x)")
defvjp(special.beta, "a, b", a="g * ans * (special.digamma(a) - special.digamma(a + b))",
       b="g * ans * (special.digamma(b) - special.digamma(a + b))", broadcast=True)
defvjp(special.betaln, "a, b", a="g * (special.digamma(a) - special.digamma(a + b))",
       b="g * (special.digamma(b) - special.digamma(a + b))", broadcast=True)
defvjp(special.multigammaln, "a, d", a="g * multipolygamma(0, a, d)", zero="d",
       broadcast=True)
defvjp(H.multipolygamma, "n, a, d", a="g * multipolygamma(n + 1, a, d)", zero=("n", "d"),
       broadcast=True, name="multipolygamma")
defvjp(special.rgamma, "x", x="-g * ans * special.digamma(x)")  # 1 / gamma(x)
nondiff(special.gammasgn)  # the sign of gamma(x): piecewise constant

# ---------------------------------------------------------------- incomplete gamma and beta
# Only the integration limit x has a closed-form derivative (the integrand); the shape
# parameters a, b have none and are left without a template: a value carrying a derivative
# there is refused (never a zero), as autograd does.
GAMMA_DENSITY = "exp((a - 1) * log(x) - x - special.gammaln(a))"
defvjp(special.gammainc, "a, x", x=f"g * {GAMMA_DENSITY}", broadcast=True)
defvjp(special.gammaincc, "a, x", x=f"-g * {GAMMA_DENSITY}", broadcast=True)
defvjp(special.betainc, "a, b, x",
       x="g * exp((a - 1) * log(x) + (b - 1) * log1p(-x) - special.betaln(a, b))",
       broadcast=True)

# ---------------------------------------------------------------- error function and normal
defvjp(special.erf, "x", x=f"g * {TWO_SQRT_PI} * exp(-x ** 2)")
defvjp(special.erfc, "x", x=f"-g * {TWO_SQRT_PI} * exp(-x ** 2)")
defvjp(special.erfinv, "x", x=f"g * {SQRT_PI_2} * exp(ans ** 2)")
defvjp(special.erfcinv, "x", x=f"-g * {SQRT_PI_2} * exp(ans ** 2)")
defvjp(special.ndtr, "x", x=f"g * exp(-0.5 * x ** 2) / {SQRT_2PI}")
defvjp(special.log_ndtr, "x", x=f"g * exp(-0.5 * x ** 2 - ans) / {SQRT_2PI}")
defvjp(special.ndtri, "x", x=f"g * {SQRT_2PI} * exp(0.5 * ans ** 2)")
defvjp(special.erfi, "x", x=f"g * {TWO_SQRT_PI} * exp(x ** 2)")  # -i erf(i x)
defvjp(special.erfcx, "x", x=f"g * (2 * x * ans - {TWO_SQRT_PI})")  # exp(x^2) erfc(x)
defvjp(special.dawsn, "x", x="g * (1 - 2 * x * ans)")  # Dawson's integral
# the Faddeeva function w(z) = exp(-z^2) erfc(-i z): complex even for a real z
defvjp(special.wofz, "x", x=f"g * (-2 * x * ans + {TWO_SQRT_PI} * 1j)", complex_out="always")
defvjp(special.loggamma, "x", x="g * special.digamma(x)")

# ---------------------------------------------------------------- logistic
defvjp(special.expit, "x", x="g * ans * (1 - ans)")
defvjp(special.logit, "x", x="g / (x * (1 - x))")
if hasattr(special, "log_expit"):  # SciPy >= 1.8: log(expit(x)), d/dx = expit(-x)
    defvjp(special.log_expit, "x", x="g * special.expit(-x)")

# ---------------------------------------------------------------- NumPy's functions again
# scipy.special's own ufuncs of the elementary functions NumPy also has
defvjp(special.log1p, "x", x="g / (1 + x)")
defvjp(special.expm1, "x", x="g * (ans + 1)")
defvjp(special.cbrt, "x", x="g / (3 * ans ** 2)")
defvjp(special.exp2, "x", x="g * ans * 0.6931471805599453")  # ln 2
defvjp(special.exp10, "x", x="g * ans * 2.302585092994046")  # ln 10
defvjp(special.cosm1, "x", x="-g * sin(x)")  # cos(x) - 1

# ---------------------------------------------------------------- x log y and entropies
# (x = 0: these are 0 (or y) for every y, so their derivative in y is 0 (or 1) there, y = 0
# too, where x / y would be 0 / 0: x / where(x, y, 1.0); JAX gives nan for xlogy, 0 and 1)
defvjp(special.xlogy, "x, y", x="g * log(y)", y="g * x / where(x, y, 1.0)", broadcast=True)
defvjp(special.xlog1py, "x, y", x="g * log1p(y)", y="g * x / where(x, 1 + y, 1.0)",
       broadcast=True)
defvjp(special.entr, "x", x="-g * (log(x) + 1)")
defvjp(special.rel_entr, "x, y", x="g * (log(x / y) + 1)", y="-g * x / where(x, y, 1.0)",
       broadcast=True)

# ---------------------------------------------------------------- integrals, Owen's T, Pochhammer
# Ei' = exp(x) / x, E1' = -exp(-x) / x, En' = -E(n-1) (E(-1)(x) = exp(-x) (1/x + 1/x^2),
# which SciPy does not evaluate); kl_div = x log(x / y) - x + y; Owen's T(h, a) =
# (1 / 2 pi) int_0^a exp(-h^2 (1 + t^2) / 2) / (1 + t^2) dt; poch(z, m) = gamma(z + m) /
# gamma(z). hyp1f1 and Hurwitz's zeta: their x (q) only; a, b (the power s) are refused.
defvjp(special.expi, "x", x="g * exp(x) / x")
defvjp(special.exp1, "x", x="-g * exp(-x) / x")
defvjp(special.expn, "n, x", x="-g * where(n == 0, exp(-x) * (1 / x + 1 / x ** 2), "
       "special.expn(np.maximum(n - 1, 0), x))", zero="n", broadcast=True)
defvjp(special.kl_div, "x, y", x="g * log(x / y)", y="g * (1 - x / where(x, y, 1.0))",
       broadcast=True)
defvjp(special.owens_t, "h, a",
       h=f"-g * exp(-0.5 * h ** 2) * special.erf(a * h * 0.7071067811865476) / (2 * {SQRT_2PI})",
       a="g * exp(-0.5 * h ** 2 * (1 + a ** 2)) / (6.283185307179586 * (1 + a ** 2))",
       broadcast=True)
defvjp(special.poch, "z, m", z="g * ans * (special.digamma(z + m) - special.digamma(z))",
       m="g * ans * special.digamma(z + m)", broadcast=True)
defvjp(special.hyp1f1, "a, b, x", x="g * a / b * special.hyp1f1(a + 1, b + 1, x)",
       broadcast=True)
defvjp(special.zeta, "x, q=None", q="-g * x * special.zeta(x + 1, q)", broadcast=True,
       fixed=dict(out=(None,)))
# Box-Cox: (x^l - 1) / l (log x at l = 0) in x; the power l is refused (its derivative
# cancels badly for a small l)
defvjp(special.boxcox, "x, lmbda", x="g * x ** (lmbda - 1)", broadcast=True)
defvjp(special.boxcox1p, "x, lmbda", x="g * (1 + x) ** (lmbda - 1)", broadcast=True)

# ---------------------------------------------------------------- Bessel functions
# I0' = I1, I1' = (I0 + I2) / 2, Iv' = (I(v-1) + I(v+1)) / 2; ive = iv exp(-|x|)
defvjp(special.i0, "x", x="g * special.i1(x)")
defvjp(special.i1, "x", x="g * 0.5 * (special.i0(x) + special.iv(2, x))")
defvjp(special.iv, "v, x", x="g * 0.5 * (special.iv(v - 1, x) + special.iv(v + 1, x))",
       broadcast=True)
defvjp(special.ive, "v, x",
       x="g * (0.5 * (special.ive(v - 1, x) + special.ive(v + 1, x)) - sign(x) * ans)",
       broadcast=True)
# K0' = -K1, K1' = -(K0 + K2) / 2, Kv' = -(K(v-1) + K(v+1)) / 2; kve = kv exp(x); the
# scaled i0e = i0 exp(-|x|), i1e, k0e = k0 exp(x), k1e
defvjp(special.k0, "x", x="-g * special.k1(x)")
defvjp(special.k1, "x", x="-g * 0.5 * (special.k0(x) + special.kv(2, x))")
defvjp(special.kv, "v, x", x="-g * 0.5 * (special.kv(v - 1, x) + special.kv(v + 1, x))",
       broadcast=True)
defvjp(special.kn, "n, x", x="-g * 0.5 * (special.kn(n - 1, x) + special.kn(n + 1, x))",
       zero="n", broadcast=True)
defvjp(special.kve, "v, x",
       x="g * (ans - 0.5 * (special.kve(v - 1, x) + special.kve(v + 1, x)))", broadcast=True)
defvjp(special.i0e, "x", x="g * (special.i1e(x) - sign(x) * ans)")
defvjp(special.i1e, "x", x="g * (0.5 * (special.i0e(x) + special.ive(2, x)) - sign(x) * ans)")
defvjp(special.k0e, "x", x="g * (ans - special.k1e(x))")
defvjp(special.k1e, "x", x="g * (ans - 0.5 * (special.k0e(x) + special.kve(2, x)))")
# J0' = -J1, J1' = (J0 - J2) / 2, Jv' = (J(v-1) - J(v+1)) / 2; the same for Y
defvjp(special.j0, "x", x="-g * special.j1(x)")
defvjp(special.j1, "x", x="g * 0.5 * (special.j0(x) - special.jv(2, x))")
defvjp(special.jv, "v, x", x="g * 0.5 * (special.jv(v - 1, x) - special.jv(v + 1, x))",
       broadcast=True)  # special.jn is special.jv
defvjp(special.y0, "x", x="-g * special.y1(x)")
defvjp(special.y1, "x", x="g * 0.5 * (special.y0(x) - special.yv(2, x))")
defvjp(special.yv, "v, x", x="g * 0.5 * (special.yv(v - 1, x) - special.yv(v + 1, x))",
       broadcast=True)
defvjp(special.yn, "n, x", x="g * 0.5 * (special.yn(n - 1, x) - special.yn(n + 1, x))",
       zero="n", broadcast=True)

# ---------------------------------------------------------------- log-sum-exp and softmax
# logsumexp(a, b=w) = log(sum(w * exp(a))); return_sign=True is refused (fixed= takes False).
# With b, a and b broadcast together: each gradient is summed back to its own shape.
SUMMED = "(a if b is None else a * b)"  # shaped like the summed terms
_SPREAD = f"expand({{0}}, {SUMMED}, axis, keepdims)"  # g spread over the summed terms
EXPAND = f"(({{0}} if b is None else {_SPREAD}) if axis is None else {_SPREAD})"
WEIGHT = f"exp(a - {EXPAND.format('ans')})"
defvjp(special.logsumexp, "a, axis=None, b=None, keepdims=False, return_sign=False",
       kind="reduction", fixed=dict(return_sign=(False,)),
       a=f"{EXPAND.format('g')} * {WEIGHT} if b is None else "
         f"unbroadcast({EXPAND.format('g')} * {WEIGHT} * b, a)",
       b=f"unbroadcast({EXPAND.format('g')} * {WEIGHT}, b)",
       jvp=dict(a=f"np.sum(t * {WEIGHT} * (1.0 if b is None else b), axis=axis, "
                  "keepdims=keepdims)",
                b=f"np.sum(t * {WEIGHT}, axis=axis, keepdims=keepdims)"))
# the Jacobian of softmax is symmetric: its vjp and its jvp are the same map
defvjp(special.softmax, "x, axis=None", x="ans * (g - np.sum(g * ans, axis=axis, keepdims=True))",
       jvp=dict(x="ans * (t - np.sum(t * ans, axis=axis, keepdims=True))"))
defvjp(special.log_softmax, "x, axis=None",
       x="g - exp(ans) * np.sum(g, axis=axis, keepdims=True)",
       jvp=dict(x="t - np.sum(exp(ans) * t, axis=axis, keepdims=True)"))

# ---------------------------------------------------------------- complex arguments
# the functions SciPy computes for complex arguments whose templates are d/dz of a
# holomorphic function as written (srcad.rules.numpy_complex): digamma is not here (its
# template's polygamma is real only), nor ive (exp(-|Re z|) is not holomorphic)
holomorphic(special.erf, special.erfc, special.erfi, special.erfcx, special.dawsn, special.wofz,
            special.ndtr, special.log_ndtr, special.gamma, special.rgamma, special.loggamma,
            special.xlogy, special.xlog1py, special.iv, special.jv, special.yv,
            special.log1p, special.expm1)

# ---------------------------------------------------------------- srcad's own helpers
nondiff(H.mvn_dim)
