"""Derivative rules for NumPy: one line per function, grouped under headings.

Each ``defvjp`` line gives, for every differentiable parameter, a template for the gradient
flowing into it, in ``g`` (the gradient of the result), ``ans`` (the result) and the parameter
names (see :mod:`srcad.rules.registry`). Kind-generic names such as ``cos``, ``exp``, ``sign``
and ``where`` become ``np.cos`` ... for arrays and ``math.cos`` ... for Python numbers. When a
gradient needs more than an expression it calls a ``grad_*`` helper of
:mod:`srcad.numpy_helpers` (the heading says which).

* ``broadcast=True`` marks element-wise functions: srcad sums each argument's gradient back
  to the argument's shape where NumPy broadcasting made the result bigger.
* ``kind="array"`` / ``kind="seq"`` tells srcad's analysis that the result is always an
  ndarray / a list or tuple, so it can emit the cheapest code.
* A function taking a list of arrays (``np.concatenate([a, b])``) returns, as the gradient of
  that list, a list with one gradient per element.
* ``defmethod("sum", np.sum)`` makes ``x.sum(...)`` use the rule of ``np.sum(x, ...)``;
  ``defattr("T", np.transpose)`` makes ``x.T`` use the rule of ``np.transpose(x)``. Methods
  whose signature differs from the function's have rules of their own, keyed by the method
  (``np.ndarray.reshape``).
* ``nondiff(...)`` lists functions whose derivative is zero (or that return no floats).
* A parameter whose default a template reads has the default ``None`` (srcad writes a
  default into the generated code with ``str``, which would drop a string's quotes).

To add a function: add one line under the right heading, run ``tools/gen_rules_doc.py`` to
update ``docs/rules.md``, and add a row to the table in ``tests/test_numpy_rules.py``.

Imports ``srcad.rules``, ``srcad.runtime`` (and nothing above its layer).
"""

import operator

import numpy as np

from ..runtime import helpers as runtime
from ..runtime import numpy_helpers
from .registry import POW_BASE, defattr, defmethod, defvjp, nondiff, registry

LN2 = "0.6931471805599453"
LN10 = "2.302585092994046"

# ---------------------------------------------------------------- operators on arrays
# (+ - * / ** and unary -, + are in rules/python.py and work on arrays as they are)
#: ``a @ b`` when the ranks of ``a`` and ``b`` are known (the code is specialised on the
#: ranks of array arguments): what the generic helpers do for these ranks, written out
MATMUL_BY_RANK = {
    (2, 1): dict(a="np.outer(g, b)", b="a.T @ g"),  # matrix @ vector
    (2, 2): dict(a="g @ b.T", b="a.T @ g"),  # matrix @ matrix
    (1, 2): dict(a="b @ g", b="np.outer(a, g)"),  # vector @ matrix
}
#: ``np.dot(a, b)`` (and ``a @ b``) by ranks: a matrix product, or for two vectors a number
DOT_BY_RANK = {**MATMUL_BY_RANK, (1, 1): dict(a="g * b", b="g * a")}  # vector . vector
defvjp(operator.matmul, "a, b", a="grad_matmul_a(g, a, b)", b="grad_matmul_b(g, a, b)",
       ranks=DOT_BY_RANK)

# ---------------------------------------------------------------- unary ufuncs: trigonometric
defvjp(np.sin, "x", x="g * cos(x)")
defvjp(np.cos, "x", x="-g * sin(x)")
defvjp(np.tan, "x", x="g / cos(x) ** 2")
defvjp(np.arcsin, "x", x="g / sqrt(1 - x ** 2)")
defvjp(np.arccos, "x", x="-g / sqrt(1 - x ** 2)")
defvjp(np.arctan, "x", x="g / (1 + x ** 2)")

# ---------------------------------------------------------------- unary ufuncs: hyperbolic
defvjp(np.sinh, "x", x="g * cosh(x)")
defvjp(np.cosh, "x", x="g * sinh(x)")
defvjp(np.tanh, "x", x="g * (1 - ans ** 2)")
defvjp(np.arcsinh, "x", x="g / sqrt(x ** 2 + 1)")
defvjp(np.arccosh, "x", x="g / sqrt(x ** 2 - 1)")
defvjp(np.arctanh, "x", x="g / (1 - x ** 2)")

# ---------------------------------------------------------------- unary ufuncs: exponentials, logs
defvjp(np.exp, "x", x="g * ans")
defvjp(np.exp2, "x", x=f"g * ans * {LN2}")
defvjp(np.expm1, "x", x="g * (ans + 1)")
defvjp(np.log, "x", x="g / x")
defvjp(np.log2, "x", x=f"g / (x * {LN2})")
defvjp(np.log10, "x", x=f"g / (x * {LN10})")
defvjp(np.log1p, "x", x="g / (1 + x)")

# ---------------------------------------------------------------- unary ufuncs: powers, signs
defvjp(np.sqrt, "x", x="g / (2 * ans)")
defvjp(np.cbrt, "x", x="g / (3 * ans ** 2)")
defvjp(np.square, "x", x="g * 2 * x")
defvjp(np.reciprocal, "x", x="-g * ans ** 2")
defvjp(np.absolute, "x", x="g * sign(x)")  # np.abs is np.absolute
defvjp(np.fabs, "x", x="g * sign(x)")
defvjp(np.negative, "x", x="-g")
defvjp(np.positive, "x", x="g")

