"""Derivative rules for more of NumPy: ``np.take``, ``np.take_along_axis``, ``np.ptp``,
``np.average``, quantiles (``np.median``, ``np.percentile``, ``np.quantile``), the ``nan*``
reductions, ``np.interp``, ``np.convolve``/``np.correlate``, ``np.copysign``, ``np.ldexp``,
``np.diagflat``, ``np.dstack``, ``np.ediff1d``, ``np.i0``, and the methods of the ufuncs ``np.add``,
``np.multiply``, ``np.maximum``, ``np.minimum`` (``reduce``, ``accumulate``).

The same conventions as :mod:`srcad.rules.numpy`; every rule has a forward form (``jvp=``)
and every helper it calls a rule of its own (second derivatives). The helpers are in
:mod:`srcad.runtime.numpy_more`.

Imports ``srcad.rules``, ``srcad.runtime`` (and nothing above its layer).
"""

import numpy as np

from ..runtime import numpy_helpers as H
from .registry import defmethod, defvjp, nondiff

REDUCE = "np.sum(np.multiply(t, {}), axis=axis, keepdims=keepdims)"  # see srcad.rules.numpy


def defhelper(fn, signature, **templates):
    """A rule for one of srcad's gradient helpers (parameters without a template are read for
    their shape or are piecewise constant)."""
    return defvjp(fn, signature, zero="*", **templates)


# ---------------------------------------------------------------- taking elements
defvjp(np.take, "a, indices, axis=None", a="grad_take(g, a, indices, axis)", zero="indices",
       kind="array", jvp=dict(a="np.take(t, indices, axis=axis)"))
defmethod("take", np.take)
defvjp(np.take_along_axis, "arr, indices, axis=-1",
       arr="grad_take_along_axis(g, arr, indices, axis)", zero="indices", kind="array",
       jvp=dict(arr="np.take_along_axis(t, indices, axis)"))
defhelper(H.grad_take, "value, a, indices, axis=None", value="np.take(g, indices, axis=axis)",
          jvp=dict(value="grad_take(t, a, indices, axis)"))
defhelper(H.grad_take_along_axis, "value, arr, indices, axis=-1",
          value="np.take_along_axis(g, indices, axis)",
          jvp=dict(value="grad_take_along_axis(t, arr, indices, axis)"))

# ---------------------------------------------------------------- reductions
# np.ptp is max - min: each gradient to the elements that hold it (ties share, as np.max)
MAX = "np.max(a, axis=axis, keepdims=keepdims)"
MIN = "np.min(a, axis=axis, keepdims=keepdims)"
# (np.subtract: given a list of arrays, grad_extremum gives a list of gradients)
PTP = (f"np.subtract(grad_extremum({{g}}, a, {MAX}, axis, keepdims), "
       f"grad_extremum({{g}}, a, {MIN}, axis, keepdims))")
defvjp(np.ptp, "a, axis=None, out=None, keepdims=False", a=PTP.format(g="g"),
       kind="reduction", jvp=dict(a=REDUCE.format(f"({PTP.format(g='1.0')})")))
# np.average: sum(a * w) / sum(w), with one-dimensional weights read along axis
W = "np.broadcast_to(np.reshape(weights, average_shape(weights, a, axis)), np.shape(a))"
SW = f"np.sum({W}, axis=axis, keepdims=True)"
AVG = f"(np.sum(a * {W}, axis=axis, keepdims=True) / {SW})"
GA = "grad_sum(g, a, axis, keepdims)"
WEIGHTS = (f"grad_reshape(unbroadcast({GA} * (a - {AVG}) / {SW}, "
           "np.reshape(weights, average_shape(weights, a, axis))), weights)")
defvjp(np.average, "a, axis=None, weights=None, *, keepdims=False",
       a=f"grad_mean(g, a, axis, keepdims) if weights is None else {GA} * {W} / {SW}",
       weights=WEIGHTS, kind="reduction",
       jvp=dict(a=f"np.mean(t, axis=axis, keepdims=keepdims) if weights is None else "
                  f"np.sum(t * {W}, axis=axis, keepdims=keepdims) / "
                  f"np.sum({W}, axis=axis, keepdims=keepdims)",
                weights=f"np.sum((a - {AVG}) * np.broadcast_to(np.reshape(t, average_shape("
                        f"weights, a, axis)), np.shape(a)), axis=axis, keepdims=keepdims) / "
                        f"np.sum({W}, axis=axis, keepdims=keepdims)"))
nondiff(H.average_shape)

# ---------------------------------------------------------------- quantiles (linear method)
# the result interpolates one or two order statistics of a (stable sort order: ties go to the
# earlier element); the fraction depends on q alone, so a quantile is linear in a between ties.
# A varied q is refused (no template).
QUANT = "a, q, axis=None, out=None, *, method=None, keepdims=False"
defvjp(np.quantile, QUANT, a="grad_quantile(g, a, q, axis, keepdims, method)",
       jvp=dict(a="tangent_quantile(t, a, q, axis, keepdims, method)"))
