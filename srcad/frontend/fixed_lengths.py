"""Lengths of list and tuple parameters the specialisation fixes, so that a test of them takes
one way while the code is made (closures29, issue 16)::

    def dense(z, params, acts):
        if len(acts) == 1 and len(params) > 1:
            acts = [acts[0] for _ in range(len(params) - 1)] + [None]
        for j, (W, b) in enumerate(params):
            z = np.dot(z, W) + b
            if acts[j]:
                z = acts[j](z)

Given ``acts = [np.tanh, None]``, the rebinding never runs and ``acts[j]`` reads the list
passed in (a call of an item is taken from the function met when it runs); without the length,
the two ways merge a list built here with the one passed, whose items srcad cannot know.

Where a length is known (:class:`Sized`, a mark among a specialisation's fixed parameters):

* the function differentiated: each list or tuple argument (its type and length are part of
  the cache key: :func:`srcad.backend.keys.cache_key` keys containers by their structure);
* a function of the user's called with a tuple (immutable: its length is its own), a tuple
  or a list of functions and ``None`` the caller was itself made for (its parameter, never
  rebound), a global or closure list of functions and ``None`` whose items are guarded
  (:mod:`.held_lists`), or a display of functions and ``None`` built in the caller. A list
  is passed on only so (:func:`check_length`, Python's, checks at the call, when the code
  runs, that it still has that length: it may have been changed in place since; code for
  lists of arrays, which the Numba backend compiles, gets no such check). A callee is only
  made for a length it tests (``len(p)`` in a test of one of its ``if`` statements) or
  passes on (``p`` an argument of a call of a function it names).

:func:`length_way` then fixes ``len(p) OP k`` (``==``, ``!=``, ``<``, ``<=``, ``>``, ``>=``,
``k`` an int written in the code) where ``p`` still holds the parameter (never rebound, or the
test is an ``if`` of the body itself that no statement binding ``p`` precedes:
:func:`srcad.frontend.lower_stmts.unrebound_tests`) and, for a list, nothing can have changed
its length in place since the call: it is never used other than by reading it (``len(p)``,
``p[k]``, ``for v in p``, ``enumerate(p)``, ``zip(.., p, ..)``, ``reversed(p)``; bound anew),
and no item of it is called before the test (anywhere, for a test not of the body itself).
:func:`type_way` fixes ``isinstance(p, list)``, ``isinstance(p, (list, tuple))``, ``type(p) is
tuple`` (builtin classes only) where ``p`` holds the parameter: a list argument and a tuple
argument of the same items have different keys, so a branch for the other kind is dropped.

Imports the standard library, gast, :mod:`srcad.core`, :mod:`srcad.errors`,
:mod:`srcad.rules.registry` (to declare the check), :mod:`srcad.runtime.spread_calls`
(``star_call``) and :mod:`.held_lists`, :mod:`.source`.
"""

from __future__ import annotations

import builtins
import dataclasses
import inspect
import operator
import types

import gast

from ..core import functions, ir
from ..core.ir import Const, Var
from ..errors import UnsupportedSyntaxError
from ..rules.registry import registry as _registry
from ..runtime.spread_calls import star_call
from . import held_lists
from . import source as source_module


@dataclasses.dataclass(frozen=True)
class Sized:
    """In a specialisation: the parameter is given a list or tuple (``kind``) of ``n`` items
    (``None``: a list of a length not fixed, its kind alone known)."""

    kind: type
    n: int | None
    functions: bool = False  # a list of functions and None (passed on to callees, checked)


def check_length(seq, n, where):
    """Raise unless the list ``seq`` still holds ``n`` items: srcad made the code of the call
    at ``where`` (file, line, text) for a list of that length."""
    if len(seq) == n:
        return
    filename, lineno, text = where
    raise UnsupportedSyntaxError(
        f"srcad made this call's code for a list of {n} items, and it now holds {len(seq)}: "
        "it was changed in place after the code was made", filename=filename, lineno=lineno,
        construct=text, hint="pass a tuple, or call srcad.clear_cache() after changing the "
        "list")


_registry.nondiff.add(check_length)  # a check: no derivative
_registry.kept.add(check_length)  # (never dropped, also in code read again)