# ---------------------------------------------------------------- unary: angles, sinc, nan_to_num
DEG = "0.017453292519943295"  # pi / 180
defvjp(np.deg2rad, "x", x=f"g * {DEG}")
defvjp(np.radians, "x", x=f"g * {DEG}")
defvjp(np.rad2deg, "x", x="g * 57.29577951308232")
defvjp(np.degrees, "x", x="g * 57.29577951308232")
defvjp(np.sinc, "x", x="g * dsinc(x)", broadcast=True)  # dsinc: exact at 0 (a series there)
# the value is replaced where x is nan or infinite: no gradient reaches x there
defvjp(np.nan_to_num, "x, copy=True, nan=0.0, posinf=None, neginf=None",
       x="where(np.isfinite(x), g, 0.0)", nan="where(np.isnan(x), g, 0.0)",
       posinf="where(np.isposinf(x), g, 0.0)", neginf="where(np.isneginf(x), g, 0.0)",
       broadcast=True)

# ---------------------------------------------------------------- binary ufuncs: arithmetic
defvjp(np.add, "a, b", a="g", b="g", broadcast=True)
defvjp(np.subtract, "a, b", a="g", b="-g", broadcast=True)
defvjp(np.multiply, "a, b", a="g * b", b="g * a", broadcast=True)
defvjp(np.divide, "a, b", a="g / b", b="-g * ans / b", broadcast=True,  # is np.true_divide
       literal={"a": {"b": "-g * ans * ans / a"}})
defvjp(np.power, "a, b", a=POW_BASE,
       b="g * ans * log_base(a, g * ans)", broadcast=True)
defvjp(np.float_power, "a, b", a=POW_BASE,
       b="g * ans * log_base(a, g * ans)", broadcast=True)
defvjp(np.remainder, "a, b", a="g", b="-g * np.floor_divide(a, b)", broadcast=True)  # np.mod
defvjp(np.fmod, "a, b", a="g", b="-g * np.trunc(a / b)", broadcast=True)

# ---------------------------------------------------------------- binary ufuncs: geometry, logs
defvjp(np.arctan2, "a, b", a="g * b / (a ** 2 + b ** 2)", b="-g * a / (a ** 2 + b ** 2)",
       broadcast=True)
defvjp(np.hypot, "a, b", a="g * a / where(ans, ans, 1.0)", b="g * b / where(ans, ans, 1.0)",
       broadcast=True)  # (0 at (0, 0): the subgradient of least size, as np.linalg.norm)
# np.logaddexp, np.logaddexp2: srcad.rules.numpy_more

# ---------------------------------------------------------------- binary ufuncs: max and min
# a tie (a == b) splits the gradient equally between a and b, as autograd does
defvjp(np.maximum, "a, b", a="g * ((a == ans) / (1.0 + (a == b)))",
       b="g * ((b == ans) / (1.0 + (a == b)))", broadcast=True)
defvjp(np.minimum, "a, b", a="g * ((a == ans) / (1.0 + (a == b)))",
       b="g * ((b == ans) / (1.0 + (a == b)))", broadcast=True)
defvjp(np.fmax, "a, b", a="g * ((a == ans) / (1.0 + (a == b)))",
       b="g * ((b == ans) / (1.0 + (a == b)))", broadcast=True)
defvjp(np.fmin, "a, b", a="g * ((a == ans) / (1.0 + (a == b)))",
       b="g * ((b == ans) / (1.0 + (a == b)))", broadcast=True)

# ---------------------------------------------------------------- selection (grad_clip)
defvjp(np.clip, "a, a_min=None, a_max=None", a="grad_clip(g, a, a_min, a_max)",
       a_min="grad_clip_bound(g, a, a_min, a_max, False)",
       a_max="grad_clip_bound(g, a, a_min, a_max, True)", broadcast=True)
defvjp(np.clip, "a, *, min=None, max=None", a="grad_clip(g, a, min, max)",
       min="grad_clip_bound(g, a, min, max, False)",
       max="grad_clip_bound(g, a, min, max, True)", broadcast=True)  # x.clip(min=0)
defvjp(np.where, "condition, x, y", x="where(condition, g, 0.0)",
       y="where(condition, 0.0, g)", broadcast=True)

# ---------------------------------------------------------------- reductions (grad_sum, ...)
# forward mode (jvp=): each result depends on its own slice, so its tangent is the slice of the
# tangent weighted by the gradient of that result (the gradient for a seed of 1.0), summed
REDUCE = "np.sum(np.multiply(t, {}), axis=axis, keepdims=keepdims)"
EXTREMUM = dict(a=REDUCE.format("grad_extremum(1.0, a, ans, axis, keepdims)"))
# with initial= (added to every result) or where= (only the elements it marks); registered
# first, so the plain forms below are tried before them
defvjp(np.sum, "a, axis=None, dtype=None, out=None, keepdims=False, initial=0, where=True",
       a="grad_sum(g, a, axis, keepdims) * where", initial="np.sum(g)", kind="reduction",
       zero=("where",), jvp=dict(a="np.sum(t, axis=axis, keepdims=keepdims, where=where)",
                initial="t + 0.0 * ans"))
defvjp(np.mean, "a, axis=None, dtype=None, out=None, keepdims=False, *, where=True",
       a="grad_sum(g, a, axis, keepdims) * where / np.sum(np.broadcast_to(where, np.shape(a)), "
         "axis=axis, keepdims=True)", kind="reduction", zero=("where",),
       jvp=dict(a="np.mean(t, axis=axis, keepdims=keepdims, where=where)"))
defvjp(np.sum, "a, axis=None, dtype=None, out=None, keepdims=False",
       a="grad_sum(g, a, axis, keepdims)", kind="reduction", shape_only="a", uniform="g")
defvjp(np.mean, "a, axis=None, dtype=None, out=None, keepdims=False",
       a="grad_mean(g, a, axis, keepdims)", kind="reduction", shape_only="a",
       uniform="g / a.size")
defvjp(np.prod, "a, axis=None, dtype=None, out=None, keepdims=False",
       a="grad_prod(g, a, axis, keepdims)", kind="reduction", jvp=dict(a=REDUCE.format(
           "grad_prod(1.0, a, axis, keepdims)")))
