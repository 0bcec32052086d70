"""The caller's side of a call of a function of the user's that writes into what it is given
(``alias.check``), and of the copy :mod:`srcad.frontend.written_args` makes of such a function,
which returns the objects it writes into after its result: ``update_1 = update_fields(a, x);
r = update_1[0]; a_1 = update_1[1]``.

* :func:`settle`: ``a_1`` (and ``r``) are the values the call leaves, read after it in place
  of the object Python changed: the alias analysis does not count them as other names for the
  old object. Where the kinds show the copy does not change ``a`` in place (a number given to
  ``p += v``), ``a_1 = a``: Python's caller keeps its number. Refused: ``p += v`` where srcad
  cannot tell the object given is an array (an array is changed, a number rebound).
* :func:`given_back`: for ``analysis.memory``, ``a_1`` is the object given for ``a`` (not
  any object the copy's result holds).
* :func:`refuse_shared`: any call of a function of the user's that writes into an argument is
  refused where another argument of the call may share memory with it (``update(a, a)``,
  ``update(a[:2], a[1:])``: the callee's code reads the two as separate values; a wrong
  gradient before session 33), and where the object written is a global or closure value
  (Python changes it; srcad's code would not).

* :func:`shown_argument`, :func:`call_hint`: the refusals of such a call name the argument as
  the user wrote it (``d["a"]``, not srcad's ``t``), and a call spreading ``*xs`` is told to
  write its arguments out (srcad then reads what the function writes into: :mod:`.written_args`).

Imports the standard library, numpy, ``srcad.core`` and its neighbour
``srcad.analysis.memory_tables``.
"""

from __future__ import annotations

import ast
import inspect
import operator

import numpy as np

from ..core import ir
from ..core.kinds import ARRAY
from .memory_tables import ir_mutable


def _params(fn, prim):
    """parameter -> the atom the call gives it, or None."""
    try:
        return dict(inspect.signature(fn).bind(*prim.args, **prim.kwargs).arguments)
    except (TypeError, ValueError):
        return None


def owned_params(fn):
    """``(names, ids)``: the parameters of ``fn`` (an SSA function) whose objects the code may
    write into as its own, and the ids of the closure objects it may so write into: those of a
    copy :mod:`srcad.written_state` made of a function of the user's writing into what it is
    given (``__srcad_owned__``; ``__srcad_owned_cells__``: its closure cells, holding copies
    of the caller's objects), which is called with copies of the caller's objects, the
    caller's own being changed afterwards by the plain run."""
    func = getattr(getattr(fn, "source", None), "func", None)
    ids = set()
    for cell in getattr(func, "__srcad_owned_cells__", ()):
        _ids(cell.cell_contents, ids)
    return getattr(func, "__srcad_owned__", frozenset()), frozenset(ids)


def refuse_wrt_owned(stmt, memory, owned, analysis, refuse, what):
    """Refuse a write into a list or dict parameter that is differentiated (``wrt``) and
    :func:`owned_params`' (``history.append(v)`` with ``grad(f, wrt=1)``): its gradient has
    the structure the argument had when called, srcad's code would give the one it has after
    (a length, keys, an order changed). An array's writes keep its shape: differentiated."""
    for token in memory:
        p = token[1] if token[0] == "arg" else None
        if p in owned and p in analysis.wrt and analysis.kind(ir.Var(p)) != ARRAY:
            refuse(stmt, f"{what} changes the argument {p} in place, and {p} is "
                   "differentiated (wrt): its gradient is of the value it holds when called, "
                   "srcad's would be of what it holds after", "differentiate with respect to "
                   f"the other arguments, or change a copy: {p} = list({p}) (or dict({p})) "
                   "for the container itself, .copy() of an array it holds")


def _ids(value, ids):
    if isinstance(value, (dict, list, tuple, np.ndarray)) and id(value) not in ids:
        ids.add(id(value))
        if not isinstance(value, np.ndarray):
            for item in value.values() if isinstance(value, dict) else value:
                _ids(item, ids)


