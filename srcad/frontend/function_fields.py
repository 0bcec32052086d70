"""Fields of plain classes holding functions (issue 16): ``self.act = act``, ``self.act =
np.tanh``, ``self.fns = [np.sin, np.cos]``, then ``h = self.act(h @ self.W)`` in a method.

An object of a plain class built by its ``__init__`` (:mod:`.plain_inits`) has its fields
computed by the copy of ``__init__``; a method's copy takes them as parameters, so a field
holding a function was a parameter whose function srcad did not know where it made the
method's code ("calling the local value 'self_act'"). A field is a *function field* when
``__init__`` sets it once, at its top level, to

* one of its parameters, never assigned in it (``self.act = act``, or ``self.W, self.act =
  W, act``): at a construction
  ``m = MLP(w, np.sin)`` (or ``act=np.sin``, or the parameter left out and its default a
  function) it holds what the call passes, when that is a function named where the call is
  (a free name or ``module.name``), or the default;
* a function named in ``__init__`` (``self.act = np.tanh``: a free name or ``module.name``);
* a list or tuple written of such names (``self.fns = [np.sin, np.cos]``);
* an item of a dict, list or tuple of functions named in ``__init__`` (a free name or
  ``module.name``), indexed by one of its parameters (``self.act = ACTS[act]``): at a
  construction the field's local is ``ACTS[k]`` with ``k`` what the call passes (a constant, a
  name or dotted name) or the parameter's default, one of the table's functions; a call
  passing it is a choice among them (``if m_act is np.tanh: ...``), checked when it runs;
* a conditional choosing among such functions by ``__init__``'s parameters (``self.act =
  np.tanh if smooth else relu``): the same conditional in the caller, reading the arguments
  the construction gives (constants, names, dotted names) or the defaults;
* ``getattr(module, param)`` (``self.act = getattr(np, act)``), when the construction gives
  a constant string (or leaves the parameter to a string default): that function.

At such a construction (:func:`at_construction`) the field's local is bound to that function
(or a list of them) where the object is built, not to what the copy returns: ``m_act`` is then
a name bound to a known function, and the method's copy called with it is made for that
function, as for any function passed by name (``apply(np.sin, x)``), in the loop too. The
copy of ``__init__`` still returns the field (its value is dropped there). Exact: the field
holds that very function in Python. A function field whose value is not known so (a lambda,
a local, an expression computing a function) stays a field like any other (refused where it
is called, with the rewrite).

Imports the standard library, gast, :mod:`.source`, :mod:`.built_records` and
:mod:`.iterators_passed` (:mod:`.plain_classes` and :mod:`.passed_calls` where used).
"""

from __future__ import annotations

import inspect
import types

import gast

from ..core.walk import walk_nodes
from . import source as source_module
from .built_records import resolve_any
from .iterators_passed import fixed_function


def _chain(node):
    """The root name of a name or dotted name, else None."""
    while isinstance(node, gast.Attribute):
        node = node.value
    return node.id if isinstance(node, gast.Name) else None


def find(info):
    """The function fields of the ``__init__`` ``info`` (a run
    :class:`.plain_classes._Init`): ``((field, how), ...)``, ``how`` one of ``("param",
    name)``, ``("value", node)``, ``("pick", table, name)``, ``("choose", conditional)``,
    ``("attr", module, name)`` or ``("seq", list or tuple, (node, ...))`` (see above)."""
    node = info.src.node
    args = node.args
    params = [a.id for a in args.posonlyargs + args.args + args.kwonlyargs][1:]
    stored = {n.id for n in walk_nodes(node) if isinstance(n, gast.Name) and
              isinstance(n.ctx, (gast.Store, gast.Del))}
    local = stored | set(params) | {a.id for a in (args.vararg, args.kwarg) if a is not None}
    local.add(info.self_name)
    out = []
    for field in info.fields:
        sets = [n for n in walk_nodes(node) if isinstance(n, gast.Attribute) and
                isinstance(n.value, gast.Name) and n.value.id == info.self_name and
                n.attr == field and not isinstance(n.ctx, gast.Load)]
        if len(sets) != 1:
            continue
        value = None
        for stmt in node.body:  # self.act = act, or self.W, self.act = W, act
            if not (isinstance(stmt, gast.Assign) and len(stmt.targets) == 1):
                continue
            target = stmt.targets[0]
            if target is sets[0]:
                value = stmt.value
            elif isinstance(target, gast.Tuple) and sets[0] in target.elts and \
                    isinstance(stmt.value, gast.Tuple) and \
                    len(stmt.value.elts) == len(target.elts) and not any(
                        isinstance(e, gast.Starred) for e in target.elts + stmt.value.elts):
                value = stmt.value.elts[target.elts.index(sets[0])]
        how = None if value is None else _how(value, info, local, params, stored)
        if how is not None:
            out.append((field, how))
    return tuple(out)


