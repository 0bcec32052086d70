"""The complex forms of ``np.linalg.svd``, ``eigh``, ``slogdet`` and ``norm``, and the linear
algebra that holds for complex matrices as written (``solve``, ``inv``, ``det``).

JAX's convention (docs/supported-python.md, *Complex numbers*): a cotangent ``c`` of a complex
value pairs with a tangent ``t`` as ``Re(sum(c * t))``. Each form below is derived in the
usual inner product ``<X, Y> = Re tr(X^H Y)``, where a cotangent is the conjugate of JAX's:
the templates conjugate ``g`` on the way in and the result on the way out. Each template is
written with functions that have complex rules, so each form has derivatives of every order.
Writing ``H(X)`` for the conjugate transpose:

* ``svd`` (thin, distinct nonzero singular values), ``P = H(U) dA V``: ``ds = Re diag P``; the
  phases of the singular vectors are a free choice of LAPACK's (a *gauge*): the tangent puts
  half of ``i Im P_kk / s_k`` into ``U``'s column and minus half into ``V``'s, and the
  gradient is the exact adjoint of that tangent. A function of ``U``, ``s``, ``Vh`` that does
  not depend on those phases (``abs(U)``, ``U @ diag(s) @ Vh``, ``s``) gets its exact
  derivative; one that does has none that finite differences could confirm: the gradient
  refuses it (``gauge_check``, when it runs, as PyTorch does), a tangent keeps the choice.
* ``eigh`` of a complex matrix reads one triangle and the real part of the diagonal (LAPACK's
  Hermitian routines): the gradient is zero elsewhere. The eigenvectors' phases: ``H(V) dV``
  has a zero diagonal in the tangent.
* ``eig`` (:mod:`srcad.rules.numpy_second`): one rule for real and complex matrices, its
  results taken as complex.
* ``slogdet``: the sign moves too (by ``1j Im tr(A^-1 dA)`` times itself).
* ``norm``: the norms of sums of ``|x|`` (vector norms, Frobenius, matrix ``1``/``inf``) are
  the same norms of ``abs(x)``: the real rule at ``abs(x)`` times ``conj(x) / |x|``; the
  nuclear and spectral (``2``, ``-2``) norms are sums of singular values: ``conj`` of
  ``U @ Vh`` (or of the one singular pair) over the matrix axes.

Imports ``srcad.rules``, ``srcad.runtime`` (and nothing above its layer).
"""

import numpy as np

from ..runtime import numpy_helpers as H
from . import numpy_matrices as _matrices  # noqa: F401  (marked below)
from . import numpy_second as _second
from .numpy_complex import defcomplex, holomorphic
from .registry import defvjp, nondiff

SWAP = "np.swapaxes({}, -1, -2)"
HERM = "np.conj(np.swapaxes({}, -1, -2))"

# ---------------------------------------------------------------- holomorphic as written
# inv, solve, det: their templates use transposes, not conjugate transposes (d(A^-1) =
# -A^-1 dA A^-1 is complex-linear in dA)
holomorphic(np.linalg.inv, np.linalg.solve, np.linalg.det, H.square_chunks, H.grad_solve_a,
            H.grad_solve_b,
            H.solve_gans, H.grad_solve_a_ans)
# the helpers of np.prod and np.einsum (their rules are in numpy_second: second derivatives)
holomorphic(H.grad_prod, H.prod_hvp, H.prod_d3, H.grad_einsum)
# the norm's helpers: linear in their gradient, which may be complex; their point is real
# (checked when they run), so the analysis taking it for maybe complex changes nothing
holomorphic(H.grad_norm, H.norm_hvp)

