"""Derivative rules for ``scipy.linalg``: ``inv``, ``det``, ``solve``, ``solve_triangular``,
``cholesky``, ``cho_factor``/``cho_solve``, ``solve_banded``, ``lu``/``lu_factor``/``lu_solve``,
``sqrtm``, ``expm``, ``expm_frechet``, ``logm``, ``solve_sylvester``, and ``eigh``, ``svd``,
``qr`` as NumPy's.

Loaded the first time srcad looks a rule up after the user's code has imported
``scipy.linalg`` (see :mod:`srcad.rules.scipy_special`). ``scipy_linalg.f`` in a template is
SciPy's own ``scipy.linalg.f``: every template is written with functions that have rules
(these, ``@``, ``np.tril``, ``np.concatenate``, ...), so each rule has derivatives of every
order. Keywords that change which function is computed and that no template follows
(``solve``'s ``lower``/``assume_a``/``transposed``, ``inv``'s ``assume_a``) are left out of
the signatures: a call using them finds no rule and is refused.

* ``solve_triangular`` reads one triangle of ``a`` (without its diagonal when
  ``unit_diagonal``): its gradient is zero elsewhere, the gradient of the function computed.
* ``cholesky`` reads one triangle too (the upper one unless ``lower``); like
  ``np.linalg.cholesky``'s, its gradient is that of the function computed, zero on the other
  triangle (the symmetric gradient of autograd and PyTorch is right along symmetric
  perturbations only); so is ``cho_factor``'s, whose other triangle holds ``a``'s own entries
  on SciPy < 1.18 (their gradient flows back to them; SciPy >= 1.18 zeroes it).
  ``cho_solve`` reads the factor's triangle of ``c`` only.
* ``expm``: the adjoint of the Frechet derivative is the Frechet derivative at the
  transpose, read off the exponential of a block matrix ``[[A', G], [0, A']]``.
* ``sqrtm`` and ``solve_sylvester`` differentiate through a Sylvester equation.
"""

import numpy as np
from scipy import linalg

from ..runtime import scipy_helpers as H
from . import numpy as _numpy
from . import numpy_complex_linalg as _complex_linalg
from . import numpy_second as _second
from .numpy_complex import defcomplex, holomorphic
from .registry import defvjp as _defvjp
from .registry import nondiff

SWAP = "np.swapaxes({}, -1, -2)"


#: options that change how SciPy computes, not what: no derivative flows through them
FLAGS = ("overwrite_a", "overwrite_b", "overwrite_ab", "check_finite")


def defvjp(fn, signature, kind="array", zero=(), **rule):
    """A rule named ``scipy.linalg.<name>`` (an array result unless ``kind`` says not), flat
    in the :data:`FLAGS` of its signature."""
    params = [part.split("=")[0].strip() for part in signature.split(",")]
    zero = ((zero,) if isinstance(zero, str) else tuple(zero)) + tuple(
        flag for flag in FLAGS if flag in params)
    return _defvjp(fn, signature, name=f"scipy.linalg.{fn.__name__}", kind=kind, zero=zero,
                   **rule)


# ---------------------------------------------------------------- inverse, determinant, solve
# d(A^-1) = -A^-1 dA A^-1; d det = det tr(A^-1 dA); d(A^-1 b) = A^-1 (db - dA x)
defvjp(linalg.inv, "a, overwrite_a=False, check_finite=True",  # (assume_a="sym": a triangle)
       fixed=dict(assume_a=(None, "gen", "general"), lower=(False,)),
       a=f"-({SWAP.format('ans')} @ g @ {SWAP.format('ans')})", jvp=dict(a="-(ans @ t @ ans)"))
# det: the cofactors, as np.linalg.det's (exact at singular matrices: srcad.runtime.numpy_points)
defvjp(linalg.det, "a, overwrite_a=False, check_finite=True", kind=None,
       a="np.expand_dims(g, (-2, -1)) * cofactors(a)",
       jvp=dict(a="np.sum(cofactors(a) * t, axis=(-2, -1))"))
