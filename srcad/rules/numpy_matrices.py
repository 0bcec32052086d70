"""Derivative rules for more of ``np.linalg`` (``matrix_power``, ``multi_dot``, ``lstsq``), for
``np.cov``/``np.corrcoef``, and for the functions that move elements (``np.insert``,
``np.choose``, ``np.block``, ``np.unstack``); the helpers are in
:mod:`srcad.runtime.numpy_assembly`.

The same conventions as :mod:`srcad.rules.numpy`; every rule has a forward form, and every
template is written with functions that have rules (second derivatives):

* ``matrix_power``: the Frechet derivative of ``X**n`` (``n`` of any sign) at ``A`` along
  ``E`` is the top-right block of ``[[A, E], [0, A]]**n``; its adjoint is the same at the
  transpose (a power series with real coefficients), so the gradient is a matrix power too,
  and has derivatives of every order.
* ``multi_dot``: multilinear; its gradient, tangent and their derivatives are sums of the
  chain with some factors replaced; a third derivative is refused.
* ``lstsq``: the solution of a full-rank problem is ``pinv(a) @ b`` (the rule of ``pinv``);
  the residuals' derivative in ``a`` skips the solution (it is optimal); the singular values
  are ``svd``'s. A rank-deficient ``a`` is refused when the gradient runs (``lstsq_check``).
* ``cov``: with ``Xc`` the centred observations and ``w`` the weights over the normalisation,
  ``C = Xc diag(w) Xc'``; the centring's derivative drops out (``Xc w`` is zero), so the
  gradient is ``(G + G') Xc diag(w)``. Weights that vary are refused; ``y`` that varies too.
* ``corrcoef``: ``R = C / sqrt(d d')`` with ``d`` the diagonal of ``C``, through ``cov``.

Imports ``srcad.rules``, ``srcad.runtime`` (and nothing above its layer).
"""

import numpy as np

from ..runtime import numpy_assembly as A
from .registry import defvjp, nondiff

SWAP = "np.swapaxes({}, -1, -2)"


def defhelper(fn, signature, **templates):
    """A rule for one of srcad's gradient helpers (parameters without a template are read for
    their shape or are piecewise constant)."""
    return defvjp(fn, signature, zero="*", **templates)


# ---------------------------------------------------------------- np.linalg.matrix_power
def _power_frechet(x, e):
    block = (f"np.concatenate([np.concatenate([{x}, {e}], axis=-1), np.concatenate("
             f"[np.zeros_like({e}), {x}], axis=-1)], axis=-2)")
    k = "np.shape(a)[-1]"
    return f"np.linalg.matrix_power({block}, n)[..., :{k}, {k}:]"


defvjp(np.linalg.matrix_power, "a, n", a=_power_frechet(SWAP.format("a"), "g"), kind="array",
       zero="n", jvp=dict(a=_power_frechet("a", "t")))

# ---------------------------------------------------------------- np.linalg.multi_dot
defvjp(np.linalg.multi_dot, "arrays, *, out=None", arrays="grad_multi_dot(g, arrays)",
       kind="array", jvp=dict(arrays="multi_dot_tangent(t, arrays)"))
defvjp(A.grad_multi_dot, "value, arrays", value="multi_dot_tangent(g, arrays)",
       arrays="multi_dot_hvp(value, g, arrays)", kind="seq",
       jvp=dict(value="grad_multi_dot(t, arrays)", arrays="multi_dot_hvp(value, t, arrays)"))
defvjp(A.multi_dot_tangent, "value, arrays", value="grad_multi_dot(g, arrays)",
       arrays="multi_dot_hvp(g, value, arrays)", kind="array",
       jvp=dict(value="multi_dot_tangent(t, arrays)", arrays="multi_dot_d2(value, t, arrays)"))
# the second-order helpers: linear in their directions; a derivative at their point (arrays)
# would be a third one, refused
defvjp(A.multi_dot_hvp, "value, w, arrays", value="multi_dot_d2(w, g, arrays)",
       w="multi_dot_hvp(value, g, arrays)", kind="seq",
       jvp=dict(value="multi_dot_hvp(t, w, arrays)", w="multi_dot_hvp(value, t, arrays)"))
defvjp(A.multi_dot_d2, "u, v, arrays", u="multi_dot_hvp(g, v, arrays)",
       v="multi_dot_hvp(g, u, arrays)", kind="array",
       jvp=dict(u="multi_dot_d2(t, v, arrays)", v="multi_dot_d2(u, t, arrays)"))