defvjp(np.var, "a, axis=None, dtype=None, out=None, ddof=0, keepdims=False",
       a="grad_var(g, a, axis, ddof, keepdims)", kind="reduction",
       jvp=dict(a=REDUCE.format("grad_var(1.0, a, axis, ddof, keepdims)")))
defvjp(np.std, "a, axis=None, dtype=None, out=None, ddof=0, keepdims=False",
       a="grad_std(g, a, ans, axis, ddof, keepdims)", kind="reduction",
       jvp=dict(a=REDUCE.format("grad_std(1.0, a, ans, axis, ddof, keepdims)")))
defvjp(np.max, "a, axis=None, out=None, keepdims=False",
       a="grad_extremum(g, a, ans, axis, keepdims)", kind="reduction", jvp=EXTREMUM)
defvjp(np.min, "a, axis=None, out=None, keepdims=False",
       a="grad_extremum(g, a, ans, axis, keepdims)", kind="reduction", jvp=EXTREMUM)
defvjp(np.amax, "a, axis=None, out=None, keepdims=False",
       a="grad_extremum(g, a, ans, axis, keepdims)", kind="reduction", jvp=EXTREMUM)
defvjp(np.amin, "a, axis=None, out=None, keepdims=False",
       a="grad_extremum(g, a, ans, axis, keepdims)", kind="reduction", jvp=EXTREMUM)
defvjp(np.linalg.norm, "x, ord=None, axis=None, keepdims=False",
       x="grad_norm(g, x, ans, ord, axis, keepdims)",
       jvp=dict(x=REDUCE.format("grad_norm(1.0, x, ans, ord, axis, keepdims)")))
defvjp(np.cumsum, "a, axis=None, dtype=None", a="grad_cumsum(g, a, axis)", kind="array")
defvjp(np.cumprod, "a, axis=None, dtype=None", a="grad_cumprod(g, a, axis)", kind="array",
       jvp=dict(a="tangent_cumprod(t, a, axis)"))
defvjp(np.trace, "a, offset=0, axis1=0, axis2=1, dtype=None",
       a="grad_trace(g, a, offset, axis1, axis2)")

# ---------------------------------------------------------------- products (grad_dot_a, ...)
defvjp(np.dot, "a, b", a="grad_dot_a(g, a, b)", b="grad_dot_b(g, a, b)", ranks=DOT_BY_RANK)
defvjp(np.matmul, "a, b", a="grad_matmul_a(g, a, b)", b="grad_matmul_b(g, a, b)",
       ranks=DOT_BY_RANK)
defvjp(np.inner, "a, b", a="grad_inner_a(g, a, b)", b="grad_inner_b(g, a, b)")
defvjp(np.outer, "a, b", a="grad_outer_a(g, a, b)", b="grad_outer_b(g, a, b)", kind="array")
defvjp(np.vdot, "a, b", a="grad_vdot_a(g, a, b)", b="grad_vdot_b(g, a, b)")
defvjp(np.tensordot, "a, b, axes=2", a="grad_tensordot_a(g, a, b, axes)",
       b="grad_tensordot_b(g, a, b, axes)")
# einsum, in either form (subscripts then operands, or each operand followed by its
# sublist): one rule per number of positional arguments; the helper gets the shape of the
# operand it differentiates in that operand's place (it is linear in all the others)
EINSUM_PARAMS = ["subscripts"] + [f"op{i}" for i in range(1, 10)]


def _einsum_grad(params, p):
    args = ", ".join(f"np.shape({q})" if i == p else q for i, q in enumerate(params))
    return f"grad_einsum(g, {p}, {args})"


for _m in range(2, len(EINSUM_PARAMS) + 1):
    _params = EINSUM_PARAMS[:_m]
    defvjp(np.einsum, ", ".join(_params) + ", *, optimize=False",
           **{q: _einsum_grad(_params, i) for i, q in enumerate(_params)})

# -------------------------------------------------------- linear algebra: np.linalg (grad_solve_a)
# forward mode: d(A^-1) = -A^-1 dA A^-1, d(A^-1 b) = A^-1 (db - dA x), d log|det| = tr(A^-1 dA)
# (a singular matrix: slogdet_check refuses, det's gradient is the cofactors: numpy_points)
TRACE_SOLVE = "np.trace(np.linalg.solve(square_chunks(A), t), axis1=-2, axis2=-1)"
# (square_chunks: Dask's inv and solve take square blocks; the identity on NumPy arrays)
INV_T = "np.swapaxes(np.linalg.inv(square_chunks(slogdet_check(a, ans[0]))), -1, -2)"
defvjp(np.linalg.inv, "a", a="-(np.swapaxes(ans, -1, -2) @ g @ np.swapaxes(ans, -1, -2))",
       kind="array", jvp=dict(a="-(ans @ t @ ans)"))
# (a matrix a: templates of functions with rules; a batch of them: helpers)
SOLVE_BY_RANK = {
    (2, 1): dict(a="-np.outer(np.linalg.solve(a.T, g), ans)", b="np.linalg.solve(a.T, g)"),
    (2, 2): dict(a="-(np.linalg.solve(a.T, g) @ ans.T)", b="np.linalg.solve(a.T, g)"),
}
defvjp(np.linalg.solve, "a, b", a="grad_solve_a(g, a, b, ans)", b="grad_solve_b(g, a, b)",
       kind="array", ranks=SOLVE_BY_RANK,
       jvp=dict(a="-np.linalg.solve(a, t @ ans) if np.ndim(b) > 1 else "
                "-np.linalg.solve(a, t @ ans[..., None])[..., 0]", b="np.linalg.solve(a, t)"))
defvjp(np.linalg.det, "a", a="np.expand_dims(g, (-2, -1)) * cofactors(a)",
       jvp=dict(a="np.sum(cofactors(a) * t, axis=(-2, -1))"))
