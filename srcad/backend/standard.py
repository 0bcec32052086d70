"""The standard backend: code made for arrays of the array API standard without NumPy's
dispatch protocols (``array-api-strict``), written in the arrays' namespace.

The code NumPy's rules made reads NumPy as ``np`` and calls srcad's gradient helpers. Here,
on the tree, ``np`` becomes ``xp``, bound to a :class:`srcad.runtime.standard.Namespace`
over the arrays' namespace, and each helper is bound to its form in
:func:`srcad.runtime.standard_helpers.make_helpers`, so that the arrays never meet NumPy; a
callee's parts are made for the namespace too (``pipeline.STANDARD_CALLEES``). What the
backend has no form of is refused here, before anything runs, with a
:class:`srcad.BackendError` naming the backend, the NumPy name or helper, and the user's line
whose derivative needs it (from the ``# line N:`` comment above the statement):

* a NumPy name the namespace object lacks (``np.cumprod``, written by ``np.prod``'s rule);
* a helper with no standard form (``grad_tensordot_b``, ``added_at``);
* a method of an array other than those of lists (``append``, ``pop``), or an attribute of
  NumPy's arrays other than ``.T``, ``.mT``, ``.shape``, ``.ndim``, ``.size``, ``.dtype``
  (``x.astype``, ``x.real``: the standard has none);
* a function the code calls that is none of these and was not made for the namespace (a
  function or module of the user's, a method of a global object): its code is NumPy code.

:func:`check_code` refuses the arrays for code that reads the NumPy module.

Imports the standard library, NumPy, :mod:`srcad.core.kinds`, :mod:`srcad.errors`,
:mod:`srcad.runtime` (``arrays``, ``standard``, ``standard_helpers``) and
:mod:`srcad.transform.nodes`.
"""

from __future__ import annotations

import ast
import math
import types

import numpy as np

from ..core.functions import is_derivative
from ..core.kinds import foreign_array
from ..core.walk import walk_nodes
from ..errors import BackendError
from ..runtime import arrays, standard, standard_helpers
from ..transform.nodes import Comment
from . import emit

#: the attributes and methods of an array the backend's code may read (``append`` and ``pop``:
#: of the lists a loop's values are saved on; ``x.copy()`` is written ``xp.copy(x)``)
ATTRIBUTES = frozenset({"T", "mT", "shape", "ndim", "size", "dtype", "append", "pop"})
#: Python's builtins generated code may call on the namespace's arrays and numbers
BUILTINS = frozenset({"len", "range", "slice", "tuple", "list", "reversed", "zip", "float",
                      "int", "bool", "abs", "min", "max", "isinstance", "enumerate", "sum",
                      "Ellipsis", "None", "True", "False", "type"})


#: functions of ``math`` the templates write for numbers, as NumPy's names (on the namespace's
#: arrays an item ``x[0]`` or a reduction is a 0-d array, which ``math`` would convert)
MATH = {"sin": "sin", "cos": "cos", "tan": "tan", "asin": "arcsin", "acos": "arccos",
        "atan": "arctan", "sinh": "sinh", "cosh": "cosh", "tanh": "tanh", "asinh": "arcsinh",
        "acosh": "arccosh", "atanh": "arctanh", "exp": "exp", "expm1": "expm1", "log2": "log2",
        "log10": "log10", "log1p": "log1p", "sqrt": "sqrt", "fabs": "abs", "atan2": "arctan2",
        "hypot": "hypot"}
_MATH_CONSTANTS = ("pi", "e", "inf", "nan", "tau")


def write(fdef, func, fn, space, spelled, helpers, namer, cells):
    """``fdef`` written in the namespace ``space`` (:func:`for_standard_arrays`); ``cells``
    gains those it reads. The NumPy code it was written from is kept on it, for
    :func:`keep_numpy_form`."""
    visible = dict(func.__globals__)
    visible.update(fn.source.closure)
    numpy = (_copy(fdef), set(helpers), dict(cells), space)
    fdef, made = for_standard_arrays(fdef, func, space, spelled, helpers, namer.fresh,
                                     visible, cells)
    cells.update(made)
    fdef.srcad_numpy_form = numpy
    return fdef


