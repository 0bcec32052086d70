"""Whether the attribute stores of a lowered function are exact: nothing reads them back.

``obj.name = v`` on an object the function is given is lowered to the effect
``store_attribute(obj, "name", v)`` (:mod:`srcad.frontend.attribute_stores`): the forward sweep
stores the value as Python does, and the store has no derivative. srcad reads every attribute
as a value of the call, with no gradient through it: that is exact for the attribute's value
before the store (it does not depend on this call's arguments), and wrong for a read of the
stored value, which does. So a store is kept only where no such read can follow it in the
call. :func:`check` runs on every function srcad lowers (the one differentiated, srcad's shim
of a bound method, each callee, code srcad made), before any code is made. A *store point* is
a store, or a call of a function of yours (or of a derivative srcad made of one) that stores,
itself or through the functions it calls (:func:`stored_names`: the names it may store; ``*``
where srcad cannot read a callee that writes an attribute). A store point is refused at its
line, naming what could read the value back, when it is

* inside a loop (the next pass of the loop could read it before the store);
* followed (the statements after it, nested blocks included, both arms of an ``if`` whatever
  the arm of the store point) by a read of an attribute of a stored name on any object
  (another name may hold the same object), ``getattr``/``vars``/``hasattr``, a call of a
  function of yours (it could read the object: ``self.predict(x)``), of a derivative srcad
  made, of a function met only when the code runs, a call given a function of yours (a
  callback), a method srcad has no rule for (an object of yours).

The caller of a function that stores is checked in turn where it calls it, so a store is kept
only when nothing after it, up to the end of the outermost call, reads it back: srcad's shim
of a bound method (``return M_nll(obj, hyp)``) reads nothing after its call.

Imports :mod:`srcad.core`, :mod:`srcad.errors`, :mod:`srcad.rules` (the registry) and
:mod:`srcad.runtime` (the helper, ``call_value``, ``star_call``); :mod:`.user_calls` and
:mod:`.soundness` (the rewrite for a method storing values) beside it.
"""

from __future__ import annotations

import ast
import builtins
import inspect
import textwrap
import types

from ..core import functions, ir
from ..errors import UnsupportedSyntaxError
from ..rules import registry
from ..runtime.containers import store_attribute
from ..runtime.derivatives import call_value
from ..runtime.spread_calls import star_call
from .effects import _plain_read
from .memory_tables import MUTATORS
from .soundness import _effect_hint
from .user_calls import user_callee

#: builtins that read attributes by name
_READERS = (builtins.getattr, builtins.vars, builtins.hasattr)
_WORKING = object()


def _is_store(stmt):
    return isinstance(stmt, ir.Assign) and isinstance(stmt.value, ir.Prim) \
        and stmt.value.fn is store_attribute


def _prims(stmt):
    """The operations a statement runs at its own level."""
    value = getattr(stmt, "value", None)
    if isinstance(value, ir.Prim):
        yield value
    if isinstance(stmt, ir.Loop) and isinstance(stmt.iter, ir.Prim):
        yield stmt.iter


def _callee(prim):
    """The function of yours a call runs (a derivative srcad made: the function it is of)."""
    fn = prim.fn
    if user_callee(fn):
        return fn
    if functions.is_derivative(fn):
        made = getattr(fn, "__srcad__", None)
        return getattr(made, "_user", None) or fn
    return None


def stored_names(fn, lower, memo):
    """The attribute names a call of the function ``fn`` of yours may store (itself or
    through its callees); ``lower(fn)`` gives its lowered form (None, or an exception, where
    srcad cannot lower it alone: then ``*`` if its source assigns an attribute); ``memo``:
    the answers of one :func:`check`."""
    known = memo.get(fn)
    if known is _WORKING:
        return frozenset()  # a recursive call: its own stores are counted where it is lowered
    if known is not None:
        return known
    memo[fn] = _WORKING
    try:
        names = _names_of(fn, lower, memo)
    finally:
        memo.pop(fn, None)
    memo[fn] = names
    return names


def _names_of(fn, lower, memo):
    try:
        lowered = lower(fn)
    except Exception:  # any failure: read as not lowered (the source decides)
        lowered = None
    if lowered is None:
        return frozenset("*") if _writes_attribute(fn) else frozenset()
    names = set()
    for stmt in ir.walk(lowered.body):
        if _is_store(stmt):
            names.add(stmt.value.args[1].value)
        for prim in _prims(stmt):
            callee = _callee(prim)
            if callee is not None and callee is not fn:
                names |= stored_names(callee, lower, memo)
    return frozenset(names)


