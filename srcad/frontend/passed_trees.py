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
``("dict", dict, ((key, spec), ...))``.

Imports the standard library, gast, :mod:`srcad.errors`, :mod:`.built_records` and
:mod:`.passed_calls`.
"""

from __future__ import annotations

import copy
import types

import gast

from ..errors import UnsupportedSyntaxError
from .built_records import as_dict, construction, out_of_range
from .passed_calls import (
    binding,
    bound_names,
    callee,
    constant_index,
    is_record_spec,
    leaf_paths,
)

UNKNOWN = ("unknown",)  # may hold a record, srcad cannot tell which: every use refused
#: an item at a constant index past the end of a list of records: Python raises IndexError
#: (the length is part of the specialisation), so no use of it is reached (``f(layers[1:])``
#: reads ``layers[0]`` after ``if not layers: return x``, in its copy for the empty list)
RAISES = ("raises",)
_NOTHING = (None, UNKNOWN, RAISES)
_SCOPES = (gast.FunctionDef, gast.AsyncFunctionDef, gast.Lambda)
_COMPS = (gast.ListComp, gast.SetComp, gast.GeneratorExp, gast.DictComp)
_HINT = ("read the fields of records where they are reached by indexing, iterating or a "
         "name bound to one (layer.w), or pass the record whole to a function of yours")


def _mark(node):
    node._srcad_tree = True
    return node


def _key(value):
    return gast.Constant(value=value, kind=None)


def item_of(spec):
    """The spec of every item of a container of ``spec`` (UNKNOWN when they differ)."""
    if spec is None:
        return None
    if spec[0] == "seq":
        items = set(spec[2])
    elif spec[0] == "dict":
        items = {s for _, s in spec[2]}
    else:
        return UNKNOWN
    if not items:
        return None
    return items.pop() if len(items) == 1 else UNKNOWN


def _constant_slice(node):
    """``slice(...)`` of a constant slice (``[1:]``, ``[:-1]``, ``[::2]``), else None."""
    if not isinstance(node, gast.Slice):
        return None
    parts = []
    for part in (node.lower, node.upper, node.step):
        if part is None or isinstance(part, gast.Constant) and part.value is None:
            parts.append(None)
            continue
        index = constant_index(part)
        if index is None:
            return None
        parts.append(index)
    return slice(*parts)


class _Specs:
    """The specs of ``fdef``'s names and expressions."""

    def __init__(self, src, fdef, known, bind):
        self.src, self.fdef, self.known, self.bind = src, fdef, known, bind
        self.local = bound_names(fdef)
        self.parents = {}
        for node in gast.walk(fdef):
            for child in gast.iter_child_nodes(node):
                self.parents[child] = node
        self.names = self._names()

    def error(self, node, message, hint=_HINT):
        line = getattr(node, "lineno", None)
        return UnsupportedSyntaxError(message, filename=self.src.filename, lineno=line,
                                      construct=self.src.line_text(line), hint=hint)

    # ------------------------------------------------------------ specs

    def _builtin(self, func, *names):
        return isinstance(func, gast.Name) and func.id in names and func.id not in self.local

    def spec(self, node):
        """The tree spec of the value of expression ``node``."""
        if isinstance(node, gast.Name):
            return self.names.get(node.id) if isinstance(node.ctx, gast.Load) else None
        if isinstance(node, gast.NamedExpr):
            return self.spec(node.value)
        if isinstance(node, gast.Call):  # Net(layers=layers, scale=s): a record of records
            built = construction(self.src, self.local, node)
            if built is None:
                return None
            fields = tuple((f, self.spec(v)) for f, v in built[2])
            return (built[0], built[1], fields) if any(
                s is not None for _, s in fields) else None
        if isinstance(node, (gast.Tuple, gast.List)) and isinstance(node.ctx, gast.Load):
            items = tuple(self.spec(e) for e in node.elts)  # (a, b = l0, x: unpacked)
            starred = any(isinstance(e, gast.Starred) for e in node.elts)
            return None if items.count(None) == len(items) else UNKNOWN if starred else (
                "seq", tuple, items)
        if isinstance(node, gast.Attribute):
            base = self.spec(node.value)
            if base is UNKNOWN or base is RAISES:
                return base
            if is_record_spec(base):
                return dict(base[2]).get(node.attr, UNKNOWN)
            return None
        if not isinstance(node, gast.Subscript):
            return None
        base = self.spec(node.value)
        if base in _NOTHING:
            return base
        index = constant_index(node.slice)
        if is_record_spec(base):
            fields = base[2]
            if getattr(node, "_srcad_tree", False):
                return dict(fields).get(node.slice.value, UNKNOWN)
            if base[1] and index is not None and -len(fields) <= index < len(fields):
                return fields[index][1]
            return UNKNOWN
        if base[0] == "dict":
            if isinstance(node.slice, gast.Constant):
                return dict(base[2]).get(node.slice.value, UNKNOWN)
            return item_of(base)
        if index is not None:
            return base[2][index] if -len(base[2]) <= index < len(base[2]) else RAISES
        part = _constant_slice(node.slice)
        if part is not None:
            return ("seq", base[1], base[2][part])
        if isinstance(node.slice, gast.Slice):
            return UNKNOWN if item_of(base) is not None else None
        return item_of(base)

    def iterated(self, node):
        """The spec of each item ``for _ in node`` binds."""
        if isinstance(node, gast.Call) and all(k.arg in ("start", "strict") for k in
                                               node.keywords) and \
                not any(isinstance(a, gast.Starred) for a in node.args):
            func = node.func
            if self._builtin(func, "enumerate") and len(node.args) in (1, 2):
                item = self.iterated(node.args[0])
                return None if item is None else ("seq", tuple, (None, item))
            if self._builtin(func, "zip") and node.args:
                items = tuple(self.iterated(a) for a in node.args)
                return None if items.count(None) == len(items) else ("seq", tuple, items)
            if self._builtin(func, "reversed") and len(node.args) == 1:
                return self.iterated(node.args[0])
            if isinstance(func, gast.Attribute) and func.attr in ("items", "values") and \
                    not node.args:
                base = self.spec(func.value)
                if base is not None and base is not UNKNOWN and base[0] == "dict":
                    item = item_of(base)
                    return item if func.attr == "values" or item is None else (
                        "seq", tuple, (None, item))
        spec = self.spec(node)
        if spec in _NOTHING:
            return spec
        if spec[0] == "dict":
            return None  # its keys
        return item_of(spec) if spec[0] == "seq" else UNKNOWN

    def _bound(self, target, spec, out):
        """Add ``(name, spec)`` for each name ``target`` binds to a value of ``spec``."""
        if isinstance(target, gast.Name):
            out.append((target.id, spec))
        elif isinstance(target, (gast.Tuple, gast.List)):
            elts = target.elts
            parts = None
            if spec is None or spec is RAISES:
                parts = [spec] * len(elts)
            elif any(isinstance(e, gast.Starred) for e in elts):
                parts = None
            elif spec is not UNKNOWN and spec[0] == "seq" and len(spec[2]) == len(elts):
                parts = list(spec[2])
            elif is_record_spec(spec) and spec[1] and len(spec[2]) == len(elts):
                parts = [s for _, s in spec[2]]
            for i, elt in enumerate(elts):
                self._bound(elt.value if isinstance(elt, gast.Starred) else elt,
                            UNKNOWN if parts is None else parts[i], out)
        elif isinstance(target, gast.Starred):
            self._bound(target.value, None if spec is None else UNKNOWN, out)

    def _bindings(self):
        """``[(name, spec)]`` for every binding in ``fdef``, by the current name specs."""
        out, covered = [], set()

        def bind(target, spec):
            found = []
            self._bound(target, spec, found)
            out.extend(found)
            covered.update(id(n) for n in gast.walk(target) if isinstance(n, gast.Name))

        for node in gast.walk(self.fdef):
            if isinstance(node, gast.Assign):
                for target in node.targets:
                    bind(target, self.spec(node.value))
            elif isinstance(node, gast.AnnAssign) and node.value is not None:
                bind(node.target, self.spec(node.value))
            elif isinstance(node, gast.NamedExpr):
                bind(node.target, self.spec(node.value))
            elif isinstance(node, (gast.For, gast.comprehension)):
                bind(node.target, self.iterated(node.iter))
        for p in self.fdef.args.posonlyargs + self.fdef.args.args + self.fdef.args.kwonlyargs:
            out.append((p.id, self.known.get(p.id)))
            covered.add(id(p))
        for node in gast.walk(self.fdef):  # any other binding: not a record
            if isinstance(node, gast.Name) and not isinstance(node.ctx, gast.Load) and \
                    id(node) not in covered:
                out.append((node.id, None))
            elif isinstance(node, (gast.Global, gast.Nonlocal)):
                out += [(n, None) for n in node.names]
            elif isinstance(node, (gast.FunctionDef, gast.AsyncFunctionDef, gast.ClassDef)) \
                    and node is not self.fdef:
                out.append((node.name, None))
            elif isinstance(node, gast.alias):
                out.append(((node.asname or node.name).partition(".")[0], None))
            elif isinstance(node, gast.arguments) and node is not self.fdef.args:
                out += [(a.id, None) for a in (node.vararg, node.kwarg) if a is not None]
        for a in (self.fdef.args.vararg, self.fdef.args.kwarg):
            if a is not None:
                out.append((a.id, None))
        return out

    def _names(self):
        """Each name's spec: the spec of all its bindings when they agree, else UNKNOWN (a
        name never holding a record: None), to a fixed point."""
        self.names = {}
        for _ in range(50):
            new = {}
            for name, spec in self._bindings():
                new[name] = spec if name not in new or new[name] == spec else (
                    UNKNOWN if spec is not None or new[name] is not None else None)
            new = {k: v for k, v in new.items() if v is not None}
            if new == self.names:
                return new
            self.names = new
        raise self.error(self.fdef, "srcad could not tell which names hold records (their "
                         "assignments depend on one another in a cycle it did not settle)",
                         hint="give each record its own name, bound once")