# b is a vector when it is 1-d, else (a batch of) matrices; the gradient into b solves with
# the transpose, and the outer product of it with the solution flows into a. With a a matrix
# and b of a known rank, the templates of ``ranks=`` are used (no test on the rank).
_SOLVE_T = ("(scipy_linalg.solve({0}, g[..., None])[..., 0] if np.ndim(b) == 1 "
            "else scipy_linalg.solve({0}, g))").format(SWAP.format("a"))
_SOLVE_T2 = "scipy_linalg.solve(np.transpose(a), g)"
defvjp(linalg.solve, "a, b, *, overwrite_a=False, overwrite_b=False, check_finite=True",
       fixed=dict(lower=(False,), assume_a=(None, "gen", "general"), transposed=(False,)),
       a=f"unbroadcast(-({_SOLVE_T}[..., :, None] * ans[..., None, :] if np.ndim(b) == 1 "
         f"else {_SOLVE_T} @ {SWAP.format('ans')}), a)",
       b=f"unbroadcast({_SOLVE_T}, b)",
       ranks={(2, 1, None, None, None): dict(a=f"-np.outer({_SOLVE_T2}, ans)", b=_SOLVE_T2),
              (2, 2, None, None, None): dict(a=f"-({_SOLVE_T2} @ np.transpose(ans))",
                                             b=_SOLVE_T2)},
       jvp=dict(a="-(scipy_linalg.solve(a, t @ ans[..., None])[..., 0] if np.ndim(b) == 1 "
                  "else scipy_linalg.solve(a, t @ ans))",
               b="scipy_linalg.solve(a, t)"))

# ---------------------------------------------------------------- triangular systems
# x = op(T)^-1 b with T the triangle of a that is read and op(T) = T or T'
TRANSPOSED = "trans in (1, 2, 'T', 'C')"  # 2 and 'C': the conjugate transpose
TRI_OPTIONS = "lower=lower, unit_diagonal=unit_diagonal"


def _triangle(m):
    """The part of ``m`` on the triangle ``solve_triangular`` reads."""
    return (f"(np.tril({m}, -1 if unit_diagonal else 0) if lower else "
            f"np.triu({m}, 1 if unit_diagonal else 0))")


_GB = f"scipy_linalg.solve_triangular(a, g, trans=0 if {TRANSPOSED} else 1, {TRI_OPTIONS})"
# SciPy >= 1.16 broadcasts the batch dimensions of a and b (b 1-d is one vector, its batch
# a's): the generic templates solve a batch of vectors as one-column matrices, form the outer
# products batch by batch, and sum the gradients over the dimensions broadcasting added
_GB_BATCH = (f"(scipy_linalg.solve_triangular(a, g[..., None], trans=0 if {TRANSPOSED} else 1, "
             f"{TRI_OPTIONS})[..., 0] if np.ndim(b) == 1 else {_GB})")


def _outer(u, v):
    return (f"({u}[..., :, None] * {v}[..., None, :] if np.ndim(b) == 1 else "
            f"{u} @ {SWAP.format(v)})")


def _by_rank(outer):
    """The gradient into ``a`` with ``outer`` spelling the outer product (rank-specific)."""
    return _triangle(f"-({outer('ans', _GB)} if {TRANSPOSED} else {outer(_GB, 'ans')})")


_T_READ = f"({SWAP.format(_triangle('t'))} if {TRANSPOSED} else {_triangle('t')})"
defvjp(linalg.solve_triangular, "a, b, trans=0, lower=False, unit_diagonal=False, "
       "overwrite_b=False, check_finite=True",
       zero=("trans", "lower", "unit_diagonal"),
       a=f"unbroadcast({_by_rank(_outer).replace(_GB, _GB_BATCH)}, a)",
       b=f"unbroadcast({_GB_BATCH}, b)",
       ranks={(2, 1) + (None,) * 5: dict(a=_by_rank(lambda u, v: f"np.outer({u}, {v})"), b=_GB),
              (2, 2) + (None,) * 5: dict(a=_by_rank(lambda u, v: f"{u} @ np.transpose({v})"),
                                         b=_GB)},
       jvp=dict(a=f"-(scipy_linalg.solve_triangular(a, {_T_READ} @ ans[..., None], "
                  f"trans=trans, {TRI_OPTIONS})[..., 0] if np.ndim(b) == 1 else "
                  f"scipy_linalg.solve_triangular(a, {_T_READ} @ ans, trans=trans, "
                  f"{TRI_OPTIONS}))",
               b=f"scipy_linalg.solve_triangular(a, t, trans=trans, {TRI_OPTIONS})"))

