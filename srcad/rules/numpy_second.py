"""Derivative rules for more of NumPy (``np.linalg.svd``, ``eig``, ``np.gradient``,
``np.partition``, ``np.select``, ``np.append``) and the rules of srcad's own gradient helpers
that make second derivatives (``srcad.hessian``, ``hvp``) work through ``np.prod``,
``np.cumprod``, ``np.linalg.norm``, ``np.einsum`` and ``np.linalg.solve``.

The same conventions as :mod:`srcad.rules.numpy`. A helper that is linear in the gradient it
takes (``value``) has, as the rule for ``value``, the adjoint of that linear map; its rule for
the point (``a``, ``x``) is the second derivative of the original function, written with the
Hessian helpers of :mod:`srcad.runtime.numpy_second`. Those Hessian helpers are linear in
their vectors; a derivative with respect to their point (a third derivative) has no template,
so it is refused with a ``MissingRuleError``, never zeroed.

Imports ``srcad.rules``, ``srcad.runtime`` (and nothing above its layer).
"""

import numpy as np

from ..runtime import numpy_helpers as H
from .registry import defvjp, nondiff

SWAP = "np.swapaxes({}, -1, -2)"

# ---------------------------------------------------------------- linear algebra: svd, eig
# np.linalg.svd: the thin SVD's derivative (distinct, nonzero singular values; repeated ones
# give inf or nan, as in autograd). full_matrices=True is the thin SVD for a square matrix;
# for a non-square one the extra singular vectors are not unique: svd_rank refuses it.
# compute_uv=False: the singular values alone, s' = diag(U' dA V).
K = "svd_rank(a, full_matrices)"
U, S, VH = f"ans[0][..., :{K}]", "ans[1]", f"ans[2][..., :{K}, :]"
V = SWAP.format(VH)
GU = f"broadcast_as(g[0], ans[0])[..., :{K}]"
GS = "broadcast_as(g[1], ans[1])"
GVH = f"broadcast_as(g[2], ans[2])[..., :{K}, :]"
EYE_S = f"np.eye(np.shape({S})[-1])"
F = f"(1.0 / ({S}[..., None, :] ** 2 - {S}[..., :, None] ** 2 + {EYE_S}) - {EYE_S})"
J = f"({F} * ({SWAP.format(U)} @ {GU} - {SWAP.format(GU)} @ {U}))"
KV = f"({F} * ({VH} @ {SWAP.format(GVH)} - {GVH} @ {SWAP.format(VH)}))"
INNER = f"({J} * {S}[..., None, :] + {S}[..., :, None] * {KV} + {EYE_S} * {GS}[..., :, None])"
SVD_UV = (f"{U} @ {INNER} @ {VH} + (({GU} - {U} @ ({SWAP.format(U)} @ {GU})) / "
          f"{S}[..., None, :]) @ {VH} + {U} @ (({GVH} - ({GVH} @ {V}) @ {VH}) / "
          f"{S}[..., :, None])")
THIN = "np.linalg.svd(a, full_matrices=False)"
SVD_S = f"({THIN}[0] * g[..., None, :]) @ {THIN}[2]"
P = f"({SWAP.format(U)} @ t @ {V})"
DU = (f"{U} @ ({F} * ({P} * {S}[..., None, :] + {S}[..., :, None] * {SWAP.format(P)})) + "
      f"(t @ {V} - {U} @ ({SWAP.format(U)} @ (t @ {V}))) / {S}[..., None, :]")
DV = (f"{V} @ ({F} * ({S}[..., :, None] * {P} + {SWAP.format(P)} * {S}[..., None, :])) + "
      f"({SWAP.format('t')} @ {U} - {V} @ ({VH} @ ({SWAP.format('t')} @ {U}))) / "
      f"{S}[..., None, :]")
SVD_UV_T = f"({DU}, np.diagonal({P}, 0, -2, -1), {SWAP.format(DV)})"
SVD_S_T = f"np.sum({THIN}[0] * (t @ {SWAP.format(f'{THIN}[2]')}), axis=-2)"
SVD_GRAD = f"({SVD_UV} if compute_uv else {SVD_S})"
SVD_TANGENT = f"({SVD_UV_T} if compute_uv else {SVD_S_T})"
defvjp(np.linalg.svd, "a, full_matrices=True, compute_uv=True", a=SVD_GRAD,
       zero=("full_matrices", "compute_uv"), jvp=dict(a=SVD_TANGENT))