defvjp(np.percentile, QUANT, a="grad_quantile(g, a, np.divide(q, 100.0), axis, keepdims, method)",
       jvp=dict(a="tangent_quantile(t, a, np.divide(q, 100.0), axis, keepdims, method)"))
defvjp(np.median, "a, axis=None, out=None, *, keepdims=False",
       a="grad_quantile(g, a, 0.5, axis, keepdims)", kind="reduction",
       jvp=dict(a="tangent_quantile(t, a, 0.5, axis, keepdims)"))
# the nan* forms leave the NaNs out (each slice its own count); a NaN's gradient is zero
defvjp(np.nanquantile, QUANT, a="grad_quantile(g, a, q, axis, keepdims, method, True)",
       jvp=dict(a="tangent_quantile(t, a, q, axis, keepdims, method, True)"))
defvjp(np.nanpercentile, QUANT,
       a="grad_quantile(g, a, np.divide(q, 100.0), axis, keepdims, method, True)",
       jvp=dict(a="tangent_quantile(t, a, np.divide(q, 100.0), axis, keepdims, method, True)"))
defvjp(np.nanmedian, "a, axis=None, out=None, *, keepdims=False",
       a="grad_quantile(g, a, 0.5, axis, keepdims, None, True)", kind="reduction",
       jvp=dict(a="tangent_quantile(t, a, 0.5, axis, keepdims, None, True)"))
QH = "value, a, q, axis=None, keepdims=False, method=None, nan=False"
defhelper(H.grad_quantile, QH, value="tangent_quantile(g, a, q, axis, keepdims, method, nan)",
          jvp=dict(value="grad_quantile(t, a, q, axis, keepdims, method, nan)"))
defhelper(H.tangent_quantile, QH, value="grad_quantile(g, a, q, axis, keepdims, method, nan)",
          jvp=dict(value="tangent_quantile(t, a, q, axis, keepdims, method, nan)"))

# ---------------------------------------------------------------- the nan* reductions
# a NaN is left out: its gradient is zero; a template never multiplies by a NaN (the NaNs are
# replaced first), so second derivatives stay finite
OK = "np.logical_not(np.isnan(a))"
A0 = "np.where(np.isnan(a), 0.0, a)"
A1 = "np.where(np.isnan(a), 1.0, a)"
T0 = "np.where(np.isnan(a), 0.0, t)"
COUNT = f"np.sum({OK}, axis=axis, keepdims=True)"
NANRED = "a, axis=None, dtype=None, out=None, keepdims=False"
defvjp(np.nansum, NANRED, a="np.where(np.isnan(a), 0.0, grad_sum(g, a, axis, keepdims))",
       kind="reduction", jvp=dict(a=f"np.sum({T0}, axis=axis, keepdims=keepdims)"))
defvjp(np.nanmean, NANRED,
       a=f"np.where(np.isnan(a), 0.0, grad_sum(g, a, axis, keepdims) / {COUNT})",
       kind="reduction",
       jvp=dict(a=f"np.sum({T0} / {COUNT}, axis=axis, keepdims=keepdims)"))
defvjp(np.nanprod, NANRED,
       a=f"np.where(np.isnan(a), 0.0, grad_prod(g, {A1}, axis, keepdims))", kind="reduction",
       jvp=dict(a=REDUCE.format(f"np.where(np.isnan(a), 0.0, grad_prod(1.0, {A1}, axis, "
                                "keepdims))").replace("(t,", f"({T0},", 1)))
NANEXT = "a, axis=None, out=None, keepdims=False"
# (grad_extremum compares with the result: a NaN never equals it)
defvjp(np.nanmax, NANEXT, a="grad_extremum(g, a, ans, axis, keepdims)", kind="reduction",
       jvp=dict(a=REDUCE.format("grad_extremum(1.0, a, ans, axis, keepdims)").replace(
           "(t,", f"({T0},", 1)))
defvjp(np.nanmin, NANEXT, a="grad_extremum(g, a, ans, axis, keepdims)", kind="reduction",
       jvp=dict(a=REDUCE.format("grad_extremum(1.0, a, ans, axis, keepdims)").replace(
           "(t,", f"({T0},", 1)))
CENTRED = "np.where(np.isnan(a), 0.0, a - np.nanmean(a, axis=axis, keepdims=True))"
SLOPE = f"2.0 * {CENTRED} / ({COUNT} - ddof)"  # d nanvar / d a
NANVAR = "a, axis=None, dtype=None, out=None, ddof=0, keepdims=False"
defvjp(np.nanvar, NANVAR, a=f"grad_sum(g, a, axis, keepdims) * {SLOPE}", kind="reduction",
       jvp=dict(a=f"np.sum({T0} * {SLOPE}, axis=axis, keepdims=keepdims)"))
