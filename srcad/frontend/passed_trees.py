"""Records inside containers (issue 16, pytrees): ``layers[i].w``, ``for layer in layers``.

A ``wrt`` argument may be any nesting of lists, tuples, dicts and records (dataclasses, named
tuples, registered classes): srcad passes it with every record read as the dict of its fields
(:mod:`srcad.pytrees`), so the code must read ``layer["w"]`` where the user wrote
``layer.w``. This pass does that rewrite where the record read is *statically known*: the base
of the attribute is an expression whose *tree spec* (below) says it is a record, found from

* the parameters' specs (``known``: a ``wrt`` argument's, or a copy's parameter's);
* indexing (``layers[0]``, ``layers[i]`` when every item has the same spec, ``d["a"]``, a
  constant slice ``layers[:-1]``), a record's fields (``p.layers``);
* iterating (``for layer in layers``, ``enumerate``, ``zip``, ``reversed``, a dict's
  ``.values()`` and ``.items()``), unpacking a named tuple (``for w, b in layers``: the loop's
  item is given a name and unpacked field by field at the start of the body);
* names: a name whose every binding has the same spec has it (``l0 = p.layers[0]``).

A record passed whole to a function of the user's (``lin(layers[0], x)``) calls its copy taking
the record's leaves (:mod:`.passed_records`); a container holding records passed so
(``forward(layers, x)``) calls a copy whose parameter is known to hold them (spec
``("tree", spec)``), rewritten by this pass too. Anything else done with a record or a container
of records (returned, written, stored in a new container, a method called, compared,
``isinstance``, passed to something srcad does not follow), and any read of a name srcad cannot
tell holds a record, is refused at its line with a hint: a field read as something it is not
would be a wrong gradient.

A tree spec: None (nothing inside is a record), a record's spec (:mod:`.passed_calls`:
``(class, ordered, ((field, spec), ...))``), ``("seq", list or tuple, (spec, ...))`` or
``("dict", dict, ((key, spec), ...))``; what each expression's spec is: :mod:`.tree_specs`.

Imports the standard library, gast, :mod:`srcad.errors`, :mod:`.built_records`,
:mod:`.tree_specs` and
:mod:`.passed_calls`.
"""

from __future__ import annotations

import copy
import types

import gast

from ..core.walk import walk_nodes
from .built_records import as_dict, construction, out_of_range
from .passed_calls import (
    binding,
    callee,
    constant_index,
    is_record_spec,
    leaf_paths,
    method_receiver,
    record_method,
    record_property,
)
from .tree_specs import (
    _NOTHING,
    RAISES,
    UNKNOWN,
    Specs,
    _key,
    _mark,
)


