"""Numbers recorded into a list the caller passed: ``history.append(float(loss))``.

A training loop's objective often logs what it computes into a list its caller holds
(``history.append(float(loss))``, ``log.append(loss.item())``, ``trace.append(x.copy())``).
That is a write into an argument, which srcad refuses in general (the caller would see a
change srcad does not make). It is an ordinary side effect done once when

* the function reads the list in no other way: every use of the parameter in it (nested
  functions included) is ``name.append(v)`` as a statement (:func:`record_params`), so no
  value read back from the list enters the computation;
* the list is not differentiated (not ``wrt``), and the function is the one differentiated (a
  function of yours it calls that appends to its argument is a write into the caller's
  object, checked there as any: :mod:`srcad.analysis.alias`, which reads ``fn.records``);
* what is appended is a value the caller can only read: a number (``float(v)``,
  ``v.item()``, ``int(v)``, a NumPy scalar, a string, a tuple of them), or a copy made in
  the call (``v.copy()``, ``np.copy(v)``, ``np.array(v)``, ``copy.deepcopy(v)``,
  ``v.tolist()``); anything else is checked when it runs (:func:`recorded`: an array or list
  appended whole would be the caller's object, which a later write in the function changes
  in Python and not in srcad's reading).

The appended value goes through :func:`recorded`, which carries no derivative: the list is
never read, so no gradient could flow through it. The derivative appends once per run of the
code srcad makes: ``grad``, ``value_and_grad``, ``jvp`` run the function's forward sweep once;
derivatives of derivatives (Hessians) append once per run of each sweep that computes the
values (documented in docs/supported-python.md). autograd appends its boxes (differentiated
values); JAX appends tracers (which fail when read after the transform); srcad appends the
plain values.

Imports gast, NumPy, :mod:`srcad.core`, :mod:`srcad.errors` and :mod:`srcad.rules.registry`.
"""

from __future__ import annotations

import copy
import linecache

import gast
import numpy as np

from ..core import ir
from ..core.walk import walk_nodes
from ..errors import MutationError
from ..rules.registry import registry as _registry
from .builtin_code import no_gradient
from .lower_spread import Atom

#: calls whose result is a value the caller can only read: a number or a new object
_READ_ONLY_CALLS = {float, int, bool, complex, str, repr, np.copy, np.array, copy.deepcopy,
                    copy.copy, round, abs, len}
_READ_ONLY_METHODS = {"item", "copy", "tolist"}


def record_params(fdef, generated=False):
    """The parameters of ``fdef`` used only as ``name.append(v)`` statements (at least once;
    in srcad's own code, ``generated``, also in the :func:`check_alone` it wrote)."""
    args = fdef.args
    params = {a.id for a in args.posonlyargs + args.args + args.kwonlyargs}
    appends = {}
    for stmt in walk_nodes(fdef):
        if isinstance(stmt, gast.Expr) and _append_of(stmt.value) is not None:
            name = stmt.value.func.value
            appends.setdefault(name.id, set()).add(id(name))
        elif generated and isinstance(stmt, gast.Expr) and isinstance(stmt.value, gast.Call) \
                and isinstance(stmt.value.func, gast.Name) and stmt.value.func.id == \
                "check_alone" and stmt.value.args and isinstance(stmt.value.args[0], gast.Name):
            name = stmt.value.args[0]  # srcad's own check_alone(history, ...) before
            appends.setdefault(name.id, set()).add(id(name))
    found = set()
    for p in params & set(appends):
        uses = {id(n) for n in walk_nodes(fdef) if isinstance(n, gast.Name) and n.id == p
                and not isinstance(n.ctx, gast.Param)}
        if uses == appends[p]:
            found.add(p)
    return found


def guard(lw, fdef, params):
    """The statements checking, when the function starts, that no other argument and no
    global or closure container the function names holds a list of :func:`record_params`:
    a value read through them would be a value appended here, read as a constant (two such
    lists may be one: neither is read)."""
    if not lw.records:
        return []
    assigned = {n.id for n in walk_nodes(fdef) if isinstance(n, gast.Name)
                and isinstance(n.ctx, (gast.Store, gast.Param))}
    held = []
    for name in sorted({n.id for n in walk_nodes(fdef) if isinstance(n, gast.Name)
                        and isinstance(n.ctx, gast.Load)} - assigned - set(params)):
        try:
            value = lw.source.lookup(name)
        except KeyError:
            continue
        if _may_hold(value):
            held.append(ir.Const(value, lw.bound_name(value, name)))
    out = []
    for p in sorted(lw.records):
        others = [lw.env.get(q, ir.Var(q)) for q in params if q not in lw.records] + held
        if others:
            check = ir.Prim(check_alone, [lw.env.get(p, ir.Var(p)), ir.Const(p), ir.Const(
                f"{lw.source.filename}:{fdef.lineno}")] + others,
                spelling=lw.bound_name(check_alone, "check_alone"))
            out.append(ir.Assign(None, check, fdef.lineno, effect=True))
    return out


def _may_hold(value):
    """Whether ``value`` may hold a list: a container or an object with attributes."""
    if isinstance(value, (list, tuple, dict)):
        return True
    return hasattr(value, "__dict__") and not isinstance(value, type) and not callable(
        value) and type(value).__name__ != "module"


