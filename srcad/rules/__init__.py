"""Derivative rules: one registry, filled by one module per library.

* :mod:`srcad.rules.registry` — the mechanism (``defvjp``, ``nondiff``, ``defmethod``).
* :mod:`srcad.rules.python` — operators, builtins, ``math``.
* :mod:`srcad.rules.numpy` — NumPy.
"""

from . import numpy as _numpy_rules  # noqa: F401  (registers the rules)
from . import python as _python_rules  # noqa: F401
from .registry import GENERIC, Rule, defattr, defmethod, defvjp, nondiff, registry

__all__ = ["GENERIC", "Rule", "defattr", "defmethod", "defvjp", "nondiff", "registry"]