def keep_numpy_form(compiled, fdef, func, spelled, where, defaults, kwdefaults):
    """For ``compiled``, compiled from ``fdef`` (:func:`write`'s), the NumPy code ``fdef``
    was written from, compiled when first asked for (:func:`numpy_form`): what srcad
    differentiates when it differentiates ``compiled`` again (second order, a Jacobian of a
    gradient), writing that derivative in the namespace in turn."""
    kept = getattr(fdef, "srcad_numpy_form", None)
    if kept is None:
        return
    made = []

    def make():
        if not made:
            tree, helpers, cells, space = kept
            twin = emit.compile_function(tree, func, set(helpers), spelled,
                                         f"{where} (its NumPy form)", defaults, kwdefaults,
                                         cells)
            twin.__srcad_numpy_of__ = space
            twin.__srcad_param_kinds__ = getattr(compiled, "__srcad_param_kinds__", None)
            made.append(twin)
        return made[0]

    compiled.__srcad_numpy_form__ = make


def _copy(tree):
    """A copy of ``tree`` with its nodes' positions and comments' lines."""
    if isinstance(tree, list):
        return [_copy(item) for item in tree]
    if not isinstance(tree, ast.AST) or not tree._fields and not tree._attributes:
        return tree
    new = tree.__class__.__new__(tree.__class__)
    for field in tree._fields + tree._attributes + ("line",):
        if hasattr(tree, field):
            setattr(new, field, _copy(getattr(tree, field)))
    return new


def numpy_form(code):
    """The NumPy code ``code`` (made for arrays of the standard) was written from, else
    ``code`` itself."""
    make = getattr(code, "__srcad_numpy_form__", None)
    return code if make is None else make()


def for_standard_arrays(fdef, func, namespace, spelled, helpers, fresh, visible, known=None):
    """``(fdef, cells)``: ``fdef`` written for arrays of ``namespace`` (see above);
    ``helpers`` (the helper names the code reads) loses those bound here as cells;
    ``known``: the cells the code reads already, by name (a callee's parts, made for the
    namespace too when they are: ``__srcad_space__``)."""
    ns = standard.Namespace(namespace)
    forms = standard_helpers.make_helpers(ns)
    np_name = spelled.get("np", "np")
    fdef = _Math(spelled.get("math", "math"), np_name).visit(fdef)
    fdef = _Copies(np_name).visit(fdef)
    by_spelling = {spelled.get(h, h): h for h in helpers}
    xp = fresh("xp")
    cells = {xp: types.CellType(ns)}
    local = {a.arg for a in walk_nodes(fdef.args) if isinstance(a, ast.arg)}
    local |= {n.id for n in walk_nodes(fdef) if isinstance(n, ast.Name)
              and not isinstance(n.ctx, ast.Load)}
    place = _Place(func, namespace)
    known = known or {}
    for stmt, line in _statements(fdef):
        place.line = line
        called = {id(n.func) for n in walk_nodes(stmt) if isinstance(n, ast.Call)}
        for node in walk_nodes(stmt):
            if isinstance(node, ast.Attribute):
                path, root = _dotted(node)
                if root is not None and root.id == np_name and root.id not in local:
                    if not standard.answers(ns, path):
                        raise place.error(f"np.{path}", "the array API standard has no "
                                          "such function, or the backend no form of it")
                elif root is None or root.id in local:
                    # a method, or an attribute NumPy's arrays have (x.real): not the
                    # standard's; another object's attribute (self.scale) is read as it is
                    if node.attr not in ATTRIBUTES and (id(node) in called or hasattr(
                            np.ndarray, node.attr)):
                        raise place.error(f".{node.attr}", "arrays of the standard have no "
                                          "such method or attribute")
                elif callable(_value(root.id, path, visible)):
                    raise place.error(f"{root.id}.{path}", "a function or method of a value "
                                      "the code reads: its code is not the namespace's")
            elif isinstance(node, ast.Name) and isinstance(node.ctx, ast.Load) and \
                    node.id not in local and node.id != np_name:
                helper = by_spelling.get(node.id) or _helper_of(visible.get(node.id))
                if helper is not None and helper in forms:
                    cells[node.id] = types.CellType(forms[helper])
                elif helper is not None:
                    raise place.error(node.id, "the backend has no form of this helper (its "
                                      "code is NumPy code)")
                elif not _plain(node.id, visible) and not _any_namespace(
                        node.id, visible, known) and not _made_for(
                        known.get(node.id), namespace) and not _derivative(
                        known.get(node.id), visible.get(node.id)):
                    raise place.error(node.id, "the standard backend writes one function in "
                                      "the namespace, and this is another (a part of a "
                                      "function of yours srcad made, a function or module "
                                      "the code reads): its code is NumPy code; write the "
                                      "callee's body into the function")
    for node in walk_nodes(fdef):
        if isinstance(node, ast.Name) and node.id == np_name and node.id not in local:
            node.id = xp
        elif isinstance(node, ast.BinOp):  # NumPy's bools count as 0 and 1, the standard's not
            node.left, node.right = _number(node.left, xp), _number(node.right, xp)
        elif isinstance(node, ast.UnaryOp) and not isinstance(node.op, ast.Not):
            node.operand = _number(node.operand, xp)
    for spelling in list(cells):
        helpers.discard(by_spelling.get(spelling))
    helpers.discard("np")
    return fdef, cells