defvjp(np.nanstd, NANVAR,
       a=f"grad_sum(safe_div(g, 2.0 * ans), a, axis, keepdims) * {SLOPE}", kind="reduction",
       jvp=dict(a=f"safe_div(np.sum({T0} * {SLOPE}, axis=axis, keepdims=keepdims), "
                  "2.0 * ans)"))
defvjp(np.nancumsum, "a, axis=None, dtype=None",
       a="np.where(np.isnan(a), 0.0, grad_cumsum(g, a, axis))", kind="array",
       jvp=dict(a=f"np.cumsum({T0}, axis)"))
defvjp(np.nancumprod, "a, axis=None, dtype=None",
       a=f"np.where(np.isnan(a), 0.0, grad_cumprod(g, {A1}, axis))", kind="array",
       jvp=dict(a=f"tangent_cumprod({T0}, {A1}, axis)"))

# ---------------------------------------------------------------- np.interp
# piecewise linear in x (the slope of the interval x lies in; 0 outside xp, where the result
# is fp[0], fp[-1], left or right) and linear in fp, left, right; a varied xp is refused
OUT = "np.logical_or(np.less(x, xp[0]), np.greater(x, xp[-1]))"
SLOPE_X = f"np.where({OUT}, 0.0, (np.diff(fp) / np.diff(xp))[interp_segment(x, xp)])"
ZL = "None if left is None else 0.0"
ZR = "None if right is None else 0.0"
defvjp(np.interp, "x, xp, fp, left=None, right=None",
       x=f"g * {SLOPE_X}", fp="grad_interp_fp(g, x, xp, left, right)",
       left="np.sum(g * np.less(x, xp[0]))", right="np.sum(g * np.greater(x, xp[-1]))",
       jvp=dict(x=f"t * {SLOPE_X}", fp=f"np.interp(x, xp, t, {ZL}, {ZR})",
                left="t * np.less(x, xp[0])", right="t * np.greater(x, xp[-1])"))
# grad_interp_fp moves with x as the slope does; the slope is piecewise constant in x
SLOPE_G = SLOPE_X.replace("np.diff(fp)", "np.diff(g)")
defvjp(H.grad_interp_fp, "value, x, xp, left=None, right=None",
       value=f"np.interp(x, xp, g, {ZL}, {ZR})", x=f"value * {SLOPE_G}",
       zero=("left", "right"),
       jvp=dict(value="grad_interp_fp(t, x, xp, left, right)",
                x="grad_interp_slope(value * t, x, xp)"))
defvjp(H.grad_interp_slope, "value, x, xp", value=SLOPE_G, zero="x",
       jvp=dict(value="grad_interp_slope(t, x, xp)"))
nondiff(H.interp_segment)

# ---------------------------------------------------------------- convolution, correlation
# bilinear: the gradient of either operand is the correlation of the (full) gradient with the
# other; np.correlate(a, v) is np.convolve(a, v[::-1]) in the full mode
CMODE, RMODE = "'full' if mode is None else mode", "'valid' if mode is None else mode"
FULL = "conv_embed(g, np.size(a), np.size(v), mode, {})"
defvjp(np.convolve, "a, v, mode=None",
       a=f"np.correlate({FULL.format(False)}, v, 'valid')",
       v=f"np.correlate({FULL.format(False)}, a, 'valid')", kind="array", zero="mode",
       jvp=dict(a=f"np.convolve(t, v, {CMODE})", v=f"np.convolve(a, t, {CMODE})"))
defvjp(np.correlate, "a, v, mode=None",
       a=f"np.correlate({FULL.format(True)}, v[::-1], 'valid')",
       v=f"np.correlate({FULL.format(True)}, a, 'valid')[::-1]", kind="array", zero="mode",
       jvp=dict(a=f"np.correlate(t, v, {RMODE})", v=f"np.correlate(a, t, {RMODE})"))
CONV = "value, n, m, mode=None, corr=False"
defhelper(H.conv_embed, CONV, value="conv_crop(g, n, m, mode, corr)",
          jvp=dict(value="conv_embed(t, n, m, mode, corr)"))
defhelper(H.conv_crop, CONV, value="conv_embed(g, n, m, mode, corr)",
          jvp=dict(value="conv_crop(t, n, m, mode, corr)"))

# ---------------------------------------------------------------- element-wise
# copysign(x1, x2) = |x1| sign(x2): piecewise constant in x2
defvjp(np.copysign, "x1, x2", x1="g * np.sign(x1) * np.copysign(1.0, x2)", zero="x2",
       broadcast=True)
defvjp(np.ldexp, "x1, x2", x1="g * np.ldexp(1.0, x2)", zero="x2", broadcast=True)  # int x2

# ---------------------------------------------------------------- shapes
defvjp(np.diagflat, "v, k=0", v="grad_reshape(np.diagonal(g, k), v)", kind="array",
       jvp=dict(v="np.diagflat(t, k)"))
