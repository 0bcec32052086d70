"""A function of the user's that writes into the array (or list) it is given, the caller
reading that object afterwards (session 33)::

    def update(a, x):
        a[0] = x * 2.0
        a[1:] += x

    def f(x):
        a = np.zeros(3)
        update(a, x)
        return a.sum() * x

After this pass the call is ``update_result, a = update_fields(a, x)``: a copy of ``update``
(:func:`.returned_records._copy_returning`) whose every ``return e`` is ``return e, a`` (``return
None, a`` at its end). In the copy the writes are srcad's ordinary functional updates (``a_1 =
a.copy(); a_1[0] = ...``), so what it returns for ``a`` is the object's state when the call
ends, and the caller reads it under the name it gave: the caller's SSA rebinds ``a`` as if the
user had written ``_, a = update(a, x)``. The copy still writes into what it is given, so the
alias analysis of the caller (:mod:`srcad.analysis.written_back`, from ``alias.check``) checks
the call as a write into ``a`` whose new value is what the copy returns: refused, as before,
where anything else may see the old object (a view of it, a second name, a list holding it,
the caller's own argument, a global), or two arguments of the call may share memory; and where
the kinds show the parameter is not changed in place (``a += v`` of a number), the caller's
``a`` is kept (``a_1 = a``).

What counts as a write into a parameter ``p`` (the call is rewritten only then): an item
set or deleted (``p[i] = v``, ``p[1:] += v``), ``p op= v``, a method that changes its object
(``p.fill(v)``, ``p.append(v)``, ...), ``np.add.at(p, ...)`` (any ufunc's ``.at``),
``np.copyto(p, ...)``, ``np.fill_diagonal``, ``np.put``, ``np.place``, ``np.putmask``, ``out=p``,
a function of the user's given ``p`` where it writes into it, and any of these into a name
bound to a view of ``p`` (``v = p[1:]``, ``p.T``, ``p.reshape(...)``, a ``for`` loop's row).
``p`` must never be bound otherwise (``p = p * 2`` makes a new object: left as it was, refused
where the object is read), nor read in a nested function, nor declared global; the callee no
generator and with no ``*args``/``**kwargs``. The caller's argument must be a plain name it
binds itself (an attribute, a subscript, a view, a global: left as it was).

(forms34) ``a = update(a, x)``, the name given bound to what the function returns (the array
itself, a view of it, anything): ``update_result, a = update_fields(a, x); a =
update_result``, as Python binds it. ``update(*(a, x))``, a tuple or list written in the
call, is ``update(a, x)``; (forms35) so is ``xs = (a, x); update(*xs)``, a name bound once to
such a display and read only so (:func:`_displays`); another ``*xs`` is left as it was (refused
where it matters, the hint writing the arguments out:
:func:`srcad.analysis.written_back.call_hint`).

Imports the standard library, gast, numpy, :mod:`srcad.core`, :mod:`.built_records`,
:mod:`.changed_lists`, :mod:`.passed_calls`, :mod:`.passed_records`, :mod:`.returned_records`
and :mod:`.source`.
"""

from __future__ import annotations

import types

import gast
import numpy as np

from ..core.walk import walk_nodes
from . import passed_calls, passed_records, returned_records
from . import source as source_module
from .built_records import resolve_any
from .changed_lists import _own, _replace
from .source import fresh_names

_SCOPES = (gast.FunctionDef, gast.AsyncFunctionDef, gast.Lambda, gast.ClassDef)
#: methods that change their object
_CHANGING = frozenset({"append", "extend", "insert", "pop", "remove", "clear", "sort",
                       "reverse", "fill", "resize", "put", "itemset", "partition", "setfield",
                       "byteswap", "setflags"})