defvjp(np.linalg.slogdet, "a", a=f"np.expand_dims(g[1], (-2, -1)) * {INV_T}", kind="seq",
       jvp=dict(a=f"(0.0 * ans[0], {TRACE_SOLVE.replace('A', 'slogdet_check(a, ans[0])')})"))
# cholesky (Murray 2016), eigh (distinct eigenvalues): exact on the triangle read (a symmetric
# gradient is wrong off symmetric matrices; Dask's factor keeps it); templates: every order
SWAP = "np.swapaxes({}, -1, -2)"
KEEP = "(np.triu({0}) + np.triu({1}, 1) if {2} else np.tril({0}) + np.tril({1}, -1))"
READ = (f"(np.triu({{0}}) + {SWAP.format('np.triu({0}, 1)')} if {{1}} else "  # from t
        f"np.tril({{0}}) + {SWAP.format('np.tril({0}, -1)')})")
UPPER = "cholesky_upper(ans, upper)"  # what the array's library returned (Dask: upper)
LOW = f"({SWAP.format('ans')} if {UPPER} else ans)"
HALF_EYE = "(1.0 - 0.5 * np.eye(np.shape(ans)[-1]))"
CHOL_S = (f"{SWAP.format(f'np.linalg.inv({LOW})')} @ (np.tril({SWAP.format(LOW)} @ "
          f"({SWAP.format('g')} if {UPPER} else g)) * {HALF_EYE}) @ np.linalg.inv({LOW})")
CHOL_SYM, OWN = f"(0.5 * (({CHOL_S}) + {SWAP.format(CHOL_S)}))", f"{UPPER} == upper"
CHOL_READ = f"({READ.format('t', 'upper')} if {OWN} else 0.5 * (t + {SWAP.format('t')}))"
CHOL_T = (f"{LOW} @ (np.tril(np.linalg.inv({LOW}) @ {CHOL_READ} @ "
          f"{SWAP.format(f'np.linalg.inv({LOW})')}) * {HALF_EYE})")
defvjp(np.linalg.cholesky, "a, upper=False", kind="array", zero="upper",
       a=f"({KEEP.format(CHOL_SYM, CHOL_SYM, 'upper')} if {OWN} else {CHOL_SYM})",
       jvp=dict(a=f"({SWAP.format(CHOL_T)} if {UPPER} else {CHOL_T})"))

EYE_W = "np.eye(np.shape(ans[0])[-1])"
GAPS = f"(1.0 / (ans[0][..., None, :] - ans[0][..., :, None] + {EYE_W}) - {EYE_W})"
EIGH_S = (f"ans[1] @ ({EYE_W} * broadcast_as(g[0], ans[0])[..., :, None] + {GAPS} * "
          f"({SWAP.format('ans[1]')} @ broadcast_as(g[1], ans[1]))) @ {SWAP.format('ans[1]')}")
EIGH_SYM = f"(0.5 * (({EIGH_S}) + {SWAP.format(EIGH_S)}))"
EIGH_GRAD = KEEP.format(EIGH_SYM, SWAP.format(EIGH_SYM), "UPLO in ('U', 'u')")  # NumPy: upper
EFFECTIVE_T = READ.format("t", "UPLO in ('U', 'u')")
EIGH_INNER = f"({SWAP.format('ans[1]')} @ {EFFECTIVE_T} @ ans[1])"
EIGH_TANGENT = f"(np.diagonal({EIGH_INNER}, 0, -2, -1), ans[1] @ ({GAPS} * {EIGH_INNER}))"
defvjp(np.linalg.eigh, "a, UPLO=None", a=EIGH_GRAD, kind="seq", zero="UPLO",
       jvp=dict(a=EIGH_TANGENT))
# Moore-Penrose inverse P (its derivative where the rank does not change)
PINV_GRAD = ("np.swapaxes(-(ans @ np.swapaxes(g, -1, -2) @ ans) + ans @ np.swapaxes(ans, -1, -2)"
             " @ g @ (np.eye(np.shape(a)[-2]) - a @ ans) + (np.eye(np.shape(a)[-1]) - ans @ a)"
             " @ g @ np.swapaxes(ans, -1, -2) @ ans, -1, -2)")
PINV_TANGENT = ("-(ans @ t @ ans) + ans @ np.swapaxes(ans, -1, -2) @ np.swapaxes(t, -1, -2) @ "
                "(np.eye(np.shape(a)[-2]) - a @ ans) + (np.eye(np.shape(a)[-1]) - ans @ a) @ "
                "np.swapaxes(t, -1, -2) @ np.swapaxes(ans, -1, -2) @ ans")
defvjp(np.linalg.pinv, "a, rcond=None, hermitian=False", a=PINV_GRAD, kind="array",
       jvp=dict(a=PINV_TANGENT))
defvjp(np.kron, "a, b", a="grad_kron_a(g, a, b)", b="grad_kron_b(g, a, b)", kind="array",
       jvp=dict(a="np.kron(t, b)", b="np.kron(a, t)"))

# ---------------------------------------------------------------- reshaping (grad_reshape)
defvjp(np.reshape, "a, shape=None, order=None, *, newshape=None, copy=None",
       a="grad_reshape(g, a, order)", kind="array")
defvjp(np.ravel, "a, order=None", a="grad_reshape(g, a, order)", kind="array")
defvjp(np.squeeze, "a, axis=None", a="grad_reshape(g, a)")
defvjp(np.expand_dims, "a, axis", a="grad_reshape(g, a)", kind="array")
defvjp(np.atleast_1d, "a", a="grad_reshape(g, a)", kind="array")
defvjp(numpy_helpers.c_piece, "x", x="grad_reshape(g, x)", kind="array",
       jvp=dict(x="c_piece(t)"))  # np.c_[...] items
defvjp(np.atleast_2d, "a", a="grad_reshape(g, a)", kind="array")
defvjp(np.atleast_3d, "a", a="grad_reshape(g, a)", kind="array")

