"""Values grouped by key in a dict the function makes (issue 16): ``d.setdefault(k,
[]).append(v)``, ``d[k].append(v)`` on a ``collections.defaultdict(list)`` (or on a dict whose
lists are ``d[k] = []``), ``d[k] += v`` on a ``collections.defaultdict(float)`` (``int``).

Python changes the list (or the number's place) in the dict in place. When every list the dict
holds is one these statements made (fresh, held by the dict alone) and nothing reads the dict
while they run, that is the same as building a new list each time:

* ``d.setdefault(k, []).append(v)`` (or ``t = d.setdefault(k, []); t.append(v)``, ``t`` read
  there only) -> ``d[k] = d.get(k, []) + [v]``;
* ``d[k].append(v)`` -> ``d[k] = d.get(k, []) + [v]`` on a ``defaultdict(list)``, ``d[k] =
  d[k] + [v]`` on a dict (its ``KeyError`` kept);
* ``d[k] += v`` -> ``d[k] = d.get(k, 0.0) + v`` on a ``defaultdict(float)`` (``0`` for ``int``;
  any operator);
* ``d = collections.defaultdict(list)`` -> ``d = {}``, and a later read ``d[k]`` ->
  ``d.setdefault(k, [])`` (a missing key gets its default, as Python's ``__missing__`` does);

forms srcad differentiates (a new list, a dict write). ``k`` (and ``v``) are computed once, in
Python's order: a key that is not a plain expression of names and constants is taken into a
name first. Taken when the dict is a name of the function's own, made once by a top-level
``d = {}``, ``dict()`` or ``collections.defaultdict(list | int | float)``, and read, between
the first and last of these statements (counted by the top-level statements holding them),
only by ``k in d``, ``len(d)`` or ``d[k] = []``; not read in a nested function. A
``defaultdict`` read afterwards only where a dict does the same (``d[k]``, ``d.get``,
``d.items()``, ``for k in d``, ``len``, ``sorted``, ...), not passed on or returned (a dict
would not make defaults there). Any other ``collections.defaultdict`` in the function is refused
(its ``d[k]`` changes ``d``, which srcad would not see: a zero gradient).

Imports gast, the standard library, :mod:`srcad.errors`, :mod:`.blocks` and
:mod:`.dotted_names`.
"""

from __future__ import annotations

import builtins
import collections
import copy

import gast

from ..core.walk import walk_nodes
from ..errors import UnsupportedSyntaxError
from .blocks import own_blocks
from .dotted_names import name_path

_HINT = ("group into a dict the function makes: d = {} then d.setdefault(k, []).append(v) "
         "(or d[k] = d.get(k, []) + [v]; d[k] = d.get(k, 0.0) + v for sums), the dict read "
         "only after the loop that fills it")
#: what a defaultdict read afterwards may be used as: the same on a dict
_DICT_READS = frozenset({"get", "items", "values", "keys"})
_DICT_CALLS = (len, sorted, list, sum, min, max, enumerate, iter, tuple, set)


def _name(id_, store=False):
    return gast.Name(id=id_, ctx=gast.Store() if store else gast.Load(), annotation=None,
                     type_comment=None)


def _call(func, args):
    return gast.Call(func=func, args=args, keywords=[])


def _method(obj, attr, args):
    return _call(gast.Attribute(value=_name(obj), attr=attr, ctx=gast.Load()), args)


def _error(src, node, message, hint=_HINT):
    line = getattr(node, "lineno", None)
    return UnsupportedSyntaxError(message, filename=src.filename, lineno=line,
                                  construct=src.line_text(line), hint=hint)


def _resolve(src, node):
    """The object the name or dotted name ``node`` means, or None."""
    named = name_path(node)
    if named is None:
        return None
    try:
        return src.lookup(*named)
    except (KeyError, AttributeError):
        return None


def _is_defaultdict(src, call):
    return isinstance(call, gast.Call) and _resolve(src, call.func) is collections.defaultdict


def _maker(src, value):
    """``("dict", None)`` for ``{}``/``dict()``; ``("default", default)`` for
    ``collections.defaultdict(list | int | float)`` (``default``: the node of the value a
    missing key gets); else None."""
    if isinstance(value, gast.Dict) and all(
            k is not None and _pure(k) and isinstance(v, gast.List) and not v.elts
            for k, v in zip(value.keys, value.values)):
        return "dict", None  # {} or {0: [], 1: []}: lists of its own
    if isinstance(value, gast.Call) and not value.args and not value.keywords and \
            _resolve(src, value.func) is dict:
        return "dict", None
    if _is_defaultdict(src, value) and len(value.args) == 1 and not value.keywords:
        made = {list: gast.List(elts=[], ctx=gast.Load()), int: gast.Constant(0, None),
                float: gast.Constant(0.0, None)}
        factory = _resolve(src, value.args[0])
        if factory in made and factory is getattr(builtins, factory.__name__):
            return "default", made[factory]
    return None


