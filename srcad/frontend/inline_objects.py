"""Objects built and used in one expression (issue 16): ``np.sum(Gaussian(mu, s).logpdf(x))``.

An object of a class srcad reads field by field (a record class, or a plain class
:mod:`.plain_classes` follows) built inside a statement and used there at once, as the
object of a method or property (``C(a).m(x)``, ``C(a).total``) or called (``C(a)(x)``), is
given a name of its own just before the statement, ``gaussian = Gaussian(mu, s)``, then
``return np.sum(gaussian.logpdf(x))``, so :mod:`.lower_records` reads it like any object built
in the function. Only when that changes nothing: the statement is an assignment, an
augmented assignment to a name, a ``return`` or an expression statement; the way down to the
object passes only through calls, attributes, items, arithmetic, comparisons, tuples and
keywords (not a branch of ``and``/``or``/``if``-``else``, a comprehension or a lambda, which
may not run it); and everything Python evaluates in the statement before the object's
construction reads names, constants, attributes of modules and items, with arithmetic (no
call but of a NumPy or ``math`` function given no function and no ``out=``, which runs no
code of the user's; no attribute of an object, which may be a property), so moving the
construction first runs everything in the order it did.

Imports gast, NumPy (what a ufunc is), :mod:`.built_records` and :mod:`.plain_classes`.
"""

from __future__ import annotations

import types

import gast
import numpy as np

from ..core.walk import walk_nodes
from . import plain_classes
from .built_records import record_fields, resolve_any

#: nodes the way down may pass, with their children in the order Python evaluates them
_ORDER = {gast.Call: ("func", "args", "keywords"), gast.Attribute: ("value",),
          gast.Subscript: ("value", "slice"), gast.BinOp: ("left", "right"),
          gast.UnaryOp: ("operand",), gast.Compare: ("left", "comparators"),
          gast.Tuple: ("elts",), gast.List: ("elts",), gast.keyword: ("value",)}
_PURE = (gast.Name, gast.Constant, gast.Attribute, gast.Subscript, gast.Slice, gast.BinOp,
         gast.UnaryOp, gast.Tuple, gast.operator, gast.unaryop, gast.expr_context,
         gast.Compare, gast.cmpop)


def _pure(node):
    return all(isinstance(n, _PURE) for n in walk_nodes(node))


def _name(id_, ctx):
    return gast.Name(id=id_, ctx=ctx, annotation=None, type_comment=None)


def prepare(src, fdef):
    """Name the objects built and used at once in ``fdef``'s statements (see above)."""
    from .passed_calls import bound_names

    local = bound_names(fdef)
    taken = {n.id for n in walk_nodes(fdef) if isinstance(n, gast.Name)}
    for node in _own_nodes(fdef):
        for field in ("body", "orelse", "finalbody"):
            body = getattr(node, field, None)
            if isinstance(body, list) and body and isinstance(body[0], gast.stmt):
                setattr(node, field, [new for stmt in body for new in _named(
                    src, stmt, local, taken)])


def _own_nodes(fdef):
    """The nodes of ``fdef``'s own body, not of the functions or classes defined in it."""
    out, todo = [], [fdef]
    while todo:
        node = todo.pop()
        out.append(node)
        todo.extend(c for c in gast.iter_child_nodes(node) if not isinstance(
            c, (gast.FunctionDef, gast.AsyncFunctionDef, gast.Lambda, gast.ClassDef)))
    return out


def _start(stmt):
    """The expression of ``stmt`` evaluated first that may hold an object, else None."""
    if isinstance(stmt, (gast.Return, gast.Expr)) and stmt.value is not None:
        return stmt.value
    if isinstance(stmt, gast.Assign) and all(isinstance(t, gast.Name) for t in stmt.targets):
        return stmt.value
    if isinstance(stmt, gast.AugAssign) and isinstance(stmt.target, gast.Name):
        return stmt.value
    return None


def _named(src, stmt, local, taken):
    root = _start(stmt)
    if root is None:
        return [stmt]
    out = []
    while True:
        found = _first_object(src, root, local)
        if found is None:
            break
        holder, field, index, call = found
        cls = resolve_any(src, call.func, local)
        new = cls.__name__.lower() if cls.__name__.isidentifier() else "obj"
        while new in taken:
            new += "_"
        taken.add(new)
        out.append(gast.copy_location(gast.Assign(
            targets=[gast.copy_location(_name(new, gast.Store()), call)], value=call,
            type_comment=None), stmt))
        use = gast.copy_location(_name(new, gast.Load()), call)
        if index is None:
            setattr(holder, field, use)
        else:
            getattr(holder, field)[index] = use
    return out + [stmt]


