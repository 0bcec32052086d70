"""Array API namespace code read as NumPy code (a pass on the parsed tree, before desugaring).

Code written for the array API standard takes its functions from the arrays' namespace::

    xp = array_namespace(w, X)          # array_api_compat.array_namespace, or
    xp = X.__array_namespace__()        # the array's own method
    return xp.sum(xp.tanh(X @ w))

After this pass, such a statement (a plain assignment at the top level of the body, the
name assigned nowhere else) is gone, and every ``xp.f`` reads NumPy's function for ``f``
(:data:`srcad.rules.array_api.NAMES`: ``xp.pow`` is ``np.power``), spelled ``np.f``, so
that NumPy's rules differentiate it; the standard backend (:mod:`srcad.backend.standard`)
writes the generated code back in the namespace of the arrays it is made for. A use of the
namespace other than ``xp.f`` (passed on, rebound, assigned in a branch), and a standard
function with no NumPy form in the table, are refused at the user's line. The source
records what was found (``src.namespaces``: the namespace names; ``src.numpy_lines``: the
lines that read NumPy directly), so that strict arrays are taken only by code that reads
no NumPy module (:func:`srcad.backend.standard.check_code`, :func:`standard_code`).

Imports gast, NumPy, :mod:`srcad.errors` and :mod:`srcad.rules.array_api`.
"""

from __future__ import annotations

import sys
import weakref

import gast
import numpy as np

from ..core.walk import walk_nodes
from ..errors import MissingRuleError, UnsupportedSyntaxError
from ..rules import array_api


def lower(src):
    """Rewrite ``src.node`` (a :class:`srcad.frontend.source.Source`) in place, see above."""
    fdef = src.node
    spaces = {}
    for stmt in list(fdef.body):
        name = _namespace_assignment(src, stmt)
        if name is not None:
            spaces[name] = stmt
    src.namespaces = tuple(spaces)
    src.numpy_lines = _numpy_lines(src, fdef, set(spaces))
    if not spaces:
        return
    if not _numpy_name_free(src):
        raise UnsupportedSyntaxError(
            f"the name 'np' of {fdef.name}'s module is not NumPy; srcad reads the array "
            "namespace's functions as NumPy's, spelled np",
            filename=src.filename, lineno=src.first_line,
            hint="bind np to NumPy in the module (import numpy as np), or rename the other np")
    if "np" not in src.globals:
        src.closure.setdefault("np", np)
    fdef.body = [s for s in fdef.body if not any(s is a for a in spaces.values())]
    _Rewrite(src, set(spaces)).visit(fdef)


def _namespace_assignment(src, stmt):
    """The name ``stmt`` binds to an array namespace (``xp = array_namespace(...)``), or None."""
    if not (isinstance(stmt, gast.Assign) and len(stmt.targets) == 1
            and isinstance(stmt.targets[0], gast.Name) and isinstance(stmt.value, gast.Call)):
        return None
    call = stmt.value
    if isinstance(call.func, gast.Attribute) and call.func.attr == "__array_namespace__" \
            and not call.args and not call.keywords:
        return stmt.targets[0].id
    compat = sys.modules.get("array_api_compat")
    if compat is None or not isinstance(call.func, (gast.Name, gast.Attribute)):
        return None
    try:
        fn = _resolve(src, call.func)
    except (KeyError, AttributeError):
        return None
    if fn is getattr(compat, "array_namespace", None) or fn is getattr(compat, "get_namespace",
                                                                      None):
        return stmt.targets[0].id
    return None


def _resolve(src, node):
    if isinstance(node, gast.Name):
        return src.lookup(node.id)
    if isinstance(node, gast.Attribute):
        return getattr(_resolve(src, node.value), node.attr)
    raise KeyError(node)


def _numpy_name_free(src):
    value = src.closure.get("np", src.globals.get("np", np))
    return value is np