# ---------------------------------------------------------------- svd
U, S, VH = _second.U, _second.S, _second.VH
EYE_S, F = _second.EYE_S, _second.F
V = HERM.format(VH)
GU_BAR = f"np.conj({_second.GU})"  # the cotangents in the usual inner product
GVH_BAR = f"np.conj({_second.GVH})"
GS = f"np.real({_second.GS})"  # s is real: only the real part of its cotangent pairs with it
J = f"({HERM.format(U)} @ {GU_BAR})"
KV = f"({VH} @ {HERM.format(GVH_BAR)})"
SVD_INNER = (f"(({F} * ({J} - {HERM.format(J)})) * {S}[..., None, :] + {S}[..., :, None] * "
             f"({F} * ({KV} - {HERM.format(KV)})) + {EYE_S} * {GS}[..., :, None] + 0.5j * "
             f"{EYE_S} * (np.imag({J}) - np.imag({KV})) / {S}[..., :, None])")
SVD_REST = (f" @ {VH} + (({GU_BAR} - {U} @ ({HERM.format(U)} @ {GU_BAR})) / "
            f"{S}[..., None, :]) @ {VH} + {U} @ (({GVH_BAR} - ({GVH_BAR} @ {V}) @ {VH}) / "
            f"{S}[..., :, None])")
SVD_BAR = f"{U} @ gauge_check({SVD_INNER}, {J}, {KV}){SVD_REST}"
SVD_BAR_UNCHECKED = f"{U} @ {SVD_INNER}{SVD_REST}"  # for svd_thin (srcad's templates)
THIN = "svd_thin(a)"  # U and Vh of two calls, in a combination the phases do not change
SVD_S_BAR = f"({THIN}[0] * np.real(g)[..., None, :]) @ {THIN}[2]"
P = f"({HERM.format(U)} @ t @ {V})"
HALF_IM = f"({EYE_S} * 0.5j * np.imag({P}) / {S}[..., :, None])"
DU = (f"{U} @ ({F} * ({P} * {S}[..., None, :] + {S}[..., :, None] * {HERM.format(P)}) + "
      f"{HALF_IM}) + (t @ {V} - {U} @ ({HERM.format(U)} @ (t @ {V}))) / {S}[..., None, :]")
DV = (f"{V} @ ({F} * ({S}[..., :, None] * {P} + {HERM.format(P)} * {S}[..., None, :]) - "
      f"{HALF_IM}) + ({HERM.format('t')} @ {U} - {V} @ ({VH} @ ({HERM.format('t')} @ {U}))) / "
      f"{S}[..., None, :]")
SVD_T = f"({DU}, np.real(np.sum({EYE_S} * {P}, axis=-1)), {HERM.format(DV)})"
SVD_S_T = (f"np.real(np.sum(np.conj({THIN}[0]) * (t @ {HERM.format(f'{THIN}[2]')}), "
           "axis=-2))")
SVD_GRAD = f"np.conj({SVD_BAR} if compute_uv else {SVD_S_BAR})"
SVD_TANGENT = f"({SVD_T} if compute_uv else {SVD_S_T})"
defcomplex(np.linalg.svd, "a, full_matrices=True, compute_uv=True", a=SVD_GRAD,
           zero=("full_matrices", "compute_uv"), jvp=dict(a=SVD_TANGENT))
# srcad's own thin SVD: the real rule of np.linalg.svd, and this form without the check
defvjp(H.svd_thin, "a, full_matrices=False, compute_uv=True", a=_second.SVD_GRAD, kind="seq",
       zero=("full_matrices", "compute_uv"), jvp=dict(a=_second.SVD_TANGENT))
defcomplex(H.svd_thin, "a, full_matrices=False, compute_uv=True",
           a=f"np.conj({SVD_BAR_UNCHECKED} if compute_uv else {SVD_S_BAR})",
           zero=("full_matrices", "compute_uv"), jvp=dict(a=SVD_TANGENT))

# ---------------------------------------------------------------- eigh
EYE_W = "np.eye(np.shape(ans[0])[-1])"
GAPS = f"(1.0 / (ans[0][..., None, :] - ans[0][..., :, None] + {EYE_W}) - {EYE_W})"
VEC = "ans[1]"
# the Hermitian matrix LAPACK reads: one triangle, the real part of the diagonal
READ = (f"((np.triu({{0}}, 1) + {HERM.format('np.triu({0}, 1)')} if UPLO in ('U', 'u') else "
        f"np.tril({{0}}, -1) + {HERM.format('np.tril({0}, -1)')}) + {EYE_W} * np.real({{0}}))")
