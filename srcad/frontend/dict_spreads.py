"""``{**m, k: v, ...}``: a dict display copying a mapping, then setting keys (session 35).

``e = {**d}`` is ``e = dict(d)`` (a new dict holding ``d``'s items: the memory model reads
it as it reads ``dict(d)``, :mod:`srcad.analysis.memory`), and each ``k: v`` after it a
write ``e[k] = v``, in the order written (a later key replaces an earlier one, as in the
display). Python refuses a list or tuple there (``dict(pairs)`` takes one): the code raises
its ``TypeError`` too. Other places of ``**`` (``{k: v, **d}``, whose ``d`` may replace
``k``, or two of them) stay refused, the hint writing the merge out.

Imports gast and :mod:`srcad.core` (and nothing above its layer).
"""

from __future__ import annotations

import gast

from ..core import ir
from ..core.walk import walk_nodes


def lower(lw, node):
    """The atom of ``{**m, k: v, ...}`` lowered by ``lw`` (a
    :class:`srcad.frontend.lower.Lowerer`); another display with ``**`` refused."""
    if node.keys[0] is not None or any(k is None for k in node.keys[1:]):
        raise lw.error(node, "unpacking (**d) inside a dict literal, after other keys or twice",
                       hint="copy the first dict and set the other keys in order: e = "
                       "dict(d); e['k'] = v; for k in d2: e[k] = d2[k]")
    star = lw.expr(node.values[0])
    line = node.lineno
    if all(_builtin(lw, n) for n in ("isinstance", "list", "tuple", "dict")):
        check, kinds, copy = "isinstance", ir.Const((list, tuple), "(list, tuple)"), "dict"
    else:  # (a name of the user's spelled so: the objects through names of their own)
        check, copy = lw.bound_name(isinstance, "isinstance"), lw.bound_name(dict, "dict")
        kinds = ir.Const((list, tuple), lw.bound_name((list, tuple), "sequences"))
    listed = lw.assign(ir.Prim(isinstance, [star, kinds], spelling=check), None, node)
    error = TypeError("a list or tuple is not a mapping: {**m} takes a dict")
    lw.emit(ir.If(listed, [ir.Raise(ir.Const(error, lw.bound_name(error, "type_error")),
                                    line)], [], [], line))
    out = lw.assign(ir.Prim(dict, [star], spelling=copy), None, node)
    for key, value in zip(node.keys[1:], node.values[1:]):
        index, item = lw.expr(key), lw.expr(value)
        target = lw.namer.version(out.name)
        lw.emit(ir.SetItem(target, out, index, item, line))
        out = ir.Var(target)
    return out


def _builtin(lw, name):
    """Whether ``name`` means the builtin in the user's code (no local, global or closure
    name spells it), so generated code may spell it so."""
    source = lw.source
    if name in source.closure or name in source.globals:
        return False
    return not any(isinstance(n, gast.Name) and n.id == name for n in walk_nodes(source.node))