# ---------------------------------------------------------------- np.linalg.lstsq
def _pinv_grad(p, g, a="a"):
    """The gradient of ``pinv(a)`` (``p``) for the gradient ``g`` of it (rank unchanged)."""
    eye_m, eye_n = f"np.eye(np.shape({a})[-2])", f"np.eye(np.shape({a})[-1])"
    return (f"np.swapaxes(-({p} @ np.swapaxes({g}, -1, -2) @ {p}) + {p} @ "
            f"np.swapaxes({p}, -1, -2) @ {g} @ ({eye_m} - {a} @ {p}) + ({eye_n} - {p} @ {a}) "
            f"@ {g} @ np.swapaxes({p}, -1, -2) @ {p}, -1, -2)")


def _pinv_tangent(p, t, a="a"):
    eye_m, eye_n = f"np.eye(np.shape({a})[-2])", f"np.eye(np.shape({a})[-1])"
    return (f"(-({p} @ {t} @ {p}) + {p} @ np.swapaxes({p}, -1, -2) @ np.swapaxes({t}, -1, -2) "
            f"@ ({eye_m} - {a} @ {p}) + ({eye_n} - {p} @ {a}) @ np.swapaxes({t}, -1, -2) @ "
            f"np.swapaxes({p}, -1, -2) @ {p})")


P = "np.linalg.pinv(lstsq_check(a, ans[2], a))"  # (checked first: Dask's rank is refused)
X = "ans[0]"
G0 = "lstsq_check(broadcast_as(g[0], ans[0]), ans[2], a)"
G1 = "broadcast_as(g[1], ans[1])"
G3 = "broadcast_as(g[3], ans[3])"
RES = f"(a @ {X} - b)"
TALL = "np.shape(a)[0] > np.shape(a)[1]"  # residuals are returned (full rank)
GP = f"(np.outer({G0}, b) if np.ndim(b) == 1 else {G0} @ np.transpose(b))"
RA = (f"(2.0 * np.sum({G1}) * np.outer({RES}, {X}) if np.ndim(b) == 1 else "
      f"2.0 * ({RES} * {G1}) @ np.transpose({X}))")
RB = f"(-2.0 * np.sum({G1}) * {RES} if np.ndim(b) == 1 else -2.0 * {RES} * {G1})"
SA = f"(svd_thin(a)[0] * {G3}[None, :]) @ svd_thin(a)[2]"
TX = (f"lstsq_check({_pinv_tangent(P, 't')} @ b, ans[2], a)")
TR = (f"(np.atleast_1d(2.0 * np.sum({RES} * (t @ {X}))) if np.ndim(b) == 1 else "
      f"2.0 * np.sum({RES} * (t @ {X}), axis=0))")
TRB = (f"(np.atleast_1d(-2.0 * np.sum({RES} * t)) if np.ndim(b) == 1 else "
       f"-2.0 * np.sum({RES} * t, axis=0))")
TS = "np.sum(svd_thin(a)[0] * (t @ np.transpose(svd_thin(a)[2])), axis=0)"
defvjp(np.linalg.lstsq, "a, b, rcond=None", zero="rcond", kind="seq",
       a=f"{_pinv_grad(P, GP)} + ({RA} if {TALL} else 0.0) + {SA}",
       b=f"np.transpose({P}) @ {G0} + ({RB} if {TALL} else 0.0)",
       jvp=dict(a=f"({TX}, {TR} if {TALL} else 0.0 * ans[1], 0.0 * ans[2], {TS})",
                b=f"(lstsq_check({P} @ t, ans[2], a), {TRB} if {TALL} else 0.0 * ans[1], "
                  "0.0 * ans[2], 0.0 * ans[3])"))
defvjp(A.lstsq_check, "value, rank, a", value="lstsq_check(g, rank, a)", zero=("rank", "a"),
       jvp=dict(value="lstsq_check(t, rank, a)"))

# ---------------------------------------------------------------- np.cov, np.corrcoef
COV_ARGS = "m, y, rowvar, bias, ddof, fweights, aweights"
XR = "cov_rows(m, y, rowvar)"
WF = f"cov_weights({COV_ARGS})[0]"
XC = f"({XR} - np.sum({XR} * cov_weights({COV_ARGS})[1], axis=1, keepdims=True))"
NV = f"np.shape({XR})[0]"
G2 = f"np.reshape(g, ({NV}, {NV}))"
DX = "cov_rows(t, None if y is None else np.zeros(np.shape(y)), rowvar)"
DXC = f"({DX} - np.sum({DX} * cov_weights({COV_ARGS})[1], axis=1, keepdims=True))"
COV_T = f"(({DXC} * {WF}) @ np.transpose({XC}) + ({XC} * {WF}) @ np.transpose({DXC}))"


def _cov_grad(gc):
    return (f"grad_cov_rows(({gc} + np.transpose({gc})) @ ({XC} * {WF}), m, y, rowvar)")