def sized_arguments(fixed, arg_values):
    """``fixed`` (a specialisation's fixed parameters) with a :class:`Sized` mark added for
    each list or tuple argument not fixed otherwise (the cache key holds its length)."""
    for p, v in arg_values.items():
        if p not in fixed and type(v) in (list, tuple) and len(v) <= MOST:
            fixed[p] = Sized(type(v), len(v), held_lists.functions_or_none(v))
    return fixed


#: lengths past this are not fixed (the code stays general)
MOST = 64

_OPS = {gast.Eq: operator.eq, gast.NotEq: operator.ne, gast.Lt: operator.lt,
        gast.LtE: operator.le, gast.Gt: operator.gt, gast.GtE: operator.ge}
_FLIPPED = {gast.Eq: gast.Eq, gast.NotEq: gast.NotEq, gast.Lt: gast.Gt, gast.LtE: gast.GtE,
            gast.Gt: gast.Lt, gast.GtE: gast.LtE}


def length_way(lw, test, node):
    """The way ``if len(p) OP k:`` goes where the specialisation fixes ``p``'s length, or
    ``if isinstance(p, (list, tuple)):`` where it fixes its type (see above); else None."""
    if node is None:
        return None
    if isinstance(test, gast.Call) or isinstance(test, gast.Compare) and (
            _type_of(lw, test.left) is not None):
        return type_way(lw, test, node)
    if not (isinstance(test, gast.Compare) and len(test.ops) == 1):
        return None
    op, left, right = type(test.ops[0]), test.left, test.comparators[0]
    if _int(left) and not _int(right):
        op, left, right = _FLIPPED.get(op), right, left
    if op not in _OPS or not _int(right):
        return None
    name = _len_of(lw, left)
    if name is None:
        return None
    n = known_length(lw, name, node)
    return None if n is None else _OPS[op](n, right.value)


#: the classes a type test may name (builtins: a list or tuple argument is one or not)
_CLASSES = ("list", "tuple", "dict", "set", "str", "int", "float", "bool", "complex")


def type_way(lw, test, node):
    """The value of ``isinstance(p, C)`` (``C`` a builtin class or a tuple of them) or
    ``type(p) is C`` (``is not``, ``==``, ``!=``) for a parameter ``p`` the specialisation
    made for a list or tuple (its exact type is in the cache key); else None."""
    if isinstance(test, gast.Call):
        if not (_builtin(lw, test.func, "isinstance") and len(test.args) == 2
                and not test.keywords and isinstance(test.args[0], gast.Name)):
            return None
        kind = _kind(lw, test.args[0].id, node)
        classes = _classes(lw, test.args[1])
        return None if kind is None or classes is None else issubclass(kind, classes)
    if len(test.ops) != 1 or not isinstance(test.ops[0], (
            gast.Is, gast.IsNot, gast.Eq, gast.NotEq)):
        return None
    kind = _kind(lw, _type_of(lw, test.left), node)
    classes = _classes(lw, test.comparators[0])
    if kind is None or classes is None or len(classes) != 1:
        return None
    same = kind is classes[0]
    return same if isinstance(test.ops[0], (gast.Is, gast.Eq)) else not same


def known_type(lw, node):
    """``type(p)`` for a parameter ``p`` the specialisation made for a list or tuple that
    still holds it: the class, a constant (``type(like)(items)`` builds one of its kind)."""
    kind = _kind(lw, _type_of(lw, node), node)
    return None if kind is None else Const(kind, kind.__name__)


def _type_of(lw, node):
    """``p`` of ``type(p)``, ``type`` being the builtin; else None."""
    if isinstance(node, gast.Call) and _builtin(lw, node.func, "type") and len(
            node.args) == 1 and not node.keywords and isinstance(node.args[0], gast.Name):
        return node.args[0].id
    return None


def _kind(lw, name, node):
    """The exact type (list or tuple) of the parameter ``name`` at the test of ``node``."""
    if not _holds_param(lw, name, node):
        return None
    value = lw.fixed.get(name)
    return value.kind if isinstance(value, Sized) else None