defvjp(np.dstack, "tup", tup="grad_dstack(g, tup)", kind="array", jvp=dict(tup="np.dstack(t)"))
defhelper(H.grad_dstack, "value, tup", value="np.dstack(g)",
          jvp=dict(value="grad_dstack(t, tup)"))
defvjp(np.ediff1d, "ary", ary="grad_reshape(grad_diff(g, np.ravel(ary), 1, -1), ary)",
       kind="array", jvp=dict(ary="np.ediff1d(t)"))

# ---------------------------------------------------------------- index helpers
# positions of a matrix's diagonal and triangles (integers; _from reads only the shape)
nondiff(np.diag_indices, np.diag_indices_from, np.tril_indices, np.tril_indices_from,
        np.triu_indices, np.triu_indices_from, np.mask_indices)

# ---------------------------------------------------------------- ufunc methods
# np.add.reduce is np.sum along axis 0 by default, np.multiply.accumulate np.cumprod, ...
UREDUCE = "array, axis=0, dtype=None, out=None, keepdims=False"
defvjp(np.add.reduce, UREDUCE, name="add.reduce", array="grad_sum(g, array, axis, keepdims)",
       kind="reduction",
       jvp=dict(array="np.sum(t, axis=axis, keepdims=keepdims)"))
# forward mode's np.sum of a tangent (srcad.transform.forward._sum_tangent): np.sum's rule
defvjp(H.tangent_sum, "a, axis=None", a="grad_sum(g, a, axis)", kind="reduction",
       shape_only="a", uniform="g", jvp=dict(a="tangent_sum(t, axis)"))
# batched forward mode's sum of a product of vectors (batched_einsum.dotted_sum)
defvjp(H.tangent_dot, "a, v", a="grad_sum(g, a * v, 1) * v", v="grad_sum(g, a * v, 1) * a",
       broadcast=True, jvp=dict(a="tangent_dot(t, v)", v="tangent_dot(a, t)"))
defvjp(np.multiply.reduce, UREDUCE, name="multiply.reduce",
       array="grad_prod(g, array, axis, keepdims)",
       kind="reduction", jvp=dict(array=REDUCE.format(
           "grad_prod(1.0, array, axis, keepdims)")))
for _ufunc in (np.maximum, np.minimum):
    defvjp(_ufunc.reduce, UREDUCE, name=f"{_ufunc.__name__}.reduce",
           array="grad_extremum(g, array, ans, axis, keepdims)",
           kind="reduction", jvp=dict(array=REDUCE.format(
               "grad_extremum(1.0, array, ans, axis, keepdims)")))
    # the gradient goes to the element each running extremum is (ties: the earlier one)
    defvjp(_ufunc.accumulate, "array, axis=0, dtype=None, out=None",
           name=f"{_ufunc.__name__}.accumulate",
           array="grad_take_along_axis(g, array, running_source(array, ans, axis), axis)",
           kind="array",
           # (np.stack: the tangent of a list of arrays is a list)
           jvp=dict(array="np.take_along_axis(np.stack(t), running_source(array, ans, axis), "
                          "axis)"))
defvjp(np.add.accumulate, "array, axis=0, dtype=None, out=None", name="add.accumulate",
       array="grad_cumsum(g, array, axis)", kind="array",
       jvp=dict(array="np.cumsum(t, axis)"))
defvjp(np.multiply.accumulate, "array, axis=0, dtype=None, out=None",
       name="multiply.accumulate",
       array="grad_cumprod(g, array, axis)", kind="array",
       jvp=dict(array="tangent_cumprod(t, array, axis)"))
nondiff(H.running_source)

# ---------------------------------------------------------------- NumPy 2's array-API names
if hasattr(np, "cumulative_sum"):  # NumPy >= 2.1 (include_initial= is refused)
    defvjp(np.cumulative_sum, "x, *, axis=None, dtype=None", x="grad_cumsum(g, x, axis)",
           kind="array", jvp=dict(x="np.cumsum(t, axis)"))
    defvjp(np.cumulative_prod, "x, *, axis=None, dtype=None", x="grad_cumprod(g, x, axis)",
           kind="array", jvp=dict(x="tangent_cumprod(t, x, axis)"))