def given_back(defs, base, index):
    """For ``base[index]``, ``base`` bound to a call of a copy srcad made (see above) and
    ``index`` the place of a parameter it returns: the atom the call gives that parameter
    (what the item is, as the call leaves it), else None."""
    stmt = defs.get(base.name) if isinstance(base, ir.Var) else None
    prim = getattr(stmt, "value", None)
    back = getattr(getattr(prim, "fn", None), "__srcad_written_back__", None)
    if not back or not isinstance(stmt, ir.Assign) or stmt.target != base.name or not (
            isinstance(index, ir.Const) and type(index.value) is int):
        return None
    k = index.value - (0 if getattr(prim.fn, "__srcad_written_void__", 0) else 1)
    given = _params(prim.fn, prim) if 0 <= k < len(back) else None
    atom = given.get(back[k]) if given else None
    return atom if isinstance(atom, ir.Var) else None


def settle(body, stmt, atoms, analysis, refuse, label):
    """For ``stmt``, a call of a copy srcad made (see above): the names bound to what the call
    leaves (not other names for the objects it writes into); ``atoms``: the arguments whose
    objects it writes into (``Callees.written``)."""
    prim = stmt.value
    back = getattr(prim.fn, "__srcad_written_back__", None)
    if not back:
        return frozenset()
    given = _params(prim.fn, prim)
    if given is None:
        return frozenset()
    written = {a.name for a in (t[1] if isinstance(t, tuple) else t for t in atoms)
               if isinstance(a, ir.Var)}  # (("items", ys): what ys holds changes: ys too)
    bare = getattr(prim.fn, "__srcad_bare_written__", ())
    name = getattr(prim.fn, "__srcad_shown__", None) or prim.fn.__name__
    fresh, kept = set(), False
    for later in ir.walk(body):
        value = getattr(later, "value", None)
        if not (isinstance(later, ir.Assign) and isinstance(value, ir.Prim) and
                value.fn is operator.getitem and value.args[0] == ir.Var(stmt.target) and
                isinstance(value.args[1], ir.Const) and isinstance(value.args[1].value, int)):
            continue
        fresh.add(later.target)
        k = value.args[1].value - (0 if getattr(prim.fn, "__srcad_written_void__", 0) else 1)
        if not 0 <= k < len(back):
            continue
        atom = given.get(back[k])
        if not isinstance(atom, ir.Var) or atom.name not in written:
            if isinstance(atom, (ir.Var, ir.Const)):  # not changed in place (a constant:
                later.value, kept = atom, True  # t = 1.5 folded in): the caller keeps it
        elif back[k] in bare and analysis.kind(atom) != ARRAY:
            refuse(stmt, f"{name}(...) writes {back[k]} op= ... into {label(atom.name)}, "
                   "which srcad cannot tell is an array: Python changes an array in place "
                   "and binds a new number", f"pass an array (np.asarray({label(atom.name)}))"
                   f", or write {back[k]}[...] op= ... in {name} if an array is meant")
    if kept:  # which values vary, read again: a_1 = a does not vary with what the call does
        analysis.varied, analysis.useful = set(analysis.wrt), set()
        analysis._varied()
        analysis._useful()
    return frozenset(fresh)


def refuse_shared(stmt, atoms, aliases, refuse, label, owned=frozenset()):
    """Refuse the call ``stmt`` writing into ``atoms`` where another of its arguments may share
    memory with one of them, or one is a global or closure value (see above; not one whose
    id is in ``owned``, :func:`owned_params`)."""
    prim = stmt.value
    name = getattr(prim.fn, "__srcad_shown__", None) or getattr(prim.fn, "__name__", "f")
    args = list(prim.args) + list(prim.kwargs.values())
    for atom in atoms:
        items = isinstance(atom, tuple)  # ("items", atom): what atom holds changes
        atom = atom[1] if items else atom
        if isinstance(atom, ir.Const) and ir_mutable(atom.value) and id(
                atom.value) not in owned:
            what = f"what the global (or closure) value {atom} holds" if items else \
                f"the global (or closure) value {atom}"
            refuse(stmt, f"{name}(...) changes {what} in place: srcad's code would not change "
                   "it", f"pass a copy ({atom}.copy()) and use what {name} returns, or build "
                   "the value in the function")
        if not isinstance(atom, ir.Var) or not aliases.may_alias(atom.name):
            continue
        mine = aliases.mem(atom, aliases.own)
        seen = 0
        for other in args:
            if other == atom:
                seen += 1
                if seen == 1:
                    continue
            elif not isinstance(other, (ir.Var, ir.Const)):
                continue
            theirs = aliases.mem(other, aliases.own) | aliases.mem(other, aliases.held)
            if theirs & mine or aliases.mem(atom, aliases.held) & aliases.mem(
                    other, aliases.own):
                shown = label(other.name) if isinstance(other, ir.Var) else other
                refuse(stmt, f"{name}(...) changes {label(atom.name)} in place, and another "
                       f"of its arguments ({shown}) may be the same object or share memory "
                       "with it: srcad reads the two as separate values", "pass a copy "
                       "for one of them (write .copy() after it), or pass the object once")