def check_alone(lst, name, where, *others):
    """Raise if one of ``others`` (the other arguments, the containers the function names) is
    the list ``lst`` or holds it (a few levels down): the function would read values it
    appends, which carry no derivative."""
    seen = set()

    def holds(value, depth):
        if value is lst:
            return True
        if depth > 4 or id(value) in seen or isinstance(value, (str, bytes, np.ndarray)):
            return False
        seen.add(id(value))
        if isinstance(value, (list, tuple)):
            items = value
        elif isinstance(value, dict):
            items = value.values()
        elif _may_hold(value):
            items = vars(value).values()
        else:
            return False
        return any(holds(v, depth + 1) for v in items)

    if any(holds(o, 0) for o in others):
        raise _error(where, f"the list {name} the function appends to is also reached through "
                     "another argument or a global: the function would read the values it "
                     "appends", f"pass {name} alone, or read the values from what the "
                     "function returns")


def _append_of(call):
    """The receiver's name of ``name.append(v)`` (one positional argument), else None."""
    if isinstance(call, gast.Call) and isinstance(call.func, gast.Attribute) and \
            call.func.attr == "append" and isinstance(call.func.value, gast.Name) and \
            len(call.args) == 1 and not call.keywords and not isinstance(
                call.args[0], gast.Starred):
        return call.func.value.id
    return None


def append(lw, node):
    """``history.append(v)`` on a parameter :func:`record_params` found: the append of
    ``recorded(v)``, or None for any other call."""
    name = _append_of(node)
    if name is None or name not in lw.records or name in lw.local_functions:
        return None
    value = node.args[0]
    read_only = lw.generated or _read_only(lw, value)  # srcad's own code: checked when made
    atom = lw.expr(_cut(lw, value, node))
    where = f"{lw.source.filename}:{node.lineno}"
    kept = lw.assign(ir.Prim(recorded, [atom, ir.Const(read_only), ir.Const(where)],
                             spelling=lw.bound_name(recorded, "recorded")), "kept", node)
    return ir.Prim(ir.Method("append"), [lw.expr(node.func.value), kept])


def _cut(lw, value, node):
    """``value`` (a node) with each local it reads replaced by that local through
    :func:`srcad.frontend.builtin_code.no_gradient`: what is recorded carries no derivative
    (the list is never read), so nothing in it asks for one (an f-string of a differentiated
    number, say)."""
    bound = {n.id for n in walk_nodes(value) if isinstance(n, gast.Name)
             and isinstance(n.ctx, (gast.Store, gast.Param))}  # comprehension, lambda names

    class Cut(gast.NodeTransformer):
        def visit_Name(self, name):
            if not isinstance(name.ctx, gast.Load) or name.id in bound or name.id not in \
                    lw.env or lw.env[name.id] is None:
                return name
            prim = ir.Prim(no_gradient, [lw.env[name.id]], spelling=lw.bound_name(
                no_gradient, "no_gradient"))
            return Atom(lw.assign(prim, name.id, node))

    return Cut().visit(copy.deepcopy(value))


def _read_only(lw, value):
    """Whether ``value`` (a node) is a constant, or a call making a number or a new object."""
    if isinstance(value, gast.Constant) or isinstance(value, gast.JoinedStr):
        return True
    if isinstance(value, gast.Tuple):
        return all(_read_only(lw, e) for e in value.elts)
    if not isinstance(value, gast.Call):
        return False
    func = value.func
    if isinstance(func, gast.Attribute) and func.attr in _READ_ONLY_METHODS and not value.args:
        return True
    if isinstance(func, (gast.Name, gast.Attribute)) and not (
            isinstance(func, gast.Name) and (func.id in lw.env or func.id in lw.local_functions)):
        try:
            fn = lw.resolve_dotted(func)
        except Exception:  # noqa: BLE001 - a method of a local value: not one of these
            return False
        if any(fn is f for f in _READ_ONLY_CALLS):
            return not (fn is np.array and any(k.arg == "copy" for k in value.keywords))
    return False


_IMMUTABLE = (int, float, complex, bool, str, bytes, type(None), np.generic)


def recorded(value, read_only, where):
    """``value``, appended to a list the caller passed; no derivative (the list is never read
    in the function). A value not made read-only where it is appended must be immutable (a
    number, a NumPy scalar, a string, a tuple of them)."""
    if not read_only and not _immutable(value):
        raise _error(where, f"appending a value of type {type(value).__name__} to a list the "
                     "caller passed: the caller's list would hold the function's own object, "
                     "which a later write in the function would change",
                     "append a copy or a number: history.append(v.copy()), "
                     "history.append(float(v))")
    return value


def _error(where, message, hint):
    filename, _, line = where.rpartition(":")
    return MutationError(message, filename=filename, lineno=int(line), hint=hint,
                         construct=linecache.getline(filename, int(line)).strip())


def _immutable(value):
    if isinstance(value, tuple):
        return all(_immutable(v) for v in value)
    return isinstance(value, _IMMUTABLE)


_registry.nondiff.add(recorded)  # the list is never read in the function: no derivative
_registry.nondiff.add(check_alone)  # a check: no derivative
