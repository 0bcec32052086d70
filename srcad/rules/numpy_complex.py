"""Complex numbers: which rules hold for complex values as written, the complex forms of the
non-holomorphic functions, and ``np.fft``.

srcad follows JAX's convention (docs/supported-python.md, *Complex numbers*): the gradient
flowing into ``z`` of ``y = f(z)`` is ``g * f'(z)`` for a holomorphic ``f`` (no conjugate),
so a template written in ``d/dz`` holds for complex values unchanged: :func:`holomorphic`
lists those rules. A rule not listed is refused where a value may be complex
(:mod:`srcad.analysis.soundness`): comparisons (``np.maximum``, ``np.sort``), and functions
whose complex derivative is not written. A non-holomorphic function has a complex form of
its own (:func:`defcomplex`), exact in that convention: ``abs(z)`` sends
``g * conj(z) / |z|``, ``np.real(z)`` sends ``g``, ``np.imag(z)`` sends ``-1j * g``,
``np.conj(z)`` sends ``conj(g)``, ``np.angle(z)`` sends ``-1j * g / z``. What flows back into
a real operand of a complex result is its real part (the sweep writes ``np.real(...)``).

Imports ``srcad.rules``, ``srcad.runtime`` (and nothing above its layer).
"""

import builtins
import operator

import numpy as np

from ..runtime import containers, items
from ..runtime import helpers as runtime
from ..runtime import numpy_helpers as H
from . import numpy as _numpy_rules  # noqa: F401  (the rules marked below, loaded first)
from . import python as _python_rules  # noqa: F401
from .registry import Rule, defattr, defmethod, defvjp, nondiff, registry


def holomorphic(*fns):
    """Every rule of ``fns`` holds for complex values as written (its templates are ``d/dz``
    of a holomorphic or complex-linear function)."""
    for fn in fns:
        rules = registry.rules_for(fn)
        assert rules, fn  # noqa: S101 (a rule module's own consistency)
        for rule in rules:
            rule.complex_ok = True


def defcomplex(fn, signature, *, jvp, real_out=False, zero=(), **templates):
    """The complex form of ``fn``'s rules: used instead of them where an operand may be
    complex. ``real_out``: the result is real even then (``abs``, ``np.real``)."""
    form = Rule(fn, signature, templates, jvp=jvp, complex_ok=True, zero=zero,
                name=f"{getattr(fn, '__name__', fn)} (complex)")
    for rule in registry.rules_for(fn):
        rule.complex_rule = form
        form.fixed.update(rule.fixed)  # (its calls bind to the real rule's signature)
        if real_out:
            rule.complex_out = "never"
    return form


# ---------------------------------------------------------------- rules that hold as written
# operators and builtins (rules/python.py)
holomorphic(operator.add, operator.sub, operator.mul, operator.truediv, operator.pow,
            operator.neg, operator.pos, builtins.sum, builtins.list, builtins.tuple,
            builtins.reversed, builtins.pow)
# srcad's own helpers, for derivatives of derivatives
holomorphic(runtime.add, runtime.mutable, runtime.like, runtime.like_grad, runtime.check_real,
            runtime.where, runtime.log_base, runtime.unbroadcast,
            runtime.unbroadcast_to, runtime.broadcast_as, runtime.fill, runtime.total,
            runtime.scatter, runtime.cleared, runtime.expand, items.items_at,
            items.picked, containers.seq_grad,
            containers.seq_back)
# ufuncs (arccosh is not here: 1 / sqrt(z**2 - 1) takes the wrong branch for some z)
holomorphic(np.sin, np.cos, np.tan, np.arcsin, np.arccos, np.arctan, np.sinh, np.cosh,
            np.tanh, np.arcsinh, np.arctanh, np.exp, np.exp2, np.expm1, np.log, np.log2,
            np.log10, np.log1p, np.sqrt, np.square, np.reciprocal, np.negative, np.positive,
            np.add, np.subtract, np.multiply, np.divide, np.power, np.where)
# reductions and products (complex-linear, or bilinear without a conjugate)
holomorphic(np.sum, np.mean, np.cumsum, operator.matmul, np.dot, np.matmul, np.inner,
            np.outer, np.tensordot, np.einsum)