def _writes_attribute(fn):
    """Whether the source of ``fn`` (which srcad could not lower alone) assigns an attribute."""
    try:
        tree = ast.parse(textwrap.dedent(inspect.getsource(fn)))
    except (OSError, TypeError, SyntaxError):
        return False
    for node in ast.walk(tree):
        targets = node.targets if isinstance(node, ast.Assign) else [node.target] if isinstance(
            node, (ast.AugAssign, ast.AnnAssign)) else []
        if any(isinstance(t, ast.Attribute) for t in targets):
            return True
    return False


def _reader(prim, names, fixed):
    """What in ``prim`` could read back an attribute of ``names`` stored before it, as words;
    or None. ``fixed``: the function's parameters of a known class (a read of another
    attribute is plain only on one of those, or an array's: else a property could read)."""
    fn = prim.fn
    if isinstance(fn, ir.Attr):
        if fn.name in names or "*" in names:
            return f"a read of .{fn.name}"
        if fn.name in registry.attributes or _plain_read(prim, fixed):
            return None
        return f"a read of .{fn.name} (on an object whose class srcad does not know here: " \
            "a property could read the value)"
    if isinstance(fn, ir.Method):
        known = fn.name in registry.methods or fn.name in registry.attributes
        return None if known else f"a call of the method .{fn.name}()"
    if fn is store_attribute:
        return None
    if fn in _READERS:
        return f"{fn.__name__}()"
    if fn is call_value or fn is star_call or _callee(prim) is not None:
        return "a call of a function of yours"
    for atom in [*prim.args, *prim.kwargs.values()]:
        if isinstance(atom, ir.Const) and callable(atom.value) and (
                functions.is_user_function(atom.value)
                or functions.is_user_function(getattr(atom.value, "__func__", None))
                or functions.is_derivative(atom.value)):
            return "a function of yours passed to a call"
    return None


def check(fn, src):
    """Refuses, at its line, a store of ``fn`` (lowered from ``src``) that something after it
    could read back (see the module's text)."""
    if not any(_is_store(s) for s in ir.walk(fn.body)):
        return
    points = []  # (names stored, statement)
    fixed, module_globals = _fixed(fn), _globals(fn)
    augmented = getattr(fn, "augmented", {})

    def visit(stmts, in_loop):
        for stmt in stmts:
            _check_readers(src, stmt, points, fixed, module_globals, augmented)
            if _is_store(stmt):
                names = frozenset([stmt.value.args[1].value])
                if in_loop:
                    _refuse(src, stmt, names, "inside a loop (its next pass could read the "
                            "value back)")
                points.append((names, stmt))
            for block in ir.blocks_of(stmt):
                visit(block, in_loop or isinstance(stmt, ir.Loop))

    visit(fn.body, False)


def check_call(fn, stmt, callee, lower):
    """Refuses the call ``stmt`` of ``fn`` (the caller's lowered form) when ``callee``, which
    srcad differentiates there, stores an attribute (itself or through its callees) that
    something after the call could read back, or when the call is inside a loop; ``lower(f,
    arity)`` as for :func:`stored_names`, ``arity`` the call's (for ``callee`` alone)."""
    names = stored_names(callee, lower, {})
    if not names:
        return
    src = fn.source
    points = []
    fixed, module_globals = _fixed(fn), _globals(fn)
    augmented = getattr(fn, "augmented", {})

    def visit(stmts, in_loop):
        for s in stmts:
            if points:
                _check_readers(src, s, points, fixed, module_globals, augmented)
            elif s is stmt:
                if in_loop:
                    _refuse(src, s, names, "inside a loop (its next pass could read the value "
                            "back)")
                points.append((names, s))
            for block in ir.blocks_of(s):
                visit(block, in_loop or isinstance(s, ir.Loop))

    try:
        visit(fn.body, False)
    except UnsupportedSyntaxError as err:
        if not str(getattr(src, "filename", "")).startswith("<srcad"):
            raise
        raise _at_the_store(err, callee, lower) from None  # srcad's own code calls it