class _Trees(Specs):
    """The checks of ``fdef`` (every use of a record followed, or refused) and its rewrite."""

    def _iter_of(self, node):
        """Whether ``node`` is iterated by a ``for`` or a comprehension (itself, or through
        ``enumerate``, ``zip``, ``reversed``)."""
        parent = self.parents.get(node)
        if isinstance(parent, gast.Call) and node in parent.args and self._builtin(
                parent.func, "enumerate", "zip", "reversed"):
            return self._iter_of(parent)
        return isinstance(parent, (gast.For, gast.comprehension)) and parent.iter is node

    def check(self):
        """Refuse every use of a record, or a container of records, that is not followed."""
        for node in walk_nodes(self.fdef):
            if isinstance(node, gast.Name) and self.names.get(node.id) is UNKNOWN:
                raise self.error(node, f"srcad cannot tell whether {node.id!r} holds a record "
                                 "(it is bound to a record in one place and to something "
                                 "else, or to an item it cannot follow, in another)",
                                 hint="give the record its own name, bound once (l0 = "
                                 "layers[0]), and read its fields (l0.w)")
            if isinstance(node, (gast.For, gast.comprehension)):
                self._check_target(node)
            if not isinstance(node, gast.expr) or not isinstance(
                    getattr(node, "ctx", None) or gast.Load(), gast.Load):
                continue
            spec = self.spec(node)
            if spec is None or spec is RAISES:
                continue  # (RAISES: Python raises IndexError before any use of it)
            if spec is UNKNOWN:
                raise self._unknown(node)
            self._check_use(node, spec)

    def _unknown(self, node):
        """The error for ``node``, whose spec is UNKNOWN."""
        if isinstance(node, gast.Attribute) and is_record_spec(self.spec(node.value)):
            self._check_use(node.value, self.spec(node.value))  # (not a field)
        if isinstance(node, gast.Subscript) and is_record_spec(self.spec(node.value)):
            return self.error(node, "indexing a record (only a named tuple, by a constant "
                              "position in range)", hint="read its fields (layer.w)")
        return self.error(node, "srcad cannot tell what this item of a container of records "
                          "holds (an index out of range, a slice not constant, items of "
                          "different kinds)", hint="index with a constant or a name, over "
                          "items of one kind")

    def _check_target(self, loop):
        spec = self.iterated(loop.iter)
        if spec is RAISES:
            return
        if self.spec(loop.iter) is UNKNOWN:
            raise self._unknown(loop.iter)
        if spec is UNKNOWN:
            raise self.error(loop.iter, "iterating over something srcad cannot follow the "
                             "records in (a record itself, items of different kinds)",
                             hint="iterate over a list, tuple or dict whose items are "
                             "records of one class")
        bad = self._bad_unpack(loop.target, spec)
        if bad is not None:
            raise self.error(bad, "unpacking a record that is not a named tuple of as many "
                             "fields (for w, b in layers)", hint="read its fields "
                             "(for layer in layers: layer.w)")
        if isinstance(loop, gast.comprehension) and isinstance(loop.target, (
                gast.Tuple, gast.List)) and self._unpacks_record(loop.target, spec):
            raise self.error(loop.iter, "a comprehension unpacking the fields of a named "
                             "tuple (for w, b in layers)",
                             hint="write a for loop, or read the fields (layer.w for layer "
                             "in layers)")

    def _check_use(self, node, spec):
        parent = self.parents.get(node)
        record = is_record_spec(spec)
        kind = spec[0].__name__ if record else "a container of records"
        if record and isinstance(parent, gast.Call) and parent.func is node and \
                record_method(spec[0], "__call__"):
            return  # layers[0](x): the class's __call__ (rewritten)
        if isinstance(parent, gast.Attribute) and parent.value is node:
            if record:
                if parent.attr not in dict(spec[2]) and _followed(self, node, parent, spec):
                    return
                if parent.attr not in dict(spec[2]):
                    raise self.error(parent, f"{parent.attr!r} is not a field of the record "
                                     f"({kind}: {sorted(dict(spec[2]))})",
                                     hint="read its fields or call its methods (a property is not "
                                     "followed)")
                if not isinstance(parent.ctx, gast.Load):
                    raise self.error(parent, f"writing a field of a record ({kind})",
                                     hint="build the new value in a local name and return it")
                return
            call = self.parents.get(parent)
            if spec[0] == "dict" and parent.attr in ("items", "values") and isinstance(
                    call, gast.Call) and call.func is parent and self._iter_of(call):
                return
        elif isinstance(parent, gast.Subscript) and parent.value is node:
            if not isinstance(parent.ctx, gast.Load):
                raise self.error(parent, f"writing into {'a record' if record else kind}",
                                 hint="build a new list (or dict) of the values instead")
            return
        elif isinstance(parent, (gast.Assign, gast.NamedExpr)) and parent.value is node:
            targets = parent.targets if isinstance(parent, gast.Assign) else [parent.target]
            for t in targets:
                if isinstance(t, (gast.Subscript, gast.Attribute)) and \
                        self.spec(gast.Subscript(value=t.value, slice=t.slice, ctx=gast.Load())
                                  if isinstance(t, gast.Subscript) else t.value) is not None:
                    raise self.error(t, "writing into a record or a container of records",
                                     hint="build a new list (or dict) of the values instead")
            if all(isinstance(t, (gast.Name, gast.Tuple, gast.List)) for t in targets) and \
                    not any(isinstance(n, (gast.Subscript, gast.Attribute)) for t in targets
                            for n in walk_nodes(t)):
                unpacks = [t for t in targets if not isinstance(t, gast.Name)]
                if record and unpacks and not (spec[1] and len(targets) == 1 and all(
                        len(t.elts) == len(spec[2]) and not any(
                            isinstance(e, gast.Starred) for e in t.elts) for t in unpacks)):
                    raise self.error(parent, f"unpacking a record ({kind}) that is not a "
                                     "named tuple of as many fields, or also binding it "
                                     "whole (a = w, b = p)", hint="read its fields (layer.w)")
                if record and unpacks and not self._pure(node):
                    raise self.error(node, "a record unpacked is read by each of its fields, "
                                     "and this expression would run once for each",
                                     hint="assign the record to a name first (l0 = "
                                     "layers[0]; w, b = l0)")
                return
        elif isinstance(parent, (gast.For, gast.comprehension)) and parent.iter is node:
            return  # (_check_target)
        elif not record and (isinstance(parent, gast.UnaryOp) and isinstance(
                parent.op, gast.Not) or isinstance(parent, (gast.If, gast.While, gast.IfExp,
                                                            gast.Assert)) and parent.test is node):
            return  # if not layers: its length tested (no record read, no gradient)
        elif isinstance(parent, gast.AnnAssign) and parent.value is node and isinstance(
                parent.target, gast.Name):
            return  # l0: Layer = layers[0]
        elif isinstance(parent, (gast.Tuple, gast.List)) and isinstance(
                self.parents.get(parent), gast.Assign) and self.parents[parent].value is parent:
            return  # a, b = l0, x (each name bound to its value)
        elif isinstance(parent, (gast.Call, gast.keyword)):
            call = parent if isinstance(parent, gast.Call) else self.parents.get(parent)
            if call.func is not node and self._passes(call, node, record):
                return
        what = f"a record ({kind})" if record else kind
        raise self.error(node, f"{what} is used whole "
                         "(returned, stored in a new container, compared, isinstance, a "
                         "method called, passed to something srcad does not follow)")

    def _passes(self, call, node, record):
        """Whether ``node`` as an argument of ``call`` is followed."""
        if getattr(call, "_srcad_fields", False):
            return True  # a copy's call, made for it
        if is_record_spec(self.spec(call)):
            return True  # a field of a record built here (Net(layers=layers)), followed
        if not record and self._builtin(call.func, "len") and len(call.args) == 1:
            return True
        if self._builtin(call.func, "enumerate", "zip", "reversed") and self._iter_of(call) \
                and self.iterated(call) not in (None, UNKNOWN):
            return True
        fn = callee(self.src, call.func, self.fdef)
        if fn is None:
            return False
        if binding(fn, call, self.resolve) is None:
            raise self.error(call, "a record, or a container of records, is passed to a "
                             "function of yours by * or **, to *args, or to a parameter with "
                             "a default", hint="pass it to a named parameter without a default")
        if record and not self._pure(node):
            raise self.error(node, "a record passed on is read by each of its fields, and "
                             "this expression would run once for each",
                             hint="assign the record to a name first (l0 = layers[0]; "
                             "f(l0, x))")
        return True

    # ------------------------------------------------------------ rewrite

    def resolve(self, node):
        """``(spec, leaves)`` of an argument that is a record or a container of records (for
        :func:`.passed_records.rewrite_call`), else None."""
        spec = self.spec(node)
        if spec in _NOTHING:
            return None
        if not is_record_spec(spec):
            return ("tree", spec), lambda: [node]

        def leaves():
            made = []
            for path in leaf_paths(spec):
                out = copy.deepcopy(node)
                for key in path:
                    out = _mark(gast.Subscript(value=out, slice=_key(key), ctx=gast.Load()))
                made.append(out)
            return made

        return spec, leaves

    def rewrite(self, rewriters):
        trees = self

        class Rewrite(gast.NodeTransformer):
            def visit_Attribute(self, node):
                spec = trees.spec(node.value)
                if is_record_spec(spec) and node.attr not in dict(spec[2]):
                    found = rewriters.rewrite_record_property(trees.src, node, trees.resolve,
                                                              trees.bind, trees.fdef)
                    if found is None:
                        raise trees.error(node, "a property of a record that does not fit "
                                          "its getter", hint="read the fields")
                    return found
                self.generic_visit(node)
                if is_record_spec(spec):
                    return gast.copy_location(_mark(gast.Subscript(
                        value=node.value, slice=_key(node.attr), ctx=gast.Load())), node)
                return node

            def visit_Subscript(self, node):
                spec = trees.spec(node.value)
                if spec is not RAISES and trees.spec(node) is RAISES:
                    name = trees.bind((types.CellType(out_of_range), None, None,
                                       "srcad_out_of_range"))
                    self.generic_visit(node)
                    return gast.copy_location(gast.Call(
                        func=gast.Name(id=name, ctx=gast.Load(), annotation=None,
                                       type_comment=None),
                        args=[node.value, node.slice], keywords=[]), node)
                self.generic_visit(node)
                if is_record_spec(spec) and not getattr(node, "_srcad_tree", False):
                    index = constant_index(node.slice) % len(spec[2])
                    return gast.copy_location(_mark(gast.Subscript(
                        value=node.value, slice=_key(spec[2][index][0]), ctx=gast.Load())),
                        node)
                return node

            def visit_Assign(self, node):
                spec = trees.spec(node.value)
                if is_record_spec(spec) and any(not isinstance(t, gast.Name)
                                                for t in node.targets):
                    node.value = gast.copy_location(gast.Tuple(elts=[
                        trees._field(node.value, f) for f, _ in spec[2]], ctx=gast.Load()),
                        node.value)
                self.generic_visit(node)
                return node

            def visit_For(self, node):
                spec = trees.iterated(node.iter)
                assigns = []
                node.target = trees._split(node.target, spec, assigns)
                node.body = assigns + node.body
                self.generic_visit(node)
                return node

            def visit_Call(self, node):
                if is_record_spec(trees.spec(node)):  # Net(layers=layers, scale=s)
                    self.generic_visit(node)
                    return as_dict(node, construction(trees.src, trees.local, node)[2])
                if method_receiver(node, trees.resolve)[0] is not None:
                    if not rewriters.rewrite_record_method(trees.src, node, trees.resolve,
                                                           trees.bind, trees.fdef):
                        raise trees.error(node, "a call of a method of a record that does not "
                                          "fit its parameters",
                                          hint="pass the arguments its def names")
                    node._srcad_fields = True
                if not getattr(node, "_srcad_fields", False) and any(
                        trees.resolve(a) for a in node.args + [k.value for k in node.keywords]):
                    fn = callee(trees.src, node.func, trees.fdef)
                    if fn is not None and rewriters.rewrite_call(trees.src, node, trees.resolve,
                                                       trees.bind, trees.fdef, fn=fn):
                        node._srcad_fields = True
                self.generic_visit(node)
                return node

        Rewrite().visit(self.fdef)

    def _field(self, node, field):
        return gast.copy_location(_mark(gast.Subscript(
            value=copy.deepcopy(node), slice=_key(field), ctx=gast.Load())), node)

    def _split(self, target, spec, assigns):
        """``target`` with each tuple unpacking a named tuple replaced by a new name, and
        ``assigns`` the assignments unpacking its fields from it."""
        if not isinstance(target, (gast.Tuple, gast.List)) or spec in _NOTHING:
            return target
        if is_record_spec(spec):
            name = "srcad_item"
            taken = {n.id for n in walk_nodes(self.fdef) if isinstance(n, gast.Name)}
            while name in taken:
                name += "_"
            item = gast.copy_location(gast.Name(id=name, ctx=gast.Load(), annotation=None,
                                                type_comment=None), target)
            assigns.append(gast.copy_location(gast.Assign(targets=[target], value=gast.Tuple(
                elts=[self._field(item, f) for f, _ in spec[2]], ctx=gast.Load()),
                type_comment=None), target))
            self.names[name] = spec
            stored = copy.copy(item)
            stored.ctx = gast.Store()
            return stored
        target.elts = [self._split(t, s, assigns) for t, s in zip(target.elts, spec[2])]
        return target


