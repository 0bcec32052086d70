"""Helpers that the NumPy derivative rules call from generated code: the index of the modules
that define them, by family.

* :mod:`srcad.runtime.numpy_reductions`: reductions, running sums and products, ``np.clip``;
* :mod:`srcad.runtime.numpy_linalg`: products and ``np.linalg``;
* :mod:`srcad.runtime.numpy_shape`: reshaping, joining, splitting, padding, sorting, and the
  functions in-place writes are lowered to (``add_at``, ``last_writes``);
* :mod:`srcad.runtime.numpy_extra`: ``np.sinc``, ``np.diff``, ``np.column_stack``;
* :mod:`srcad.runtime.numpy_fft`: ``np.fft`` (the transposes of the transforms);
* :mod:`srcad.runtime.numpy_second`: second derivatives (``np.prod``, ``np.cumprod``,
  ``np.linalg.norm``, a batched ``np.linalg.solve``);
* :mod:`srcad.runtime.numpy_more`: ``np.take``, ``np.quantile``, ``np.interp``,
  ``np.convolve``, ... (the rules of :mod:`srcad.rules.numpy_more`);
* :mod:`srcad.runtime.numpy_assembly`: ``np.insert``, ``np.choose``, ``np.block``,
  ``np.unstack``, ``np.linalg.multi_dot``, ``np.cov``'s layout, ``np.linalg.lstsq``'s check
  (the rules of :mod:`srcad.rules.numpy_matrices`);
* :mod:`srcad.runtime.numpy_points`: the check of a rule's parameter accepted only at some
  constants (``fixed_check``), ``np.linalg.det``'s gradient at singular matrices too;
* :mod:`srcad.runtime.numpy_common`: the pieces they share (never called by generated code).

The rules in :mod:`srcad.rules.numpy` are one-line templates; when the gradient of a NumPy
function takes more than one line of NumPy (the gradient of ``np.prod`` with zeros, of
``np.linalg.cholesky``, of ``np.einsum``), the template calls one of these functions instead.
Generated code calls each of them by its plain name, like the helpers of
:mod:`srcad.runtime.helpers`, so each is named after what it computes: ``grad_<function>`` is
the gradient flowing into the first array argument of ``np.<function>``, and
``grad_<function>_b`` (``_value``, ...) the gradient flowing into another argument.
``tangent_<function>`` is the forward-mode tangent of ``np.<function>`` where its rule's
``jvp=`` template needs more than an expression. A new helper is a function marked
``@helper("numpy")`` in the module of its family: that makes it callable from generated code
and lists it here.

Conventions shared by all of them:

* ``g`` is the gradient of the result (same shape as the result), ``ans`` the result itself;
* the returned gradient has the shape of the argument it flows into; when that argument is a
  list or tuple of arrays (``np.sum([a, b])``), the gradient is a list with one gradient per
  element, because the core routes a list's gradient to its elements as ``g[i]``;
* ``axis`` is ``None``, an int or a tuple of ints, negative values counting from the end;
  ``keepdims`` is as in NumPy;
* ties (``np.max`` over equal values, ``np.maximum(a, a)``) share the gradient equally, as
  autograd does.

Nothing here is called for Python-scalar code except where a NumPy function is applied to
Python numbers.

Imports only the modules of ``srcad.runtime`` named above and ``srcad.runtime.registry``.
"""

from __future__ import annotations

from . import (
    numpy_assembly,
    numpy_extra,
    numpy_fft,
    numpy_linalg,
    numpy_more,
    numpy_points,
    numpy_reductions,
    numpy_second,
    numpy_shape,
)
from .registry import HELPERS, family_of

#: the modules defining the NumPy helpers, by family
MODULES = (numpy_reductions, numpy_linalg, numpy_shape, numpy_extra, numpy_fft, numpy_second,
           numpy_more, numpy_assembly, numpy_points)

__all__ = sorted(name for name, fn in HELPERS.items() if family_of(fn) == "numpy")
globals().update((name, HELPERS[name]) for name in __all__)