# selections (the element chosen by NumPy's order, lexicographic for complex numbers, gets g)
# and the Kronecker product (bilinear)
holomorphic(np.max, np.min, np.amax, np.amin, H.grad_extremum, np.kron, H.grad_kron_a,
            H.grad_kron_b, np.prod)
# shapes: each element moves, nothing is computed
holomorphic(np.reshape, np.ravel, np.squeeze, np.expand_dims, np.atleast_1d, np.atleast_2d,
            np.atleast_3d, np.transpose, np.swapaxes, np.moveaxis, np.concatenate, np.stack,
            np.hstack, np.vstack, np.split, np.array_split, np.copy, np.tile, np.broadcast_to,
            np.flip, np.fliplr, np.flipud, np.roll, np.rot90, np.fft.fftshift, np.fft.ifftshift,
            np.triu, np.tril, np.column_stack, np.vsplit, np.hsplit, np.dsplit, np.array,
            np.asarray,
            np.ndarray.reshape, np.ndarray.flatten, np.ndarray.transpose, np.ndarray.item)
holomorphic(H.grad_sum, H.grad_mean, H.grad_cumsum, H.grad_dot_a, H.grad_dot_b,
            H.grad_matmul_a, H.grad_matmul_b, H.grad_inner_a, H.grad_inner_b, H.grad_outer_a,
            H.grad_outer_b, H.grad_tensordot_a, H.grad_tensordot_b, H.grad_reshape,
            runtime.transpose_grad, H.grad_concatenate, H.grad_split, H.grad_stack,
            H.grad_hstack, H.grad_vstack, H.grad_tile, H.grad_roll)

# tests of complexness: booleans
nondiff(np.iscomplex, np.isreal)
# np.sign(z) is z / |z| for a complex z, not piecewise constant: its complex form (below) is
# used there (srcad.analysis.analyse.Analysis.piecewise_constant); runtime.sign, the scalar
# spelling, has none and is refused
registry.real_only.update({np.sign, runtime.sign})

# the real part the reverse sweep takes of what flows into a real container (a list, a tuple)
defvjp(runtime.real_part, "grad", grad="g", jvp=dict(grad="real_part(t)"), complex_ok=True,
       complex_out="never")

# ---------------------------------------------------------------- real and imaginary parts
REAL = "np.real(t)"
defvjp(np.real, "val", val="g", jvp=dict(val=REAL), complex_out="never", complex_ok=True)
# (for a real value both forms are the zero they should be: the imaginary part of a real g)
defvjp(np.imag, "val", val="np.imag(g)", jvp=dict(val="np.imag(t)"), complex_out="never")
defcomplex(np.imag, "val", val="-1j * g", jvp=dict(val="np.imag(t)"), real_out=True)
defattr("real", np.real)
defattr("imag", np.imag)
# conj(x) is x for a real x: one rule for both
defvjp(np.conjugate, "x", x="np.conj(g)", jvp=dict(x="np.conj(t)"), complex_ok=True)
defmethod("conj", np.conjugate)
defmethod("conjugate", np.conjugate)
# the real part when the imaginary parts are all small, else the value: g flows back either way
defvjp(np.real_if_close, "a, tol=100", a="g", zero="tol", complex_ok=True,
       jvp=dict(a="t if np.iscomplexobj(ans) else np.real(t)"))
# complex(a, b) = a + 1j b (a and b real: the sweep takes the real part of each)
defvjp(builtins.complex, "real=0, imag=0", real="g", imag="1j * g", complex_ok=True,
       complex_out="always", jvp=dict(real="t + 0j", imag="1j * t"))

# x.astype(complex), z.astype(float): g flows back (its real part into a real x, by the
# sweep), nothing for an integer dtype
INEXACT = "np.issubdtype(np.dtype(dtype), np.inexact)"
defcomplex(np.ndarray.astype, "a, dtype, order='K', casting='unsafe', subok=True, copy=True",
           a=f"g if {INEXACT} else 0.0 * g",
           jvp=dict(a=f"(t if np.issubdtype(np.dtype(dtype), np.complexfloating) else np.real(t))"
                      f" if {INEXACT} else 0.0 * np.real(t)"))