# ---------------------------------------------------------------- axes
defvjp(np.transpose, "a, axes=None", a="transpose_grad(g, axes)", kind="array")
defvjp(np.rollaxis, "a, axis, start=0", a="grad_rollaxis(g, a, axis, start)", kind="array",
       zero="start",
       jvp=dict(a="np.rollaxis(t, axis, start)"))
defvjp(np.swapaxes, "a, axis1, axis2", a="np.swapaxes(g, axis1, axis2)", kind="array")
defvjp(np.moveaxis, "a, source, destination", a="np.moveaxis(g, destination, source)",
       kind="array")

# ---------------------------------------------------------------- assembly (lists of arrays)
defvjp(np.concatenate, "arrays, axis=0", arrays="grad_concatenate(g, arrays, axis)",
       kind="array", shape_only="arrays", pieces=("arrays", "axis"))  # np.concat too
defvjp(np.stack, "arrays, axis=0", arrays="grad_stack(g, arrays, axis)", kind="array",
       shape_only="arrays")
defvjp(np.hstack, "tup", tup="grad_hstack(g, tup)", kind="array", shape_only="tup")
defvjp(np.vstack, "tup", tup="grad_vstack(g, tup)", kind="array", shape_only="tup")
defvjp(np.split, "ary, indices_or_sections, axis=0", ary="grad_split(g, ary, ans, axis)",
       kind="seq")
defvjp(np.array_split, "ary, indices_or_sections, axis=0",
       ary="grad_split(g, ary, ans, axis)", kind="seq")
defvjp(np.array, "object, dtype=None, *, copy=True, order='K', subok=False, ndmin=0",
       object="grad_array(g, object)", kind="array")
defvjp(np.asarray, "a, dtype=None, order=None", a="grad_array(g, a)", kind="array")
defvjp(np.copy, "a, order='K'", a="g")
# an array filled with a value: the value's gradient is the sum (zero for an integer dtype)
FILL = dict(fill_value="grad_astype(unbroadcast(g, fill_value), fill_value, ans.dtype)",
            jvp=dict(fill_value="grad_astype(np.broadcast_to(t, np.shape(ans)), ans, ans.dtype)"))
defvjp(np.full, "shape, fill_value, dtype=None, order=None, *, device=None, like=None",
       kind="array", **FILL)
defvjp(np.full_like, "a, fill_value, dtype=None, order=None, subok=None, shape=None, *, "
       "device=None", kind="array", zero="a", **FILL)
defvjp(np.tile, "A, reps", A="grad_tile(g, A, reps)", kind="array")
defvjp(np.repeat, "a, repeats, axis=None", a="grad_repeat(g, a, repeats, axis)",
       kind="array")
defvjp(np.broadcast_to, "array, shape", array="unbroadcast(g, array)", kind="array")
defvjp(np.pad, "array, pad_width, mode=None, constant_values=0",
       array="grad_pad(g, array, pad_width, mode)",
       constant_values="grad_pad_value(g, array, pad_width)", kind="array",
       jvp=dict(array="tangent_pad(t, pad_width, mode)",
                constant_values="np.pad(np.zeros(np.shape(array)), pad_width, constant_values=t)"))

defvjp(np.column_stack, "tup", tup="grad_column_stack(g, tup)", kind="array",
       jvp=dict(tup="np.column_stack(t)"))
if hasattr(np, "row_stack"):  # removed in NumPy 2.5 (np.vstack is the same function)
    defvjp(np.row_stack, "tup", tup="grad_vstack(g, tup)", kind="array",
           jvp=dict(tup="np.vstack(t)"))
defvjp(np.vsplit, "ary, indices_or_sections", ary="grad_split(g, ary, ans, 0)", kind="seq",
       jvp=dict(ary="np.vsplit(t, indices_or_sections)"))
defvjp(np.hsplit, "ary, indices_or_sections",
       ary="grad_split(g, ary, ans, 1 if np.ndim(ary) > 1 else 0)", kind="seq",
       jvp=dict(ary="np.hsplit(t, indices_or_sections)"))
defvjp(np.dsplit, "ary, indices_or_sections", ary="grad_split(g, ary, ans, 2)", kind="seq",
       jvp=dict(ary="np.dsplit(t, indices_or_sections)"))

# ---------------------------------------------------------------- rearranging
defvjp(np.flip, "m, axis=None", m="np.flip(g, axis)", kind="array")
defvjp(np.fliplr, "m", m="np.fliplr(g)", kind="array")
defvjp(np.flipud, "m", m="np.flipud(g)", kind="array")
defvjp(np.roll, "a, shift, axis=None", a="grad_roll(g, shift, axis)", kind="array")
defvjp(np.sort, "a, axis=-1, kind=None, order=None", a="grad_sort(g, a, axis)",
       kind="array", jvp=dict(a="tangent_sort(t, a, axis)"))

defvjp(np.rot90, "m, k=1, axes=(0, 1)", m="np.rot90(g, -k, axes)", kind="array",
       jvp=dict(m="np.rot90(t, k, axes)"))
defvjp(np.fft.fftshift, "x, axes=None", x="np.fft.ifftshift(g, axes)", kind="array",
       jvp=dict(x="np.fft.fftshift(t, axes)"))
defvjp(np.fft.ifftshift, "x, axes=None", x="np.fft.fftshift(g, axes)", kind="array",
       jvp=dict(x="np.fft.ifftshift(t, axes)"))
# differences (grad_diff: the adjoint of a difference); prepend=/append= are refused
defvjp(np.diff, "a, n=1, axis=-1", a="grad_diff(g, a, n, axis)", kind="array", zero="n",
       jvp=dict(a="np.diff(t, n, axis)"))
