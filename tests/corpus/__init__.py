"""The table-driven test corpus: plain Python functions, inputs, and what to differentiate.

`STRAIGHT` holds straight-line functions, `CONTROL` functions with branches and loops, `ALL`
both. Each entry is a `Case(func, inputs, wrt)`.
"""

from .control import CASES as CONTROL
from .straight import CASES as STRAIGHT
from .straight import Case

ALL = STRAIGHT + CONTROL

__all__ = ["ALL", "CONTROL", "STRAIGHT", "Case"]