# ---------------------------------------------------------------- Cholesky factor
# with L the lower factor (ans, or its transpose when upper) and G its gradient:
# P = tril(L' G) with a halved diagonal; S = sym(L^-T P L^-1) is the gradient along symmetric
# perturbations, and the gradient is S on the triangle read (twice S off the diagonal there:
# an entry there is both of the symmetric matrix's), zero on the other; the tangent along t is
# L P(L^-1 R L^-T), R the symmetric matrix read from t's triangle


def _cholesky(low, glow):
    """(gradient into a, tangent of the lower factor) for the lower factor ``low`` whose
    gradient is ``glow``."""
    eye = f"np.eye(np.shape({low})[-1])"

    def half_tril(m):
        return f"(np.tril({m}) * (1.0 - 0.5 * {eye}))"

    def solve_low(m, transposed=False):
        trans = ", trans=1" if transposed else ""
        return f"scipy_linalg.solve_triangular({low}, {m}{trans}, lower=True)"

    left = solve_low(half_tril(f"{SWAP.format(low)} @ {glow}"), transposed=True)  # L^-T P
    s = SWAP.format(solve_low(SWAP.format(left), transposed=True))  # L^-T P L^-1
    read_t = (f"(np.tril(t) + {SWAP.format('np.tril(t, -1)')} if lower else "
              f"np.triu(t) + {SWAP.format('np.triu(t, 1)')})")
    inner = SWAP.format(solve_low(SWAP.format(solve_low(read_t))))  # L^-1 R L^-T
    sym = f"(0.5 * ({s} + {SWAP.format(s)}))"
    grad = (f"(np.tril({sym}) + np.tril({sym}, -1) if lower else "
            f"np.triu({sym}) + np.triu({sym}, 1))")
    return grad, f"{low} @ {half_tril(inner)}"


_GRAD, _TANGENT = _cholesky(f"(ans if lower else {SWAP.format('ans')})",
                            f"(g if lower else {SWAP.format('g')})")
defvjp(linalg.cholesky, "a, lower=False, overwrite_a=False, check_finite=True", zero="lower",
       a=_GRAD, jvp=dict(a=f"({_TANGENT} if lower else {SWAP.format(_TANGENT)})"))

# cho_factor returns (c, lower): the factor on one triangle of c and, on the other, a's own
# entries as LAPACK leaves them (SciPy < 1.18: passed through, their gradient flows straight
# back to a) or zeros (SciPy >= 1.18): which one, this SciPy says
_KEEPS_A = bool(linalg.cho_factor(np.array([[4.0, 1.0], [1.0, 3.0]]))[0][1, 0] != 0.0)
_GRAD, _TANGENT = _cholesky(f"(np.tril(ans[0]) if lower else {SWAP.format('np.triu(ans[0])')})",
                            f"(np.tril(g[0]) if lower else {SWAP.format('np.triu(g[0])')})")
if _KEEPS_A:
    defvjp(linalg.cho_factor, "a, lower=False, overwrite_a=False, check_finite=True",
           kind="seq", zero="lower",
           a=f"{_GRAD} + (np.triu(g[0], 1) if lower else np.tril(g[0], -1))",
           jvp=dict(a=f"(({_TANGENT} + np.triu(t, 1)) if lower else ({SWAP.format(_TANGENT)} + "
                      "np.tril(t, -1)), 0.0)"))
else:
    defvjp(linalg.cho_factor, "a, lower=False, overwrite_a=False, check_finite=True",
           kind="seq", zero="lower", a=_GRAD,
           jvp=dict(a=f"(({_TANGENT}) if lower else ({SWAP.format(_TANGENT)}), 0.0)"))

