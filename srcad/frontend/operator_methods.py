"""Operators on objects of the user's classes: ``v * w``, ``2.0 * v``, ``-v``, ``v[i]``,
``len(v)`` where ``v`` is an object whose class srcad knows where it makes the code (an
argument: the code is made per class; a global or closure value).

Python runs ``a + b`` as ``type(a).__add__(a, b)`` and, when that is missing or gives
``NotImplemented``, ``type(b).__radd__(b, a)``; ``-a`` as ``type(a).__neg__(a)``; ``a[i]`` as
``type(a).__getitem__(a, i)``; ``len(a)`` as ``type(a).__len__(a)``. srcad lowers them so, as
method calls (``a.__add__(b)``: :meth:`srcad.frontend.lower_callees.Callees.method_call`),
whose code it differentiates like any method. Before, the operator was read as arithmetic
on numbers (``v * w`` differentiated as ``w`` scaled by ``v``): a wrong gradient.

Refused at the line (``UnsupportedSyntaxError``), rather than guessed: a class without the
method (Python's ``TypeError``, or a fallback srcad does not follow), a method whose code
mentions ``NotImplemented`` (Python would then try the other operand), a method that is not
a plain function of the user's, an operator both of whose operands are such objects of
different classes where the right one's class is a subclass (Python tries it first), and
``x op v`` with the object on the right unless ``x`` is a number when the code runs (an int
or float: Python's own ``__op__`` then gives ``NotImplemented``; an array would apply the
operator item by item, which srcad does not follow: checked when the code runs,
:func:`check_plain_number`), and ``v op= w`` on a class with ``__iop__`` (in place).

Imports gast, the standard library, :mod:`srcad.core`, :mod:`srcad.errors`,
:mod:`srcad.rules.registry` and :mod:`.lower_spread`.
"""

from __future__ import annotations

import inspect
import numbers

import gast

from ..core import functions, ir
from ..core.walk import walk_nodes
from ..errors import UnsupportedSyntaxError
from ..rules.registry import registry as _registry
from .lower_spread import Atom

_NAMES = {gast.Add: "add", gast.Sub: "sub", gast.Mult: "mul", gast.Div: "truediv",
          gast.FloorDiv: "floordiv", gast.Mod: "mod", gast.Pow: "pow", gast.MatMult: "matmul",
          gast.BitAnd: "and", gast.BitOr: "or", gast.BitXor: "xor", gast.LShift: "lshift",
          gast.RShift: "rshift"}
_SIGNS = {gast.Add: "+", gast.Sub: "-", gast.Mult: "*", gast.Div: "/", gast.FloorDiv: "//",
          gast.Mod: "%", gast.Pow: "**", gast.MatMult: "@", gast.BitAnd: "&", gast.BitOr: "|",
          gast.BitXor: "^", gast.LShift: "<<", gast.RShift: ">>"}
_UNARY = {gast.USub: ("__neg__", "-"), gast.UAdd: ("__pos__", "+"),
          gast.Invert: ("__invert__", "~")}


def class_of(lw, node):
    """The user's class of the object the expression ``node`` names (a name bound to an
    argument of a known class, a global or closure object), else None."""
    if not isinstance(node, gast.Name) or lw.generated:
        return None
    atom = lw.env.get(node.id)
    if atom is None and node.id not in lw.env:
        try:
            atom = lw.expr_Name(node)  # a global or closure value, read as a constant
        except Exception:  # noqa: BLE001 - not a value srcad knows here: not an object
            return None
    if isinstance(atom, ir.Var):
        cls = lw.classes.get(atom.name)
        return cls if cls is not None and _followed(cls) else None
    if isinstance(atom, ir.Const) and not isinstance(atom.value, type):
        cls = functions.user_instance_class(atom.value)
        return cls if cls is not None and _followed(cls) else None
    return None


def _followed(cls):
    return isinstance(cls, type) and functions.user_class(cls)


def _method(lw, cls, name):
    raw = lw.class_attribute(cls, name)
    return raw if inspect.isfunction(raw) else (False if raw is not None else None)


def _call(node, obj, name, args):
    func = gast.Attribute(value=obj, attr=name, ctx=gast.Load())
    call = gast.Call(func=func, args=list(args), keywords=[])
    for sub in walk_nodes(call):
        if not hasattr(sub, "lineno"):
            gast.copy_location(sub, node)
    return call


def _refuse(lw, node, what, hint):
    raise lw.error(node, what, hint=hint)


def _usable(lw, node, cls, name, sign):
    """The method ``name`` of ``cls`` if srcad can follow it, None if the class has none;
    refused if it has one srcad does not follow."""
    raw = _method(lw, cls, name)
    if raw is None:
        return None
    if raw is False or not functions.is_user_function(raw):
        _refuse(lw, node, f"'{sign}' on an object of your class {cls.__name__}, whose "
                f"{name} is not a plain function of yours", "call a method of yours "
                "instead, or compute on the values the object holds")
    try:
        text = inspect.getsource(raw)
    except (OSError, TypeError):
        text = "NotImplemented"
    if "NotImplemented" in text:
        _refuse(lw, node, f"'{sign}' on an object of your class {cls.__name__}, whose "
                f"{name} may give NotImplemented (Python then tries the other operand, "
                "which srcad does not follow)", f"call the method you mean: "
                f"{cls.__name__}.{name}(a, b), or compute on the values the object holds")
    return raw