def _mentions(node, name):
    return any(isinstance(n, gast.Name) and n.id == name for n in walk_nodes(node))


def _pure(node, local=frozenset()):
    """A key Python computes twice with the same value and no effect, whatever runs between
    (no call can rebind a local): the function's own names, constants, arithmetic and tuples
    of them."""
    return all(isinstance(n, (gast.Name, gast.Constant, gast.BinOp, gast.UnaryOp, gast.Tuple,
                              gast.operator, gast.unaryop, gast.expr_context)) and (
        not isinstance(n, gast.Name) or n.id in local) for n in walk_nodes(node))


class _Dict:
    """One candidate: its name, how it is made, and its forms found in the body."""

    def __init__(self, name, kind, default, made, top, local):
        self.name, self.kind, self.default, self.made, self.top = \
            name, kind, default, made, top
        self.local = local  # the function's own names (keys of them are computed twice)
        self.writes = []  # (statement, top index, form, key, value)
        self.quiet = set()  # ids of Name nodes read by `k in d`, len(d), d[k] = []
        self.reads = []  # (Name node, parent, top index): every other read

    def group_form(self, stmt):
        """``(form, key, value)`` when ``stmt`` is one of the statements rewritten."""
        d = self.name
        if isinstance(stmt, gast.Expr) and isinstance(stmt.value, gast.Call):
            call = stmt.value
            func = call.func
            if not (isinstance(func, gast.Attribute) and func.attr == "append" and
                    len(call.args) == 1 and not call.keywords and
                    not isinstance(call.args[0], gast.Starred)):
                return None
            inner, value = func.value, call.args[0]
            if isinstance(inner, gast.Call) and isinstance(inner.func, gast.Attribute) and \
                    inner.func.attr == "setdefault" and _is(inner.func.value, d) and \
                    len(inner.args) == 2 and not inner.keywords and \
                    isinstance(inner.args[1], gast.List) and not inner.args[1].elts and \
                    self.kind == "dict":
                return "setdefault", inner.args[0], value
            if isinstance(inner, gast.Subscript) and _is(inner.value, d) and (
                    self.kind == "dict" or isinstance(self.default, gast.List)):
                return "append", inner.slice, value
            return None
        if isinstance(stmt, gast.AugAssign) and isinstance(stmt.target, gast.Subscript) and \
                _is(stmt.target.value, d) and self.kind == "default" and \
                isinstance(self.default, gast.Constant):
            return "add", stmt.target.slice, stmt.value
        return None


def _is(node, name):
    return isinstance(node, gast.Name) and node.id == name


def _builtin(src, func, fns):
    """Whether the call's function ``func`` is a name meaning one of the builtins ``fns``."""
    return isinstance(func, gast.Name) and hasattr(builtins, func.id) and \
        _resolve(src, func) in fns


def _quiet(src, parent, node, grand):
    """``k in d``, ``len(d)``, ``d[k] = []``: reads that keep no list of the dict."""
    if isinstance(parent, gast.Compare) and len(parent.ops) == 1 and isinstance(
            parent.ops[0], (gast.In, gast.NotIn)) and parent.comparators[0] is node:
        return True
    if isinstance(parent, gast.Call) and _builtin(src, parent.func, (len,)) and \
            parent.args == [node]:
        return True
    return isinstance(parent, gast.Subscript) and isinstance(parent.ctx, gast.Store) and \
        isinstance(grand, gast.Assign) and len(grand.targets) == 1 and \
        isinstance(grand.value, gast.List) and not grand.value.elts