# np.linalg.eig (distinct eigenvalues): its results are taken as complex, whatever a is (a
# real matrix may have complex eigenvalues, and NumPy >= 2.5 returns complex arrays always;
# what flows back into a real a is the real part). With P = V^-1 dA V and F[i, j] =
# 1 / (w[j] - w[i]), dw = diag(P) and dV = V (F * P - diag(V^H V (F * P))): each eigenvector
# keeps its norm and its phase, as NumPy's are unit vectors. Complex-linear in dA, so the
# gradient is the transpose: V^-T Q V' with Q = diag(gw) + F * (V'gV - V'conj(V) diag(V'gV))
EYE_W = "np.eye(eig_size(ans[0]))"
GAPS = f"(1.0 / (ans[0][..., None, :] - ans[0][..., :, None] + {EYE_W}) - {EYE_W})"
VT, GV = SWAP.format("ans[1]"), "broadcast_as(g[1], ans[1])"
EIG_Q = (f"({EYE_W} * broadcast_as(g[0], ans[0])[..., :, None] + {GAPS} * ({VT} @ {GV} - "
         f"{VT} @ np.conj(ans[1]) @ ({EYE_W} * ({VT} @ {GV}))))")
EIG_P = "np.linalg.solve(ans[1], t @ ans[1])"
EIG_C = f"({GAPS} * {EIG_P})"
defvjp(np.linalg.eig, "a", a=f"np.linalg.solve({VT}, gauge_check({EIG_Q}, {VT} @ {GV}) @ {VT})",
       kind="seq",
       complex_ok=True, complex_out="always",
       jvp=dict(a=f"(np.sum({EYE_W} * {EIG_P}, axis=-1), ans[1] @ ({EIG_C} - {EYE_W} * "
                  f"(np.conj({VT}) @ ans[1] @ {EIG_C})))"))
# the same without the phase check, for srcad's own templates (eigvals': .numpy_more)
defvjp(H.eig_unchecked, "a", a=f"np.linalg.solve({VT}, {EIG_Q} @ {VT})", kind="seq",
       complex_ok=True, complex_out="always",
       jvp=dict(a=f"(np.sum({EYE_W} * {EIG_P}, axis=-1), ans[1] @ ({EIG_C} - {EYE_W} * "
                  f"(np.conj({VT}) @ ans[1] @ {EIG_C})))"))

# np.linalg.qr, reduced (m >= n; qr_size refuses the rest): with X = Q' dA R^-1 and
# W = tril(X, -1) - tril(X, -1)', dQ = Q W + (dA - Q Q' dA) R^-1 and dR = Q' dA - W R; the
# gradient, by duality, is (Q gR R' + gQ - Q Q' gQ + Q tril(M - M', -1)) R^-T with
# M = Q' gQ - gR R'
Q, R = "ans[0][..., :qr_size(a, mode)]", "ans[1]"  # (all of Q's columns, once checked)


def _right_inv_t(x):
    """``x @ inv(R)'``: a solve with R (no inverse formed)."""
    return SWAP.format(f"np.linalg.solve({R}, {SWAP.format(x)})")


def _right_inv(x):
    """``x @ inv(R)``."""
    return SWAP.format(f"np.linalg.solve({SWAP.format(R)}, {SWAP.format(x)})")


GQ, GR = f"broadcast_as(g[0], {Q})", f"broadcast_as(g[1], {R})"
QR_M = f"({SWAP.format(Q)} @ {GQ} - {GR} @ {SWAP.format(R)})"
QR_GRAD = _right_inv_t(f"{Q} @ ({GR} @ {SWAP.format(R)}) + {GQ} - {Q} @ ({SWAP.format(Q)} @ "
                       f"{GQ}) + {Q} @ np.tril({QR_M} - {SWAP.format(QR_M)}, -1)")