defvjp(np.cov, "m, y=None, rowvar=True, bias=False, ddof=None, fweights=None, aweights=None, "
       "*, dtype=None", m=_cov_grad(G2), kind="array", zero=("rowvar", "bias", "ddof"),
       jvp=dict(m=f"np.reshape({COV_T}, np.shape(ans))"))

C = f"(({XC} * {WF}) @ np.transpose({XC}))"
D = f"np.diagonal({C})"
S = f"np.sqrt(np.outer({D}, {D}))"
R = f"np.reshape(ans, ({NV}, {NV}))"
GR = f"({G2} * {R})"
GC = (f"({G2} / {S} - np.eye({NV}) * ((np.sum({GR}, axis=1) + np.sum({GR}, axis=0)) / "
      f"(2.0 * {D}))[:, None])")
DD = f"(np.diagonal({COV_T}) / {D})"
CORR_T = f"({COV_T} / {S} - 0.5 * {R} * ({DD}[:, None] + {DD}[None, :]))"
# np.cov's templates with corrcoef's names, at np.cov's defaults (corrcoef's scale cancels)
_CORR = (("cov_weights(m, y, rowvar, bias, ddof, fweights, aweights)",
          "cov_weights(x, y, rowvar)"), ("cov_rows(m, y, rowvar)", "cov_rows(x, y, rowvar)"),
         )


def _for_corrcoef(template):
    for old, new in _CORR:
        template = template.replace(old, new)
    return template.replace(", m, y, rowvar)", ", x, y, rowvar)")


defvjp(np.corrcoef, "x, y=None, rowvar=True, *, dtype=None", x=_for_corrcoef(_cov_grad(GC)),
       kind="array", zero="rowvar",
       jvp=dict(x=f"np.reshape({_for_corrcoef(CORR_T)}, np.shape(ans))"))
defvjp(A.cov_rows, "m, y=None, rowvar=True", zero=("y", "rowvar"), kind="array",
       m="grad_cov_rows(g, m, y, rowvar)", jvp=dict(m="cov_rows(t, None if y is None else "
                                                      "np.zeros(np.shape(y)), rowvar)"))
defhelper(A.grad_cov_rows, "value, m, y=None, rowvar=True",
          value="cov_rows(g, None if y is None else np.zeros(np.shape(y)), rowvar)",
          jvp=dict(value="grad_cov_rows(t, m, y, rowvar)"))
nondiff(A.cov_weights)

# ---------------------------------------------------------------- moving elements
defvjp(np.insert, "arr, obj, values, axis=None", zero="obj", kind="array",
       arr="grad_insert(g, arr, obj, values, axis, 0)",
       values="grad_insert(g, arr, obj, values, axis, 1)",
       jvp=dict(arr="np.insert(t, obj, np.zeros(np.shape(values)), axis)",
                values="np.insert(np.zeros(np.shape(arr)), obj, t, axis)"))
defhelper(A.grad_insert, "value, arr, obj, values, axis=None, which=0",
          value="np.insert(g, obj, np.zeros(np.shape(values)), axis) if which == 0 else "
                "np.insert(np.zeros(np.shape(arr)), obj, g, axis)",
          jvp=dict(value="grad_insert(t, arr, obj, values, axis, which)"))
CHOOSE = "(np.choose(a, {0}) if mode is None else np.choose(a, {0}, mode=mode))"
defvjp(np.choose, "a, choices, out=None, mode=None", zero=("a", "mode"), kind="array",
       choices="grad_choose(g, a, choices, mode)", jvp=dict(choices=CHOOSE.format("t")))
defhelper(A.grad_choose, "value, a, choices, mode=None", value=CHOOSE.format("g"),
          jvp=dict(value="grad_choose(t, a, choices, mode)"))
defvjp(np.block, "arrays", arrays="grad_block(g, arrays)", kind="array",
       jvp=dict(arrays="tangent_block(t, arrays)"))
defhelper(A.grad_block, "value, arrays", value="tangent_block(g, arrays)",
          jvp=dict(value="grad_block(t, arrays)"))
defhelper(A.tangent_block, "value, arrays", value="grad_block(g, arrays)",
          jvp=dict(value="tangent_block(t, arrays)"))
if hasattr(np, "unstack"):  # NumPy >= 2.1
    defvjp(np.unstack, "x, *, axis=0", x="grad_unstack(g, x, ans, axis)", kind="seq",
           jvp=dict(x="np.unstack(t, axis=axis)"))
    defhelper(A.grad_unstack, "value, x, pieces, axis=0", value="np.unstack(g, axis=axis)",
              jvp=dict(value="grad_unstack(t, x, pieces, axis)"))