def lower(src):
    """Rewrite ``src.node`` in place, see above; refuse a ``defaultdict`` not taken."""
    fdef = src.node
    if not any(isinstance(n, gast.Call) and isinstance(n.func, gast.Attribute) and n.func.attr
               in ("setdefault", "append") or isinstance(n, gast.Call) and
               _is_defaultdict(src, n) for n in walk_nodes(fdef)):
        return
    _merge_held(fdef)
    parents = {}
    for node in walk_nodes(fdef):
        for child in gast.iter_child_nodes(node):
            parents[child] = node
    stores, nested, declared = {}, set(), set()
    for node in walk_nodes(fdef):
        if isinstance(node, gast.Name) and not isinstance(node.ctx, gast.Load):
            stores[node.id] = stores.get(node.id, 0) + 1
        elif isinstance(node, (gast.Global, gast.Nonlocal)):
            stores.update((n, 2) for n in node.names)
            declared.update(node.names)
        elif isinstance(node, (gast.FunctionDef, gast.Lambda)) and node is not fdef:
            nested |= {n.id for n in walk_nodes(node) if isinstance(n, gast.Name)}
    params = {a.id for a in fdef.args.posonlyargs + fdef.args.args + fdef.args.kwonlyargs}
    own = (set(stores) | params) - declared - nested  # no call rebinds these
    found = {}
    for top, stmt in enumerate(fdef.body):
        if isinstance(stmt, gast.Assign) and len(stmt.targets) == 1 and \
                isinstance(stmt.targets[0], gast.Name):
            name = stmt.targets[0].id
            made = _maker(src, stmt.value)
            if made and stores.get(name) == 1 and name not in params | nested:
                found[name] = _Dict(name, made[0], made[1], stmt, top, own)
    for top, stmt in enumerate(fdef.body):
        for node in walk_nodes(stmt):
            for cand in found.values():
                form = cand.group_form(node) if isinstance(node, gast.stmt) else None
                if form is not None:
                    cand.writes.append((node, top) + form)
    for top, stmt in enumerate(fdef.body):
        for node in walk_nodes(stmt):
            if not (isinstance(node, gast.Name) and isinstance(node.ctx, gast.Load) and
                    node.id in found):
                continue
            cand, parent = found[node.id], parents.get(node)
            if _quiet(src, parent, node, parents.get(parent)):
                cand.quiet.add(id(node))
            elif not _written_by(cand, node, parents):
                cand.reads.append((node, parent, top))
    for cand in found.values():
        if _takes(src, cand, parents):
            _rewrite(cand, parents)
    for node in walk_nodes(fdef):
        if isinstance(node, gast.Call) and _is_defaultdict(src, node):
            raise _error(src, node, "a collections.defaultdict srcad does not read here: its "
                         "d[k] adds the key to d, a change srcad would not see (it takes "
                         "defaultdict(list), (int) or (float) in a name of the function's own, "
                         "filled by d[k].append(v) or d[k] += v in top-level statements and "
                         "read after them, not passed on)")


def _merge_held(fdef):
    """``t = d.setdefault(k, []); t.append(v)`` (``t`` bound there only, read by that append
    only, ``v`` not reading it) -> ``d.setdefault(k, []).append(v)``: the same calls in the
    same order."""
    stores, loads = {}, {}
    for node in walk_nodes(fdef):
        if isinstance(node, gast.Name):
            table = loads if isinstance(node.ctx, gast.Load) else stores
            table[node.id] = table.get(node.id, 0) + 1
        elif isinstance(node, (gast.Global, gast.Nonlocal)):
            stores.update((n, 2) for n in node.names)
    for block in own_blocks(fdef):
        i = 0
        while i + 1 < len(block):
            first, then = block[i], block[i + 1]
            held = first.targets[0].id if isinstance(first, gast.Assign) and len(
                first.targets) == 1 and isinstance(first.targets[0], gast.Name) else None
            call = then.value if isinstance(then, gast.Expr) else None
            if held and stores.get(held) == 1 and loads.get(held) == 1 and isinstance(
                    first.value, gast.Call) and isinstance(first.value.func, gast.Attribute) \
                    and first.value.func.attr == "setdefault" and isinstance(
                        call, gast.Call) and isinstance(call.func, gast.Attribute) and \
                    call.func.attr == "append" and _is(call.func.value, held):
                call.func.value = first.value
                block[i:i + 2] = [then]
            i += 1


def _written_by(cand, node, parents):
    """Whether the Name ``node`` is inside one of the dict's group statements (its key or
    value reading the dict is refused by :func:`_takes`)."""
    writes = {id(w[0]) for w in cand.writes}
    up = node
    while up is not None and id(up) not in writes:
        up = parents.get(up)
    return up is not None


def _takes(src, cand, parents):
    """Whether the rewrite is exact for this dict (see the module's docstring)."""
    if not cand.writes:
        return False
    if any(_mentions(key, cand.name) or _mentions(value, cand.name)
           for _, _, _, key, value in cand.writes):
        return False
    last = max(top for _, top, *_ in cand.writes)
    if any(top <= last for _, _, top in cand.reads):
        return False
    if cand.kind == "default":
        for node, parent, _ in cand.reads:
            if not _dict_like_read(src, node, parent):
                return False
            if _loaded_item(node, parent) and _statement_of(cand, parent, parents) is None:
                return False
    return True


def _loaded_item(node, parent):
    return isinstance(parent, gast.Subscript) and parent.value is node and isinstance(
        parent.ctx, gast.Load)