if hasattr(np.linalg, "vecdot"):  # NumPy >= 2.0: the last two axes are the matrix
    L = np.linalg
    defvjp(L.trace, "x, *, offset=0, dtype=None", x="grad_trace(g, x, offset, -2, -1)",
           jvp=dict(x="np.trace(t, offset, -2, -1)"))
    defvjp(L.diagonal, "x, *, offset=0", x="grad_diagonal(g, x, offset, -2, -1)",
           kind="array", jvp=dict(x="np.diagonal(t, offset, -2, -1)"))
    defvjp(L.outer, "x1, x2", x1="grad_outer_a(g, x1, x2)", x2="grad_outer_b(g, x1, x2)",
           kind="array", jvp=dict(x1="np.outer(t, x2)", x2="np.outer(x1, t)"))
    defvjp(L.matmul, "x1, x2", x1="grad_matmul_a(g, x1, x2)", x2="grad_matmul_b(g, x1, x2)",
           kind="array", jvp=dict(x1="np.matmul(t, x2)", x2="np.matmul(x1, t)"))
    defvjp(L.tensordot, "x1, x2, *, axes=2", x1="grad_tensordot_a(g, x1, x2, axes)",
           x2="grad_tensordot_b(g, x1, x2, axes)",
           jvp=dict(x1="np.tensordot(t, x2, axes)", x2="np.tensordot(x1, t, axes)"))
    defvjp(L.cross, "x1, x2, *, axis=-1", x1="grad_cross_a(g, x1, x2, axis, axis, axis)",
           x2="grad_cross_b(g, x1, x2, axis, axis, axis)", kind="array",
           jvp=dict(x1="np.cross(t, x2, axis=axis)", x2="np.cross(x1, t, axis=axis)"))
    # vecdot: sum(x1 * x2, axis) of real arrays (a complex x1 is conjugated: refused)
    VECDOT = dict(x1="unbroadcast(np.expand_dims(g, axis) * x2, x1)",
                  x2="unbroadcast(np.expand_dims(g, axis) * x1, x2)")
    defvjp(L.vecdot, "x1, x2, *, axis=-1", **VECDOT,
           jvp=dict(x1="np.sum(t * x2, axis=axis)", x2="np.sum(x1 * t, axis=axis)"))
    if isinstance(getattr(np, "vecdot", None), np.ufunc):
        defvjp(np.vecdot, "x1, x2, *, axis=-1", **VECDOT,
               jvp=dict(x1="np.sum(t * x2, axis=axis)", x2="np.sum(x1 * t, axis=axis)"))
if isinstance(getattr(np, "matvec", None), np.ufunc):  # NumPy >= 2.2
    defvjp(np.matvec, "x1, x2", x1="unbroadcast(g[..., :, None] * x2[..., None, :], x1)",
           x2="unbroadcast(np.sum(g[..., :, None] * x1, axis=-2), x2)", kind="array",
           jvp=dict(x1="np.matvec(t, x2)", x2="np.matvec(x1, t)"))
    defvjp(np.vecmat, "x1, x2", x1="unbroadcast(np.sum(x2 * g[..., None, :], axis=-1), x1)",
           x2="unbroadcast(x1[..., :, None] * g[..., None, :], x2)", kind="array",
           jvp=dict(x1="np.vecmat(t, x2)", x2="np.vecmat(x1, t)"))

# ---------------------------------------------------------------- logs of sums of exponentials
# a's share exp(-logaddexp(0, b - a)), not exp(a - ans): exact at an infinite argument (the
# limit 1 for a = inf > b, where exp(inf - inf) is nan); nan at (inf, inf): no limit there
defvjp(np.logaddexp, "a, b", a="g * exp(-np.logaddexp(0.0, b - a))",
       b="g * exp(-np.logaddexp(0.0, a - b))", broadcast=True)
defvjp(np.logaddexp2, "a, b", a="g * np.exp2(-np.logaddexp2(0.0, b - a))",
       b="g * np.exp2(-np.logaddexp2(0.0, a - b))", broadcast=True)

# ---------------------------------------------------------------- polynomials, integrals
# np.polyval(p, x) = sum p[i] x ** (n - 1 - i), n = len(p): linear in p; its x-derivative is
# np.polyval of the derivative's coefficients. p may have more axes than one (each p[i] then
# broadcasts with x): the powers run along p's first axis, put last (moveaxis) for unbroadcast
POWERS = "np.arange(np.shape(p)[0] - 1.0, -1.0, -1.0)"
DP = ("p[:-1] * np.reshape(np.arange(np.shape(p)[0] - 1.0, 0.0, -1.0), "
      "(-1,) + (1,) * (np.ndim(p) - 1))")
defvjp(np.polyval, "p, x",
       p=f"np.moveaxis(unbroadcast(np.expand_dims(g, -1) * np.expand_dims(x, -1) ** {POWERS}, "
         "np.moveaxis(p, 0, -1)), -1, 0)",
       x=f"unbroadcast(g * np.polyval({DP}, x), x)",
       jvp=dict(p="np.polyval(t, x)", x=f"t * np.polyval({DP}, x)"))
# np.vander(x, N): column j is x ** e[j]; d/dx is e[j] x ** (e[j] - 1)
EXPS = ("(np.arange(np.shape(ans)[-1] * 1.0) if increasing else "
        "np.arange(np.shape(ans)[-1] - 1.0, -1.0, -1.0))")
DVANDER = f"{EXPS} * np.expand_dims(x, -1) ** np.maximum({EXPS} - 1.0, 0.0)"
defvjp(np.vander, "x, N=None, increasing=False", x=f"np.sum(g * {DVANDER}, axis=-1)",
       kind="array", jvp=dict(x=f"np.expand_dims(t, -1) * {DVANDER}"))