EIGH_P = f"({HERM.format(VEC)} @ {READ.format('t')} @ {VEC})"
GV_BAR = f"np.conj(broadcast_as(g[1], {VEC}))"
EIGH_M = (f"({VEC} @ gauge_check({EYE_W} * np.real(broadcast_as(g[0], ans[0]))[..., :, None] "
          f"+ {GAPS} * ({HERM.format(VEC)} @ {GV_BAR}), {HERM.format(VEC)} @ {GV_BAR}) @ "
          f"{HERM.format(VEC)})")
EIGH_SYM = f"(0.5 * ({EIGH_M} + {HERM.format(EIGH_M)}))"
EIGH_BAR = (f"(np.triu({EIGH_SYM}) + np.triu({EIGH_SYM}, 1) if UPLO in ('U', 'u') else "
            f"np.tril({EIGH_SYM}) + np.tril({EIGH_SYM}, -1))")
EIGH_GRAD = f"np.conj({EIGH_BAR})"
EIGH_TANGENT = f"(np.real(np.sum({EYE_W} * {EIGH_P}, axis=-1)), {VEC} @ ({GAPS} * {EIGH_P}))"
defcomplex(np.linalg.eigh, "a, UPLO=None", a=EIGH_GRAD, zero="UPLO", jvp=dict(a=EIGH_TANGENT))

# the phase check of the gradients above (and of eig's): the identity on its value
defvjp(H.gauge_check, "value, j, k=0.0", value="g", zero=("j", "k"), complex_ok=True,
       jvp=dict(value="t"))

# ---------------------------------------------------------------- slogdet
# with tau = tr(A^-1 dA): d logabsdet = Re tau, d sign = 1j Im(tau) sign; so the gradient is
# (Re g[1] + 1j Im(g[0] sign)) A^-T
TAU = "np.trace(np.linalg.solve(square_chunks(a), t), axis1=-2, axis2=-1)"
defcomplex(np.linalg.slogdet, "a",
           a=("np.expand_dims(np.real(g[1]) + 1j * np.imag(g[0] * ans[0]), (-2, -1)) * "
              "np.swapaxes(np.linalg.inv(square_chunks(a)), -1, -2)"),
           jvp=dict(a=f"(1j * np.imag({TAU}) * ans[0], np.real({TAU}))"))

# ---------------------------------------------------------------- norm
ABS = "np.abs(x)"
SAFE_ABS = f"np.where({ABS} == 0, 1.0, {ABS})"
BY_ABS = f"grad_norm({{g}}, {ABS}, np.real(ans), ord, axis, keepdims) * np.conj(x) / {SAFE_ABS}"
AXES = "norm_axes(x, axis)"
MOVED = f"svd_thin(np.moveaxis(x, {AXES}, (-2, -1)))"
K = "(0 if ord == 2 else -1)"  # the singular pair of the spectral norms
PAIR = (f"({MOVED}[0] @ {MOVED}[2] if ord == 'nuc' else {MOVED}[0][..., :, {K}, None] * "
        f"{MOVED}[2][..., None, {K}, :])")
BY_SVD = f"grad_sum({{g}}, x, axis, keepdims) * np.conj(np.moveaxis({PAIR}, (-2, -1), {AXES}))"
NORM_BAR = f"({BY_SVD} if norm_by_svd(x, ord, axis) else {BY_ABS})"
defcomplex(np.linalg.norm, "x, ord=None, axis=None, keepdims=False",
           x=NORM_BAR.format(g="np.real(g)"),
           jvp=dict(x=f"np.sum(np.real({NORM_BAR.format(g='1.0')} * t), axis=axis, "
                      "keepdims=keepdims)"), real_out=True)
nondiff(H.norm_axes, H.norm_by_svd)

