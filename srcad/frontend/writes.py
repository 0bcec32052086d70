"""NumPy calls that write into an existing array, as the lowering pass meets them.

A call that writes in place becomes a plain assignment into the array, which srcad
differentiates like any other (and :mod:`srcad.analysis.alias` checks like any other write):

* ``np.f(..., out=y)`` on its own line is ``y[...] = np.f(...)``; with ``where=m`` it is
  ``y[...] = np.where(m, np.f(...), y)``; ``z = np.f(..., out=y)`` also binds ``z`` to ``y``;
* ``np.copyto(y, x)`` is ``y[...] = x`` (``where=m``: ``np.where(m, x, y)``);
* ``np.fill_diagonal(y, v)`` is ``y[diagonal] = v``, ``diagonal = diagonal_positions(y, v)``
  (``(i, i)``, ``i = arange(min(y.shape))``; a ``v`` NumPy would repeat is refused there);
* ``np.add.at(y, i, x)`` is ``y = add_at(y, i, x)``, a new array with every repeat of ``i``
  accumulated, changing ``y`` in place as NumPy does; into a view of a local array by
  slices and integer literals (``np.add.at(acc[:, 0], i, x)``) it is
  ``acc[:, 0] = add_at(acc[:, 0], i, x)``, a write into ``acc`` like any other.

Everything else that writes into its arguments (``np.put``, ``np.place``, ``np.putmask``,
the other ``ufunc.at``, ``out=`` inside an expression, a ufunc's
output passed by position) is refused at its line with the rewrite to use.

These are functions, not a mixin: each takes the :class:`srcad.frontend.lower.Lowerer` at
work (``lw``) and uses its public state and methods (``env``, ``expr``, ``bind_atom``, ...).

Imports: gast, NumPy, :mod:`srcad.core` (the IR), :mod:`srcad.errors` and
:mod:`srcad.runtime` (``add_at``, the helper generated code calls); never the lowering
modules, which import it.
"""

from __future__ import annotations

import gast
import numpy as np

from ..core import ir
from ..errors import MutationError
from ..runtime import containers, numpy_helpers

#: functions that change an argument in place, and what to write instead
REFUSED = {
    np.put: "np.put indexes the flattened array: write flat = y.ravel().copy(); "
            "flat[ind] = v; y = flat.reshape(y.shape)",
    np.place: "write y = y.copy(); y[mask] = values (or y = np.where(mask, values, y))",
    np.putmask: "write y = np.where(mask, values, y)",
    np.put_along_axis: "build the new array with np.where or a loop of y[i] = ...",
}


def _error(lw, node, message, hint):
    return lw.error(node, message, hint=hint, cls=MutationError)


def _resolve(lw, func):
    """The object a call's callee names, or None for a method of a local value."""
    root = func
    while isinstance(root, gast.Attribute):
        root = root.value
    if not isinstance(root, gast.Name) or root.id in lw.env or root.id in lw.local_functions:
        return None
    return lw.resolve_dotted(func)


def _is_ufunc_method(fn, name):
    return getattr(fn, "__name__", None) == name and isinstance(
        getattr(fn, "__self__", None), np.ufunc)


def callee_name(lw, obj, hint):
    """A name under which generated code calls ``obj`` (bound like a lifted function)."""
    for name, known in lw.lifted.items():
        if known is obj:
            return name
    name = lw.namer.fresh(hint)
    lw.lifted[name] = obj
    return name


def _local_array(lw, node, what, call):
    if isinstance(node, gast.Tuple) and len(node.elts) == 1:
        node = node.elts[0]
    if isinstance(node, gast.Name) and node.id in lw.env:
        return node
    raise _error(lw, call, f"{what} writes into something other than a local array",
                 "write the result into a local name: y = np.f(...), then y[...] = ... "
                 "where you need it")


def _basic_view(lw, node):
    """Whether ``node`` is ``y[s]`` of a local array ``y`` with an index of slices, integer
    literals and ``...`` only, a slice or ``...`` among them: a view (NumPy's basic indexing),
    so that adding into it is adding into ``y[s]``, written back as ``y[s] = add_at(y[s], i,
    x)``. (An index that may be an array makes a copy, into which ``np.add.at`` adds without
    changing ``y``; integers alone make a number: both refused.)"""
    if not (isinstance(node, gast.Subscript) and isinstance(node.value, gast.Name)
            and node.value.id in lw.env and isinstance(lw.env[node.value.id], ir.Var)):
        return False
    parts = node.slice.elts if isinstance(node.slice, gast.Tuple) else [node.slice]
    sliced = [p for p in parts if isinstance(p, gast.Slice) or (
        isinstance(p, gast.Constant) and p.value is Ellipsis)]
    return bool(sliced) and all(p in sliced or (isinstance(p, gast.Constant) and type(
        p.value) is int) for p in parts)  # (a slice or ...: an array, never one number)