# ---------------------------------------------------------------- matrix functions
# sqrtm: S S = A, so S dS + dS S = dA; the adjoint solves the transposed equation. The root
# of a real matrix with a negative eigenvalue is complex: the result is taken as complex (so
# what flows back into a real A is the real part, JAX's convention), whatever A is
defvjp(linalg.sqrtm, "A", A=f"scipy_linalg.solve_sylvester({SWAP.format('ans')}, "
       f"{SWAP.format('ans')}, g)", jvp=dict(A="scipy_linalg.solve_sylvester(ans, ans, t)"),
       complex_out="always")


def _frechet(x, e, fn="expm"):
    """The Frechet derivative of ``fn`` (a primary matrix function: expm, logm) at ``x`` along
    ``e``: the top-right block of ``fn`` of ``[[x, e], [0, x]]``."""
    block = (f"np.concatenate([np.concatenate([{x}, {e}], axis=-1), np.concatenate("
             f"[np.zeros_like({x}), {x}], axis=-1)], axis=-2)")
    n = "np.shape(A)[-1]"
    return f"scipy_linalg.{fn}({block})[..., :{n}, {n}:]"


defvjp(linalg.expm, "A", A=_frechet(SWAP.format("A"), "g"), jvp=dict(A=_frechet("A", "t")))
# logm, the same way (the logarithm of a real matrix with a negative eigenvalue is complex:
# the result is taken as complex, as sqrtm's); disp= is left out (SciPy deprecates it)
defvjp(linalg.logm, "A", A=_frechet(SWAP.format("A"), "g", "logm"),
       jvp=dict(A=_frechet("A", "t", "logm")), complex_out="always")
# A X + X B = Q: A dX + dX B = dQ - dA X - X dB (SciPy >= 1.16 broadcasts the batch
# dimensions of a, b and q: each gradient is summed over what broadcasting added)
_GQ = f"scipy_linalg.solve_sylvester({SWAP.format('a')}, {SWAP.format('b')}, g)"
defvjp(linalg.solve_sylvester, "a, b, q", q=f"unbroadcast({_GQ}, q)",
       a=f"unbroadcast(-({_GQ} @ {SWAP.format('ans')}), a)",
       b=f"unbroadcast(-({SWAP.format('ans')} @ {_GQ}), b)",
       jvp=dict(a="scipy_linalg.solve_sylvester(a, b, -(t @ ans))",
               b="scipy_linalg.solve_sylvester(a, b, -(ans @ t))",
               q="scipy_linalg.solve_sylvester(a, b, t)"))

# ---------------------------------------------------------------- Cholesky solves
# cho_solve((c, lower), b) reads the factor's triangle of c only. With A = L L' and
# x = A^-1 b, u = A^-1 g: the gradient into L is -(u x' + x u') L; dx = -A^-1 (dL L' + L dL') x
CF_LOW = (f"(np.tril(c_and_lower[0]) if cho_lower(c_and_lower) else "
          f"{SWAP.format('np.triu(c_and_lower[0])')})")
DL = f"(np.tril(t[0]) if cho_lower(c_and_lower) else {SWAP.format('np.triu(t[0])')})"
# (SciPy >= 1.16 broadcasts c's and b's batch dimensions, b 1-d being one vector: a batch of
# vectors is solved as one-column matrices, the gradients summed over what broadcasting added)
_U = ("(scipy_linalg.cho_solve(c_and_lower, g[..., None])[..., 0] if np.ndim(b) == 1 else "
      "scipy_linalg.cho_solve(c_and_lower, g))")


def _sym_outer(u, x):
    return (f"({u}[..., :, None] * {x}[..., None, :] + {x}[..., :, None] * {u}[..., None, :] "
            f"if np.ndim(b) == 1 else {u} @ {SWAP.format(x)} + {x} @ {SWAP.format(u)})")