#: methods changing a list's length (a list argument so changed is left to the alias
#: analysis: refused where the caller reads the list afterwards, and :mod:`.changed_lists`)
_LISTS = frozenset({"append", "extend", "insert", "pop", "remove", "clear"})
#: methods whose result may be a view of their object
_VIEWING = frozenset({"reshape", "ravel", "view", "transpose", "swapaxes", "squeeze",
                      "T", "real", "imag", "flat", "diagonal"})
#: NumPy functions writing into their first argument
_WRITERS = (np.copyto, np.fill_diagonal, np.put, np.place, np.putmask)
_DEPTH = 4  # how deep through functions of the user's a write is looked for


def _name(id_, ctx=None):
    return gast.Name(id=id_, ctx=ctx or gast.Load(), annotation=None, type_comment=None)


def changed_params(fn, depth=0):
    """``(changed, bare)``: the parameters ``fn`` writes into (see above), in order, and
    those of them changed by ``p op= v`` of the name itself; ``((), ())`` when none, or when
    ``fn`` is not such a function.

    What the text alone decides is worked out once per code object (:func:`_plan`); the
    names of the functions it calls are looked up at every call (recorded, as the lowering's
    other reads: a global rebound to another function makes the caller's code again)."""
    plan = _plan(fn)
    if plan is None or depth > _DEPTH:
        return (), ()
    src, local, entries, _ = plan
    if src.func is not fn:  # the same code in another function (a closure made again)
        src = source_module.rebound(src, fn)
    changed, bare = [], []
    for param, stored, uses in entries:
        if stored or any(_written(src, fn, use, local, depth) for use in uses):
            changed.append(param)
            if stored:
                bare.append(param)
    return tuple(changed), tuple(bare)


#: code object -> (code, plan): what :func:`changed_params` reads of a function's text, by
#: the code's identity (kept alive here, so an id is never another code's); a function
#: defined again has new code
_PLANS = {}


def _plan(fn):
    """``(src, local, [(param, stored, uses), ...], void)`` for ``fn``'s code (None when it
    is no such function): each parameter that may be written into, whether ``p op= v`` binds
    it, and each use of it or of a view of it (:func:`_use`)."""
    code = getattr(fn, "__code__", None)
    known = _PLANS.get(id(code))
    if known is not None and known[0] is code:
        if known[1] is None:
            return None
        text, *rest = known[1]  # the source read again for fn (its globals, its closure)
        return (source_module.rebound(text, fn), *rest)
    try:
        src = source_module.read(fn)
    except Exception:  # noqa: BLE001 - no source: not copied
        return None  # (not kept: the reason may be the function's, not its code's)
    plan = _planned(src)
    if len(_PLANS) >= 4096:  # (a bound: code objects of modules long gone)
        _PLANS.clear()
    # kept without the Source, which holds fn and its globals (fn would never be freed)
    _PLANS[id(code)] = (code, None if plan is None else (types.SimpleNamespace(
        node=src.node, filename=src.filename, first_line=src.first_line, text=src.text),
        *plan[1:]))
    return plan


def _planned(src):
    fdef = src.node
    args = fdef.args
    if args.vararg or args.kwarg:
        return None
    params = [a.id for a in args.posonlyargs + args.args + args.kwonlyargs]
    nodes = _own(fdef)
    if any(isinstance(n, (gast.Yield, gast.YieldFrom, gast.Await)) for n in nodes):
        return None
    parents = {c: n for n in nodes for c in gast.iter_child_nodes(n)}
    nested = {n.id for s in nodes if isinstance(s, _SCOPES) for n in walk_nodes(s)
              if isinstance(n, gast.Name)}
    declared = {x for n in walk_nodes(fdef) if isinstance(n, (gast.Global, gast.Nonlocal))
                for x in n.names}
    local = passed_calls.bound_names(fdef)
    entries = []
    for param in params:
        if param in nested or param in declared:
            continue
        stores = [n for n in nodes if isinstance(n, gast.Name) and n.id == param and
                  isinstance(n.ctx, (gast.Store, gast.Del))]
        if any(not isinstance(parents.get(n), gast.AugAssign) for n in stores):
            continue  # bound to another object somewhere
        if any(isinstance(n, gast.Attribute) and n.attr in _LISTS and isinstance(
                n.value, gast.Name) and n.value.id == param for n in nodes):
            continue  # ys.append(v): the copy's list would be the caller's (changed_lists)
        shared = _views_of(param, nodes, parents)
        uses = () if stores else tuple(_use(n, parents) for n in nodes
                                       if isinstance(n, gast.Name) and n.id in shared)
        entries.append((param, bool(stores), uses))
    void = not any(isinstance(n, gast.Return) and n.value is not None and not (
        isinstance(n.value, gast.Constant) and n.value.value is None) for n in nodes)
    return src, local, entries, void


