"""``f(x, *s)`` with ``s`` of a length srcad cannot know, where the callee fixes it.

A call ``model(X, *pars)`` (``pars`` an array or list argument) passes ``len(pars)`` arguments,
which srcad does not know when it makes the code. The callee, a function of the user's, often
fixes it: a function without ``*args`` and without defaults takes exactly its positional
parameters, and a function whose ``*args`` is only unpacked into a fixed tuple of names
(``def model(x, *pars): b, w, c = pars``) takes exactly that many more. Any other length
is a TypeError or ValueError in Python. :func:`spread_items` then reads the items by position
(``pars[0]``, ``pars[1]``, ...), after :func:`check_spread` has checked at run time that
``pars`` is a list, tuple or array of that length (what ``*`` reads of it is then what
indexing reads); the call goes on as a call with those arguments, differentiated through.

Imports: gast, the standard library, NumPy, :mod:`srcad.core`, :mod:`srcad.errors`,
:mod:`srcad.rules.registry` (to declare the check constant) and :mod:`.source`.
"""

from __future__ import annotations

import inspect
import operator

import gast
import numpy as np

from ..core import functions, ir
from ..core.ir import Const, Var
from ..core.kinds import duck_array
from ..core.walk import walk_nodes
from ..errors import SrcadError, UnsupportedSyntaxError
from ..rules.registry import registry as _registry
from . import source as source_module

#: at most this many items are read one by one (a longer spread stays a refused star call)
MOST_ITEMS = 64


def check_spread(seq, n, where):
    """Raise unless ``seq`` is a list, tuple or array (of at least one dimension) of length
    ``n``: srcad made the call at ``where`` (file, line, its text) for ``n`` items of ``*seq``
    read by position."""
    filename, lineno, text = where
    if isinstance(seq, (list, tuple)) or (isinstance(seq, np.ndarray) and seq.ndim) or (
            duck_array(seq) and getattr(seq, "ndim", 0)):
        if len(seq) == n:
            return
        raise UnsupportedSyntaxError(
            f"a starred argument of length {len(seq)} where the function called takes {n} "
            "items (Python raises TypeError or ValueError)", filename=filename,
            lineno=lineno, construct=text, hint=f"pass {n} items")
    raise UnsupportedSyntaxError(
        f"a starred argument that is a {type(seq).__name__}: srcad made this call's code for "
        f"a list, tuple or array of {n} items, read by position", filename=filename,
        lineno=lineno, construct=text, hint="spread a list, tuple or array: f(x, *list(s))")


_registry.nondiff.add(check_spread)  # a check: no derivative
_registry.kept.add(check_spread)  # (never dropped, also in code read again)


def spread_items(lowerer, node, starred, atom):
    """The items of ``*starred`` (lowered as ``atom``) in the call ``node`` when the callee
    fixes their number (module docstring), after a run-time check; else ``None``."""
    func = node.func
    if not isinstance(func, gast.Name) or func.id in lowerer.env or (
            func.id in lowerer.local_functions):
        return None
    try:
        fn = lowerer.source.lookup(func.id)
    except (NameError, KeyError):
        return None
    if not inspect.isfunction(fn) or not functions.is_user_function(fn):
        return None
    n = _length(lowerer, fn, node, starred)
    if n is None:
        return None
    where = (lowerer.source.filename, node.lineno, lowerer.source.line_text(node.lineno))
    check = ir.Prim(check_spread, [atom, Const(n), lowerer.bound_const(where, "where")],
                    spelling=lowerer.bound_name(check_spread, "check_spread"))
    lowerer.emit(ir.Assign(lowerer.namer.temp("checked"), check, node.lineno, effect=True))
    return [lowerer.assign(ir.Prim(operator.getitem, [atom, Const(i)]), "item", node)
            for i in range(n)]


def _length(lowerer, fn, node, starred):
    """How many items ``*starred`` must give for ``fn``'s parameters, or ``None``."""
    code = fn.__code__
    if code.co_flags & (inspect.CO_GENERATOR | inspect.CO_COROUTINE | inspect.CO_VARKEYWORDS):
        return None
    params = code.co_varnames[:code.co_argcount]
    if any(k.arg is None or k.arg in params for k in node.keywords):
        return None  # a keyword filling a positional parameter: the count depends on it
    known = 0
    for a in node.args:
        if a is starred:
            continue
        items = lowerer.known_items(a)
        if items is None:
            items = _known_spread(lowerer, a)
        if items is None:
            return None  # two spreads of unknown length
        known += len(items)
    if code.co_flags & inspect.CO_VARARGS:
        extra = _unpacked_count(fn, code.co_varnames[code.co_argcount + code.co_kwonlyargcount])
        if extra is None:
            return None
    elif fn.__defaults__:
        return None  # f(x, *s) may leave some defaults out: any of several lengths
    else:
        extra = 0
    n = code.co_argcount + extra - known
    return n if 0 <= n <= MOST_ITEMS else None


def _known_spread(lowerer, arg):
    """The items of ``*name`` (another starred argument of the call) when srcad knows them
    without lowering anything: a ``*args`` parameter (its length fixed by the call), a tuple
    built in the function, a list display it never changes, a constant tuple; else ``None``."""
    value = arg.value
    if not isinstance(value, gast.Name):
        return None
    if value.id not in lowerer.env:  # a global or closure constant (its read is guarded)
        if value.id in lowerer.local_functions:
            return None
        try:
            constant = lowerer.source.lookup(value.id)
        except (NameError, KeyError):
            return None
        return list(constant) if type(constant) is tuple else None
    atom = lowerer.env[value.id]
    if isinstance(atom, Const):
        return list(atom.value) if isinstance(atom.value, tuple) else None
    if not isinstance(atom, Var):
        return None
    items = lowerer.tuples.get(atom.name)
    if items is None and value.id in lowerer.frozen:
        items = lowerer.lists.get(atom.name)
    return items


def _unpacked_count(fn, name):
    """For ``*name``, the parameter of ``fn``, read only by one plain unpacking ``a, b = name``
    in the function's body, reached by every call (only simple statements before it): the
    number of names it unpacks into; else ``None``."""
    try:
        fdef = source_module.read(fn).node
    except SrcadError:
        return None
    reads = [n for n in walk_nodes(fdef) if isinstance(n, gast.Name) and n.id == name
             and n is not fdef.args.vararg]
    if len(reads) != 1 or not isinstance(reads[0].ctx, gast.Load):
        return None
    for stmt in fdef.body:
        if isinstance(stmt, gast.Assign) and stmt.value is reads[0] and len(stmt.targets) == 1:
            target = stmt.targets[0]
            if isinstance(target, (gast.Tuple, gast.List)) and all(
                    isinstance(e, gast.Name) for e in target.elts):
                return len(target.elts)
            return None
        if not isinstance(stmt, (gast.Assign, gast.AugAssign, gast.AnnAssign, gast.Expr,
                                 gast.Import, gast.ImportFrom, gast.Pass)):
            return None  # a return, branch or loop first: the unpacking may not run
    return None