def _at_the_store(err, callee, lower):
    """The refusal ``err`` of a call srcad's own code makes (a bound method's shim, a
    derivative's code) moved to the store in the user's function it calls, where it can be
    read; ``err`` itself where that store cannot be found."""
    try:
        stored = lower(callee)
    except Exception:  # noqa: BLE001 - the refusal as it was
        return err
    store = next((s for s in ir.walk(stored.body) if _is_store(s)), None)
    src = stored.source
    if store is None or src is None:
        return err
    line = store.line
    return UnsupportedSyntaxError(
        f"writing an attribute (obj.{store.value.args[1].value} = ...) in a function "
        "differentiated again (a Hessian, a derivative of a derivative): srcad's code calls "
        "it and reads on after the call",
        filename=src.filename, lineno=line, construct=src.line_text(line) if line else None,
        hint="store the value outside the function whose Hessian (or derivative of a "
        "derivative) you take")


def _atoms(stmt):
    """The constants a statement reads at its own level (in an index too)."""
    value = getattr(stmt, "value", None)
    parts = [value] if not isinstance(stmt, ir.Loop) else [stmt.iter]
    parts += [getattr(stmt, "index", None), getattr(stmt, "test", None)]
    todo = []
    for part in parts:
        if isinstance(part, ir.Prim):
            todo += [*part.args, *part.kwargs.values()]
        elif part is not None:
            todo.append(part)
    while todo:
        atom = todo.pop()
        if isinstance(atom, ir.Const):
            yield atom
        elif isinstance(atom, ir.Slice):
            todo += [atom.lower, atom.upper, atom.step]
        elif isinstance(atom, ir.Index):
            todo += list(atom.items)


def _global_reader(atom, names, module_globals):
    """A read of an object's attribute folded into a constant where the code is made
    (``m.last`` of a global object ``m``): what it could read back, as words; or None (a
    module's value: ``np.pi``)."""
    spelled = atom.spelling if isinstance(atom, ir.Const) else None
    if not spelled or "." not in spelled or not spelled.replace(".", "").replace(
            "_", "").isalnum():
        return None
    root, *_, last = spelled.split(".")
    if last in names or "*" in names:
        return f"a read of {spelled}"
    if isinstance(module_globals.get(root), types.ModuleType):
        return None
    return f"a read of {spelled} (an attribute of an object: a property could read the value)"


def _in_place(stmt, augmented):
    """Whether ``stmt`` writes into an existing array or list (``y[i] = v``, ``y += v``,
    ``out=``, a method that changes its object): what was stored may be that object."""
    if isinstance(stmt, ir.SetItem):
        return True
    value = getattr(stmt, "value", None)
    if isinstance(stmt, ir.Assign) and stmt.target in augmented:
        return True
    return isinstance(value, ir.Prim) and (
        "out" in value.kwargs or isinstance(value.fn, ir.Method) and value.fn.name in MUTATORS)


def _check_readers(src, stmt, points, fixed, module_globals, augmented=None):
    if augmented is not None and points and _in_place(stmt, augmented):
        names, point = points[0]
        _refuse(src, point, names, f"followed by a write in place at line "
                f"{getattr(stmt, 'line', None) or '?'} (the object stored could be the one "
                "changed: Python's would hold the change)")
    found = [(_reader(prim, names, fixed), names, point) for prim in _prims(stmt)
             for names, point in points]
    found += [(_global_reader(atom, names, module_globals), names, point)
              for atom in _atoms(stmt) for names, point in points]
    for why, names, point in found:
        if why is not None:
            _refuse(src, point, names, f"followed by {why} at line "
                    f"{getattr(stmt, 'line', None) or '?'}, which could read it back")


def _globals(fn):
    func = getattr(fn.source, "func", None) if fn.source is not None else None
    return getattr(func, "__globals__", None) or {}


def _fixed(fn):
    func = getattr(fn.source, "func", None) if fn.source is not None else None
    return functions.fixed_of(func) if func is not None else {}


def _refuse(src, stmt, names, why):
    line = getattr(stmt, "line", None)
    what = ", ".join(f"obj.{n} = ..." for n in sorted(names) if n != "*") or "obj.attr = ..."
    hint = ("srcad stores a value into an object only where nothing the function computes "
            "afterwards reads it: store it last (after the calls of your functions), or "
            "return the value and store it outside the function")
    where = ""
    if not _is_store(stmt):
        where = " (in a function of yours called here)"
        callee = next((_callee(p) for p in _prims(stmt) if _callee(p) is not None), None)
        hint = f"{hint}; {_effect_hint(callee)}"
    raise UnsupportedSyntaxError(
        f"writing an attribute ({what}){where} {why}", filename=src.filename, lineno=line,
        construct=src.line_text(line) if line else None, hint=hint)