def _views_of(param, nodes, parents):
    """``param`` and the names bound to what may be a view of it (or of such a name)."""
    shared, grew = {param}, True
    while grew:
        grew = False
        for node in nodes:
            target = value = None
            if isinstance(node, gast.Assign) and len(node.targets) == 1 and isinstance(
                    node.targets[0], gast.Name):
                target, value = node.targets[0].id, node.value
            elif isinstance(node, gast.For) and isinstance(node.target, gast.Name):
                target, value = node.target.id, node.iter
            if target is None or target in shared:
                continue
            while isinstance(value, (gast.Subscript, gast.Attribute, gast.Call)):
                if isinstance(value, gast.Call):
                    if not (isinstance(value.func, gast.Attribute) and
                            value.func.attr in _VIEWING):
                        break
                    value = value.func.value
                elif isinstance(value, gast.Attribute) and value.attr not in _VIEWING:
                    break
                else:
                    value = value.value
            if isinstance(value, gast.Name) and value.id in shared:
                shared.add(target)
                grew = True
    return shared


def _use(node, parents):
    """What the text tells of this use of a name: True where it writes into its object,
    False where it does not, else ``(func, first, starred, position)``: it is the argument at
    ``position`` of a call of ``func`` (``first``: the first; ``starred``: the call spreads
    ``*xs``), which writes into it when the function called does (:func:`_written`)."""
    parent = parents.get(node)
    if isinstance(parent, gast.AugAssign) and parent.target is node:
        return True
    while isinstance(parent, gast.Subscript) and parent.value is node:
        if not isinstance(parent.ctx, gast.Load):
            return True
        node, parent = parent, parents.get(parent)  # a[i][j] = v, a[i][j] += v
        if isinstance(parent, gast.AugAssign) and parent.target is node:
            return True
    if isinstance(parent, gast.Attribute) and parent.value is node and \
            parent.attr in _CHANGING:
        call = parents.get(parent)
        return isinstance(call, gast.Call) and call.func is parent
    if isinstance(parent, gast.keyword) and parent.arg == "out":
        return True
    if isinstance(parent, gast.Tuple) and isinstance(parents.get(parent), gast.keyword) and \
            parents[parent].arg == "out":
        return True
    if not (isinstance(parent, gast.Call) and node in parent.args):
        return False
    func = parent.func
    if isinstance(func, gast.Attribute) and func.attr == "at" and parent.args[0] is node:
        return True  # np.add.at(p, idx, v), any ufunc's
    return (func, parent.args[0] is node, any(isinstance(a, gast.Starred) for a in parent.args),
            parent.args.index(node))


def _written(src, fn, use, local, depth):
    """Whether this use of a name (:func:`_use`) writes into its object."""
    if use is True or use is False:
        return use
    func, first, starred, position = use
    callee = resolve_any(src, func, local)
    if any(callee is w for w in _WRITERS) and first:
        return True
    if not passed_calls.callee_function(callee) or callee is fn or starred:
        return False
    inner = list(callee.__code__.co_varnames[:callee.__code__.co_argcount])
    return position < len(inner) and inner[position] in changed_params(callee, depth + 1)[0]