def _classes(lw, node):
    """The builtin classes ``node`` names (a name, or a tuple of names), or None."""
    elts = node.elts if isinstance(node, gast.Tuple) else [node]
    out = []
    for e in elts:
        if not (isinstance(e, gast.Name) and e.id in _CLASSES and _builtin(lw, e, e.id)):
            return None
        out.append(getattr(builtins, e.id))
    return tuple(out)


def _builtin(lw, node, name):
    """Whether ``node`` is the name ``name`` and means the builtin of that name here."""
    if not (isinstance(node, gast.Name) and node.id == name):
        return False
    if name in lw.env or lw.stores.get(name):
        return False
    try:
        return lw.source.lookup(name) is getattr(builtins, name)
    except KeyError:
        return False


def _int(node):
    return isinstance(node, gast.Constant) and type(node.value) is int


def _len_of(lw, node):
    """``p`` of ``len(p)``, ``len`` being the builtin; else None."""
    if not (isinstance(node, gast.Call) and isinstance(node.func, gast.Name)
            and node.func.id == "len" and len(node.args) == 1 and not node.keywords
            and isinstance(node.args[0], gast.Name)):
        return None
    return node.args[0].id if _builtin(lw, node.func, "len") else None


def known_length(lw, name, node):
    """The length of the parameter ``name`` at the test of ``node`` (an ``if`` of the body)."""
    if not _holds_param(lw, name, node):
        return None
    value = lw.fixed.get(name)
    if type(value) is tuple:  # a tuple of functions the code is made for
        return len(value)
    items = getattr(value, "items", None)  # a list display of functions passed (its tuple)
    if type(items) is tuple and getattr(value, "kind", None) == "list":
        return len(items)
    if not isinstance(value, Sized):
        return None
    if value.n is None or value.kind is list and not _unchanged(lw, name, node):
        return None
    return value.n


def _holds_param(lw, name, node):
    """Whether ``name`` holds the parameter's value at the test of ``node``: it is never
    rebound, or ``node`` is an ``if`` of the body that no statement binding it precedes."""
    if name is None or name not in lw.param_names:
        return False
    if lw.stores.get(name, 0) == 1:
        return True
    before = lw.unrebound.get(id(node))
    return before is not None and name not in before


def _unchanged(lw, name, node):
    """Whether nothing can change the list ``name`` in place before ``node`` (see above):
    anywhere if it is never called an item of, else before an ``if`` of the body."""
    fdef = lw.fdef
    if not read_only(fdef, name):
        return False
    top = id(node) in lw.unrebound
    for stmt in fdef.body:
        if stmt is node:
            return True
        if any(isinstance(n, gast.Call) and _item_of(n.func, name) for n in gast.walk(stmt)):
            return False
    return not top  # (not an if of the body: no item called anywhere)


def _item_of(node, name):
    return isinstance(node, gast.Subscript) and isinstance(node.value, gast.Name) and (
        node.value.id == name)


_READERS = ("len", "enumerate", "zip", "reversed")


def read_only(fdef, name):
    """Whether every use of ``name`` in ``fdef`` (nested functions too) reads it (see the
    module's docstring) or binds it anew."""
    parents = {}
    for node in gast.walk(fdef):
        for child in gast.iter_child_nodes(node):
            parents[id(child)] = node
    for node in gast.walk(fdef):
        if not (isinstance(node, gast.Name) and node.id == name):
            continue
        if isinstance(node.ctx, (gast.Store, gast.Param)):
            parent = parents.get(id(node))
            if isinstance(parent, gast.AugAssign):
                return False  # p += [f]: in place
            continue
        if isinstance(node.ctx, gast.Del):
            return False
        parent = parents.get(id(node))
        if isinstance(parent, gast.Subscript) and parent.value is node and isinstance(
                parent.ctx, gast.Load):
            continue
        if isinstance(parent, (gast.For, gast.comprehension)) and parent.iter is node:
            continue
        if isinstance(parent, gast.Call) and node in parent.args and isinstance(
                parent.func, gast.Name) and parent.func.id in _READERS:
            continue
        return False
    return True


# ---------------------------------------------------------------- a callee made for a length

#: code object -> the parameters whose length it tests (``len(p)`` in an ``if`` test)
_TESTED = {}