class _Trees(_Specs):
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
        for node in gast.walk(self.fdef):
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

    def _bad_unpack(self, target, spec):
        """The tuple of ``target`` that unpacks a record other than a named tuple of as many
        fields, else None."""
        if not isinstance(target, (gast.Tuple, gast.List)) or spec in _NOTHING:
            return None
        if is_record_spec(spec):
            return None if spec[1] and len(spec[2]) == len(target.elts) and not any(
                isinstance(e, gast.Starred) for e in target.elts) else target
        if spec[0] == "seq" and len(spec[2]) == len(target.elts):
            for t, s in zip(target.elts, spec[2]):
                found = self._bad_unpack(t, s)
                if found is not None:
                    return found
        return None

    def _unpacks_record(self, target, spec):
        if not isinstance(target, (gast.Tuple, gast.List)) or spec in _NOTHING:
            return False
        if is_record_spec(spec):
            return True
        return spec[0] == "seq" and len(spec[2]) == len(target.elts) and any(
            self._unpacks_record(t, s) for t, s in zip(target.elts, spec[2]))

    def _check_use(self, node, spec):
        parent = self.parents.get(node)
        record = is_record_spec(spec)
        kind = spec[0].__name__ if record else "a container of records"
        if isinstance(parent, gast.Attribute) and parent.value is node:
            if record:
                if parent.attr not in dict(spec[2]):
                    raise self.error(parent, f"{parent.attr!r} is not a field of the record "
                                     f"({kind}: {sorted(dict(spec[2]))})",
                                     hint="read its fields only (a method or property is not "
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
                            for n in gast.walk(t)):
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

    def _pure(self, node):
        return all(isinstance(n, (gast.Name, gast.Constant, gast.Attribute, gast.Subscript,
                                  gast.BinOp, gast.UnaryOp, gast.Slice, gast.expr_context,
                                  gast.operator, gast.unaryop)) for n in gast.walk(node))

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

    def rewrite(self, rewrite_call):
        trees = self

        class Rewrite(gast.NodeTransformer):
            def visit_Attribute(self, node):
                spec = trees.spec(node.value)
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
                if not getattr(node, "_srcad_fields", False) and any(
                        trees.resolve(a) for a in node.args + [k.value for k in node.keywords]):
                    fn = callee(trees.src, node.func, trees.fdef)
                    if fn is not None and rewrite_call(trees.src, node, trees.resolve,
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
            taken = {n.id for n in gast.walk(self.fdef) if isinstance(n, gast.Name)}
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


def rewrite(src, fdef, known, bind, rewrite_call):
    """Rewrite ``fdef`` in place (see above): its parameters in ``known`` (name -> tree spec)
    hold records inside containers, read as dicts. ``bind`` and ``rewrite_call``: as
    :mod:`.passed_records` gives them (a copy of a callee, where the call is)."""
    known = {k: v for k, v in known.items() if v is not None}
    if not known:
        return fdef
    trees = _Trees(src, fdef, known, bind)
    trees.check()
    trees.rewrite(rewrite_call)
    return fdef