def _whole(name_node, like, index=None):
    """The target ``y[...]`` (``y[index]``, ``index`` a name) of a write into ``y``."""
    at = gast.Constant(value=Ellipsis, kind=None) if index is None else gast.Name(
        id=index, ctx=gast.Load(), annotation=None, type_comment=None)
    target = gast.Subscript(value=gast.Name(id=name_node.id, ctx=gast.Load(), annotation=None,
                                            type_comment=None), slice=at, ctx=gast.Store())
    return gast.copy_location(target, like)


def rewrite_call(lw, call, target, node):
    """Lower a statement ``call`` (or ``target = call``) that writes into an argument;
    True when done, False when the call is an ordinary one."""
    if target is None and _in_place_copy(lw, call, node):
        return True
    if target is not None and _popped(lw, call, target, node):
        return True
    keywords = {k.arg: k.value for k in call.keywords}
    fn = _resolve(lw, call.func) if isinstance(call.func, (gast.Name, gast.Attribute)) else None
    if "out" in keywords and not _is_none(keywords["out"]):  # (out=None: no write)
        out = _local_array(lw, keywords["out"], "out=", node)
        rest = [k for k in call.keywords if k.arg not in ("out", "where")]
        plain = gast.copy_location(gast.Call(func=call.func, args=call.args, keywords=rest),
                                   call)
        value = lw.expr(plain)
        if "where" in keywords:
            value = _where(lw, keywords["where"], value, out, node, call)
        lw.bind_atom(_whole(out, node), value, node)
        if target is not None:
            lw.bind_atom(target, lw.env[out.id], node)
        return True
    if fn is np.copyto and target is None and len(call.args) == 2:
        out = _local_array(lw, call.args[0], "np.copyto", node)
        value = lw.expr(call.args[1])
        if "where" in keywords:
            value = _where(lw, keywords["where"], value, out, node, call)
        lw.bind_atom(_whole(out, node), value, node)
        return True
    if fn is np.fill_diagonal and target is None and len(call.args) == 2 and not call.keywords:
        out = _local_array(lw, call.args[0], "np.fill_diagonal", node)  # y[i, i] = v
        value = lw.expr(call.args[1])
        prim = ir.Prim(numpy_helpers.diagonal_positions, [lw.env[out.id], value],
                       spelling=callee_name(lw, numpy_helpers.diagonal_positions,
                                            "diagonal_positions"))
        at = lw.assign(prim, "diagonal", node)
        lw.env[at.name] = at
        lw.bind_atom(_whole(out, node, at.name), value, node)
        return True
    if _is_ufunc_method(fn, "at") and fn.__self__ is np.add and target is None and len(
        call.args
    ) == 3 and not call.keywords:
        if _basic_view(lw, call.args[0]):  # np.add.at(acc[:, 0], i, x): into acc's column
            region = lw.expr(call.args[0])
            args = [region, lw.index(call.args[1]), lw.expr(call.args[2])]
            prim = ir.Prim(numpy_helpers.add_at, args,
                           spelling=callee_name(lw, numpy_helpers.add_at, "np_add_at"))
            added = lw.assign(prim, call.args[0].value.id, node)
            store = gast.copy_location(gast.Subscript(
                value=call.args[0].value, slice=call.args[0].slice, ctx=gast.Store()), node)
            lw.bind_atom(store, added, node)
            return True
        out = _local_array(lw, call.args[0], "np.add.at", node)
        before = lw.env[out.id]
        args = [before, lw.index(call.args[1]), lw.expr(call.args[2])]
        prim = ir.Prim(numpy_helpers.add_at, args,
                       spelling=callee_name(lw, numpy_helpers.add_at, "np_add_at"))
        after = lw.assign(prim, out.id, node)
        lw.env[out.id] = after
        lw.augmented[after.name] = before.name  # NumPy changes y itself
        return True
    return False


#: in-place methods read as a new version of their object (:func:`_in_place_copy`)
COPIED = ("sort", "reverse", "extend", "insert", "remove", "clear", "pop")
#: ``ys.sort(...)``'s parameters by position: an array's (a list's takes keywords only)
_SORT_POSITIONAL = ("axis", "kind")
_SORT_KEYWORDS = ("key", "reverse", "axis", "kind")


