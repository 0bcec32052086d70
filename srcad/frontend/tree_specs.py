"""Tree specs of the expressions of a function whose parameters hold records inside containers
(:mod:`.passed_trees`): what each expression is (a record, a container of records, neither,
or not known), from the parameters' specs, indexing, iteration and names.

Imports the standard library, gast, :mod:`srcad.errors`, :mod:`.built_records` and
:mod:`.passed_calls`.
"""

from __future__ import annotations

import gast

from ..core.walk import walk_nodes
from ..errors import UnsupportedSyntaxError
from .built_records import construction
from .passed_calls import (
    bound_names,
    constant_index,
    constant_slice,
    is_record_spec,
    record_method,
    record_property,
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


class Specs:
    """The specs of ``fdef``'s names and expressions."""

    def __init__(self, src, fdef, known, bind):
        self.src, self.fdef, self.known, self.bind = src, fdef, known, bind
        self.local = bound_names(fdef)
        self.parents = {}
        for node in walk_nodes(fdef):
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
                call = self.parents.get(node)
                if node.attr not in dict(base[2]) and (isinstance(call, gast.Call) and (
                        call.func is node) and record_method(base[0], node.attr) or (
                        isinstance(node.ctx, gast.Load) and record_property(base[0],
                                                                            node.attr))):
                    return None  # layers[0].predict(x), .total: a method, a property
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
        part = constant_slice(node.slice)
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
            covered.update(id(n) for n in walk_nodes(target) if isinstance(n, gast.Name))

        for node in walk_nodes(self.fdef):
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
        for node in walk_nodes(self.fdef):  # any other binding: not a record
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

    def _pure(self, node):
        return all(isinstance(n, (gast.Name, gast.Constant, gast.Attribute, gast.Subscript,
                                  gast.BinOp, gast.UnaryOp, gast.Slice, gast.expr_context,
                                  gast.operator, gast.unaryop)) for n in walk_nodes(node))