# ---------------------------------------------------------------- the complex forms of ufuncs
# arccosh: 1 / sqrt(z**2 - 1) takes the other branch for some z; NumPy's branch has this one
ACOSH = "(np.sqrt(x - 1) * np.sqrt(x + 1))"
defcomplex(np.arccosh, "x", x=f"g / {ACOSH}", jvp=dict(x=f"t / {ACOSH}"))

# ---------------------------------------------------------------- sign
# np.sign(z) = z / |z| (0 at 0): d sign = (dz - sign Re(conj(sign) dz)) / |z|, whose adjoint
# is (g - Re(g sign) conj(sign)) / |z|; zero at z = 0, as abs's is. For a real x np.sign is
# piecewise constant (nondiff): its real rule is flat, there only to carry this form
defvjp(np.sign, "x", zero="x")
OVER_ABS = "/ np.where(np.abs(x) == 0, np.inf, np.abs(x))"
defcomplex(np.sign, "x", x=f"(g - np.real(g * ans) * np.conj(ans)) {OVER_ABS}",
           jvp=dict(x=f"(t - ans * np.real(np.conj(ans) * t)) {OVER_ABS}"))

# ---------------------------------------------------------------- variance, standard deviation
# real results of complex values: var = mean |a - mean(a)|^2, so g * 2 conj(a - mean) / n
CENTRED = "np.conj(a - np.mean(a, axis=axis, keepdims=True))"
COUNT = "(np.size(a) / np.size(ans) - ddof)"
REDUCED = "np.sum(np.real({} * t), axis=axis, keepdims=keepdims)"
VAR_SIG = "a, axis=None, dtype=None, out=None, ddof=0, keepdims=False"
defcomplex(np.var, VAR_SIG, a=f"2 * {CENTRED} * grad_sum(g, a, axis, keepdims) / {COUNT}",
           jvp=dict(a=f"{REDUCED.format('2 * ' + CENTRED)} / {COUNT}"), real_out=True)
defcomplex(np.std, VAR_SIG,
           a=f"{CENTRED} * grad_sum(safe_div(g, ans), a, axis, keepdims) / {COUNT}",
           jvp=dict(a=f"safe_div({REDUCED.format(CENTRED)}, ans * {COUNT})"), real_out=True)

# ---------------------------------------------------------------- absolute value and angle
# |z|: d|z| = Re(conj(z) dz) / |z|, so g * conj(z) / |z| (zero at z = 0, as autograd has it)
ABS = dict(x="g * np.conj(x) / np.where(ans == 0, 1.0, ans)",
           jvp=dict(x="np.real(np.conj(x) * t) / np.where(ans == 0, 1.0, ans)"), real_out=True)
defcomplex(np.absolute, "x", **ABS)
defcomplex(builtins.abs, "x", **ABS)
# the angle of a real number is 0 or pi: flat; of a complex z, d angle = Im(dz / z)
DEG = "(57.29577951308232 if deg else 1.0)"
defvjp(np.angle, "z, deg=False", z="0.0 * g", zero="deg", complex_out="never",
       jvp=dict(z="0.0 * t"))
defcomplex(np.angle, "z, deg=False", z=f"-1j * g / z * {DEG}", zero="deg",
           jvp=dict(z=f"np.imag(t / z) * {DEG}"), real_out=True)

# ---------------------------------------------------------------- np.fft (numpy_fft helpers)
# complex-linear: the gradient is the same transform of g (the DFT matrix is symmetric),
# fitted back to the input's shape; the tangent is the transform of the tangent
# (out= is refused: no form takes it); n, s are ints, norm a string
FFT_SIG = "a, n=None, axis=-1, norm=None"
FFTN_SIG = "a, s=None, axes=None, norm=None"
FFT2_SIG = "a, s=None, axes=(-2, -1), norm=None"
ONE = "None if n is None else (n,)"
for fn, inverse in ((np.fft.fft, False), (np.fft.ifft, True)):
    defvjp(fn, FFT_SIG, a=f"grad_fftn(g, a, {ONE}, (axis,), norm, {inverse})",
           kind="array", zero=("n", "norm"), complex_ok=True, complex_out="always",
           jvp=dict(a=f"np.fft.{fn.__name__}(t, n, axis, norm)"))