QR_X = f"({_right_inv(f'{SWAP.format(Q)} @ t')})"
QR_W = f"(np.tril({QR_X}, -1) - {SWAP.format(f'np.tril({QR_X}, -1)')})"
QR_T = (f"({Q} @ {QR_W} + {_right_inv(f't - {Q} @ ({SWAP.format(Q)} @ t)')}, "
        f"{SWAP.format(Q)} @ t - {QR_W} @ {R})")
defvjp(np.linalg.qr, "a, mode='reduced'", a=QR_GRAD, kind="seq", zero="mode",
       jvp=dict(a=QR_T))
nondiff(H.svd_rank, H.eig_size, H.qr_size, H.cholesky_upper)

# ---------------------------------------------------------------- more NumPy
# np.gradient is linear in f: its gradient is the transpose of each axis's difference matrix
# (one spacing, a number or the coordinates, for every axis; a varied spacing is refused)
GRAD_KW = "axis=axis, edge_order=edge_order"
defvjp(np.gradient, "f, *, axis=None, edge_order=1", f="grad_gradient(g, f, axis, edge_order)",
       zero="edge_order", jvp=dict(f=f"np.gradient(t, {GRAD_KW})"))
defvjp(np.gradient, "f, h, *, axis=None, edge_order=1",
       f="grad_gradient(g, f, axis, edge_order, h)", zero="edge_order",
       jvp=dict(f=f"np.gradient(t, h, {GRAD_KW})"))
# np.partition moves elements as np.argpartition orders them
defvjp(np.partition, "a, kth, axis=-1, kind=None, order=None", zero="kth",
       a="grad_partition(g, a, kth, axis)", kind="array",
       jvp=dict(a="tangent_partition(t, a, kth, axis)"))
# np.select: each choice where its condition is the first true one, the default elsewhere
NONE_TRUE = "np.any(np.stack(condlist), axis=0)"  # (np.stack: a list of Dask arrays stays one)
defvjp(np.select, "condlist, choicelist, default=0", zero="condlist",
       choicelist="grad_select(g, condlist, choicelist)",
       default=f"unbroadcast(np.where({NONE_TRUE}, 0.0, g), default)",
       jvp=dict(choicelist="np.select(condlist, t, 0.0)",
                default=f"np.where({NONE_TRUE}, 0.0, t)"))
defvjp(np.append, "arr, values, axis=None", arr="grad_append(g, arr, values, axis, 0)",
       values="grad_append(g, arr, values, axis, 1)", kind="array",
       jvp=dict(arr="np.append(t, np.zeros(np.shape(values)), axis)",
                values="np.append(np.zeros(np.shape(arr)), t, axis)"))

# ---------------------------------------------------------------- srcad's helpers: second order
# parameters read for their shape or piecewise constant are listed in zero=; the point of a
# Hessian helper (norm_hvp's x, ...) is not, so a third derivative is refused (np.prod's and
# np.cumprod's have one: prod_d3, cumprod_d3, whose own points are refused)
defvjp(H.grad_prod, "value, a, axis=None, keepdims=False", zero=("axis", "keepdims"),
       value="np.sum(g * grad_prod(1.0, a, axis, keepdims), axis=axis, keepdims=keepdims)",
       a="prod_hvp(g * grad_sum(value, a, axis, keepdims), a, axis)",
       jvp=dict(value="grad_prod(t, a, axis, keepdims)",
                a="grad_sum(value, a, axis, keepdims) * prod_hvp(t, a, axis)"))
defvjp(H.prod_hvp, "w, a, axis=None", w="prod_hvp(g, a, axis)", a="prod_d3(w, g, a, axis)",
       zero="axis", jvp=dict(w="prod_hvp(t, a, axis)", a="prod_d3(w, t, a, axis)"))
# the third derivative, symmetric in w and v (a fourth derivative is refused)
defvjp(H.prod_d3, "w, v, a, axis=None", w="prod_d3(g, v, a, axis)", v="prod_d3(w, g, a, axis)",
       zero="axis", jvp=dict(w="prod_d3(t, v, a, axis)", v="prod_d3(w, t, a, axis)"))

defvjp(H.grad_cumprod, "value, a, axis=None", zero="axis",
       value="tangent_cumprod(g, a, axis)", a="cumprod_hvp(value, g, a, axis)",
       jvp=dict(value="grad_cumprod(t, a, axis)", a="cumprod_hvp(value, t, a, axis)"))