# np.trapezoid(y, x) along axis (x None or one-dimensional): linear in y, in x, in dx
if hasattr(np, "trapezoid"):  # NumPy >= 2.0
    STEPS = "(np.full(np.shape(y)[axis] - 1, dx) if x is None else np.diff(trapezoid_x(x)))"
    TW = f"0.5 * (np.concatenate([{STEPS}, [0.0]]) + np.concatenate([[0.0], {STEPS}]))"
    YM = "np.moveaxis(y, axis, -1)"
    SIDES = (f"np.sum(np.reshape(np.expand_dims(g, -1) * 0.5 * ({YM}[..., 1:] + "
             f"{YM}[..., :-1]), (-1, np.shape(trapezoid_x(x))[0] - 1)), axis=0)")
    defvjp(np.trapezoid, "y, x=None, dx=1.0, axis=-1",
           y=f"np.moveaxis(np.expand_dims(g, -1) * {TW}, -1, axis)",
           x=f"np.concatenate([[0.0], {SIDES}]) - np.concatenate([{SIDES}, [0.0]])",
           dx="np.sum(g * np.trapezoid(y, dx=1.0, axis=axis)) if x is None else 0.0",
           jvp=dict(y="np.trapezoid(t, x, dx, axis)", x="np.trapezoid(y, t, axis=axis)",
                    dx="t * np.trapezoid(y, dx=1.0, axis=axis) if x is None else 0.0 * ans"))

# ---------------------------------------------------------------- selecting, repeating
defvjp(np.bincount, "x, weights=None, minlength=0", weights="np.take(g, x)", zero="x",
       kind="array", jvp=dict(weights="np.bincount(x, t, minlength)"))
defvjp(np.compress, "condition, a, axis=None",
       a="grad_take(g, a, np.flatnonzero(condition), axis)", zero="condition", kind="array",
       jvp=dict(a="np.compress(condition, t, axis)"))
defvjp(np.extract, "condition, arr", arr="grad_take(g, arr, np.flatnonzero(condition))",
       zero="condition", kind="array", jvp=dict(arr="np.extract(condition, t)"))
KEPT = "np.delete(np.arange(np.size(arr) if axis is None else np.shape(arr)[axis]), obj)"
defvjp(np.delete, "arr, obj, axis=None", arr=f"grad_take(g, arr, {KEPT}, axis)", zero="obj",
       kind="array", jvp=dict(arr="np.delete(t, obj, axis)"))
defvjp(np.resize, "a, new_shape",
       a="grad_take(np.ravel(g), a, np.arange(np.size(ans)) % np.size(a))", kind="array",
       jvp=dict(a="np.resize(t, new_shape)"))
# np.unwrap adds multiples of the period (piecewise constant in p); a varied period is refused
defvjp(np.unwrap, "p, discont=None, axis=-1, *, period=6.283185307179586", p="g",
       zero="discont", kind="array", jvp=dict(p="t"))

# ---------------------------------------------------------------- grids
# np.meshgrid of two or three vectors: each result varies along its input's own axis
for _n in (2, 3):
    _params = [f"x{k}" for k in range(1, _n + 1)]
    defvjp(np.meshgrid, ", ".join(_params) + ", *, indexing=None, sparse=False, copy=True",
           kind="seq", zero=("sparse", "copy"),
           **{p: f"np.reshape(np.sum(broadcast_as(g[{k}], ans[{k}]), axis=mesh_axes({k}, "
                 f"{_n}, indexing), keepdims=True), np.shape({p}))"
              for k, p in enumerate(_params)},
           jvp={p: "np.meshgrid(" + ", ".join("t" if q == p else f"0.0 * {q}"
                                              for q in _params)
                   + ", indexing='xy' if indexing is None else indexing, sparse=sparse)"
                for p in _params})
nondiff(H.mesh_axes)

# ---------------------------------------------------------------- more of np.linalg
SW_ = "np.swapaxes({}, -1, -2)"
# eigvalsh: V diag(g) V' on the triangle eigh reads (templates of functions with rules)
EV = "np.linalg.eigh(a, 'L' if UPLO is None else UPLO)[1]"
VGV = f"(({EV} * g[..., None, :]) @ {SW_.format(EV)})"
defvjp(np.linalg.eigvalsh, "a, UPLO=None",
       a=f"(np.triu({VGV}) + np.triu({VGV}, 1) if UPLO in ('U', 'u') else "
         f"np.tril({VGV}) + np.tril({VGV}, -1))", kind="array",
       jvp=dict(a=f"np.diagonal({SW_.format(EV)} @ (np.triu(t) + {SW_.format('np.triu(t, 1)')} "
                  f"if UPLO in ('U', 'u') else np.tril(t) + {SW_.format('np.tril(t, -1)')}) "
                  f"@ {EV}, 0, -2, -1)"))