class _Math(ast.NodeTransformer):
    """``math.cos(v)`` as ``np.cos(v)`` (:data:`MATH`), ``math.pi`` as its number; ``log``
    with one argument only (``math.log(x, base)`` is left, and refused)."""

    def __init__(self, math_name, np_name):
        self.math_name, self.np_name = math_name, np_name

    def visit_Call(self, node):
        self.generic_visit(node)
        func = node.func
        if _is_math(func, self.math_name) and func.attr == "log" and len(node.args) == 1 \
                and not node.keywords:
            func.value.id, func.attr = self.np_name, "log"
        return node

    def visit_Attribute(self, node):
        if not _is_math(node, self.math_name):
            return self.generic_visit(node)
        if node.attr in _MATH_CONSTANTS:
            return ast.copy_location(ast.Constant(getattr(math, node.attr)), node)
        if node.attr in MATH:
            node.value.id, node.attr = self.np_name, MATH[node.attr]
        return node


class _Copies(ast.NodeTransformer):
    """``x.copy()`` as ``np.copy(x)`` (the namespace's arrays have no method)."""

    def __init__(self, np_name):
        self.np_name = np_name

    def visit_Call(self, node):
        self.generic_visit(node)
        func = node.func
        if isinstance(func, ast.Attribute) and func.attr == "copy" and not node.args \
                and not node.keywords:
            return ast.copy_location(ast.Call(
                func=ast.Attribute(value=ast.Name(id=self.np_name, ctx=ast.Load()),
                                   attr="copy", ctx=ast.Load()),
                args=[func.value], keywords=[]), node)
        return node


def _is_math(node, math_name):
    return isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and \
        node.value.id == math_name


def _number(node, xp):
    """A comparison in arithmetic as ``xp.number(...)``: its booleans as 0.0 and 1.0."""
    if not isinstance(node, ast.Compare):
        return node
    return ast.Call(func=ast.Attribute(value=ast.Name(id=xp, ctx=ast.Load()), attr="number",
                                       ctx=ast.Load()), args=[node], keywords=[])


def _statements(fdef):
    """Every simple statement of ``fdef`` with the user's line it belongs to (or None)."""
    line = None

    def walk(body):
        nonlocal line
        for stmt in body:
            if isinstance(stmt, Comment):
                if stmt.line is not None:
                    line = (stmt.line, stmt.text.partition(":")[2].strip())
                continue
            nested = [getattr(stmt, f) for f in ("body", "orelse", "finalbody")
                      if isinstance(getattr(stmt, f, None), list)]
            if nested:
                head = [getattr(stmt, f) for f in ("test", "iter", "target")
                        if getattr(stmt, f, None) is not None]
                for h in head:
                    yield h, line
                for block in nested:
                    yield from walk(block)
            else:
                yield stmt, line

    yield from walk(fdef.body)