def _how(value, info, local, params, stored):
    """How ``__init__`` gives a field ``value`` (see :func:`find`), or None."""

    def free(node):  # a name or dotted name read from outside __init__
        return _chain(node) is not None and _chain(node) not in local

    def given(node):  # a parameter of __init__ it never rebinds
        return isinstance(node, gast.Name) and node.id in params and node.id not in stored

    if given(value):
        return ("param", value.id)
    if free(value):
        return ("value", value) if fixed_function(info.lookup(value)) else None
    if isinstance(value, gast.Subscript) and free(value.value) and given(value.slice):
        # self.act = ACTS[act]
        return ("pick", value.value, value.slice.id) if _table(
            info.lookup(value.value)) else None
    if isinstance(value, gast.IfExp) and _choice_leaves(value, local, info) and all(
            given(n) for test in _choice_tests(value)
            for n in walk_nodes(test) if isinstance(n, gast.Name)):
        return ("choose", value)  # self.act = np.tanh if b else np.sin
    if isinstance(value, gast.Call) and isinstance(value.func, gast.Name) and \
            value.func.id == "getattr" and "getattr" not in local and \
            len(value.args) == 2 and not value.keywords and free(value.args[0]) and \
            given(value.args[1]) and isinstance(info.lookup(value.args[0]), types.ModuleType):
        return ("attr", value.args[0], value.args[1].id)  # getattr(np, act)
    if isinstance(value, (gast.List, gast.Tuple)) and value.elts and all(
            free(e) and fixed_function(info.lookup(e)) for e in value.elts):
        return ("seq", list if isinstance(value, gast.List) else tuple, tuple(value.elts))
    return None


def at_construction(src, plain, call, local, hold):
    """``{field: expression}`` for the function fields of ``plain`` (a
    :class:`.plain_classes.Plain`) whose function is known where ``call`` builds the object
    (in ``src``; ``local``: the names the function binds; ``hold(value, base)`` names a
    value in its cells)."""

    if not plain.functions:
        return {}
    try:
        signature = inspect.signature(plain.init)
        bound = signature.bind_partial(None, *call.args, **{
            k.arg: k.value for k in call.keywords if k.arg is not None})
    except TypeError:
        return {}
    if any(isinstance(a, gast.Starred) for a in call.args) or any(
            k.arg is None for k in call.keywords):
        return {}
    fdef = src.node
    stored = {n.id for n in walk_nodes(fdef) if isinstance(n, gast.Name) and
              isinstance(n.ctx, (gast.Store, gast.Del))}
    params = {a.id for a in fdef.args.posonlyargs + fdef.args.args + fdef.args.kwonlyargs
              } - stored
    init_src = None
    out = {}
    for field, how in plain.functions:
        if how[0] in ("pick", "choose", "attr"):
            init_src = init_src or source_module.read(plain.init)
            picked = _BY_KEY[how[0]](init_src, how, signature, bound, local, hold)
            if picked is not None:
                out[field] = picked
            continue
        if how[0] == "param":
            param = signature.parameters[how[1]]
            if param.kind in (param.VAR_POSITIONAL, param.VAR_KEYWORD):
                continue
            if how[1] in bound.arguments:
                node = bound.arguments[how[1]]
                if isinstance(node, gast.Name) and node.id in params and \
                        fixed_function(param.default):
                    out[field] = _copy(node)  # a parameter for a function: the one given
                    continue
                root = _chain(node)
                if root is None or root in local or not fixed_function(
                        resolve_any(src, node, local)):
                    continue
                out[field] = _copy(node)
            elif param.default is not param.empty and fixed_function(param.default):
                out[field] = _name(hold(param.default, _label(param.default)))
            continue
        init_src = init_src or source_module.read(plain.init)
        nodes = (how[1],) if how[0] == "value" else how[2]
        values = [resolve_any(init_src, n) for n in nodes]
        if not all(fixed_function(v) for v in values):
            continue
        names = [_name(hold(v, _label(v))) for v in values]
        out[field] = names[0] if how[0] == "value" else (
            gast.List if how[1] is list else gast.Tuple)(elts=names, ctx=gast.Load())
    return out