def tested(fn):
    """The parameters of the user's function ``fn`` whose length one of its ``if`` tests reads,
    or that it passes on whole to a function it names (which may test it: ``loss(z, p, acts)``
    calling ``dense(z, p, acts)``)."""
    code = getattr(fn, "__code__", None)
    if code is None:
        return frozenset()
    if code in _TESTED:
        return _TESTED[code]
    try:
        fdef = source_module.read(fn).node
    except Exception:  # noqa: BLE001 - no source: nothing tested
        fdef = None
    names = set()
    if isinstance(fdef, gast.FunctionDef):
        params = {a.id for a in fdef.args.posonlyargs + fdef.args.args + fdef.args.kwonlyargs}
        for stmt in fdef.body:
            if isinstance(stmt, gast.If):
                for n in gast.walk(stmt.test):  # len(p), isinstance(p, ..), type(p)
                    if isinstance(n, gast.Call) and isinstance(n.func, gast.Name) and (
                            n.func.id in ("len", "isinstance", "type")) and n.args and (
                            isinstance(n.args[0], gast.Name)) and n.args[0].id in params:
                        names.add(n.args[0].id)
        for n in gast.walk(fdef):  # passed on whole to a function named (it may test it)
            if isinstance(n, gast.Call) and isinstance(n.func, gast.Name) and _may_test(
                    fn, n.func.id):
                names.update(a.id for a in list(n.args) + [k.value for k in n.keywords]
                             if isinstance(a, gast.Name) and a.id in params)
    _TESTED[code] = frozenset(names)
    return _TESTED[code]


def _may_test(fn, name):
    """Whether a call of ``name`` in ``fn`` may be a call of a function of the user's (a
    global or closure function, or a local name): not a builtin, class or library function."""
    cells = dict(zip(fn.__code__.co_freevars, fn.__closure__ or ()))
    if name in cells:
        try:
            value = cells[name].cell_contents
        except ValueError:
            return True
    elif name in fn.__globals__:
        value = fn.__globals__[name]
    elif hasattr(builtins, name):
        return False
    else:
        return True  # a local: a function passed in, or made here
    return isinstance(value, types.FunctionType)


def for_callee(lw, fn, given, taken, node):
    """The :class:`Sized` marks of a call of ``fn`` (``given``: parameter -> atom; ``taken``:
    the parameters fixed otherwise), after emitting :func:`check_length` for each list."""
    if _registry.has_rule(fn) or _registry.is_nondiff(fn):
        return []  # (a copy would not be the function the rule is for)
    known = {name: _atom_length(lw, atom) for name, atom in given.items() if name not in taken}
    known = {name: sized for name, sized in known.items() if sized is not None}
    if not known:
        return []
    wanted = tested(fn)
    marks = []
    for name, sized in sorted(known.items(), key=lambda pair: pair[0]):
        if name not in wanted:
            continue
        atom = given[name]
        if sized.kind is list and sized.n is not None:
            line = getattr(node, "lineno", None)
            where = (lw.source.filename, line, lw.source.line_text(line))
            check = ir.Prim(check_length, [atom, Const(sized.n), Const(where)],
                            spelling=lw.bound_name(check_length, "check_length"))
            lw.emit(ir.Assign(None, check, line, effect=True))
        marks.append((name, sized))
    return marks


def _atom_length(lw, atom):
    if isinstance(atom, Const):
        value = atom.value
        if type(value) is tuple and len(value) <= MOST:
            return Sized(tuple, len(value))
        if type(value) is list and atom.spelling and atom.spelling.isidentifier() and (
                held_lists.functions_or_none(value)) and lw.source.closure.get(
                atom.spelling, lw.source.globals.get(atom.spelling)) is value:
            return Sized(list, len(value), True)  # its items guarded (held_lists)
        return Sized(list, None) if type(value) is list else None  # (its kind only)
    if isinstance(atom, Var):
        if atom.name in lw.param_names and lw.stores.get(atom.name, 0) == 1:
            value = lw.fixed.get(atom.name)
            if isinstance(value, Sized) and value.kind is list and not value.functions:
                return Sized(list, None)  # its kind only: the list of arrays goes unchecked
            return value if isinstance(value, Sized) else None
        if atom.name in lw.tuples and len(lw.tuples[atom.name]) <= MOST:
            return Sized(tuple, len(lw.tuples[atom.name]))
        items = lw.lists.get(atom.name)
        if items and len(items) <= MOST and all(isinstance(a, Const) and (
                a.value is None or functions.is_function_value(a.value)) for a in items):
            return Sized(list, len(items), True)  # a display (checked at the call)
        if atom.name in lw.lists:
            return Sized(list, None)
    return None