_GL = f"-({_sym_outer(_U, 'ans')} @ {CF_LOW})"
_DA_CHO = f"({DL} @ {SWAP.format(CF_LOW)} + {CF_LOW} @ {SWAP.format(DL)})"
defvjp(linalg.cho_solve, "c_and_lower, b, overwrite_b=False, check_finite=True",
       c_and_lower=f"(unbroadcast(np.tril({_GL}) if cho_lower(c_and_lower) else "
                   f"np.triu({SWAP.format(_GL)}), c_and_lower[0]), None)",
       b=f"unbroadcast({_U}, b)",
       jvp=dict(c_and_lower=f"-(scipy_linalg.cho_solve(c_and_lower, {_DA_CHO} @ ans[..., None])"
                            f"[..., 0] if np.ndim(b) == 1 else "
                            f"scipy_linalg.cho_solve(c_and_lower, {_DA_CHO} @ ans))",
                b="scipy_linalg.cho_solve(c_and_lower, t)"))

# ---------------------------------------------------------------- banded systems
# solve_banded((l, u), ab, b) solves A x = b for the band matrix A that ab stores (only the
# band is read): the gradients are those of solve, moved between the two storages
BANDED = "banded_dense(l_and_u, ab)"
_GBAND = f"scipy_linalg.solve(np.transpose({BANDED}), g)"
defvjp(linalg.solve_banded, "l_and_u, ab, b, overwrite_ab=False, overwrite_b=False, "
       "check_finite=True", zero="l_and_u",
       ab=f"-dense_banded(l_and_u, {_outer(_GBAND, 'ans')}, ab)", b=_GBAND,
       jvp=dict(ab="-scipy_linalg.solve_banded(l_and_u, ab, banded_dense(l_and_u, t) @ ans)",
                b="scipy_linalg.solve_banded(l_and_u, ab, t)"))

# ---------------------------------------------------------------- srcad's own helpers
# banded_dense and dense_banded are linear and each other's adjoints
defvjp(H.banded_dense, "l_and_u, ab", zero="l_and_u", ab="dense_banded(l_and_u, g, ab)",
       jvp=dict(ab="banded_dense(l_and_u, t)"))
defvjp(H.dense_banded, "l_and_u, value, ab", zero=("l_and_u", "ab"),
       value="banded_dense(l_and_u, g)", jvp=dict(value="dense_banded(l_and_u, t, ab)"))

# ---------------------------------------------------------------- LU factors
# P A = L U (L unit lower, U upper; lu_factor packs both in one matrix, lu returns p = P').
# With F = L^-1 P dA U^-1: dL = L tril(F, -1), dU = triu(F) U; so the gradient into A of the
# gradients GL (strictly lower part) and GU (upper part) is
# P' L^-T (tril(L' GL, -1) + triu(GU U')) U^-T.


_T = "np.swapaxes({}, -1, -2)"  # each matrix of a stack transposed


def _lu_parts(packed, perm):
    """(L, U, P) spelled from the packed factors and the permutation matrix."""
    eye = f"np.eye(lu_size({packed}))"
    return f"(np.tril({packed}, -1) + {eye})", f"np.triu({packed})", perm


def _lu_gradient(packed, perm, g_lower, g_upper):
    low, up, p = _lu_parts(packed, perm)
    m = (f"(np.tril({_T.format(low)} @ {g_lower}, -1) + "
         f"np.triu({g_upper} @ {_T.format(up)}))")
    left = f"scipy_linalg.solve_triangular({low}, {m}, trans=1, lower=True, unit_diagonal=True)"
    return (f"{_T.format(p)} @ "
            + _T.format(f"scipy_linalg.solve_triangular({up}, {_T.format(left)})"))


def _lu_tangent(packed, perm):
    """(dL, dU) along ``t``."""
    low, up, p = _lu_parts(packed, perm)
    inner = f"scipy_linalg.solve_triangular({low}, {p} @ t, lower=True, unit_diagonal=True)"
    f = _T.format(f"scipy_linalg.solve_triangular({up}, {_T.format(inner)}, trans=1)")
    return f"{low} @ np.tril({f}, -1)", f"np.triu({f}) @ {up}"


_PERM = "lu_pivots(ans[1])"
_DL, _DU = _lu_tangent("ans[0]", _PERM)
defvjp(linalg.lu_factor, "a, overwrite_a=False, check_finite=True", kind="seq",
       a=_lu_gradient("ans[0]", _PERM, "np.tril(g[0], -1)", "np.triu(g[0])"),
       jvp=dict(a=f"({_DL} + {_DU}, np.zeros(np.shape(ans[1])))"))