# eigvals: dw = diag(V^-1 dA V), so the gradient is V^-T diag(g) V^T (its real part into a
# real a), V the eigenvectors np.linalg.eig gives, put in eigvals' order (eig_order's P)
VE = "(eig_unchecked(a)[1] @ eig_order(eig_unchecked(a)[0], ans))"
defvjp(np.linalg.eigvals, "a",
       a=f"np.linalg.solve({SW_.format(VE)}, (np.eye(eig_size(ans)) * g[..., :, None]) @ "
         f"{SW_.format(VE)})", kind="array", complex_ok=True, complex_out="always",
       jvp=dict(a=f"np.sum(np.eye(eig_size(ans)) * np.linalg.solve({VE}, t @ {VE}), axis=-1)"))
nondiff(H.eig_order)
# singular values and the 2-norm condition number, through the thin SVD
THIN = "np.linalg.svd(x, full_matrices=False)"
SV_T = f"np.sum({THIN}[0] * (t @ {SW_.format(f'{THIN}[2]')}), axis=-2)"  # ds for a tangent t
if hasattr(np.linalg, "svdvals"):  # NumPy >= 2.0
    defvjp(np.linalg.svdvals, "x", x=f"({THIN}[0] * g[..., None, :]) @ {THIN}[2]",
           kind="array", jvp=dict(x=SV_T))
S_ = f"{THIN}[1]"
DCOND = (f"(np.eye(np.shape({S_})[-1])[0] / {S_}[..., -1:] - np.eye(np.shape({S_})[-1])[-1] "
         f"* {S_}[..., :1] / {S_}[..., -1:] ** 2)")
defvjp(np.linalg.cond, "x, p=None",
       x=f"({THIN}[0] * (np.expand_dims(g, -1) * {DCOND} * cond_two(p))[..., None, :]) @ "
         f"{THIN}[2]",
       jvp=dict(x=f"np.sum({SV_T} * {DCOND}, axis=-1) * cond_two(p)"))
nondiff(H.cond_two)
# vector_norm: one axis or all of them (flattened); matrix_norm: the last two axes
if hasattr(np.linalg, "vector_norm"):  # NumPy >= 2.0
    VN = ("(grad_reshape(grad_norm(np.sum({g}), np.ravel(x), np.sum(ans), ord), x) "
          "if axis is None else grad_norm({g}, x, ans, ord, one_axis(axis), keepdims))")
    defvjp(np.linalg.vector_norm, "x, *, axis=None, keepdims=False, ord=2",
           x=VN.format(g="g"), kind="reduction",
           jvp=dict(x=f"(np.sum(t * {VN.format(g='1.0')}) if axis is None else "
                      f"np.sum(t * {VN.format(g='1.0')}, axis=one_axis(axis), "
                      "keepdims=keepdims)) + 0.0 * ans"))
    defvjp(np.linalg.matrix_norm, "x, *, keepdims=False, ord=None",
           x="grad_norm(g, x, ans, ord, (-2, -1), keepdims)",
           jvp=dict(x="np.sum(t * grad_norm(1.0, x, ans, ord, (-2, -1), keepdims), "
                      "axis=(-2, -1), keepdims=keepdims)"))
nondiff(H.one_axis)

# ---------------------------------------------------------------- spaced values (endpoints)
# logspace = base ** linspace(start, stop); geomspace = start * (stop / start) ** frac: the
# gradients are np.linspace's (grad_linspace) weighted by the result; a varied base is refused
LSPACE = "np.linspace({}, {}, num, endpoint, axis=axis)"
defvjp(np.logspace, "start, stop, num=50, endpoint=True, base=10.0, dtype=None, axis=0",
       start="unbroadcast(grad_linspace(g * ans * log(base), num, endpoint, axis, False), "
             "start)",
       stop="unbroadcast(grad_linspace(g * ans * log(base), num, endpoint, axis, True), stop)",
       kind="array",
       jvp=dict(start="ans * log(base) * " + LSPACE.format("t + 0.0 * stop", "0.0 * (t + stop)"),
                stop="ans * log(base) * " + LSPACE.format("0.0 * (start + t)",
                                                          "t + 0.0 * start")))
defvjp(np.geomspace, "start, stop, num=50, endpoint=True, dtype=None, axis=0",
       start="unbroadcast(grad_linspace(g * ans, num, endpoint, axis, False) / start, start)",
       stop="unbroadcast(grad_linspace(g * ans, num, endpoint, axis, True) / stop, stop)",
       kind="array",
       jvp=dict(start="ans * " + LSPACE.format("t / start + 0.0 * stop",
                                               "0.0 * (t / start + stop)"),
                stop="ans * " + LSPACE.format("0.0 * (start + t / stop)",
                                              "t / stop + 0.0 * start")))

