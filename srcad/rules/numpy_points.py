"""The rules of the helpers for special points (:mod:`srcad.runtime.numpy_points`), so that
derivatives of derivatives read them:

* ``cofactors(a)`` (``adj(a)^T``, ``np.linalg.det``'s gradient): its derivative along ``t``
  is ``cofactors_tangent(t, a)``, linear in ``t`` and its own transpose (the same map gives
  the vector-Jacobian product), defined at singular matrices too; its derivative in ``a`` (a
  third derivative of ``det``) is not written: refused;
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
defvjp(H.cofactors_tangent, "t, a", t="cofactors_tangent(g, a)", kind="array",
       jvp=dict(t="cofactors_tangent(t, a)"))
defvjp(H.slogdet_check, "a, sign", a="slogdet_check(g, sign)", zero="sign", kind="array",
       jvp=dict(a="slogdet_check(t, sign)"))
defvjp(H.fixed_check, "value, given, accepted, call", value="fixed_check(g, given, accepted, call)",
       zero=("given", "accepted", "call"), jvp=dict(value="fixed_check(t, given, accepted, call)"))
holomorphic(H.cofactors, H.cofactors_tangent, H.slogdet_check, H.fixed_check)