_DL, _DU = _lu_tangent("(ans[1] - np.eye(lu_size(a)) + ans[2])", _T.format("ans[0]"))
defvjp(linalg.lu, "a, *, overwrite_a=False, check_finite=True", kind="seq",
       fixed=dict(permute_l=(False,), p_indices=(False,)),
       a=_lu_gradient("(ans[1] - np.eye(lu_size(a)) + ans[2])", _T.format("ans[0]"),
                      "np.tril(g[1], -1)", "np.triu(g[2])"),
       jvp=dict(a=f"(np.zeros(np.shape(ans[0])), {_DL}, {_DU})"))
# lu_solve((lu, piv), b, trans): x = op(A)^-1 b with A = P' L U and op(A) = A or A';
# u = op(A)^-T g, and the gradient -u x' into op(A) (transposed into A) flows into L and U as
# tril(P GA U', -1) and triu(L' P GA), summed over a batch of b's (SciPy >= 1.16 broadcasts
# one factorisation against a stack of right-hand sides; a stack of factorisations is refused)
_LOW, _UP, _P = _lu_parts("lu_and_piv[0]", "lu_pivots(lu_and_piv[1])")
_U_LU = f"scipy_linalg.lu_solve(lu_and_piv, g, trans=0 if {TRANSPOSED} else 1)"
_GA = f"-({_outer('ans', _U_LU)} if {TRANSPOSED} else {_outer(_U_LU, 'ans')})"
_DA = f"np.transpose({_P}) @ (np.tril(t[0], -1) @ {_UP} + {_LOW} @ np.triu(t[0]))"
defvjp(linalg.lu_solve, "lu_and_piv, b, trans=0, overwrite_b=False, check_finite=True",
       zero="trans",
       lu_and_piv=f"(unbroadcast(np.tril({_P} @ {_GA} @ np.transpose({_UP}), -1) + "
                  f"np.triu(np.transpose({_LOW}) @ {_P} @ {_GA}), lu_and_piv[0]), None)",
       b=_U_LU,
       jvp=dict(lu_and_piv=f"-scipy_linalg.lu_solve(lu_and_piv, ({SWAP.format(_DA)} if "
                           f"{TRANSPOSED} else {_DA}) @ ans, trans=trans)",
                b="scipy_linalg.lu_solve(lu_and_piv, t, trans=trans)"))
nondiff(H.lu_pivots, H.lu_size, H.cho_lower)  # piecewise constant

# ---------------------------------------------------------------- factorisations as NumPy's
# scipy.linalg.svd and qr return what np.linalg.svd and qr return (qr's 'economic' is the
# reduced factorisation, 'full' the complete one; pivoting=True is refused by qr_size): the
# same templates (srcad.rules.numpy_second), and svd's complex form
SVD_SIG = ("a, full_matrices=True, compute_uv=True, overwrite_a=False, check_finite=True, "
           "lapack_driver='gesdd'")
SVD_FLAT = ("full_matrices", "compute_uv", "lapack_driver")
defvjp(linalg.svd, SVD_SIG, kind="seq", a=_second.SVD_GRAD, zero=SVD_FLAT,
       jvp=dict(a=_second.SVD_TANGENT))
defcomplex(linalg.svd, SVD_SIG, a=_complex_linalg.SVD_GRAD,
           zero=SVD_FLAT + ("overwrite_a", "check_finite"),
           jvp=dict(a=_complex_linalg.SVD_TANGENT))
# (mode='r' returns the 1-tuple (R,): the check comes before R is read, so it is refused)
QR_CHECKED = "ans[0][..., :qr_size(a, mode, pivoting)]"
QR_FIRST = "(qr_size(a, mode, pivoting), {})[1]"
defvjp(linalg.qr, "a, overwrite_a=False, lwork=None, mode='full', pivoting=False, "
       "check_finite=True", kind="seq", zero=("lwork", "mode", "pivoting"),
       a=QR_FIRST.format(_second.QR_GRAD.replace(_second.Q, QR_CHECKED)),
       jvp=dict(a=QR_FIRST.format(_second.QR_T.replace(_second.Q, QR_CHECKED))))