# ---------------------------------------------------------------- cholesky
# A = L L^H with a real positive diagonal: dL = L Phi(L^-1 dA L^-H), Phi the lower triangle
# with half the diagonal; so the (Hermitian) cotangent is L^-H Phi(L^H G) L^-1, symmetrised:
# the real rule with conjugate transposes, conjugated on the way in and out
UPPER = "cholesky_upper(ans, upper)"
LOW = f"({HERM.format('ans')} if {UPPER} else ans)"
HALF_EYE = "(1.0 - 0.5 * np.eye(np.shape(ans)[-1]))"
GB_LOW = f"({HERM.format('np.conj(g)')} if {UPPER} else np.conj(g))"
CHOL_BAR = (f"{HERM.format(f'np.linalg.inv({LOW})')} @ (np.tril({HERM.format(LOW)} @ {GB_LOW}) "
            f"* {HALF_EYE}) @ np.linalg.inv({LOW})")
# the Hermitian matrix LAPACK reads: one triangle (the upper one for upper=True) and the real
# part of the diagonal; the gradient is zero elsewhere (exact for any matrix, as eigh's)
# (a library returning another factor than NumPy's, Dask, keeps the Hermitian convention)
CHOL_EYE = "np.eye(np.shape(ans)[-1])"
OWN_FACTOR = f"{UPPER} == upper"
CHOL_READ = (f"(((np.triu({{0}}, 1) + {HERM.format('np.triu({0}, 1)')} if upper else "
             f"np.tril({{0}}, -1) + {HERM.format('np.tril({0}, -1)')}) + {CHOL_EYE} * "
             f"np.real({{0}})) if {OWN_FACTOR} else 0.5 * ({{0}} + {HERM.format('{0}')}))")
CHOL_T = (f"{LOW} @ (np.tril(np.linalg.inv({LOW}) @ {CHOL_READ.format('t')} @ "
          f"{HERM.format(f'np.linalg.inv({LOW})')}) * {HALF_EYE})")
CHOL_SYM = f"(0.5 * (({CHOL_BAR}) + {HERM.format(CHOL_BAR)}))"
defcomplex(np.linalg.cholesky, "a, upper=False", zero="upper",
           a=f"np.conj((np.triu({CHOL_SYM}) + np.triu({CHOL_SYM}, 1) if upper else "
             f"np.tril({CHOL_SYM}) + np.tril({CHOL_SYM}, -1)) if {OWN_FACTOR} else {CHOL_SYM})",
           jvp=dict(a=f"({HERM.format(CHOL_T)} if {UPPER} else {CHOL_T})"))

# ---------------------------------------------------------------- pinv
# dP = -P dA P + P P^H dA^H (I - A P) + (I - P A) dA^H P^H P (the rank unchanged): the real
# rule with conjugate transposes
EYE_M, EYE_N = "np.eye(np.shape(a)[-2])", "np.eye(np.shape(a)[-1])"
GB = "np.conj(g)"
PINV_BAR = HERM.format(f"-(ans @ {HERM.format(GB)} @ ans) + ans @ {HERM.format('ans')} @ {GB} @ "
                       f"({EYE_M} - a @ ans) + ({EYE_N} - ans @ a) @ {GB} @ "
                       f"{HERM.format('ans')} @ ans")
defcomplex(np.linalg.pinv, "a", a=f"np.conj({PINV_BAR})",
           jvp=dict(a=f"-(ans @ t @ ans) + ans @ {HERM.format('ans')} @ {HERM.format('t')} @ "
                      f"({EYE_M} - a @ ans) + ({EYE_N} - ans @ a) @ {HERM.format('t')} @ "
                      f"{HERM.format('ans')} @ ans"))

# ---------------------------------------------------------------- powers and chains
# (srcad/rules/numpy_matrices.py: transposes, no conjugates; complex-linear in each factor)
holomorphic(np.linalg.matrix_power, np.linalg.multi_dot, H.grad_multi_dot, H.multi_dot_tangent,
            H.multi_dot_hvp, H.multi_dot_d2)