defvjp(H.tangent_cumprod, "value, a, axis=None", zero="axis",
       value="grad_cumprod(g, a, axis)", a="cumprod_hvp(g, value, a, axis)",
       jvp=dict(value="tangent_cumprod(t, a, axis)", a="cumprod_d2(value, t, a, axis)"))
defvjp(H.cumprod_hvp, "value, w, a, axis=None", zero="axis",
       value="cumprod_d2(w, g, a, axis)", w="cumprod_hvp(value, g, a, axis)",
       a="cumprod_hvp3(value, w, g, a, axis)",
       jvp=dict(value="cumprod_hvp(t, w, a, axis)", w="cumprod_hvp(value, t, a, axis)",
                a="cumprod_hvp3(value, w, t, a, axis)"))
defvjp(H.cumprod_d2, "u, v, a, axis=None", zero="axis",
       u="cumprod_hvp(g, v, a, axis)", v="cumprod_hvp(g, u, a, axis)",
       a="cumprod_hvp3(g, u, v, a, axis)",
       jvp=dict(u="cumprod_d2(t, v, a, axis)", v="cumprod_d2(u, t, a, axis)",
                a="cumprod_d3(u, v, t, a, axis)"))
# the third derivative, symmetric in its directions (a fourth derivative is refused)
defvjp(H.cumprod_d3, "u, v, w, a, axis=None", zero="axis",
       u="cumprod_hvp3(g, v, w, a, axis)", v="cumprod_hvp3(g, u, w, a, axis)",
       w="cumprod_hvp3(g, u, v, a, axis)",
       jvp=dict(u="cumprod_d3(t, v, w, a, axis)", v="cumprod_d3(u, t, w, a, axis)",
                w="cumprod_d3(u, v, t, a, axis)"))
defvjp(H.cumprod_hvp3, "value, u, v, a, axis=None", zero="axis",
       value="cumprod_d3(u, v, g, a, axis)", u="cumprod_hvp3(value, g, v, a, axis)",
       v="cumprod_hvp3(value, u, g, a, axis)",
       jvp=dict(value="cumprod_hvp3(t, u, v, a, axis)", u="cumprod_hvp3(value, t, v, a, axis)",
                v="cumprod_hvp3(value, u, t, a, axis)"))

# grad_norm's norm is the norm of x (the rule of np.linalg.norm is its only caller): the
# template for x is the whole second derivative, through the norm too, so norm is listed as zero
NORM_ARGS = "ord, axis, keepdims"
defvjp(H.grad_norm, "value, x, norm, ord=None, axis=None, keepdims=False",
       zero=("norm", "ord", "axis", "keepdims"),
       value=f"np.sum(g * grad_norm(1.0, x, norm, {NORM_ARGS}), axis=axis, keepdims=keepdims)",
       x=f"norm_hvp(value, x, norm, g, {NORM_ARGS})",
       jvp=dict(value=f"grad_norm(t, x, norm, {NORM_ARGS})",
                x=f"norm_hvp(value, x, norm, t, {NORM_ARGS})"))
defvjp(H.norm_hvp, "value, x, norm, w, ord=None, axis=None, keepdims=False",
       zero=("ord", "axis", "keepdims"),
       value=f"np.sum(g * norm_hvp(1.0, x, norm, w, {NORM_ARGS}), axis=axis, keepdims=keepdims)",
       w=f"norm_hvp(value, x, norm, g, {NORM_ARGS})",
       jvp=dict(value=f"norm_hvp(t, x, norm, w, {NORM_ARGS})",
                w=f"norm_hvp(value, x, norm, t, {NORM_ARGS})"))

# a batch of np.linalg.solve (a matrix a has templates of functions with rules instead)
defvjp(H.grad_solve_b, "value, a, b", zero="b",
       value="unbroadcast(np.linalg.solve(a, g), value)",
       a="grad_solve_a(value, a, b, np.linalg.solve(a, g))",
       jvp=dict(value="grad_solve_b(t, a, b)", a="tangent_grad_solve_b(value, a, b, t)"))