def _followed(trees, node, parent, spec):
    """Whether ``parent`` (``node.attr``) calls a method of the record's class
    (``node.predict(x)``) or reads a property (``node.total``) that srcad follows (rewritten by
    :func:`.passed_records.rewrite_record_method` and ``rewrite_record_property``)."""
    call = trees.parents.get(parent)
    method = isinstance(call, gast.Call) and call.func is parent and record_method(
        spec[0], parent.attr) is not None
    if not method and not (isinstance(parent.ctx, gast.Load) and record_property(
            spec[0], parent.attr) is not None):
        return False
    if not trees._pure(node):
        raise trees.error(node, "a method or property of a record that an expression makes: "
                          "the record is read by each of its fields, and the expression "
                          "would run once for each", hint="assign the record to a name first "
                          "(l0 = layers[0]; l0.predict(x))")
    return True


def rewrite(src, fdef, known, bind, rewriters):
    """Rewrite ``fdef`` in place (see above): its parameters in ``known`` (name -> tree spec)
    hold records inside containers, read as dicts. ``bind``: as :mod:`.passed_records` gives
    it (a copy of a callee, where the call is); ``rewriters``: that module (its
    ``rewrite_call``, ``rewrite_record_method``, ``rewrite_record_property``; it imports this
    one)."""
    known = {k: v for k, v in known.items() if v is not None}
    if not known:
        return fdef
    trees = _Trees(src, fdef, known, bind)
    trees.check()
    trees.rewrite(rewriters)
    return fdef
