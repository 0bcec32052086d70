"""Reverse mode, sparse list gradients: the gradient of a list of arrays that the function
only reads item by item starts as ``[None] * len(xs)``, not as zero arrays.

A parameter ``xs`` (a list or tuple of real arrays) whose every read in the function is
``xs[i]`` with a number ``i``, or ``len(xs)``, gets a gradient that nothing in the backward
sweep reads but its own item accumulations and its return: each accumulation is
``dxs[i] = g if dxs[i] is None else dxs[i] + g``, and the return fills the entries no read
reached with zeros and makes every entry an array of its item's shape
(:func:`srcad.runtime.helpers.filled`). An LSTM's state (four arrays a step) then costs no
zero arrays and no additions into them.

Storing ``g`` itself is sound by the rule the whole sweep keeps: an array gradient is changed
in place only through a name the sweep made it under and nothing else holds (``fresh``), and
``g`` is stored where ``x = xs[i]`` is differentiated, after every contribution to ``g`` (the
uses of ``x`` come after its definition); the name ``g`` is no longer fresh after it. An
entry is never changed in place (a second contribution makes a new sum), as
:func:`~srcad.runtime.items.items_at` places an item's array as it is.

Only for the Python backend, in code srcad does not read again (its callees may add into its
arrays: ``into_calls``); a derivative of such code differentiates its plain form, made
without these (``Generated.parts_called``). A piece of :class:`srcad.transform.reverse.Reverse`.
Imports: ``srcad.core``, :mod:`.nodes`.
"""

from __future__ import annotations

import ast
import operator

from ..core import ir
from ..core.kinds import ARRAY, SCALAR, SEQ
from . import nodes
from .nodes import assign, call, name


class SparseLists:
    """Sparse list gradients (see the module docstring)."""

    def sparse_zero(self, name_):
        """``[None] * len(xs)`` for a sparse list's gradient, else None."""
        if name_ not in self.sparse:
            return None
        self.sparse_used = True
        return ast.BinOp(left=ast.List(elts=[nodes.constant(None)], ctx=ast.Load()),
                         op=ast.Mult(), right=call("len", name_))

    def sparse_add(self, obj, index, gname, code, frame):
        """``dxs[i] = g if dxs[i] is None else dxs[i] + g``; False for a list not sparse.
        ``dxs[i] = g`` where the entry is known to be None: the first store at a constant
        ``i`` in the function's top block, before any store in a loop or a branch or at an
        index known only when the code runs (the backward sweep's top block runs in the
        order it is written)."""
        if obj.name not in self.sparse:
            return False
        dobj = self.g(obj.name)

        def item():
            return nodes.subscript(dobj, nodes.expr(index))

        first = self.sparse_stored.setdefault(obj.name, set())
        known = frame == self.top and isinstance(index, ir.Const) and first is not None
        if known and index.value not in first and all(
                (i < 0) == (index.value < 0) for i in first):  # xs[-1] may be xs[3]
            first.add(index.value)
            code.append(assign(item(), name(gname)))
        else:
            if not known or index.value not in first:
                self.sparse_stored[obj.name] = None  # from here on: entries not known
            is_none = ast.Compare(left=item(), ops=[ast.Is()],
                                  comparators=[nodes.constant(None)])
            code.append(assign(item(), ast.IfExp(test=is_none, body=name(gname),
                                                 orelse=nodes.plus(item(), gname))))
        self.fresh.discard(gname)  # the list holds it now: never added into in place
        self.sparse_used = True
        return True

    def sparse_return(self, param, grad):
        """The returned gradient of a parameter: ``filled(dxs, xs)`` for a sparse list."""
        if param not in self.sparse:
            return grad
        self.sparse_used = True
        return call(self.helper("filled"), grad, param)


def sparse_lists(fn, analysis):
    """The parameters whose gradients may be sparse (see the module docstring): a list or
    tuple of real arrays, read only by ``xs[i]`` (``i`` a number) and ``len(xs)``, in
    code srcad's Python backend makes to run, not to read again."""
    callees = analysis.callees
    if not getattr(callees, "into_calls", False) or getattr(callees, "compiles_all", False):
        return set()
    if any(not _inert(v) for v in getattr(fn, "lifted", {}).values()):
        return set()  # a nested function may read the list
    found = {p for p in fn.params if analysis.kinds.get(p) == SEQ
             and analysis.elems.get(p) == ARRAY and p not in analysis.complex}
    for stmt in ir.walk(fn.body):
        reads = [v.name for v in ir.reads_of(stmt) if isinstance(v, ir.Var)]
        for phi in getattr(stmt, "phis", ()):
            reads += [v.name for src in phi.sources for v in ir.atoms_in(src)]
        for part in (getattr(stmt, "test", None), getattr(stmt, "exit", None)):
            reads += [v.name for v in ir.atoms_in(part)]
        for n in set(reads) & found:
            if not _item_read(stmt, n, analysis) or reads.count(n) != 1:
                found.discard(n)
    return found


def _inert(value):
    """Whether a value the code was given (``fn.lifted``) cannot read a list of the code's:
    a function of srcad's own (a run-time check), a tuple of strings and numbers (where a
    check reports)."""
    if isinstance(value, tuple):
        return all(v is None or type(v) in (str, int) for v in value)
    return callable(value) and getattr(value, "__module__", None) in _CHECKS


#: the modules of srcad's run-time checks the front end and the analysis give the code
_CHECKS = frozenset({"srcad.analysis.operand_checks", "srcad.frontend.list_repeats"})


def _item_read(stmt, list_name, analysis):
    """Whether ``stmt`` is ``x = xs[i]`` (``i`` a number, not ``xs``) or ``n = len(xs)``."""
    if not (isinstance(stmt, ir.Assign) and stmt.target and isinstance(stmt.value, ir.Prim)):
        return False
    value = stmt.value
    if value.kwargs or not value.args or value.args[0] != ir.Var(list_name):
        return False
    if value.fn is len:
        return len(value.args) == 1
    if value.fn is not operator.getitem or len(value.args) != 2:
        return False
    index = value.args[1]
    if isinstance(index, ir.Const):
        return type(index.value) is int
    return isinstance(index, ir.Var) and analysis.kinds.get(index.name) == SCALAR
