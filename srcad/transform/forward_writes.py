"""Forward mode of an item write ``y_1 = y`` with ``y_1[k] = v`` (SSA's functional write, a
:class:`srcad.core.ir.SetItem`): :func:`set_item`.

The general form copies the container and its tangent at every write::

    y_1 = y.copy()
    y_1[k] = v
    dy_1 = copy_tangent(dy, y_1)
    dy_1[k] = dv

so a gradient's dict written key by key (``dp['b'] += ...`` in ``grad``'s code, which a
Hessian runs in forward mode) was copied twice a key, and ``copy_tangent`` read the new
value: a pass that needs the tangent alone computed the value too. Where the container is
*owned* at the write (:func:`owned_writes`), both are written in place::

    y_1 = y
    y_1[k] = v
    dy_1 = dy
    dy_1[k] = dv

(the tidy pass then reads ``y`` for ``y_1``). Owned: ``y`` is a list or dict made new in
the same block (a list or dict display, ``items_at``'s gradient of a container read item
by item) or an owned write's result there, and nothing reads ``y`` but this write and
item reads ``x = y[i]`` before it in that block (no merge, no loop, no call, no name
holds it; an item read out is an object the write replaces, never changes). Its tangent
is written in place where the code made it new in that block too (a display, an
``items_at`` call, an owned write's); else ``copy_tangent`` as before. Nothing else
changes: an array (a write into it may change a view read before), a parameter's
container, one read after the write or held anywhere keeps the copies.

Not for code Numba compiles (its lists are typed apart). Imports ``srcad.core``,
``srcad.runtime`` and :mod:`.nodes`.
"""

from __future__ import annotations

import ast
import operator

from ..core import ir
from ..runtime import items as runtime_items
from . import nodes
from . import owned_writes as owned_arrays
from .nodes import assign, call

#: calls that make a new list or dict each time (a container's gradient, item by item)
_MAKERS = (runtime_items.items_at,)


def set_item(fwd, stmt, code):
    """Append the code of the item write ``stmt`` and of its tangent to ``code``."""
    owned, arrays = _owned(fwd), owned_arrays.forward_in_place(fwd)  # (arrays: fills37's)
    in_place = id(stmt) in owned or id(stmt) in arrays
    source = nodes.expr(stmt.obj)
    code.append(assign(stmt.target, source if in_place else nodes.method(source, "copy")))
    code.append(assign(nodes.subscript(stmt.target, nodes.expr(stmt.index)),
                       nodes.expr(stmt.value)))
    if not fwd.varied(ir.Var(stmt.target)):
        return
    t = fwd.t(stmt.target)
    tangent = fwd.tangent_or_zero(stmt.obj)
    if in_place and fwd.varied(stmt.obj) and (arrays.get(id(stmt)) or _made_new(
            fwd, code, tangent.id)):
        fwd.new_tangents.add(t)
        code.append(assign(t, tangent))
    else:
        code.append(assign(t, call(fwd.helper("copy_tangent"), tangent, stmt.target)))
    code.append(assign(nodes.subscript(t, nodes.expr(stmt.index)),
                       fwd.tangent_or_zero(stmt.value)))


def _owned(fwd):
    """The ids of the writes of ``fwd``'s function whose container is owned (computed once
    a sweep)."""
    found = getattr(fwd, "owned_writes", None)
    if found is None:
        fwd.new_tangents = set()
        found = fwd.owned_writes = set() if getattr(
            fwd.an.callees, "compiles_all", False) else owned_writes(fwd.fn)
    return found


def owned_writes(fn):
    """The ids of the :class:`ir.SetItem` statements of ``fn`` whose container is owned at
    the write (see the module docstring)."""
    reads = ir.read_counts(fn.body)
    owned = set()

    def visit(block):
        fresh = set()  # names of containers made new in this block (or owned writes')
        item_reads = {}  # such a name -> its item reads so far in this block
        for stmt in block:
            for inner in ir.blocks_of(stmt):
                visit(inner)
            if isinstance(stmt, ir.Assign) and stmt.target is not None and not stmt.effect:
                value = stmt.value
                if isinstance(value, ir.Prim) and _makes_new(value):
                    fresh.add(stmt.target)
                    item_reads[stmt.target] = 0
                elif isinstance(value, ir.Prim) and value.fn is operator.getitem and (
                        not value.kwargs and len(value.args) == 2) and isinstance(
                        value.args[0], ir.Var) and value.args[0].name in fresh:
                    item_reads[value.args[0].name] += 1
            elif isinstance(stmt, ir.SetItem) and stmt.obj.name in fresh:
                obj = stmt.obj.name
                if reads.get(obj, 0) == item_reads[obj] + 1 and obj not in (
                        a.name for a in (*ir.atoms_in(stmt.index), *ir.atoms_in(stmt.value))):
                    owned.add(id(stmt))
                    fresh.add(stmt.target)
                    item_reads[stmt.target] = 0
                fresh.discard(obj)

    visit(fn.body)
    return owned


def _makes_new(value):
    """Whether the call ``value`` makes a new list or dict."""
    if value.fn is ir.BUILD_LIST or value.fn is ir.BUILD_DICT:
        return True
    return any(value.fn is f for f in _MAKERS) and not value.kwargs


def _made_new(fwd, code, tangent):
    """Whether the tangent named ``tangent`` was last assigned, in ``code`` (the block's
    code so far), a new list or dict: a display, a maker's call, an owned write's."""
    for node in reversed(code):
        if isinstance(node, ast.Assign) and any(
                isinstance(t, ast.Name) and t.id == tangent for t in node.targets):
            if len(node.targets) != 1:
                return False
            value = node.value
            if isinstance(value, (ast.List, ast.Dict)):
                return True
            if tangent in fwd.new_tangents:
                return isinstance(value, ast.Name)
            return isinstance(value, ast.Call) and isinstance(value.func, ast.Name) and any(
                value.func.id == fwd.helper(f.__name__).id for f in _MAKERS)
    return False