def taken_names(fixed):
    """The parameters ``fixed`` (pairs) fixes."""
    return {name for name, _ in fixed}



# ---------------------------------------------------------------- a length known when it runs


def made_when_run(lw, fn, args, kwargs, fixed):
    """Whether a call of ``fn`` is made when it runs (:func:`run_time_call`): ``fn`` rebinds
    a list parameter under a test of its length (:func:`rebound_under_test`), and the call
    gives it a value whose length is not known here (an item of a list read in a loop)."""
    wanted = rebound_under_test(fn)
    if not wanted or _registry.has_rule(fn) or _registry.is_nondiff(fn):
        return False
    try:
        bound = inspect.signature(fn).bind(*args, **kwargs)
    except (TypeError, ValueError):
        return False
    taken = {name for name, _ in fixed}
    return any(name not in taken and isinstance(bound.arguments.get(name), Var)
               and _atom_length(lw, bound.arguments[name]) is None for name in wanted)


def run_time_call(lw, fn, args, kwargs, node):
    """The call as :func:`srcad.runtime.spread_calls.star_call`'s: made (and differentiated)
    when it runs, for the arguments met then; a list of functions and ``None`` among them is
    a constant of the code made, whose length the callee is made for."""
    packed = lw.assign(ir.Prim(ir.BUILD_TUPLE, list(args)), "args", node)
    pairs = [a for k, v in kwargs.items() for a in (Const(k), v)]
    keywords = lw.assign(ir.Prim(ir.BUILD_DICT, pairs), "kwargs", node) if pairs else Const(
        {}, "{}")
    line = getattr(node, "lineno", None)
    where = (lw.source.filename, line, lw.source.line_text(line))
    return ir.Prim(star_call, [lw.bound_const(where, "where"), lw.bound_const(
        fn, getattr(fn, "__name__", "fn")), packed, keywords],
        spelling=lw.bound_name(star_call, "star_call"))


#: code object -> the parameters rebound under a test of their length whose items it calls
_REBOUND = {}


def rebound_under_test(fn):
    """The list parameters of ``fn`` that an ``if`` of its body tests the length of and binds
    anew (in either branch), and whose items it calls (``acts[j](z)``): MaskedAutoReg's
    ``if len(acts) == 1: acts = [acts[0]] * h + [None]``."""
    code = getattr(fn, "__code__", None)
    if code is None or "len" not in code.co_names:
        return frozenset()
    if code in _REBOUND:
        return _REBOUND[code]
    names = set()
    try:
        fdef = source_module.read(fn).node
    except Exception:  # noqa: BLE001 - no source: none
        fdef = None
    if isinstance(fdef, gast.FunctionDef):
        params = {a.id for a in fdef.args.posonlyargs + fdef.args.args + fdef.args.kwonlyargs}
        called = {n.func.value.id for n in gast.walk(fdef) if isinstance(n, gast.Call)
                  and isinstance(n.func, gast.Subscript) and isinstance(n.func.value, gast.Name)}
        for stmt in fdef.body:
            if not isinstance(stmt, gast.If):
                continue
            tested_here = {n.args[0].id for n in gast.walk(stmt.test) if isinstance(
                n, gast.Call) and isinstance(n.func, gast.Name) and n.func.id == "len"
                and n.args and isinstance(n.args[0], gast.Name)}
            bound = {n.id for s in stmt.body + stmt.orelse for n in gast.walk(s)
                     if isinstance(n, gast.Name) and isinstance(n.ctx, gast.Store)}
            names |= tested_here & bound & params & called
    _REBOUND[code] = frozenset(names)
    return _REBOUND[code]