for fn, inverse in ((np.fft.fftn, False), (np.fft.ifftn, True), (np.fft.fft2, False),
                    (np.fft.ifft2, True)):
    defvjp(fn, FFTN_SIG if fn.__name__.endswith("n") else FFT2_SIG,
           a=f"grad_fftn(g, a, s, axes, norm, {inverse})", kind="array", zero=("s", "norm"),
           complex_ok=True, complex_out="always",
           jvp=dict(a=f"np.fft.{fn.__name__}(t, s, axes, norm)"))
# real input (a complex one is refused: rfft would drop its imaginary part)
defvjp(np.fft.rfft, FFT_SIG, a=f"grad_rfftn(g, a, {ONE}, (axis,), norm)", kind="array",
       zero=("n", "norm"), complex_out="always", jvp=dict(a="np.fft.rfft(t, n, axis, norm)"))
defvjp(np.fft.rfftn, FFTN_SIG, a="grad_rfftn(g, a, s, axes, norm)", kind="array",
       zero=("s", "norm"), complex_out="always",
       jvp=dict(a="np.fft.rfftn(t, s, axes, norm)"))
defvjp(np.fft.rfft2, FFT2_SIG, a="grad_rfftn(g, a, s, axes, norm)", kind="array",
       zero=("s", "norm"), complex_out="always",
       jvp=dict(a="np.fft.rfft2(t, s, axes, norm)"))
# a half spectrum to a real signal
defvjp(np.fft.irfft, FFT_SIG, a=f"grad_irfftn(g, a, {ONE}, (axis,), norm)", kind="array",
       zero=("n", "norm"), complex_ok=True, complex_out="never",
       jvp=dict(a="np.fft.irfft(t, n, axis, norm)"))
defvjp(np.fft.irfftn, FFTN_SIG, a="grad_irfftn(g, a, s, axes, norm)", kind="array",
       zero=("s", "norm"), complex_ok=True, complex_out="never",
       jvp=dict(a="np.fft.irfftn(t, s, axes, norm)"))
defvjp(np.fft.irfft2, FFT2_SIG, a="grad_irfftn(g, a, s, axes, norm)", kind="array",
       zero=("s", "norm"), complex_ok=True, complex_out="never",
       jvp=dict(a="np.fft.irfft2(t, s, axes, norm)"))

# the helpers' own rules (second derivatives): each is linear in g, its gradient the other of
# its pair (srcad/runtime/numpy_fft.py)
for helper_fn, transposed in ((H.grad_fftn, "fft_fitted(g, value, s, axes, norm, inverse)"),
                              (H.fft_fitted, "grad_fftn(g, value, s, axes, norm, inverse)")):
    defvjp(helper_fn, "value, a, s=None, axes=None, norm=None, inverse=False", zero="*",
           value=transposed, complex_ok=True, complex_out="always",
           jvp=dict(value=f"{helper_fn.__name__}(t, a, s, axes, norm, inverse)"))
defvjp(H.grad_rfftn, "value, a, s=None, axes=None, norm=None", zero="*",
       value="rfft_fitted(g, value, a, s, axes, norm)", complex_ok=True, complex_out="always",
       jvp=dict(value="grad_rfftn(t, a, s, axes, norm)"))
defvjp(H.rfft_fitted, "value, like, a, s=None, axes=None, norm=None", zero="*",
       value="grad_rfftn(g, a, s, axes, norm)", complex_ok=True, complex_out="always",
       jvp=dict(value="rfft_fitted(t, like, a, s, axes, norm)"))
defvjp(H.grad_irfftn, "value, a, s=None, axes=None, norm=None", zero="*",
       value="irfft_fitted(g, value, a, s, axes, norm)", complex_ok=True, complex_out="always",
       jvp=dict(value="grad_irfftn(t, a, s, axes, norm)"))
defvjp(H.irfft_fitted, "value, like, a, s=None, axes=None, norm=None", zero="*",
       value="grad_irfftn(g, a, s, axes, norm)", complex_ok=True, complex_out="always",
       jvp=dict(value="irfft_fitted(t, like, a, s, axes, norm)"))