# the cross product: <a x b, g> = <a, b x g> = <b, g x a> (axis= sets all three axes)
CROSS_AXES = ", ".join(f"{n} if axis is None else axis" for n in ("axisa", "axisb", "axisc"))
defvjp(np.cross, "a, b, axisa=-1, axisb=-1, axisc=-1, axis=None",
       a=f"grad_cross_a(g, a, b, {CROSS_AXES})", b=f"grad_cross_b(g, a, b, {CROSS_AXES})",
       kind="array", zero=("axisa", "axisb", "axisc"),
       jvp=dict(a="np.cross(t, b, axisa, axisb, axisc, axis)",
                b="np.cross(a, t, axisa, axisb, axisc, axis)"))

# ---------------------------------------------------------------- diagonals and triangles
defvjp(np.diag, "v, k=0", v="grad_diag(g, v, k)", kind="array")
defvjp(np.diagonal, "a, offset=0, axis1=0, axis2=1",
       a="grad_diagonal(g, a, offset, axis1, axis2)", kind="array")
defvjp(np.triu, "m, k=0", m="unbroadcast(np.triu(g, k), m)", kind="array")
defvjp(np.tril, "m, k=0", m="unbroadcast(np.tril(g, k), m)", kind="array")

# ---------------------------------------------------------------- array methods
# x.name(...) uses the rule of the function on the right, with x as its first argument
defmethod("sum", np.sum)
defmethod("mean", np.mean)
defmethod("prod", np.prod)
defmethod("var", np.var)
defmethod("std", np.std)
defmethod("max", np.max)
defmethod("min", np.min)
defmethod("cumsum", np.cumsum)
defmethod("cumprod", np.cumprod)
defmethod("trace", np.trace)
defmethod("dot", np.dot)
defmethod("copy", np.copy)
defmethod("ravel", np.ravel)
defmethod("squeeze", np.squeeze)
defmethod("swapaxes", np.swapaxes)
defmethod("repeat", np.repeat)
defmethod("diagonal", np.diagonal)
defmethod("clip", np.clip)
defmethod("argmax", np.argmax)
defmethod("argmin", np.argmin)
defmethod("argsort", np.argsort)
defmethod("nonzero", np.nonzero)
defmethod("all", np.all)
defmethod("any", np.any)

# ---------------------------------------------------------------- methods with rules of their own
defmethod("reshape", np.ndarray.reshape)
defvjp(np.ndarray.reshape, "a, *shape, order=None, copy=None", a="grad_reshape(g, a, order)",
       kind="array")
defmethod("flatten", np.ndarray.flatten)
defmethod("view", np.ndarray.view)  # x.view(): the whole array (a dtype: no rule, refused)
defvjp(np.ndarray.view, "a", a="g", kind="array", jvp=dict(a="t"))
defvjp(np.ndarray.flatten, "a, order=None", a="grad_reshape(g, a, order)", kind="array")
defmethod("astype", np.ndarray.astype)
defvjp(np.ndarray.astype, "a, dtype, order='K', casting='unsafe', subok=True, copy=True",
       a="grad_astype(g, a, dtype)", jvp=dict(a="grad_astype(t, a, dtype)"))
defmethod("item", np.ndarray.item)
defvjp(np.ndarray.item, "a", a="grad_sum(g, a)")
defmethod("tolist", np.ndarray.tolist)
defvjp(np.ndarray.tolist, "a", a="grad_tolist(g, a)", kind="seq",
       jvp=dict(a="np.asarray(t, dtype=float).tolist()"))
# x.transpose(), x.transpose(axes) and x.transpose(i, j, ...): one line per form
defmethod("transpose", np.ndarray.transpose)
defvjp(np.ndarray.transpose, "a, axes=None", a="transpose_grad(g, axes)", kind="array")
defvjp(np.ndarray.transpose, "a, i, j", a="transpose_grad(g, (i, j))", kind="array")
defvjp(np.ndarray.transpose, "a, i, j, k", a="transpose_grad(g, (i, j, k))", kind="array")
defvjp(np.ndarray.transpose, "a, i, j, k, m", a="transpose_grad(g, (i, j, k, m))",
       kind="array")

# ---------------------------------------------------------------- array attributes
defattr("T", np.transpose)
defattr("shape", np.shape)
defattr("ndim", np.ndim)
defattr("size", np.size)
defattr("dtype", np.result_type)

# ---------------------------------------------------------------- srcad's NumPy helpers
# Rules for the helpers the templates above call, so that generated code can be differentiated
# again (second derivatives). Most helpers are linear in the gradient they take (``value``):
# the rule is the adjoint of that linear map, often the NumPy function itself. Products are
# bilinear: the rule for the other operand is the first-order helper with roles swapped.
# The helpers of np.prod, np.cumprod, np.linalg.norm, np.einsum and a batched
# np.linalg.solve have their rules in srcad/rules/numpy_second.py.
H = numpy_helpers


def defhelper(fn, signature, **templates):
    """A rule for one of srcad's gradient helpers: parameters without a template are read for
    their shape or are piecewise constant (``zero="*"``)."""
    return defvjp(fn, signature, zero="*", **templates)


defvjp(H.square_chunks, "a", a="g", jvp=dict(a="square_chunks(t)"))
defhelper(H.grad_tolist, "value, a", value="np.asarray(g, dtype=float).tolist()",
          jvp=dict(value="grad_tolist(t, a)"))
defhelper(H.grad_sum, "value, a, axis=None, keepdims=False",
          value="unbroadcast(np.sum(g, axis=axis, keepdims=keepdims), value)")
defhelper(H.grad_mean, "value, a, axis=None, keepdims=False",
          value="unbroadcast(np.mean(g, axis=axis, keepdims=keepdims), value)")
defhelper(H.grad_extremum, "value, a, result, axis=None, keepdims=False",
          value="np.sum(g * grad_extremum(1.0, a, result, axis, keepdims), axis=axis, "
             "keepdims=keepdims)")
