"""What the reverse and forward sweeps share: the result of a reverse sweep, helper names,
zeros, closure cells, and the small facts both ask of operands.

Imports: ``srcad.core``, the rules registry, and :mod:`.nodes`.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass, field

from ..core import ir
from ..core.kinds import ANY, ARRAY, SCALAR
from ..core.walk import walk_nodes
from . import nodes
from .nodes import call, name


@dataclass
class Generated:
    """A reverse sweep's code: statement trees with push/pop markers (see
    :func:`srcad.transform.nodes.realise`), and what the pipeline needs to wrap them."""

    forward: list
    backward: list
    stacks: list
    result: object  # the IR atom returned
    grads: dict  # wrt param -> expression (a node) of its gradient
    seed: str
    helpers: set = field(default_factory=set)
    saves: dict = field(default_factory=dict)
    temp_grads: set = field(default_factory=set)
    cells: dict = field(default_factory=dict)
    kept: tuple = ()  # (names the backward reads outside loops, those defined only in a branch)
    popped: set = field(default_factory=set)  # stacks popped (the others are iterated)
    into_parts: set = field(default_factory=set)  # backward parts' variants called (.into)
    buffers: dict = field(default_factory=dict)  # param -> its gradient, the caller's (.into)
    parts_called: bool = False  # a callee's backward part is called (whose code may add into)
    keeps: set = field(default_factory=set)  # names that may hold arrays, lists, contexts


class Sweep:
    """What the reverse and forward sweeps share: helper names, zeros, callee cells.

    A subclass sets ``an`` (the Analysis), ``namer``, ``helper_names``, ``used_helpers`` and
    ``cells``.
    """

    callees = None  # the callees' cache a sweep's code calls (None: the backend's)

    def helper(self, name_):
        """The node naming a helper in generated code (its spelling there)."""
        self.used_helpers.add(name_)
        return name(self.helper_names.get(name_, name_))

    def zero(self, name_):
        """A zero shaped like the value ``name_``: a literal for a number."""
        kind = self.an.kinds.get(name_, ANY)
        if kind == SCALAR:
            return nodes.constant(0.0)
        if kind == ARRAY and not getattr(self.an.callees, "compiles_all", False):
            return call(self.helper("zeros_array"), name_)  # Numba: np.zeros_like below
        if kind == ARRAY:
            return call(nodes.attr(self.helper("np"), "zeros_like"), name_,
                        dtype=name("float"))
        return call(self.helper("zeros_like"), name_)

    def note_helpers(self, tree):
        """Record the helpers an instantiated template calls."""
        spelled = {v: k for k, v in self.helper_names.items()}
        for sub in walk_nodes(tree):
            if isinstance(sub, ast.Name) and sub.id in spelled:
                self.used_helpers.add(spelled[sub.id])

    def bind_cell(self, name_, cell):
        """The name generated code uses for a closure cell (a callee's part, a user rule's
        helper), made once per cell."""
        for spelled, known in self.cells.items():
            if known is cell or _same_value(known, cell):
                return spelled
        spelled = self.namer.fresh(name_)
        self.cells[spelled] = cell
        return spelled


def _same_value(a, b):
    try:
        return a.cell_contents is b.cell_contents and not isinstance(
            a.cell_contents, type(None))
    except ValueError:
        return False


def bound_expr(value):
    """A bound argument as an expression: an atom as the IR has it, a default value as the
    literal that spells it."""
    if isinstance(value, (ir.Var, ir.Const, ir.Slice, ir.Index)):
        return nodes.expr(value)
    if isinstance(value, tuple):
        return ast.Tuple(elts=[bound_expr(v) for v in value], ctx=nodes.LOAD)
    return nodes.literal(value)


def phi_copies(phis, side):
    """The assignments that realise phis at the end of one side. A loop's back edge may move
    values between its own names (``x, y = y, x``): those copies happen all at once. A side
    leaving the name unset (``del y`` on it) sets None, which a later read checks
    (UnboundLocalError), as forward mode does."""
    pairs = [(p.target, nodes.expr(p.sources[side]) if p.sources[side] is not None else
              nodes.constant(None)) for p in phis if str(p.sources[side]) != p.target]
    return nodes.parallel(pairs)