def _void(fn):
    """Whether ``fn`` returns None wherever it returns (no ``return`` of a value)."""
    return _plan(fn)[3]


def _maker(fn, changed):
    """The entry of the copy of ``fn`` returning ``changed`` after what it returns (only
    ``changed``, as a tuple, where it returns None: :func:`_void`, so that Numba compiles it)."""
    void = _void(fn)

    def rewrite(fdef, taken):
        def back(value):
            return gast.Tuple(elts=([] if void else [value or gast.Constant(
                value=None, kind=None)]) + [_name(p) for p in changed], ctx=gast.Load())

        for node in _own(fdef):
            if isinstance(node, gast.Return):
                node.value = back(node.value)
        body = fdef.body
        if not isinstance(body[-1], (gast.Return, gast.Raise)):
            body.append(gast.Return(value=back(None)))
        for node in walk_nodes(fdef):
            if "lineno" in node._attributes and not hasattr(node, "lineno"):
                gast.copy_location(node, body[-2] if len(body) > 1 else fdef)
        return {}

    entry = returned_records._copy_returning(fn, (fn.__code__, "written back", changed),
                                             rewrite)
    copy = entry[0].cell_contents
    bare = set(changed_params(fn)[1])
    copy.__srcad_written_back__ = tuple(changed)  # what analysis.written_back reads
    copy.__srcad_written_void__ = void  # (the tuple returned: changed alone)
    copy.__srcad_bare_written__ = tuple(p for p in changed if p in bare)
    return entry


def _spread(args, displays=None):
    """``args`` with each ``*(a, x)`` (a tuple or list written there, or a name bound to one:
    ``displays``, :func:`_displays`) written out, or None where another ``*xs`` is left
    (refused where it matters: written_back.shown_call)."""
    out = []
    for arg in args:
        if not isinstance(arg, gast.Starred):
            out.append(arg)
        elif isinstance(arg.value, (gast.Tuple, gast.List)) and not any(
                isinstance(e, gast.Starred) for e in arg.value.elts):
            out.extend(arg.value.elts)
        elif isinstance(arg.value, gast.Name) and arg.value.id in (displays or {}):
            out.extend(_name(e.id) if isinstance(e, gast.Name) else e
                       for e in displays[arg.value.id])
        else:
            return None
    return out


def _displays(fdef, nodes):
    """(forms35) name -> the items of the tuple or list display it is bound to, for ``f(*xs)``
    to be ``f(a, b, x)``: ``xs`` bound once, at the function's top level, to a display of
    names and constants, and read only as ``*xs`` or ``xs[k]`` (so a list is never changed);
    each name in it a parameter or bound once, at the top level, before ``xs`` (so it holds
    the object ``xs`` holds, where the call is: later writes into it are the call's own,
    read back under that name)."""
    stores, loads = {}, {}
    parents = {c: n for n in nodes for c in gast.iter_child_nodes(n)}
    for node in nodes:
        if isinstance(node, gast.Name) and not isinstance(node.ctx, gast.Param):
            table = loads if isinstance(node.ctx, gast.Load) else stores
            table.setdefault(node.id, []).append(node)
    top = {id(s): i for i, s in enumerate(fdef.body)}
    params = {a.id for a in fdef.args.posonlyargs + fdef.args.args + fdef.args.kwonlyargs}
    out = {}
    for i, stmt in enumerate(fdef.body):
        if not (isinstance(stmt, gast.Assign) and len(stmt.targets) == 1 and isinstance(
                stmt.targets[0], gast.Name) and isinstance(stmt.value, (gast.Tuple, gast.List))):
            continue
        name, elts = stmt.targets[0].id, stmt.value.elts
        if len(stores.get(name, ())) != 1 or name in params or not all(
                isinstance(parents.get(n), gast.Starred) or isinstance(parents.get(
                    n), gast.Subscript) and parents[n].value is n and isinstance(
                    parents[n].ctx, gast.Load) for n in loads.get(name, ())):
            continue
        if all(isinstance(e, gast.Constant) or isinstance(e, gast.Name) and (
                e.id in params and not stores.get(e.id) or len(stores.get(e.id, ())) == 1
                and top.get(id(parents.get(stores[e.id][0])), i) < i) for e in elts):
            out[name] = elts
    return out


