"""``obj.name = v`` in the function differentiated, ``obj`` an object it is given: a store.

Class-based models often keep a value the objective computes for a later method to use: a
Gaussian process's negative log marginal likelihood keeps its Cholesky factor (``self.L = L``)
for ``predict``. Python stores the value into the object; nothing the function computes after
the store reads it back. srcad does the same: the statement is lowered to the effect
``store_attribute(obj, "name", v)`` (:func:`srcad.runtime.containers.store_attribute`, no
derivative), which the forward sweep runs where the function runs it, so the object holds
what it holds after a plain call (a plain array).

That is exact only when no value the derivative flows through can depend on the store: srcad
reads every attribute as a value of the call (no gradient through it), so a read of the
attribute after the store, by the function or by any function of yours it calls afterwards,
would be a differentiated value read as a constant. :mod:`srcad.analysis.attribute_stores`
checks that on the lowered function; this module only lowers the store, for

* an object the function is given (a parameter as it was passed: ``self`` of a method, a model
  passed in; a record srcad reads field by field is rewritten before, and refused there);
* a plain ``=`` (``self.n += 1`` stays refused: it reads the attribute).

Anything else stays refused at the line ("writing an attribute").

Imports gast, :mod:`srcad.core` (the IR), :mod:`srcad.runtime` (the helper) and
:mod:`srcad.frontend.writes` (``callee_name``).
"""

from __future__ import annotations

import gast

from ..core import ir
from ..runtime.containers import store_attribute
from .writes import callee_name


def lower_store(lw, target, value, node):
    """Lowers ``target = value`` (``target`` an attribute) as a store when it is one (see the
    module's text). Whether it was."""
    base = target.value
    if not isinstance(base, gast.Name) or getattr(node, "srcad_augmented", False):
        return False
    obj = lw.env.get(base.id)
    if not isinstance(obj, ir.Var) or obj.name not in lw.param_names \
            or base.id in lw.dicts:
        return False
    spelled = callee_name(lw, store_attribute, "store_attribute")
    store = ir.Prim(store_attribute, [obj, ir.Const(target.attr), value], spelling=spelled)
    lw.emit(ir.Assign(None, store, node.lineno, effect=True))
    return True
