"""Number literals meeting float64 arrays in arithmetic, written as float64 constants.

NumPy 2 converts a Python number at every operation it meets an array in (``1.0 - a``: a
weak scalar, whose dtype is worked out anew each time): on a small array that costs about
half the operation (0.8 µs against 0.45 for ``one - a``, ``one`` a 0-d float64 array: a
sigmoid of 7 floats). Where the array is certainly of float64 and of rank 1 or more
(:func:`srcad.analysis.doubles.double_arrays`: a fact of the code's specialisation, never a
test when it runs), the literal's value as a float64 0-d array changes nothing of the
result: ``one - a`` is float64 as ``1.0 - a`` is, and each element is computed alike (the
literal converted to float64 first, in both). Anywhere else (numbers, float32, integers,
complex values, arrays the analysis does not know) the literal stays as written: a 0-d
float64 array would widen a float32 array's result, and is slower than a Python number with
a NumPy number.

The constants are few, named for their values
(:data:`srcad.runtime.float_constants.CONSTANTS`: ``one``, ``two``, ``half``), and bound as
srcad's helpers are (one shared read-only array each); a literal of another value stays as
written. The pass reads the tree after tidying, for the Python
backend's NumPy code only (:func:`write`); the text of a function reading them says what
they are on its first line (:func:`headed`):

    def lstm_cell_fwd(weight, bias, hidden, cell, inp):
        # one = 1.0 (a float64 constant: a read-only 0-d array)
        ...
        forget = one / (one + np.exp(-x))

Imports ``ast``, ``srcad.runtime.float_constants`` and ``srcad.transform.nodes`` (the
comment node).
"""

from __future__ import annotations

import ast
import copy

from ..runtime.float_constants import CONSTANTS
from ..transform.nodes import Comment

_NAMED = {1.0: "one", 2.0: "two", 0.5: "half"}
_ARITH = (ast.Add, ast.Sub, ast.Mult, ast.Div)
#: NumPy's functions of one float64 array giving a float64 array of its shape
_UNARY = frozenset({"exp", "log", "tanh", "sinh", "cosh", "sin", "cos", "tan", "sqrt",
                    "expm1", "log1p", "arctan", "square", "abs", "absolute", "negative"})


def write(fdef, arrays, spelled, helpers):
    """Write the constants into ``fdef`` (a function's tree) where a literal of their value
    (an int or a float) is an operand of ``+ - * /`` whose other operand is certainly a
    float64 array of rank 1 or more: a name in ``arrays``, or arithmetic or a NumPy function
    of one (:func:`_double`); ``helpers`` (a set) takes the constants written."""
    if not arrays:
        return fdef
    numpy = spelled.get("np", "np")
    for node in ast.walk(fdef):
        if node.__class__ is not ast.BinOp or not isinstance(node.op, _ARITH):
            continue
        for side, other in (("left", node.right), ("right", node.left)):
            named = _name_of(getattr(node, side))
            if named == "one" and (node.op.__class__ is ast.Mult or side == "right"):
                continue  # (x * 1.0: srcad's copy of an array, left as it reads)
            if named is not None and _double(other, arrays, numpy):
                setattr(node, side, ast.Name(id=spelled.get(named, named), ctx=ast.Load()))
                helpers.add(named)
    return fdef


def _name_of(node):
    if node.__class__ is not ast.Constant or type(node.value) not in (int, float):
        return None
    return _NAMED.get(node.value)


def _double(node, arrays, numpy, depth=0):
    """Whether ``node`` certainly gives a float64 array of rank 1 or more."""
    if depth > 32:
        return False
    cls = node.__class__
    if cls is ast.Name:
        return node.id in arrays
    if cls is ast.UnaryOp:
        return isinstance(node.op, (ast.USub, ast.UAdd)) and _double(
            node.operand, arrays, numpy, depth + 1)
    if cls is ast.BinOp:
        if not isinstance(node.op, (*_ARITH, ast.Pow)):
            return False
        sides = (node.left, node.right)
        return any(_double(s, arrays, numpy, depth + 1) for s in sides) and all(
            _weak(s) or _double(s, arrays, numpy, depth + 1) for s in sides)
    if cls is ast.Call:
        f = node.func
        return (f.__class__ is ast.Attribute and f.value.__class__ is ast.Name
                and f.value.id == numpy and f.attr in _UNARY and len(node.args) == 1
                and not node.keywords and _double(node.args[0], arrays, numpy, depth + 1))
    return False


def _weak(node):
    """A Python int or float literal (NumPy's weak scalars: they keep an array's dtype)."""
    return node.__class__ is ast.Constant and type(node.value) in (int, float)


def headed(fdef, helpers, spelled):
    """``fdef`` with a first line saying what the constants it reads are, if it reads any
    (a comment: they are bound as srcad's helpers are, :mod:`srcad.backend.emit`)."""
    used = [h for h in CONSTANTS if h in helpers]
    if not used:
        return fdef
    names = {n.id for n in ast.walk(fdef) if n.__class__ is ast.Name}
    used = [(spelled.get(h, h), float(CONSTANTS[h])) for h in used
            if spelled.get(h, h) in names]
    if not used:
        return fdef
    said = ", ".join(f"{n} = {v!r}" for n, v in used)
    kind = "a float64 constant: a read-only 0-d array" if len(used) == 1 else (
        "float64 constants: read-only 0-d arrays")
    out = copy.copy(fdef)
    out.body = [Comment(f"{said} ({kind})"), *fdef.body]
    return out
