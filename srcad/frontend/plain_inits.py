"""The copy of a plain class's ``__init__`` returning its fields (issue 16; see
:mod:`.plain_classes`): ``g = Gaussian(mu, s)`` is ``g_mu, g_sigma = Gaussian_fields(mu, s)``.

``Gaussian_fields`` is ``__init__`` without ``self``, ``self.mu`` read and written as the local
``self_mu``, ``super().__init__(...)`` (or ``Base.__init__(self, ...)``) the call of the base's
copy assigning its fields, and ``return self_mu, self_sigma`` at its end. It is run in
``__init__``'s globals with its cells and defaults (:func:`.passed_records._run`), and made
again when ``__init__`` (or what making it read) changes.

Imports the standard library, gast, :mod:`srcad.core`, :mod:`.source`, :mod:`.plain_classes`,
:mod:`.passed_calls` and :mod:`.passed_records`.
"""

from __future__ import annotations

import copy
import threading
import types
import weakref

import gast

from ..core import env
from ..core.walk import walk_nodes
from . import passed_records, plain_dicts, plain_lists
from . import source as source_module
from .passed_calls import class_method
from .plain_classes import Plain, _Init, describe

_LOCK = threading.RLock()
_MADE = weakref.WeakKeyDictionary()  # cls -> {owner: entry}


def maker(cls, owner=None):
    """The entry (as :func:`srcad.frontend.passed_records.derived` gives: ``(cell, names,
    reads, label)``) of the copy of the ``__init__`` ``cls``'s objects run (``owner``'s, for
    ``super().__init__``), returning the fields in order (a tuple)."""
    plain = describe(cls, owner)
    assert isinstance(plain, Plain) and plain.init is not None
    owner = plain.owner
    with _LOCK:
        made = _MADE.setdefault(cls, {})
        known = made.get(owner)
        if known is not None and not env.stale(known[2]):
            env.record_all(known[2])
            return known
        with env.collecting() as reads:
            class_method(cls, "__init__")  # the reads: another __init__ makes it again
            env.record_all(env.code_reads({"__init__": plain.init}))
            src = source_module.read(plain.init)
            fdef = copy.deepcopy(src.node)
            cells, entry_names = {}, {}
            taken = {n.id for n in walk_nodes(fdef) if isinstance(n, gast.Name)} | set(
                plain.init.__code__.co_varnames) | set(plain.init.__code__.co_freevars) | set(
                plain.init.__code__.co_names)

            def fresh(base):
                while base in taken:
                    base += "_"
                taken.add(base)
                return base

            self_name = (fdef.args.posonlyargs + fdef.args.args)[0].id
            locals_ = {f: fresh(f"{self_name}_{f}") for f in plain.fields}
            locals_.update((f, fresh(f"{self_name}_{f}")) for f, _, _, _ in plain.lists)

            def parent_call(stmt, parent):
                if parent.init is None:  # object.__init__(): nothing
                    return gast.copy_location(gast.Pass(), stmt)
                entry = maker(cls, parent.owner)
                name = fresh(f"{entry[3]}_fields")
                cells[name] = entry[0]
                entry_names[name] = entry
                call = stmt.value
                args = call.args[1:] if not (isinstance(call.func.value, gast.Call)) \
                    else call.args
                return gast.copy_location(gast.Assign(
                    targets=[gast.Tuple(elts=[_name(locals_[f], gast.Store())
                                              for f in parent.fields], ctx=gast.Store())],
                    value=gast.Call(func=_name(name), args=args, keywords=call.keywords),
                    type_comment=None), stmt)

            copied = copy.copy(src)
            copied.node = fdef
            parents = {id(stmt): parent for stmt, parent in _parents(cls, owner, copied)}
            inherited = {e[0] for _, p in parents.items() for e in p.lists}
            own = tuple(e for e in plain.lists if e[0] not in inherited)
            plain_dicts.split_dict(fdef, self_name, own)  # {"enc": Dense(a)}: an object a key
            holder = fresh(f"{cls.__name__}_class")  # self.K: read through the class
            _Rewrite(self_name, locals_, parents, parent_call, holder).visit(fdef)
            if any(isinstance(n, gast.Name) and n.id == holder for n in walk_nodes(fdef)):
                cells[holder] = types.CellType(cls)
            if fdef.body and isinstance(fdef.body[-1], gast.Return):
                fdef.body.pop()
            if own:  # self_layers taken apart: one list per item field
                def hold(value, base):
                    name = fresh(base)
                    cells[name] = types.CellType(value)
                    return name

                fdef.body += plain_lists.taken_apart(own, locals_, fresh,
                                                     fdef.body[-1] if fdef.body else fdef,
                                                     hold)
            columns = {e for _, _, subs, kind in plain.lists if kind == "list"
                       for _, e in subs}
            fdef.body.append(gast.copy_location(gast.Return(value=gast.Tuple(
                elts=[gast.Call(func=_name("tuple"), args=[_name(locals_[f])], keywords=[])
                      if f in columns else _name(locals_[f]) for f in plain.fields],
                ctx=gast.Load())), fdef.body[-1] if fdef.body else fdef))
            for node in walk_nodes(fdef.body[-1]):  # (a column a tuple: its gradient is
                if "lineno" in node._attributes and not hasattr(node, "lineno"):  # one
                    gast.copy_location(node, fdef.body[-1])  # the caller does not share)
            args = fdef.args
            if args.posonlyargs:
                args.posonlyargs = args.posonlyargs[1:]
            else:
                args.args = args.args[1:]
            passed_records.bare_signature(fdef)
            label = cls.__name__ if owner is cls else f"{cls.__name__}_{owner.__name__}"
            fn = passed_records._run(fdef, plain.init, src, cells, {self_name: []}, label)
        entry = (types.CellType(fn), {}, tuple(reads.values()), label)
        made[owner] = entry
        return entry


def _parents(cls, owner, src):
    info = _Init(cls, owner, src)
    info.run()
    return info.parents


def _name(id_, ctx=None):
    return gast.Name(id=id_, ctx=ctx or gast.Load(), annotation=None, type_comment=None)


class _Rewrite(gast.NodeTransformer):
    """``self.a`` -> ``self_a``; ``super().__init__(...)`` -> the parent copy's call."""

    def __init__(self, self_name, locals_, parents, parent_call, cls_name):
        self.self_name, self.locals, self.parents = self_name, locals_, parents
        self.parent_call, self.cls_name = parent_call, cls_name

    def visit_Expr(self, node):
        if id(node) in self.parents:
            return self.parent_call(node, self.parents[id(node)])
        self.generic_visit(node)
        return node

    def visit_Attribute(self, node):
        if isinstance(node.value, gast.Name) and node.value.id == self.self_name and \
                node.attr in self.locals:
            ctx = gast.Load() if isinstance(node.ctx, gast.Load) else gast.Store()
            return gast.copy_location(_name(self.locals[node.attr], ctx), node)
        if isinstance(node.value, gast.Name) and node.value.id == self.self_name:
            node.value = gast.copy_location(_name(self.cls_name), node.value)  # self.K
            return node  # (plain_classes: a class value, read through the class)
        self.generic_visit(node)
        return node


def clear():
    """Forget every copy (srcad.clear_cache), and those :mod:`.object_lists` made."""
    from . import object_lists

    with _LOCK:
        _MADE.clear()
    object_lists.clear()