# ---------------------------------------------------------------- np.broadcast_arrays
for _n in (2, 3):
    _params = [f"a{k}" for k in range(1, _n + 1)]
    defvjp(np.broadcast_arrays, ", ".join(_params), kind="seq",
           **{p: f"unbroadcast(broadcast_as(g[{k}], ans[{k}]), {p})"
              for k, p in enumerate(_params)},
           jvp={p: "np.broadcast_arrays(" + ", ".join("t" if q == p else f"0.0 * {q}"
                                                      for q in _params) + ")"
                for p in _params})


# ---------------------------------------------------------------- initial= and where=
# np.max/np.min (np.amax, np.amin, x.max(...)) with initial= (NumPy asks for it with where=):
# the result is the largest of initial and the elements where= marks; its gradient goes to the
# ones equal to it (ties share, initial among them: extremum_weights, piecewise constant)
_EXT = "a, axis=None, out=None, keepdims=False, *, initial, where=True"
_WEIGHTS = "extremum_weights(a, ans, axis, keepdims, initial, where)"
_INITIAL = "extremum_initial_weight(a, ans, axis, keepdims, initial, where)"
for _fn in (np.max, np.min, np.amax, np.amin):
    defvjp(_fn, _EXT, a=f"grad_sum(g, a, axis, keepdims) * {_WEIGHTS}",
           initial=f"np.sum(g * {_INITIAL})", kind="reduction", zero=("where",),
           jvp=dict(a=REDUCE.format(_WEIGHTS), initial=f"t * {_INITIAL}"))
nondiff(H.extremum_weights, H.extremum_initial_weight)
# np.prod with initial= (a factor of every result) or where= (the elements left out count 1)
_MASKED = "np.where(where, a, 1.0)"
_PROD_A = f"grad_prod({{g}}, {_MASKED}, axis, keepdims) * where * initial"
_PROD_OF = "np.prod(a, axis=axis, keepdims=keepdims, where=where)"
for _sig in ("*, initial, where=True", "*, where, initial=1.0"):
    defvjp(np.prod, f"a, axis=None, dtype=None, out=None, keepdims=False, {_sig}",
           a=_PROD_A.format(g="g"), initial=f"np.sum(g * {_PROD_OF})", kind="reduction",
           zero=("where",), jvp=dict(a=REDUCE.format(_PROD_A.format(g="1.0")),
                                     initial=f"t * {_PROD_OF}"))

# np.diff with prepend= or append=: the difference of the joined array, whose adjoint is cut
# back into the pieces (grad_diff_ends; diff_part and diff_place are each other's adjoints)
_ENDS = "grad_diff_ends(g, a, n, axis, prepend, append, {})"
_PLACED = "tangent_diff_ends(t, a, n, axis, prepend, append, {})"
for _sig in ("*, prepend, append=None", "*, append, prepend=None"):
    defvjp(np.diff, f"a, n=1, axis=-1, {_sig}", a=_ENDS.format(1), prepend=_ENDS.format(0),
           append=_ENDS.format(2), kind="array", zero="n",
           jvp=dict(a=_PLACED.format(1), prepend=_PLACED.format(0), append=_PLACED.format(2)))
_PIECE = "value, a, axis, prepend, append, part"
defhelper(H.grad_diff_ends, "value, a, n, axis, prepend, append, part",
          value="tangent_diff_ends(g, a, n, axis, prepend, append, part)",
          jvp=dict(value="grad_diff_ends(t, a, n, axis, prepend, append, part)"))
defhelper(H.tangent_diff_ends, "value, a, n, axis, prepend, append, part",
          value="grad_diff_ends(g, a, n, axis, prepend, append, part)",
          jvp=dict(value="tangent_diff_ends(t, a, n, axis, prepend, append, part)"))
defhelper(H.diff_part, _PIECE, value="diff_place(g, a, axis, prepend, append, part)",
          jvp=dict(value="diff_part(t, a, axis, prepend, append, part)"))
defhelper(H.diff_place, _PIECE, value="diff_part(g, a, axis, prepend, append, part)",
          jvp=dict(value="diff_place(t, a, axis, prepend, append, part)"))

defhelper(H.trapezoid_x, "x", x="g", jvp=dict(x="t"))  # x itself, once checked

# np.i0: I0' = I1, computed by scipy.special.i1 (bessel_i1 refuses without SciPy, when the
# derivative runs); I1' = (I0 + I2) / 2, I2 by scipy.special.iv, whose rules go on from there
defvjp(np.i0, "x", x="g * bessel_i1(x)", jvp=dict(x="t * bessel_i1(x)"))
defhelper(H.bessel_i1, "x", x="g * 0.5 * (np.i0(x) + special.iv(2, x))",
          jvp=dict(x="t * 0.5 * (np.i0(x) + special.iv(2, x))"))


# a random generator made from a seed: the seed is an integer (a float one raises), so the
# generator, and every draw from it, is constant in it (srcad.analysis.random_generators)
nondiff(np.random.default_rng, np.random.RandomState)