def _in_place_copy(lw, call, node):
    """``ys.sort(...)``, ``ys.reverse()`` or ``ys.extend(more)`` on a local name (not an object
    of a known class): ``ys = sort_value(ys, ...)``, the sorted copy (``reverse_value``,
    ``extend_value``), read as a write into ``ys`` (like ``ys +=
    v``: the alias analysis refuses it where another name, an argument or a global shares
    the object). Whether it was."""
    func = call.func
    if not (isinstance(func, gast.Attribute) and func.attr in COPIED
            and isinstance(func.value, gast.Name) and func.value.id in lw.env
            and isinstance(lw.env[func.value.id], ir.Var)
            and func.value.id not in lw.classes
            and not any(isinstance(a, gast.Starred) for a in call.args)):
        return False
    args = []
    if func.attr in _LIST_METHODS:
        if len(call.args) != _LIST_METHODS[func.attr][1] or call.keywords:
            return False  # ys.pop(): srcad's sweeps take it as it is
        helper, kwargs = _LIST_METHODS[func.attr][0], {}
        args = [lw.expr(a) for a in call.args]
    elif func.attr == "reverse":
        if call.args or call.keywords:
            return False
        helper, kwargs = containers.reverse_value, {}
    elif func.attr == "extend":
        if len(call.args) != 1 or call.keywords:
            return False
        helper, kwargs = containers.extend_value, {}
        more = lw.expr(lw.consumed(call.args[0]))  # its items, taken now (a generator's too)
        args = [lw.assign(ir.Prim(list, [more], spelling=lw.bound_name(list, "as_list")),
                          "more", node)]
    else:
        if len(call.args) > len(_SORT_POSITIONAL) or any(
                k.arg not in _SORT_KEYWORDS for k in call.keywords):
            return False  # order=, **kw: the method as written (refused where it matters)
        helper = containers.sort_value
        kwargs = {p: lw.expr(a) for p, a in zip(_SORT_POSITIONAL, call.args)}
        for k in call.keywords:
            if k.arg in kwargs:
                return False
            kwargs[k.arg] = lw.expr(k.value)
    name = func.value.id
    before = lw.env[name]
    prim = ir.Prim(helper, [before, *args], kwargs, spelling=callee_name(lw, helper,
                                                                          helper.__name__))
    after = lw.assign(prim, name, node)
    lw.env[name] = after
    lw.augmented[after.name] = before.name  # Python changes ys itself
    if before.name in lw.positional or before.name in lw.lists or before.name in lw.lists_made:
        lw.positional.add(after.name)  # still a list
    return True


def set_shape(lw, target, value, node):
    """``x.shape = s`` on a local name: ``x = np.reshape(x, s)``, read as a write into ``x``
    (Python changes the object itself: the alias analysis refuses it where another name, an
    argument or a global holds it, like ``x += v``). Whether it was."""
    if not (target.attr == "shape" and isinstance(target.value, gast.Name)
            and isinstance(lw.env.get(target.value.id), ir.Var)
            and target.value.id not in lw.classes):
        return False
    name = target.value.id
    before = lw.env[name]
    prim = ir.Prim(np.reshape, [before, value], spelling=callee_name(lw, np.reshape,
                                                                     "reshape"))
    after = lw.assign(prim, name, node)
    lw.env[name] = after
    lw.augmented[after.name] = before.name  # the array itself takes the new shape
    return True


#: list methods read as a new list (the helper making it, how many arguments it takes)
_LIST_METHODS = {"insert": (containers.insert_value, 2), "remove": (containers.remove_value, 1),
                 "clear": (containers.clear_value, 0), "pop": (containers.pop_value, 1)}


def _popped(lw, call, target, node):
    """``v = ys.pop(i)`` on a local name: ``v = ys[i]``, then ``ys.pop(i)`` read as the new
    list without the item (:func:`_in_place_copy`). Whether it was."""
    func = call.func
    if not (isinstance(func, gast.Attribute) and func.attr == "pop" and len(call.args) == 1
            and not call.keywords and isinstance(func.value, gast.Name)
            and func.value.id in lw.env and isinstance(lw.env[func.value.id], ir.Var)
            and func.value.id not in lw.classes and not isinstance(call.args[0], gast.Starred)):
        return False
    index = lw.expr(call.args[0])
    held = "\0popped_index"  # the index, lowered once, read by the subscript under this name
    lw.env[held] = index
    item = lw.expr(gast.copy_location(gast.Subscript(
        value=gast.Name(id=func.value.id, ctx=gast.Load(), annotation=None, type_comment=None),
        slice=gast.Name(id=held, ctx=gast.Load(), annotation=None, type_comment=None),
        ctx=gast.Load()), call))
    del lw.env[held]
    name = func.value.id
    before = lw.env[name]
    prim = ir.Prim(containers.pop_value, [before, index], spelling=callee_name(
        lw, containers.pop_value, "pop_value"))
    after = lw.assign(prim, name, node)
    lw.env[name] = after
    lw.augmented[after.name] = before.name
    if before.name in lw.positional or before.name in lw.lists or before.name in lw.lists_made:
        lw.positional.add(after.name)
    lw.bind_atom(target, item, node)
    return True