defhelper(H.grad_var, "value, a, axis=None, ddof=0, keepdims=False",
          value="np.sum(g * grad_var(1.0, a, axis, ddof, keepdims), axis=axis, keepdims=keepdims)",
          a="grad_var(1.0, g * grad_sum(value, a, axis, keepdims), axis, ddof, True)")
# std is 0 (one element, or all equal): its gradient is 0 there (see grad_std), so are these
STD_VAR = "np.sum(g * grad_var(1.0, a, axis, ddof, keepdims), axis=axis, keepdims=keepdims)"
defhelper(H.grad_std, "value, a, result, axis=None, ddof=0, keepdims=False",
          value=f"safe_div({STD_VAR}, 2 * result)",
          result=f"-safe_div({STD_VAR} * value, 2 * result ** 2)",
          a="grad_var(1.0, g * grad_sum(safe_div(value, 2 * result), a, axis, keepdims), axis, "
            "ddof, True)",
          jvp=dict(value="grad_std(t, a, result, axis, ddof, keepdims)",
                   result="grad_var(-safe_div(value * t, 2 * result ** 2), a, axis, ddof, "
                          "keepdims)",
                   a="grad_std(value, t, result, axis, ddof, keepdims)"))
defvjp(H.safe_div, "a, b", a="safe_div(g, b)", b="-safe_div(g * ans, b)", broadcast=True)
defhelper(H.grad_cumsum, "value, a, axis=None", value="grad_reshape(np.cumsum(g, axis), value)")
defhelper(H.grad_trace, "value, a, offset=0, axis1=0, axis2=1",
          value="np.trace(g, offset, axis1, axis2)")
defhelper(H.grad_clip, "value, a, a_min, a_max", value="grad_clip(g, a, a_min, a_max)",
          broadcast=True)
defhelper(H.grad_clip_bound, "value, a, a_min, a_max, upper",
          value="grad_clip_bound(g, a, a_min, a_max, upper)", broadcast=True)
defhelper(H.grad_astype, "value, a, dtype", value="grad_astype(g, value, dtype)")
defhelper(H.grad_dot_a, "value, a, b", value="unbroadcast(np.dot(g, b), value)",
          b="grad_dot_b(value, g, b)")
defhelper(H.grad_dot_b, "value, a, b", value="unbroadcast(np.dot(a, g), value)",
          a="grad_dot_a(value, a, g)")
defhelper(H.grad_matmul_a, "value, a, b", value="unbroadcast(np.matmul(g, b), value)",
          b="grad_matmul_b(value, g, b)")
defhelper(H.grad_matmul_b, "value, a, b", value="unbroadcast(np.matmul(a, g), value)",
          a="grad_matmul_a(value, a, g)")
defhelper(H.grad_inner_a, "value, a, b", value="np.inner(g, b)", b="grad_inner_b(value, g, b)")
defhelper(H.grad_inner_b, "value, a, b", value="np.inner(a, g)", a="grad_inner_a(value, a, g)")
defhelper(H.grad_outer_a, "value, a, b", value="np.outer(g, b)", b="grad_outer_b(value, g, b)")
defhelper(H.grad_outer_b, "value, a, b", value="np.outer(a, g)", a="grad_outer_a(value, a, g)")
defhelper(H.grad_vdot_a, "value, a, b", value="np.vdot(g, b)", b="grad_vdot_b(value, g, b)")
defhelper(H.grad_vdot_b, "value, a, b", value="np.vdot(a, g)", a="grad_vdot_a(value, a, g)")
defhelper(H.grad_tensordot_a, "value, a, b, axes=2", value="np.tensordot(g, b, axes)",
          b="grad_tensordot_b(value, g, b, axes)")
defhelper(H.grad_tensordot_b, "value, a, b, axes=2", value="np.tensordot(a, g, axes)",
          a="grad_tensordot_a(value, a, g, axes)")
defhelper(H.grad_reshape, "value, a, order=None", value="grad_reshape(g, value, order)")
defvjp(runtime.transpose_grad, "value, axes=None", value="np.transpose(g, axes)")
defhelper(H.grad_concatenate, "value, arrays, axis=0", value="grad_split(g, value, arrays, axis)")
defhelper(H.grad_split, "value, ary, pieces, axis=0", value="grad_concatenate(g, pieces, axis)")
defhelper(H.grad_stack, "value, arrays, axis=0", value="np.stack(g, axis)")
defhelper(H.grad_hstack, "value, tup", value="np.hstack(g)")
defhelper(H.grad_vstack, "value, tup", value="np.vstack(g)")
defhelper(H.grad_array, "value, obj", value="grad_reshape(np.asarray(g, dtype=float), value)")
defhelper(H.grad_tile, "value, a, reps", value="np.tile(g, reps)")
defhelper(H.grad_repeat, "value, a, repeats, axis=None", value="np.repeat(g, repeats, axis)")
defhelper(H.grad_roll, "value, shift, axis=None", value="np.roll(g, shift, axis)")
defhelper(H.grad_pad, "value, array, pad_width, mode=None",
          value="tangent_pad(g, pad_width, mode)")
defhelper(H.grad_pad_value, "value, array, pad_width",
          value="g * np.pad(np.zeros(np.shape(array)), pad_width, constant_values=1.0)")
defhelper(H.grad_sort, "value, a, axis=-1", value="tangent_sort(g, a, axis)")
defhelper(H.tangent_sort, "value, a, axis=-1", value="grad_sort(g, a, axis)")
defhelper(H.grad_diag, "value, v, k=0", value="np.diag(g, k)")
defhelper(H.grad_diagonal, "value, a, offset=0, axis1=0, axis2=1",
          value="np.diagonal(g, offset, axis1, axis2)")

defhelper(H.grad_diff, "value, a, n=1, axis=-1", value="np.diff(g, n, axis)",
          jvp=dict(value="grad_diff(t, a, n, axis)"))