def _table(value):
    """Whether ``value`` is a dict, list or tuple of functions (``ACTS``), none empty."""
    items = list(value.values()) if isinstance(value, dict) else value if isinstance(
        value, (list, tuple)) else None
    return bool(items) and all(fixed_function(v) for v in items)


def _choice_tests(node):
    """The tests of a conditional expression and of those nested in its arms."""
    if not isinstance(node, gast.IfExp):
        return []
    return [node.test] + _choice_tests(node.body) + _choice_tests(node.orelse)


def _choice_leaves(node, local, info):
    """Whether every arm of the conditional ``node`` names a function (a free name or dotted
    name of ``__init__``), nested conditionals too."""
    if isinstance(node, gast.IfExp):
        return _choice_leaves(node.body, local, info) and _choice_leaves(
            node.orelse, local, info)
    return _chain(node) is not None and _chain(node) not in local and fixed_function(
        info.lookup(node))


def _given(name, signature, bound):
    """The node a construction gives ``__init__``'s parameter ``name``: the argument when
    it is a constant, a name or a dotted name (reading it again runs nothing twice), the
    default when it is left out and a plain constant; else None."""
    param = signature.parameters[name]
    if param.kind in (param.VAR_POSITIONAL, param.VAR_KEYWORD):
        return None
    if name in bound.arguments:
        key = bound.arguments[name]
        if isinstance(key, gast.Constant) or _chain(key) is not None:
            return _copy(key)
        return None
    if param.default is not param.empty and (param.default is None or type(
            param.default) in (int, str, bool, float)):
        return gast.Constant(value=param.default, kind=None)
    return None


class _Given(gast.NodeTransformer):
    """Each name of a test (``__init__``'s parameters, :func:`find`) replaced by what the
    construction gives it (:func:`_given`); ``missing`` when one has nothing to read again."""

    def __init__(self, signature, bound):
        self.signature, self.bound, self.missing = signature, bound, False

    def visit_Name(self, node):
        new = _given(node.id, self.signature, self.bound)
        self.missing = self.missing or new is None
        return node if new is None else new


def _choose(init_src, how, signature, bound, local, hold):
    """``np.tanh if b else np.sin`` for a field set so (``how``: ``("choose", node)``), the
    tests reading the parameters as the construction gives them, the functions bound in the
    caller's cells: a merge of functions, called through a choice."""

    def made(node):
        if isinstance(node, gast.IfExp):
            test, body, orelse = (made_test(node.test), made(node.body), made(node.orelse))
            if None in (test, body, orelse):
                return None
            return gast.IfExp(test=test, body=body, orelse=orelse)
        value = resolve_any(init_src, node)
        return _name(hold(value, _label(value))) if fixed_function(value) else None

    def made_test(test):
        given = _Given(signature, bound)
        test = given.visit(_copy(test))
        return None if given.missing else test

    return made(how[1])


def _attr(init_src, how, signature, bound, local, hold):
    """``getattr(np, act)`` for a field set so: the function itself when the construction
    gives a constant name (``MLP(w, "tanh")``, or the default); else None (refused where the
    field is called, as before)."""
    key = _given(how[2], signature, bound)
    if not (isinstance(key, gast.Constant) and type(key.value) is str):
        return None
    value = getattr(resolve_any(init_src, how[1]), key.value, None)
    return _name(hold(value, _label(value))) if fixed_function(value) else None


