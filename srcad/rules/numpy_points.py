"""The rules of the helpers for special points (:mod:`srcad.runtime.numpy_points`), so that
derivatives of derivatives read them:

* ``cofactors(a)`` (``adj(a)^T``, ``np.linalg.det``'s gradient): its derivative along ``t``
  is ``cofactors_tangent(t, a)``, linear in ``t`` and its own transpose (the same map gives
  the vector-Jacobian product), defined at singular matrices too; its derivative in ``a`` (a
  third derivative of ``det``) is written for an invertible matrix (it divides by
  ``det_nonzero(a)``, which refuses a singular one), so every order has a rule;
* ``slogdet_check(a, sign)``, ``fixed_check(value, ...)``: the identity in their first
  argument once checked.

Each holds for complex values as written (holomorphic). Imports
:mod:`srcad.runtime.numpy_helpers` and the rule modules :mod:`.registry`, :mod:`.numpy_complex`.
"""

from __future__ import annotations

from ..runtime import numpy_helpers as H
from .numpy_complex import holomorphic
from .registry import defvjp

defvjp(H.cofactors, "a", a="cofactors_tangent(g, a)", kind="array",
       jvp=dict(a="cofactors_tangent(t, a)"))
# T = cofactors_tangent(v, a) = (<C, v> C - C v^T C) / det(a) for an invertible a (C its
# cofactors, d its determinant): with L = cofactors_tangent(., a) (self-adjoint),
# vjp_a(g) = (L(W) - <g, T> C) / d, W = <g, C> v + <C, v> g - g C^T v - v C^T g; the
# tangent along t: (<L(t), v> C + <C, v> L(t) - L(t) v^T C - C v^T L(t) - <C, t> T) / d
_IN = "np.expand_dims(np.sum({0} * {1}, axis=(-2, -1)), (-2, -1))"  # <x, y>, kept as a matrix
_C, _L, _D = "cofactors(a)", "cofactors_tangent(t, a)", "np.expand_dims(det_nonzero(a), (-2, -1))"
_CT = "np.swapaxes(cofactors(a), -1, -2)"
_W = (f"{_IN.format('g', _C)} * v + {_IN.format(_C, 'v')} * g - g @ {_CT} @ v - "
      f"v @ {_CT} @ g")
TANGENT_A_GRAD = f"(cofactors_tangent({_W}, a) - {_IN.format('g', 'ans')} * {_C}) / {_D}"
TANGENT_A_JVP = (f"({_IN.format(_L, 'v')} * {_C} + {_IN.format(_C, 'v')} * {_L} - "
                 f"{_L} @ np.swapaxes(v, -1, -2) @ {_C} - {_C} @ np.swapaxes(v, -1, -2) @ {_L}"
                 f" - {_IN.format(_C, 't')} * ans) / {_D}")
defvjp(H.cofactors_tangent, "v, a", v="cofactors_tangent(g, a)", a=TANGENT_A_GRAD,
       kind="array", jvp=dict(v="cofactors_tangent(t, a)", a=TANGENT_A_JVP))
defvjp(H.det_nonzero, "a", a="np.expand_dims(g, (-2, -1)) * cofactors(a)",
       jvp=dict(a="np.sum(cofactors(a) * t, axis=(-2, -1))"))
defvjp(H.slogdet_check, "a, sign", a="slogdet_check(g, sign)", zero="sign", kind="array",
       jvp=dict(a="slogdet_check(t, sign)"))
defvjp(H.fixed_check, "value, given, accepted, call", value="fixed_check(g, given, accepted, call)",
       zero=("given", "accepted", "call"), jvp=dict(value="fixed_check(t, given, accepted, call)"))
holomorphic(H.cofactors, H.cofactors_tangent, H.det_nonzero, H.slogdet_check, H.fixed_check)