def _user_call(stmt, source):
    """The call of ``stmt``'s function as the user wrote it on its line (an ``ast.Call``:
    ``update(d["a"], x)``, ``s.step(state)``), where one such call is found there."""
    line = getattr(stmt, "line", None)
    text = source.line_text(line) if source is not None and line else None
    fn = getattr(stmt.value, "fn", None)
    names = {getattr(fn, "__srcad_shown__", None), getattr(fn, "__name__", None)} - {None}
    try:
        tree = ast.parse(text.strip())
    except (SyntaxError, ValueError, AttributeError):
        return None
    calls = [n for n in ast.walk(tree) if isinstance(n, ast.Call) and (
        getattr(n.func, "id", None) in names or getattr(n.func, "attr", None) in names)]
    for call in calls:  # (each node's text as written: d["a"], not d['a'])
        for node in ast.walk(call):
            node.srcad_text = ast.get_source_segment(text.strip(), node)
    return calls[0] if len(calls) == 1 else None


def _text(node):
    return getattr(node, "srcad_text", None) or ast.unparse(node)


def shown_argument(stmt, atom, source, label, temps):
    """``atom``, an argument of the call ``stmt`` (a function of the user's changing what it
    is given), as the user wrote it: ``label(atom.name)`` unless that is a name srcad made
    (in ``temps``), else the argument's text in the call (``d["a"]``)."""
    shown = label(atom.name)
    if atom.name not in temps:
        return shown
    call, prim = _user_call(stmt, source), stmt.value
    given = _params(prim.fn, prim) if call is not None else None
    if not given or any(isinstance(a, ast.Starred) for a in call.args):
        return shown
    params = list(given)
    param = next((p for p, a in given.items() if a == atom), None)
    if param is None:
        return shown
    by_key = {k.arg: k.value for k in call.keywords}
    if param in by_key:
        return _text(by_key[param])
    at = params.index(param) - (len(prim.args) - len(call.args))  # (a method's self first)
    return _text(call.args[at]) if 0 <= at < len(call.args) and params.index(
        param) < len(prim.args) else shown


def call_hint(stmt, source, hint, label, names):
    """``hint`` for a refused call of a function changing what it is given, or where the user
    spread a name (``update(*args)``), how to write it so that srcad follows the write."""
    call = _user_call(stmt, source)
    if call is None or not any(isinstance(a, ast.Starred) and not isinstance(
            a.value, (ast.Tuple, ast.List)) for a in call.args):
        return hint
    prim = stmt.value
    name = getattr(prim.fn, "__srcad_shown__", None) or prim.fn.__name__

    def text(a):
        return label(a.name) if isinstance(a, ir.Var) else repr(a.value)

    args = list(prim.args) + list(prim.kwargs.values())
    written = [text(a) for a in prim.args] + [k + "=" + text(a) for k, a in prim.kwargs.items()]
    how = f"write the arguments of {_text(call)} out, each a name of yours" if any(
        isinstance(a, ir.Var) and label(a.name) not in names for a in args) else \
        f"write {name}({', '.join(written)}) for {_text(call)}"  # (names: the user's own)
    return f"{how}: srcad then reads what {name} writes into as its new value; or {hint}"
