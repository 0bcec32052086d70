"""Derivative rules: one registry, filled by one module per library.

* :mod:`srcad.rules.registry` — the mechanism (``defvjp``, ``nondiff``, ``defmethod``).
* :mod:`srcad.rules.python` — operators, builtins, ``math``.
* :mod:`srcad.rules.numpy` — NumPy.
* :mod:`srcad.rules.numpy_second` — more of NumPy (svd, eig, gradient, ...) and the rules of
  srcad's gradient helpers that second derivatives need.
* :mod:`srcad.rules.numpy_more` — more of NumPy (``np.take``, quantiles, the ``nan*``
  reductions, ``np.interp``, ``np.convolve``, ufunc methods, ...).
* :mod:`srcad.rules.numpy_matrices` — ``matrix_power``, ``multi_dot``, ``lstsq``, ``np.cov``,
  ``np.corrcoef``, ``np.insert``, ``np.choose``, ``np.block``, ``np.unstack``.
* :mod:`srcad.rules.numpy_complex` — complex numbers: which rules hold for them, the complex
  forms of ``abs``, ``np.real``, ``np.conj``, ..., and ``np.fft``.
* :mod:`srcad.rules.numpy_complex_linalg` — the complex forms of ``np.linalg.svd``, ``eigh``,
  ``eig`` and ``norm``.
* :mod:`srcad.rules.numpy_points` — the rules of the helpers for special points
  (``np.linalg.det``'s cofactors, the checks of ``slogdet`` and of ``fixed=``).
* :mod:`srcad.rules.numpy_defaults` — NumPy's parameters accepted at their harmless
  defaults (``np.linalg.pinv(a, hermitian=False)``).
* :mod:`srcad.rules.scipy_special`, :mod:`srcad.rules.scipy_stats`,
  :mod:`srcad.rules.scipy_signal`, :mod:`srcad.rules.scipy_linalg`,
  :mod:`srcad.rules.scipy_integrate` — SciPy (optional: each loaded the first time a rule is
  looked up after the user's code imported ``scipy.special``, ``scipy.stats``,
  ``scipy.signal``, ``scipy.linalg`` or ``scipy.integrate``; see
  :func:`srcad.rules.registry.defer`).
"""

from . import numpy as _numpy_rules  # noqa: F401  (registers the rules)
from . import numpy_complex as _complex_rules  # noqa: F401
from . import numpy_complex_linalg as _complex_linalg_rules  # noqa: F401
from . import numpy_defaults as _numpy_defaults  # noqa: F401
from . import numpy_matrices as _numpy_matrices_rules  # noqa: F401
from . import numpy_more as _numpy_more_rules  # noqa: F401
from . import numpy_points as _numpy_points_rules  # noqa: F401
from . import numpy_second as _numpy_second_rules  # noqa: F401
from . import python as _python_rules  # noqa: F401
from .registry import GENERIC, Rule, defattr, defer, defmethod, defvjp, nondiff, registry

defer("scipy.special", "srcad.rules.scipy_special")
defer("scipy.stats", "srcad.rules.scipy_stats")
defer("scipy.signal", "srcad.rules.scipy_signal")
defer("scipy.linalg", "srcad.rules.scipy_linalg")
defer("scipy.integrate", "srcad.rules.scipy_integrate")

__all__ = ["GENERIC", "Rule", "defattr", "defer", "defmethod", "defvjp", "nondiff", "registry"]
