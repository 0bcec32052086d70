"""One-number gradients of whole sums inside a loop's body (the Python backend's NumPy code).

At the top level of a function, ``s = np.sum(a)`` gives ``a`` the gradient ``ds`` itself, one
number standing for every element, until something needs the array
(``Rules.uniform_reduction``, ``Reverse.materialise``). Inside a loop the same holds for an
``a`` the body itself assigns (a new value each iteration, whose gradient lives within the
iteration): a softmax's or log-sum-exp's normaliser per step,

    exp = np.exp(ypred)
    t = np.sum(exp) + 2.0

gives ``dypred = dypred + np.divide(dt, ...) * exp`` instead of
``grad_sum(np.divide(dt, ...), ypred) * exp`` (a new array of the number first). Where the
array is needed (any rule but an element-wise one reading a whole array of ``a``'s shape,
a branch or loop mentioning it), it is made in the body exactly as without this:
``da = grad_sum(da, a_layout)``, the rule's own template with the same names, so the values
the forward sweep saves per iteration are the ones it saved before (a layout stand-in stays
one: no array is kept for its shape). An element-wise operation whose operands are alike
only at run time (a shape guard, :mod:`.guards`) takes the number on the guard's side,
``dynorm = dt * t_7 if alike else unbroadcast_to(grad_sum(dt, t_8_layout) * t_7, ...)``
(:func:`guarded`). Only for ``np.sum``-like rules whose one-number form
is the gradient itself (``uniform == "g"``), not inside a maybe-zero guard (both paths hold
one kind there), and not for Numba (a name holding a number, then an array, in a loop).

Imports: ``srcad.core`` (ir, kinds, walk_nodes), :mod:`.nodes`, :mod:`.templates`.
"""

from __future__ import annotations

import ast
import copy

from ..core import ir
from ..core.kinds import ARRAY
from ..core.walk import walk_nodes
from . import templates
from .nodes import assign, name


def reduction(sweep, rule, bound, atom, names, code, frame):
    """``s = np.sum(a)`` (every axis) in a loop's body, ``a`` (``atom``, an active array)
    assigned in that body: ``a``'s gradient the number ``ds``; True if so differentiated
    (else the rule's templates are used)."""
    if not (isinstance(rule.uniform, ast.Name) and rule.uniform.id == "g") or rule.ranks or (
            sweep.top is None or getattr(sweep.an.callees, "compiles_all", False)) or (
            frame not in _loop_bodies(sweep)):
        return False
    params = [p for p, a in bound.items() if a is atom and p in rule.templates]
    if len(params) != 1:
        return False
    if not any(isinstance(s, ir.Assign) and s.target == atom.name
               for s in sweep.blocks.get(frame, ())):
        return False  # carried from an earlier iteration or made before the loop
    gname = sweep.g(atom.name)
    whole = templates.instantiate(rule.templates[params[0]], dict(names, g=name(gname)), False,
                                  sweep.helper_names, rule)
    sweep.ref_names(whole, frame)  # saved as the rule's own form would have them saved
    sweep.note_helpers(whole)
    number = templates.instantiate(rule.uniform, names, True, sweep.helper_names)
    sweep.accumulate(atom, number, code, frame, uniform=True)
    if gname in sweep.uniform:
        first = code[-1] if code and isinstance(code[-1], ast.Assign) else None
        if first is not None and not (len(first.targets) == 1 and isinstance(
                first.targets[0], ast.Name) and first.targets[0].id == gname):
            first = None  # (a flag written after it): the array is made by a new line
        sweep.uniform_made[gname] = (frame, whole, first, code,
                                     lambda g: templates.instantiate(
                                         rule.templates[params[0]], dict(names, g=g), False,
                                         sweep.helper_names, rule))
    return True


def materialised(sweep, gname, code, frame):
    """Make the one-number gradient ``gname`` an array the way :func:`reduction` recorded
    (in the loop body that made it); True if so. Where nothing read the number since it
    was assigned, its assignment takes the array's form (``da = grad_sum(ds, a_layout)``)."""
    made = sweep.uniform_made.pop(gname, None)
    if made is None or made[0] != frame:
        return False
    _, whole, first, block, remake = made
    sweep.uniform.pop(gname, None)
    sweep.fresh.discard(gname)  # grad_sum may give a read-only view
    if first is not None and block is code and _unread_after(code, first, gname):
        first.value = remake(first.value)
        return True
    code.append(assign(gname, whole))
    return True


def guarded(sweep, stmt, rule, template, names, scalar, atom, bound, gname, code, frame):
    """An element-wise operation whose result's gradient ``gname`` is :func:`reduction`'s
    number, its operands' shapes known alike only at run time (a shape guard,
    :mod:`.guards`): ``g * b if alike else unbroadcast_to(grad_sum(g, y_layout) * b, ...)``.
    Where the guard holds every array operand has the result's shape, so the template
    reading one of them (``g * b``) gives the whole array from the number, as at the top
    level; the other side makes the array as :func:`materialised` would. True if so."""
    made = sweep.uniform_made.get(gname)
    if made is None or made[0] != frame or not rule.broadcast or sweep.an.complex or (
            sweep._guard_roots(stmt.value, frame) is None):
        return False
    number = templates.instantiate(template, names, scalar, sweep.helper_names, rule)
    operands = {a.name for a in stmt.value.args
                if isinstance(a, ir.Var) and sweep.an.kinds.get(a.name) == ARRAY}
    if not any(isinstance(n, ast.Name) and n.id in operands for n in walk_nodes(number)):
        return False  # the number alone (-g): no whole array on the guard's side
    full = templates.instantiate(template, dict(names, g=copy.deepcopy(made[1])), scalar,
                                 sweep.helper_names, rule)
    number, full = sweep.reused(number, frame), sweep.reused(full, frame)
    sweep.note_helpers(number)
    sweep.note_helpers(full)
    tree = sweep.unbroadcast(full, atom, stmt.target, bound, frame, stmt.value)
    if isinstance(tree, ast.IfExp):
        tree.body = number
    sweep.accumulate(atom, tree, code, frame)
    return True


def _unread_after(code, stmt, gname):
    """Whether ``stmt`` is in ``code`` and no statement after it reads ``gname``."""
    for k, s in enumerate(code):
        if s is stmt:
            return not any(isinstance(n, ast.Name) and n.id == gname
                           for later in code[k + 1:] for n in walk_nodes(later))
    return False


def _loop_bodies(sweep):
    bodies = getattr(sweep, "_loop_bodies", None)
    if bodies is None:
        bodies = sweep._loop_bodies = frozenset(
            id(s.body) for s in ir.walk(sweep.fn.body) if isinstance(s, ir.Loop))
    return bodies