def binop(lw, node):
    """The lowered value of ``node`` (a BinOp) when an operand is an object of a known
    class of the user's (a method call), else None."""
    op = type(node.op)
    if op not in _NAMES:
        return None
    left, right = class_of(lw, node.left), class_of(lw, node.right)
    if left is None and right is None:
        return None
    name, sign = _NAMES[op], _SIGNS[op]
    if getattr(node, "srcad_augmented", False) and left is not None and _method(
            lw, left, f"__i{name}__") is not None:
        _refuse(lw, node, f"'{sign}=' on an object of your class {left.__name__}, which has "
                f"__i{name}__ (it may change the object in place)",
                f"write v = v {sign} w if __{name}__ gives a new object, or call the method")
    if left is not None and right is not None and right is not left and issubclass(
            right, left) and _method(lw, right, f"__r{name}__") is not None:
        _refuse(lw, node, f"'{sign}' of objects of your classes {left.__name__} and "
                f"{right.__name__}, a subclass with __r{name}__ (Python tries it first)",
                f"call the method you mean: {right.__name__}.__r{name}__(b, a)")
    if left is not None and _usable(lw, node, left, f"__{name}__", sign) is not None:
        return lw.expr_value(_call(node, node.left, f"__{name}__", [node.right]))
    if right is not None and _usable(lw, node, right, f"__r{name}__", sign) is not None:
        if left is None:  # x op v: x's own operator must give NotImplemented: a number
            plain = isinstance(node.left, gast.Constant) and type(node.left.value) in (
                int, float)
            other = node.left
            if not plain:
                atom = lw.expr(node.left)  # (evaluated once, first, as Python does)
                other = Atom(atom)
                where = (sign, right.__name__, lw.source.filename, node.lineno,
                         lw.source.line_text(node.lineno))
                check = ir.Prim(check_plain_number, [atom, lw.bound_const(where, "where")],
                                spelling=lw.bound_name(check_plain_number,
                                                       "check_plain_number"))
                lw.emit(ir.Assign(None, check, node.lineno, effect=True))
        else:
            other = node.left
        return lw.expr_value(_call(node, node.right, f"__r{name}__", [other]))
    cls = left or right
    _refuse(lw, node, f"'{sign}' on an object of your class {cls.__name__}, which has no "
            f"__{name}__" + ("" if left is None else f" (nor __r{name}__ on the right)"),
            f"define {cls.__name__}.__{name}__, or compute on the values the object holds")
    return None


def unary(lw, node):
    """``-v``, ``+v``, ``~v`` of an object of a known class of the user's, else None."""
    if type(node.op) not in _UNARY:
        return None
    cls = class_of(lw, node.operand)
    if cls is None:
        return None
    name, sign = _UNARY[type(node.op)]
    if _usable(lw, node, cls, name, sign) is None:
        return None
    return lw.expr_value(_call(node, node.operand, name, []))


def subscript(lw, node):
    """``v[i]`` of an object of a known class of the user's, else None."""
    cls = class_of(lw, node.value)
    if cls is None or not isinstance(node.ctx, gast.Load):
        return None
    if _usable(lw, node, cls, "__getitem__", "[]") is None:
        return None  # (a named tuple's, a record's own reading: as before)
    index = node.slice
    if isinstance(index, gast.Slice):
        index = gast.Call(func=gast.Name(id="slice", ctx=gast.Load(), annotation=None,
                                         type_comment=None), args=[
            i if i is not None else gast.Constant(value=None, kind=None)
            for i in (index.lower, index.upper, index.step)], keywords=[])
    return lw.expr_value(_call(node, node.value, "__getitem__", [index]))


def length(lw, node):
    """``len(v)`` of an object of a known class of the user's, else None."""
    func = node.func
    if not (isinstance(func, gast.Name) and func.id == "len" and func.id not in lw.env) or \
            len(node.args) != 1 or node.keywords or class_of(lw, node.args[0]) is None:
        return None
    try:
        if lw.expr_Name(func) != ir.Const(len) and getattr(lw.expr_Name(func), "value",
                                                           None) is not len:
            return None
    except Exception:  # noqa: BLE001 - not the builtin
        return None
    cls = class_of(lw, node.args[0])
    if cls is None:
        return None
    if _usable(lw, node, cls, "__len__", "len") is None:
        return None
    return lw.expr_value(_call(node, node.args[0], "__len__", []))


def check_plain_number(value, where):
    """Raise :class:`UnsupportedSyntaxError` unless ``value`` is a Python int or float (or
    bool): ``value op v`` then runs ``v.__rop__(value)``, as srcad made it."""
    if type(value) in (int, float, bool):
        return
    sign, cls, filename, lineno, line = where
    what = "a NumPy number" if isinstance(value, numbers.Number) else (
        "an array" if hasattr(value, "shape") else f"a {type(value).__name__}")
    raise UnsupportedSyntaxError(
        f"'{sign}' with an object of your class {cls} on the right and {what} on the left "
        f"when the code ran: Python runs the left operand's own '{sign}' first (NumPy's "
        "applies it item by item), which srcad does not follow", filename=filename,
        lineno=lineno, construct=line, hint=f"put the object on the left, or convert: "
        f"float(x) {sign} v")


_registry.nondiff.add(check_plain_number)  # a check: no derivative