def _spelled(node):
    if isinstance(node, gast.Attribute):
        return _spelled(node.value)
    return node.id if isinstance(node, gast.Name) else "?"


def _numpy_name(lw, call):
    """How the user's code names NumPy in this call (``np`` in ``np.copyto``), or None."""
    root = call.func
    while isinstance(root, gast.Attribute):
        root = root.value
    if isinstance(root, gast.Name) and root.id not in lw.env:
        try:
            if lw.source.lookup(root.id) is np:
                return root.id
        except KeyError:
            return None
    return None


def _where(lw, mask_node, value, out, node, call):
    mask = lw.expr(mask_node)
    numpy = _numpy_name(lw, call)
    spelling = f"{numpy}.where" if numpy else callee_name(lw, np.where, "np_where")
    prim = ir.Prim(np.where, [mask, value, lw.env[out.id]], spelling=spelling)
    return lw.assign(prim, "merged", node)


def _is_none(node):
    return isinstance(node, gast.Constant) and node.value is None


def refuse_keywords(lw, call):
    """``out=`` / ``where=`` that :func:`rewrite_call` did not take: inside an expression."""
    for k in call.keywords:
        if k.arg == "out" and not _is_none(k.value):  # out=None writes nothing: the rule's
            raise _error(lw, call, "out= inside an expression",
                         "call it on a line of its own (np.f(x, out=y)), or write "
                         "y = np.f(x) / y[...] = np.f(x)")


#: methods that change their object (on a global or closure list, dict or array: refused)
IN_PLACE_METHODS = {"append", "extend", "insert", "pop", "remove", "reverse", "sort", "clear",
                    "fill", "resize", "put", "itemset", "partition", "update", "setdefault",
                    "popitem", "add", "discard", "__setitem__", "__delitem__", "__iadd__"}


def refuse_global_write(lw, node, spelling):
    raise _error(lw, node, f"this changes the global (or closure) value {spelling}",
                 "srcad does not change values outside the function: build the new value "
                 "in a local name (ys = list(GLOBAL_YS) / y = GLOBAL_Y.copy()) and return it")


def refuse_in_expression(lw, fn, call):
    """A call that writes into an argument, reached as an ordinary call: refused."""
    owner = getattr(fn, "__self__", None)
    if isinstance(owner, (list, dict, set, bytearray, np.ndarray)) and getattr(
        fn, "__name__", None
    ) in IN_PLACE_METHODS:
        refuse_global_write(lw, call, _spelled(call.func))
    try:
        hint = REFUSED.get(fn)
    except TypeError:
        hint = None
    if hint is not None:
        name = getattr(fn, "__name__", "it")
        raise _error(lw, call, f"np.{name} changes its argument in place", hint)
    if fn is np.copyto:
        raise _error(lw, call, "np.copyto used other than as a statement np.copyto(y, x)",
                     "write y[...] = x")
    if _is_ufunc_method(fn, "at"):
        raise _error(lw, call, f"np.{fn.__self__.__name__}.at changes its argument in place",
                     "np.add.at(y, i, x) on a line of its own is differentiated; otherwise "
                     "build the new array with y = y.copy(); y[i] = ... in a loop")
    if isinstance(fn, np.ufunc) and len(call.args) > fn.nin and not all(
            _is_none(a) for a in call.args[fn.nin:]):
        raise _error(lw, call, f"np.{fn.__name__} given its output array by position",
                     f"write y = np.{fn.__name__}(...) (or out=y, on a line of its own)")
    if isinstance(fn, np.ufunc) and any(k.arg == "where" and not (isinstance(
            k.value, gast.Constant) and k.value.value is True) for k in call.keywords):
        raise _error(lw, call, "where= without out=: NumPy leaves the unselected elements "
                     "uninitialised", f"write np.where(mask, np.{fn.__name__}(...), 0.0)")