def _pick(init_src, how, signature, bound, local, hold):
    """``TABLE[key]`` for a field set ``self.act = TABLE[act]`` (``how``: ``("pick", table
    node, parameter)``): the table bound in the caller's cells, the key what the construction
    passes (a constant, or a name or dotted name read again: nothing runs twice), or the
    parameter's default. Read from a known table, the field's local is then one of its
    functions (:meth:`.lower_choices.Choices.pass_choice` makes a method's call for each)."""
    key = _given(how[2], signature, bound)
    if key is None:
        return None
    table = resolve_any(init_src, how[1])
    if not _table(table):
        return None
    return gast.Subscript(value=_name(hold(table, "srcad_table")), slice=key, ctx=gast.Load())


_BY_KEY = {"pick": _pick, "choose": _choose, "attr": _attr}


def holder(src, taken):
    """``hold(value, base)``: ``value`` bound in ``src``'s cells under a fresh name (not in
    ``taken``, a set it adds to), the same name for the same value."""
    import types

    held = {}

    def hold(value, base):
        if id(value) in held:
            return held[id(value)]
        name = base
        while name in taken or src.closure.get(name, value) is not value:
            name += "_"
        taken.add(name)
        src.closure[name] = value
        src.cells[name] = types.CellType(value)
        src.bound = {**getattr(src, "bound", {}), name: value}
        held[id(value)] = name
        return name

    return hold


def _label(value):
    name = getattr(value, "__name__", "fn")
    return f"srcad_{name}" if isinstance(name, str) and name.isidentifier() else "srcad_fn"


def _name(id_):
    return gast.Name(id=id_, ctx=gast.Load(), annotation=None, type_comment=None)


def _copy(node):
    import copy

    return copy.deepcopy(node)


def known_values(src, plain, call, local):
    """``{field: function}`` of the function fields of ``plain`` whose function ``call`` (in
    ``src``; ``local``: names bound there) gives where it is written: the functions
    themselves (see :func:`at_construction`), for a class holding its items' functions."""

    held = {}

    def hold(value, base):
        held[base + str(id(value))] = value
        return base + str(id(value))

    out = {}
    for field, expr in at_construction(src, plain, call, local, hold).items():
        if isinstance(expr, gast.Name) and expr.id in held:
            out[field] = held[expr.id]
        elif isinstance(expr, (gast.Name, gast.Attribute)):
            value = resolve_any(src, expr, local)
            if fixed_function(value):
                out[field] = value
    return out


def bind_known(src, fdef, assign, call, cls, fields, locals_, taken, hold):
    """``m_W, m_act = MLP_fields(w, np.sin)`` (``assign``, :mod:`.lower_records`; ``locals_``
    the fields' locals, in order) -> ``(m_W, m_act_made), m_act = MLP_fields(w, np.sin),
    np.sin`` for the function fields whose function ``call`` gives (:func:`at_construction`):
    the field's local bound to the function named where the object is built."""
    from . import plain_classes
    from .passed_calls import bound_names

    targets = assign.targets[0].elts
    if len(targets) != len(fields):
        return
    known = at_construction(src, plain_classes.describe(cls), call, bound_names(fdef), hold)
    if not known:
        return
    for k, f in enumerate(fields):
        if f in known:
            new = f"{locals_[k]}_made"
            while new in taken:
                new += "_"
            taken.add(new)
            targets[k] = gast.Name(id=new, ctx=gast.Store(), annotation=None,
                                   type_comment=None)  # (what the copy returns)
    assign.targets = [gast.Tuple(elts=[assign.targets[0]] + [gast.Name(
        id=locals_[fields.index(f)], ctx=gast.Store(), annotation=None, type_comment=None)
        for f in known], ctx=gast.Store())]
    assign.value = gast.Tuple(elts=[assign.value] + list(known.values()), ctx=gast.Load())