def _numpy_lines(src, fdef, spaces):
    """The lines where ``fdef`` reads the NumPy module by a free name (``np.sum``)."""
    own = {n.id for n in walk_nodes(fdef) if isinstance(n, gast.Name)
           and not isinstance(n.ctx, gast.Load)} | spaces
    own |= {a.id for a in walk_nodes(fdef.args) if isinstance(a, gast.Name)}
    numbers = {id(n.value) for n in walk_nodes(fdef) if isinstance(n, gast.Attribute)
               and isinstance(n.value, gast.Name) and isinstance(getattr(np, n.attr, None), float)}
    lines = []  # (np.pi, np.inf: Python numbers, not NumPy calls)
    for node in walk_nodes(fdef):
        if isinstance(node, gast.Name) and isinstance(node.ctx, gast.Load) and node.id not in own \
                and id(node) not in numbers:
            value = src.closure.get(node.id, src.globals.get(node.id))
            if value is np or type(value).__name__ == "module" and str(getattr(
                    value, "__name__", "")).split(".")[0] == "numpy":  # (not obj.__getattr__)
                lines.append(getattr(node, "lineno", None))
    return sorted({n for n in lines if n is not None})


class _Rewrite(gast.NodeTransformer):
    def __init__(self, src, spaces):
        self.src, self.spaces = src, spaces

    def error(self, node, message, hint, cls=UnsupportedSyntaxError):
        line = getattr(node, "lineno", None)
        return cls(message, filename=self.src.filename, lineno=line,
                   construct=self.src.line_text(line), hint=hint)

    def visit_Attribute(self, node):
        inner = node.value
        if isinstance(inner, gast.Name) and inner.id in self.spaces:
            return self.numpy(node, inner.id, node.attr, linalg=False)
        if isinstance(inner, gast.Attribute) and inner.attr == "linalg" and isinstance(
                inner.value, gast.Name) and inner.value.id in self.spaces:
            return self.numpy(node, inner.value.id, node.attr, linalg=True)
        self.generic_visit(node)
        return node

    def numpy(self, node, space, name, linalg):
        written = f"{space}.{'linalg.' if linalg else ''}{name}"
        if not isinstance(node.ctx, gast.Load):
            raise self.error(node, f"a write to {written}", "leave the namespace as it is")
        form = array_api.numpy_form(name, linalg)
        if form is None:
            hint = array_api.REFUSED.get(name) or (
                "write it with the functions srcad reads from the namespace "
                "(srcad.rules.array_api), or give it a rule with @srcad.extend.defvjp")
            raise self.error(node, f"no derivative rule for the array API's {written} "
                             "(srcad.rules.array_api)", hint, cls=MissingRuleError)
        out = gast.copy_location(gast.Name(id="np", ctx=gast.Load(), annotation=None,
                                           type_comment=None), node)
        for part in form.split("."):
            out = gast.copy_location(gast.Attribute(value=out, attr=part, ctx=gast.Load()), node)
        return out

    def visit_Call(self, node):
        """``xp.std(x, correction=1)``: NumPy's keyword (``ddof=1``), see
        :data:`srcad.rules.array_api.KEYWORDS`."""
        func = node.func
        if isinstance(func, gast.Attribute) and isinstance(func.value, gast.Name) and \
                func.value.id in self.spaces:
            renamed = array_api.KEYWORDS.get(func.attr, {})
            for k in node.keywords:
                k.arg = renamed.get(k.arg, k.arg)
        self.generic_visit(node)
        return node

    def visit_Name(self, node):
        if node.id in self.spaces:
            raise self.error(
                node, f"the array namespace {node.id!r} used other than as {node.id}.f",
                f"call its functions ({node.id}.sum(...)) only: assign it once, at the top "
                "of the function, and do not pass it on")
        return node

    def visit_FunctionDef(self, node):
        self.generic_visit(node)
        return node


def standard_code(func):
    """Whether ``func``'s source reads no NumPy module (its array functions, if any, come
    from an array namespace, ``xp = array_namespace(...)``): the code that arrays of the
    standard without NumPy's protocols are taken by. False when its source is not
    available."""
    from .source import read

    code = getattr(func, "__code__", None)
    known = _STANDARD.get(func) if code is not None else None
    if known is not None and known[0] is code:
        return known[1]
    try:
        src = read(func)
    except Exception:  # noqa: BLE001 - no source, no namespace code: refused by the caller
        return False
    found = not _numpy_lines(src, src.node, set())
    if code is not None:
        _STANDARD[func] = (code, found)
    return found


#: function -> (its code, whether it reads no NumPy module): read once per code
_STANDARD = weakref.WeakKeyDictionary()