# scipy.linalg.eigh of one matrix (no b: the generalised problem has no rule; nor a subset of
# the eigenvalues): np.linalg.eigh's templates with lower= for UPLO, and its complex form
# with the same phase checks; eigvals_only: the templates at the pair, the vectors' gradient 0
EIGH_SIG = ("a, *, lower=True, eigvals_only=False, overwrite_a=False, check_finite=True, "
            "driver=None")
PAIR = "scipy_linalg.eigh(a, lower=lower)"


def _eigh(template, tangent=False):
    full = template.replace("UPLO in ('U', 'u')", "not lower")
    only = full.replace("ans[", f"{PAIR}[").replace("g[0]", "g").replace("g[1]", "0.0")
    return f"(({only})[0] if eigvals_only else {full})" if tangent else (
        f"({only} if eigvals_only else {full})")


defvjp(linalg.eigh, EIGH_SIG, kind=None, zero=("lower", "eigvals_only", "driver"),
       fixed=dict(b=(None,), overwrite_b=(False,), type=(1,), subset_by_index=(None,),
                  subset_by_value=(None,)),
       a=_eigh(_numpy.EIGH_GRAD), jvp=dict(a=_eigh(_numpy.EIGH_TANGENT, True)))
defcomplex(linalg.eigh, EIGH_SIG, zero=("lower", "eigvals_only", "driver", "overwrite_a",
                                        "check_finite"),
           a=_eigh(_complex_linalg.EIGH_GRAD), jvp=dict(a=_eigh(_complex_linalg.EIGH_TANGENT,
                                                                 True)))

# expm_frechet(A, E) = (expm(A), L(A, E)), L(A, E) the top-right block of expm(B) with
# B = [[A, E], [0, A]]: linear in E (its adjoint is L(A', G)); in A, the Frechet derivative
# of expm at B along [[dA, 0], [0, dA]], whose adjoint is L(B', [[0, G], [0, 0]]) read on
# the two diagonal blocks. Every template is expm of a block matrix: every order.
N = "np.shape(A)[-1]"


def _blocks(tl, tr, bl, br):
    return (f"np.concatenate([np.concatenate([{tl}, {tr}], axis=-1), "
            f"np.concatenate([{bl}, {br}], axis=-1)], axis=-2)")


ZA = "np.zeros_like(A)"
B = _blocks("A", "E", ZA, "A")
GL = "(g[1] if compute_expm else g)"
GB = _frechet(SWAP.format(B), _blocks(ZA, GL, ZA, ZA)).replace(
    "np.shape(A)[-1]", f"(2 * {N})")
DB = _frechet(B, _blocks("t", ZA, ZA, "t")).replace("np.shape(A)[-1]", f"(2 * {N})")
defvjp(linalg.expm_frechet, "A, E, method=None, compute_expm=True, check_finite=True",
       kind=None, zero=("method", "compute_expm"),
       A=(f"{GB}[..., :{N}, :{N}] + {GB}[..., {N}:, {N}:] + "
          f"({_frechet(SWAP.format('A'), 'g[0]')} if compute_expm else 0.0)"),
       E=_frechet(SWAP.format("A"), GL),
       jvp=dict(A=f"(({_frechet('A', 't')}, {DB}[..., :{N}, {N}:]) if compute_expm else "
                  f"{DB}[..., :{N}, {N}:])",
                E=f"((np.zeros_like(A), {_frechet('A', 't')}) if compute_expm else "
                  f"{_frechet('A', 't')})"))

# ---------------------------------------------------------------- complex matrices
# the templates above that use transposes only (no conjugate) hold for complex matrices as
# written, in JAX's convention (srcad.rules.numpy_complex): the derivatives of analytic
# functions (inverse, determinant, solves, the matrix exponential, logarithm and square root)
holomorphic(linalg.inv, linalg.det, linalg.solve, linalg.expm, linalg.logm, linalg.sqrtm,
            linalg.solve_sylvester, linalg.expm_frechet)