defhelper(H.grad_column_stack, "value, tup", value="np.column_stack(g)",
          jvp=dict(value="grad_column_stack(t, tup)"))
defhelper(H.grad_rollaxis, "value, a, axis, start=0", value="np.rollaxis(g, axis, start)",
          jvp=dict(value="grad_rollaxis(t, a, axis, start)"))
defhelper(H.grad_kron_a, "value, a, b", value="np.kron(g, b)", b="grad_kron_b(value, g, b)",
          jvp=dict(value="grad_kron_a(t, a, b)", b="grad_kron_a(value, a, t)"))
defhelper(H.grad_kron_b, "value, a, b", value="np.kron(a, g)", a="grad_kron_a(value, a, g)",
          jvp=dict(value="grad_kron_b(t, a, b)", a="grad_kron_b(value, t, b)"))
CROSS = "value, a, b, axisa=-1, axisb=-1, axisc=-1"
defhelper(H.grad_cross_a, CROSS, value="np.cross(g, b, axisa, axisb, axisc)",
          b="grad_cross_b(value, g, b, axisa, axisb, axisc)",
          jvp=dict(value="grad_cross_a(t, a, b, axisa, axisb, axisc)",
                   b="grad_cross_a(value, a, t, axisa, axisb, axisc)"))
defhelper(H.grad_cross_b, CROSS, value="np.cross(a, g, axisa, axisb, axisc)",
          a="grad_cross_a(value, a, g, axisa, axisb, axisc)",
          jvp=dict(value="grad_cross_b(t, a, b, axisa, axisb, axisc)",
                   a="grad_cross_b(value, t, b, axisa, axisb, axisc)"))
defvjp(H.dsinc, "x", x="g * d2sinc(x)", broadcast=True)
defvjp(H.d2sinc, "x", x="g * sinc_derivative(3, x)", broadcast=True)  # and every order after
defvjp(H.sinc_derivative, "n, x", x="g * sinc_derivative(n + 1, x)", zero="n", broadcast=True)

# ---------------------------------------------------------------- array creation
defvjp(np.linspace, "start, stop, num=50, endpoint=True, retstep=False, dtype=None, axis=0",
       start="unbroadcast(grad_linspace(g, num, endpoint, axis, False), start)",
       stop="unbroadcast(grad_linspace(g, num, endpoint, axis, True), stop)", kind="array",
       jvp=dict(start="np.linspace(t + 0.0 * stop, 0.0 * (t + stop), num, endpoint, axis=axis)",
                stop="np.linspace(0.0 * (start + t), t + 0.0 * start, num, endpoint, axis=axis)"))

defhelper(H.grad_linspace, "value, num, endpoint, axis, end",  # linear in value
          value="np.linspace(g * (1.0 - end), g * end, num, endpoint, axis=axis)",
          jvp={"value": "grad_linspace(t, num, endpoint, axis, end)"})

# ---------------------------------------------------------------- writes (srcad.writes)
defvjp(H.add_at, "a, indices, b", a="g", b="grad_add_at(g, indices, b)", kind="array",
       zero="indices", jvp={"a": "t", "b": "add_at(np.zeros(np.shape(a)), indices, t)"})
defhelper(H.grad_add_at, "value, indices, b",
          value="add_at(np.zeros_like(value, dtype=float), indices, "
          "np.broadcast_to(g, np.shape(np.zeros_like(value, dtype=float)[indices])))",
          jvp={"value": "grad_add_at(t, indices, b)"})
nondiff(H.diagonal_positions)  # positions (integers): np.fill_diagonal's
defhelper(H.last_writes, "block, like, index", block="last_writes(g, like, index)",
          jvp={"block": "last_writes(t, like, index)"})

# ---------------------------------------------------------------- no derivative
# array creation
# (np.arange has no rule: its values move with float bounds, so srcad refuses it where a
# bound needs a gradient, instead of a zero; np.logspace, np.geomspace: rules/numpy_more.py)
nondiff(np.zeros, np.ones, np.empty, np.zeros_like, np.ones_like, np.empty_like, np.eye,
        np.identity, np.tri, np.indices)
# shapes and types
nondiff(np.shape, np.ndim, np.size, np.result_type, np.iscomplexobj, np.isrealobj,
        np.isscalar)
# indices and counts
nondiff(np.argmax, np.argmin, np.argsort, np.argpartition, np.nonzero, np.flatnonzero,
        np.argwhere, np.count_nonzero, np.searchsorted, np.digitize, np.unravel_index,
        np.ravel_multi_index)
# piecewise constant
nondiff(np.sign, np.floor, np.ceil, np.round, np.around, np.rint, np.trunc, np.fix,
        np.floor_divide, np.heaviside)
# conversion to an integer or boolean type (np.int64(x) truncates, as int(x) does)
nondiff(np.int8, np.int16, np.int32, np.int64, np.uint8, np.uint16, np.uint32, np.uint64,
        np.intp, np.uintp, np.bool_)
# conversion to float64: the value itself, as float(x) (an array stays an array)
defvjp(np.float64, "x=0.0", x="g", broadcast=True)
# comparisons and tests
nondiff(np.equal, np.not_equal, np.less, np.less_equal, np.greater, np.greater_equal,
        np.isfinite, np.isnan, np.isinf, np.isneginf, np.isposinf, np.isclose, np.allclose,
        np.array_equal, np.signbit, np.logical_and, np.logical_or, np.logical_not,
        np.logical_xor, np.all, np.any)
# random numbers: the samplers of np.random (they change the generator's state: not pure)
RANDOM = [getattr(np.random, name) for name in np.random.__all__
          if name not in ("seed", "get_state", "set_state", "shuffle", "default_rng")
          and callable(getattr(np.random, name, None))
          and not isinstance(getattr(np.random, name), type)]
nondiff(*RANDOM)
registry.impure.update(RANDOM)
registry.samplers.update(RANDOM)