def evaluated_first(src, stmt, wanted, local):
    """Whether, of ``stmt`` (an assignment to names, an augmented assignment to a name, a
    ``return`` or an expression statement), Python evaluates ``wanted`` (a node of it)
    before anything that may run code (see above), so that it may run just before the
    statement instead."""
    root = _start(stmt)
    return root is not None and _first_object(
        src, root, local, lambda node, *_: node is wanted) is not None


def _first_object(src, root, local, wanted=None):
    """``(holder, field, index, call)`` of the first object built and used at once in
    ``root`` that may be named (see above; ``wanted(node, holder, field)`` instead: the first
    node it accepts), else None."""
    wanted = wanted or (lambda node, holder, field: _object_used_at_once(
        src, node, holder, field, local))

    def visit(node, holder, field, index):
        """Returns the found tuple, False to stop (something impure ran), or None."""
        if wanted(node, holder, field):
            return holder, field, index, node
        if type(node) not in _ORDER:
            return None if _pure(node) else False
        for name in _ORDER[type(node)]:
            child = getattr(node, name)
            items = child if isinstance(child, list) else [child]
            for k, item in enumerate(items):
                if item is None:
                    continue
                found = visit(item, node, name, k if isinstance(child, list) else None)
                if found is not None:
                    return found
        return False if isinstance(node, gast.Call) and not _numeric_call(src, node, local) \
            or _may_run_code(src, node, local) else None

    found = visit(root, None, None, None)
    return found or None


#: NumPy functions that call a function they are given
_HIGHER = frozenset({"vectorize", "apply_along_axis", "apply_over_axes", "frompyfunc",
                     "piecewise", "fromfunction"})


def _numeric_call(src, node, local):
    """Whether the call ``node`` is of a NumPy or ``math`` function (a ufunc included) that
    runs no code of the user's and changes nothing (no function given to it, no ``out=``, no
    ``*``/``**``), so that moving an evaluation before it changes nothing (outside24)."""
    if any(isinstance(a, (gast.Starred, gast.Lambda)) for a in node.args) or any(
            k.arg in (None, "out") for k in node.keywords):
        return False
    fn = resolve_any(src, node.func, local)
    module = getattr(fn, "__module__", None) or ""
    return (isinstance(fn, np.ufunc) or module == "math" or module.split(".")[0] == "numpy"
            and getattr(fn, "__name__", "") not in _HIGHER) and not any(
        callable(resolve_any(src, a, local)) for a in node.args
        if isinstance(a, (gast.Name, gast.Attribute)))


def _may_run_code(src, node, local):
    """Whether reading the attribute ``node`` may run code of the user's (a property): an
    attribute of something other than a module (a chain of module attributes) or than a
    plain class whose attribute is a function or a static method (``Model.predict``)."""
    if not isinstance(node, gast.Attribute):
        return False
    if isinstance(node.value, gast.Name):  # Model.static: a function read on a class
        cls = resolve_any(src, node.value, local)
        if type(cls) is type:
            import inspect

            try:
                found = inspect.getattr_static(cls, node.attr)
            except AttributeError:
                found = None
            if isinstance(found, (types.FunctionType, staticmethod)):
                return False
    base = node.value
    while isinstance(base, gast.Attribute):
        base = base.value
    return not isinstance(base, gast.Name) or not isinstance(
        resolve_any(src, base, local), types.ModuleType)


def _object_used_at_once(src, node, holder, field, local):
    """Whether ``node`` builds an object of a followed class and ``holder`` uses it at once
    (its attribute, or called)."""
    if not isinstance(node, gast.Call) or holder is None:
        return False
    used = isinstance(holder, gast.Attribute) and field == "value" or \
        isinstance(holder, gast.Call) and field == "func"
    if not used:
        return False
    cls = resolve_any(src, node.func, local)
    return isinstance(cls, type) and (record_fields(cls) is not None or isinstance(
        plain_classes.describe(cls), plain_classes.Plain) and plain_classes.user_class(cls))