def _dotted(node):
    """``("linalg.det", root Name)`` for ``np.linalg.det``; ``(attr, None)`` otherwise."""
    parts = []
    while isinstance(node, ast.Attribute):
        parts.append(node.attr)
        node = node.value
    return ".".join(reversed(parts)), node if isinstance(node, ast.Name) else None


def _made_for(cell, namespace):
    """Whether ``cell`` holds a function srcad made for arrays of ``namespace`` (a callee's
    forward or backward part, its tangent code)."""
    try:
        return getattr(cell.cell_contents, "__srcad_space__", None) is namespace
    except (AttributeError, ValueError):  # no cell, or an empty one (a recursive call)
        return False


def _helper_of(value):
    """The name of the helper ``value`` is, if it is one: the code differentiated again (the
    NumPy form of code written for the namespace) calls its helpers, read from its cells."""
    if value is None or isinstance(value, types.ModuleType):
        return None
    return _HELPER_NAMES.get(id(value))


_HELPER_NAMES = {id(obj): name for name, obj in emit.HELPER_OBJECTS.items()}


def _derivative(cell, value):
    """Whether the cell or value is a derivative srcad made (``srcad.grad(f)`` called in the
    code): the code it runs, and its derivative, are made for the arrays it is given."""
    try:
        value = cell.cell_contents if cell is not None else value
    except ValueError:
        return False
    return is_derivative(value)


def _value(name, path, visible):
    """What ``name.path`` names in the user's globals and closure (None if unknown)."""
    value = visible.get(name)
    for part in path.split("."):
        value = getattr(value, part, None)
    return value


def _any_namespace(name, visible, known):
    """Whether a free name of the code is, in a cell srcad made, a function reading only
    Python types, which runs as it is in any namespace (``any_namespace``: srcad's operand
    check), or a value that is no function or module (where that check reports)."""
    cell = known.get(name)
    if not isinstance(cell, types.CellType):
        return False
    try:
        value = cell.cell_contents
    except ValueError:  # an empty cell
        return False
    return getattr(value, "any_namespace", False) is True or not callable(
        value) and not isinstance(value, types.ModuleType)


def _plain(name, visible):
    """Whether a free name of the code is a Python builtin it may call, or a user's value
    that is no function or module (a number, a tuple of numbers)."""
    if name in visible:
        value = visible[name]
        return not callable(value) and not isinstance(value, types.ModuleType)
    return name in BUILTINS


class _Place:
    def __init__(self, func, namespace):
        self.func, self.namespace, self.line = func, namespace, None

    def error(self, what, why):
        code = self.func.__code__
        lineno, text = self.line if self.line else (code.co_firstlineno, None)
        return BackendError(
            f"the standard backend (code for {self.namespace.__name__} arrays, written in "
            f"their array API namespace) cannot run {what}: {why}",
            filename=code.co_filename, lineno=lineno,
            construct=f"{text}  (its derivative needs {what})" if text else what,
            hint="write that line with the functions srcad.rules.array_api lists, or pass "
            "NumPy arrays (np.from_dlpack(x)) and convert the gradient back (xp.asarray(g))")


def check_code(fn, func, space, params):
    """Refuse arrays of the array API standard (``space``: their namespace) given to code
    that reads the NumPy module (its calls would convert them); code that reads their
    namespace, or neither (operators, ``math``), takes them."""
    if space is None or getattr(func, "__srcad_numpy_of__", None) is space:
        return  # (the NumPy form of code srcad wrote for them: written for them again)
    lines = getattr(fn.source, "numpy_lines", None)
    if lines == []:
        return
    value = next(v for v in params.values() if foreign_array(v)) if isinstance(
        params, dict) and any(map(foreign_array, params.values())) else None
    what = "an argument" if value is None else "the argument"
    error = arrays.refuse_foreign(value if value is not None else space.asarray(0.0), what,
                                  func.__code__)
    if lines:
        error.lineno = lines[0]
        error.construct = fn.source.line_text(lines[0])
        error.message += "; the function reads NumPy here"
    error.hint += ("; or write the function with the arrays' namespace, not NumPy "
                   "(xp = array_namespace(x); xp.sum(...): see srcad.rules.array_api)")
    error.args = (error._format(),)
    raise error
