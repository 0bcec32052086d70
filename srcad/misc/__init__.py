"""Helpers for training loops, under the names autograd's users know (``autograd.misc``):
:func:`flatten` (a tree of arrays as one vector, and back), :func:`fixed_point` (iterate a
map to its fixed point, differentiated as computed) and the optimisers of
:mod:`srcad.misc.optimizers` (``adam``, ``sgd``, ``rmsprop``). Plain NumPy, written here; the
functions they return are written out as Python source, so srcad differentiates through them
when an objective flattens or unflattens its parameters.

Imports :mod:`.flatten` and :mod:`.fixed_points`.
"""

from .fixed_points import fixed_point
from .flatten import flatten, flatten_func

__all__ = ["fixed_point", "flatten", "flatten_func"]