defvjp(H.grad_solve_a, "value, a, b, x", zero="b",
       value="-unbroadcast(solve_gans(g, a, b, x), value)",
       a="-grad_solve_a(value, a, b, solve_gans(g, a, b, x))",
       x="grad_solve_a_ans(g, value, a, b, x)",
       jvp=dict(value="grad_solve_a(t, a, b, x)",
                a="tangent_grad_solve_a(value, a, b, x, t)",
                x="grad_solve_a(value, a, b, t)"))
defvjp(H.solve_gans, "m, a, b, x", zero="b", m="-grad_solve_a(g, a, b, x)",
       x="-grad_solve_a_ans(m, g, a, b, x)",
       jvp=dict(m="solve_gans(t, a, b, x)", x="solve_gans(m, a, b, t)"))
defvjp(H.grad_solve_a_ans, "m, value, a, b, x", zero=("b", "x"),
       m="grad_solve_a(value, a, b, g)", value="-unbroadcast(solve_gans(m, a, b, g), value)",
       jvp=dict(m="grad_solve_a_ans(t, value, a, b, x)",
                value="grad_solve_a_ans(m, t, a, b, x)"))


# np.einsum's helper, for each number m of einsum's positional arguments x0 ... (one of them,
# number p, is the shape of the operand differentiated): linear in the gradient and in every
# other operand, so each rule is grad_einsum again or einsum itself
def _einsum_operands(m, at=None, put="t"):
    """x0, ..., x{m-1}, with the gradient in place p of the operand grad_einsum gives the
    gradient of; ``at``, if given, is an operand replaced by ``put``."""
    return ", ".join(put if i == at else f"g if p == {i} else x{i}" for i in range(m))


for _m in range(2, 11):
    _xs = [f"x{i}" for i in range(_m)]
    _plain = ", ".join(_xs)
    _shape_at = {j: ", ".join(f"np.shape(x{j})" if i == j else f"g if p == {i} else x{i}"
                              for i in range(_m)) for j in range(_m)}
    defvjp(H.grad_einsum, "value, p, " + _plain, zero="p",
           value=f"unbroadcast(np.einsum({_einsum_operands(_m)}), value)",
           **{x: f"grad_einsum(value, {j}, {_shape_at[j]})" for j, x in enumerate(_xs)},
           jvp=dict(value=f"grad_einsum(t, p, {_plain})",
                    **{x: "grad_einsum(value, p, " + ", ".join(
                        "t" if i == j else f"x{i}" for i in range(_m)) + ")"
                       for j, x in enumerate(_xs)}))

# np.partition, np.select, np.append, np.gradient, np.pad: linear in value
defvjp(H.grad_partition, "value, a, kth, axis=-1", zero="*",
       value="tangent_partition(g, a, kth, axis)",
       jvp=dict(value="grad_partition(t, a, kth, axis)"))
defvjp(H.tangent_partition, "value, a, kth, axis=-1", zero="*",
       value="grad_partition(g, a, kth, axis)",
       jvp=dict(value="tangent_partition(t, a, kth, axis)"))
defvjp(H.grad_select, "value, condlist, choicelist", zero="*",
       value="np.select(condlist, g, 0.0)",
       jvp=dict(value="grad_select(t, condlist, choicelist)"))
defvjp(H.grad_append, "value, arr, values, axis=None, which=0", zero="*",
       value="np.append(g, np.zeros(np.shape(values)), axis) if which == 0 else "
             "np.append(np.zeros(np.shape(arr)), g, axis)",
       jvp=dict(value="grad_append(t, arr, values, axis, which)"))
defvjp(H.grad_gradient, "value, f, axis=None, edge_order=1", zero=("f", "axis", "edge_order"),
       value=f"np.gradient(g, {GRAD_KW})",
       jvp=dict(value="grad_gradient(t, f, axis, edge_order)"))
defvjp(H.grad_gradient, "value, f, axis, edge_order, h", zero=("f", "axis", "edge_order"),
       value=f"np.gradient(g, h, {GRAD_KW})",
       jvp=dict(value="grad_gradient(t, f, axis, edge_order, h)"))
defvjp(H.tangent_pad, "value, pad_width, mode=None", zero="*",
       value="grad_pad(g, value, pad_width, mode)",
       jvp=dict(value="tangent_pad(t, pad_width, mode)"))