def lower(src):
    """Rewrite ``src.node`` in place, see above."""
    fdef = src.node
    nodes = _own(fdef)
    local = passed_calls.bound_names(fdef)
    declared = None  # (the names declared global or nonlocal: read once a call is found)
    displays = None  # (the names bound to a display: read once f(*xs) is found)
    found = []
    for stmt in nodes:
        if isinstance(stmt, gast.Expr):
            call = stmt.value
        elif isinstance(stmt, gast.Assign) and len(stmt.targets) == 1 and isinstance(
                stmt.targets[0], gast.Name):
            call = stmt.value
        else:
            continue
        if not isinstance(call, gast.Call) or any(k.arg is None for k in call.keywords):
            continue
        args = _spread(call.args, displays)  # update(*(a, x)): update(a, x)
        if args is None and displays is None and any(isinstance(a, gast.Starred) and isinstance(
                a.value, gast.Name) for a in call.args):
            displays = _displays(fdef, nodes)  # xs = (a, x); update(*xs): update(a, x)
            args = _spread(call.args, displays)
        if args is None:
            continue
        fn = resolve_any(src, call.func, local)
        if not passed_calls.callee_function(fn):
            continue
        changed = changed_params(fn)[0]
        if not changed:
            continue
        params = list(fn.__code__.co_varnames[:fn.__code__.co_argcount +
                                              fn.__code__.co_kwonlyargcount])
        given = dict(zip(params, args))
        given.update({k.arg: k.value for k in call.keywords})
        if declared is None:
            declared = {x for n in walk_nodes(fdef) if isinstance(
                n, (gast.Global, gast.Nonlocal)) for x in n.names}
        names = {p: given[p].id for p in changed if isinstance(given.get(p), gast.Name)
                 and given[p].id in local and given[p].id not in declared}
        if not names or len(set(names.values())) < len(names):
            continue  # (update(a, a): left as it was; the alias analysis refuses it)
        call.args = args
        found.append((stmt, call, fn, tuple(p for p in changed if p in names), names))
    if not found:
        return
    new_name = fresh_names({n.id for n in walk_nodes(fdef) if isinstance(n, gast.Name)})
    bind = passed_records.binder(src, fdef)
    for stmt, call, fn, changed, names in found:
        call.func = gast.copy_location(_name(bind(_maker(fn, changed))), call.func)
        void = _void(fn)
        rebound = isinstance(stmt, gast.Assign) and stmt.targets[0].id in names.values()
        first = [] if void else [stmt.targets[0] if isinstance(stmt, gast.Assign) and not (
            rebound) else _name(new_name(f"{fn.__name__}_result"), gast.Store())]
        target = gast.Tuple(elts=first + [_name(names[p], gast.Store()) for p in changed],
                            ctx=gast.Store())
        new = [gast.Assign(targets=[target], value=call, type_comment=None)]
        if isinstance(stmt, gast.Assign) and (void or rebound):  # r = update(a, x): r =
            new.append(gast.Assign(targets=stmt.targets, value=gast.Constant(  # None after;
                value=None, kind=None) if void else _name(first[0].id), type_comment=None))
            # a = update(a, x): a = what it returns (the array written, a view of it, ...)
        for node in walk_nodes(gast.Module(body=new, type_ignores=[])):
            if "lineno" in node._attributes and not hasattr(node, "lineno"):
                gast.copy_location(node, stmt)
        _replace(fdef, stmt, new)