def _statement_of(cand, item, parents):
    """The statement before which ``if k not in d: d[k] = default`` gives the read ``item``
    (``d[k]`` of a defaultdict) its key as Python's ``__missing__`` does, there: ``k`` pure,
    the read made once and unconditionally by a simple statement (or an ``if`` test, a
    ``for``'s iterable) reading the dict no other way and binding nothing (no walrus);
    None when there is none."""
    if not _pure(item.slice, cand.local):
        return None
    up = parents.get(item)
    while not isinstance(up, gast.stmt):
        if isinstance(up, (gast.Lambda, gast.IfExp, gast.BoolOp, gast.comprehension,
                           gast.ListComp, gast.SetComp, gast.DictComp, gast.GeneratorExp)):
            return None
        up = parents.get(up)
    if isinstance(up, gast.If) or isinstance(up, gast.For):
        part = up.test if isinstance(up, gast.If) else up.iter
        if not any(n is item for n in walk_nodes(part)):
            return None
        scope = [part]
    elif isinstance(up, (gast.Assign, gast.AugAssign, gast.Expr, gast.Return)):
        scope = [up]
    else:
        return None
    for part in scope:
        for n in walk_nodes(part):
            if isinstance(n, gast.NamedExpr):
                return None
            if _is(n, cand.name) and not _loaded_item(n, parents.get(n)):
                return None
    return up


def _dict_like_read(src, node, parent):
    if isinstance(parent, gast.Subscript) and parent.value is node:
        return True  # d[k] (a read: d.setdefault(k, default); a write: the same on a dict)
    if isinstance(parent, gast.Attribute) and parent.attr in _DICT_READS:
        return True
    if isinstance(parent, gast.comprehension) and parent.iter is node or isinstance(
            parent, gast.For) and parent.iter is node:
        return True
    if isinstance(parent, gast.Compare) and node in parent.comparators:
        return True
    return isinstance(parent, gast.Call) and _builtin(src, parent.func, _DICT_CALLS) and \
        node in parent.args


def _rewrite(cand, parents):
    d = cand.name
    for stmt, _, form, key, value in cand.writes:
        block = _block_of(stmt, parents)
        at = block.index(stmt)
        before = []
        if not _pure(key, cand.local) or any(isinstance(n, gast.NamedExpr)
                                             for n in walk_nodes(value)):
            # computed once, first, as Python does
            held = f"{d}_srcad_key"
            before.append(_located(gast.Assign(targets=[_name(held, True)], value=key,
                                               type_comment=None), stmt))
            key = _name(held)
        if form == "add":
            old = _method(d, "get", [copy.deepcopy(key), copy.deepcopy(cand.default)])
            new = gast.BinOp(left=old, op=copy.deepcopy(stmt.op), right=value)
        else:
            old = gast.Subscript(value=_name(d), slice=copy.deepcopy(key), ctx=gast.Load()) \
                if form == "append" and cand.kind == "dict" else _method(
                    d, "get", [copy.deepcopy(key), gast.List(elts=[], ctx=gast.Load())])
            new = gast.BinOp(left=old, op=gast.Add(), right=gast.List(elts=[value],
                                                                     ctx=gast.Load()))
        target = gast.Subscript(value=_name(d, True), slice=copy.deepcopy(key),
                                ctx=gast.Store())
        assign = _located(gast.Assign(targets=[target], value=new, type_comment=None), stmt)
        block[at:at + 1] = before + [assign]
    if cand.kind == "default":
        cand.made.value = _located(gast.Dict(keys=[], values=[]), cand.made.value)
        for node, parent, _ in cand.reads:
            if _loaded_item(node, parent):  # if k not in d: d[k] = default, first
                stmt = _statement_of(cand, parent, parents)
                block = _block_of(stmt, parents)
                missing = gast.Compare(left=copy.deepcopy(parent.slice), ops=[gast.NotIn()],
                                       comparators=[_name(d)])
                store = gast.Assign(targets=[gast.Subscript(
                    value=_name(d), slice=copy.deepcopy(parent.slice), ctx=gast.Store())],
                    value=copy.deepcopy(cand.default), type_comment=None)
                at = next(i for i, s in enumerate(block) if s is stmt)
                block.insert(at, _located(gast.If(test=missing, body=[store], orelse=[]),
                                          stmt))


def _block_of(stmt, parents):
    owner = parents[stmt]
    for field in ("body", "orelse", "finalbody"):
        block = getattr(owner, field, None)
        if isinstance(block, list) and any(s is stmt for s in block):
            return block
    raise AssertionError("a statement outside its parent's blocks")


def _located(node, like):
    for sub in walk_nodes(node):
        if getattr(sub, "lineno", None) is None and hasattr(like, "lineno"):
            gast.copy_location(sub, like)
    return node
