"""Operators and methods on objects built in the function (issue 16, outside26): ``u = V(w);
return (u + v).norm()``, ``u = V(w) * 2.0``, ``for u in [V(a), V(b)]: s += (u * 3.0).norm()``,
``u = V(w).scaled(2.0)`` (a method returning a ``V``), ``u += v``.

Python runs ``a + b`` as ``type(a).__add__(a, b)`` (unless it gives ``NotImplemented``, or
``b``'s class is a subclass of ``a``'s with its own ``__radd__``), ``-a`` as
``type(a).__neg__(a)`` and ``a.m(x)`` as ``type(a).m(a, x)`` (unless ``a`` holds an attribute
``m`` of its own). Where the class of ``a`` is known when the code is made, this pass writes
that call, ``V.__add__(u, v)``, on the parsed tree before :mod:`.lower_records`, which then
reads the objects field by field as it reads any object built here and passed to a function
of the user's (the function being ``__add__``); the object a call returns (a method or an
operator whose every ``return`` builds a ``V``: :func:`.returned_records.returned_class`) is
given a name of its own just before the statement, where that changes nothing
(:func:`.inline_objects.evaluated_first`), so it is read field by field in turn.

The class of a value is known when it is certain: a call of a class srcad follows field by
field (a record class, a plain class :mod:`.plain_classes` follows) by a free name, a function
or method of the user's whose every ``return`` builds one, an operator or method call of an
object of known class that returns one, a name every binding of which (plain assignments,
``op=``, a ``for`` over a list of such objects) is such a value (the largest such set of names:
each binding then assigns such a value, whichever runs first), an item of a list every
binding of which is a display of such values and which is only read (iterated, indexed,
``len``) or appended such values. A name declared global or nonlocal anywhere, or bound
otherwise (a parameter, unpacking, ``with ... as``), is not known. Not rewritten (left to
the refusals as before): an operator whose method is not a plain function of the user's, or
whose source mentions ``NotImplemented``, or when a subclass of the class defines the
reflected method (Python would try it first for such a right operand), ``x op v`` with the
object on the right unless ``x`` is an int or float constant, ``v op= w`` of a class with
``__iop__``, anything inside a nested function or lambda.

Imports the standard library, gast, :mod:`srcad.core`, :mod:`.built_records`,
:mod:`.inline_objects`, :mod:`.passed_calls`, :mod:`.plain_classes` and
:mod:`.returned_records`.
"""

from __future__ import annotations

import inspect
import types

import gast

from ..core.walk import walk_nodes
from . import inline_objects, passed_calls, plain_classes, returned_records
from .built_records import record_fields, resolve_any

_NAMES = {gast.Add: "add", gast.Sub: "sub", gast.Mult: "mul", gast.Div: "truediv",
          gast.FloorDiv: "floordiv", gast.Mod: "mod", gast.Pow: "pow", gast.MatMult: "matmul"}
_UNARY = {gast.USub: "__neg__", gast.UAdd: "__pos__"}
_SCOPES = (gast.FunctionDef, gast.AsyncFunctionDef, gast.Lambda, gast.ClassDef)


def _name(id_, ctx=None):
    return gast.Name(id=id_, ctx=ctx or gast.Load(), annotation=None, type_comment=None)


def _followed(cls):
    """Whether objects of ``cls`` are read field by field (and built as ``cls`` exactly)."""
    if not isinstance(cls, type):
        return False
    if record_fields(cls) is not None:
        return True
    return plain_classes.user_class(cls) and plain_classes.fields_of(cls) is not None


def _own_nodes(fdef):
    out, todo = [], [fdef]
    while todo:
        node = todo.pop()
        out.append(node)
        todo.extend(c for c in gast.iter_child_nodes(node) if not isinstance(c, _SCOPES))
    return out


class _Classes:
    """The classes of the expressions of one function (see the module's docstring)."""

    def __init__(self, src, fdef, nodes):
        self.src, self.fdef = src, fdef
        self.local = passed_calls.bound_names(fdef)
        self.known, self.lists, self.returned = {}, {}, {}
        self.nodes = nodes
        self.parents = {c: n for n in self.nodes for c in gast.iter_child_nodes(n)}
        self._solve()

    # ------------------------------------------------------------ methods of a class

    def method(self, cls, name, dunder=False):
        """The plain function of the user's ``name`` is on ``cls`` (read on the class), or
        None (an object's own attribute of that name hides a method: a field)."""
        if not dunder and name in (returned_records.fields_of(cls) or ()):
            return None
        found = passed_calls.class_method(cls, name)
        if found is None or found[1] or not passed_calls.callee_function(found[0]):
            return None
        return found[0]

    def result(self, fn):
        """The class whose object every ``return`` of ``fn`` builds, else None."""
        if fn not in self.returned:
            cls = returned_records.returned_class(fn)
            self.returned[fn] = cls if _followed(cls) else None
        return self.returned[fn]

    def operator(self, cls, name, right=None):
        """The function of ``cls``'s ``__name__`` Python runs for ``a op b`` with ``a`` of
        ``cls`` (``right``: ``b``'s class, when known), else None."""
        fn = self.method(cls, f"__{name}__", dunder=True)
        if fn is None:
            return None
        try:
            text = inspect.getsource(fn)
        except (OSError, TypeError):
            return None
        if "NotImplemented" in text:
            return None
        mine = getattr(cls, f"__r{name}__", None)
        for sub in _subclasses(cls):  # b of a subclass with its own __rop__: tried first
            if (right is None or issubclass(right, sub)) and getattr(
                    sub, f"__r{name}__", None) is not mine:
                return None
        return fn

    # ------------------------------------------------------------ classes of expressions

    def of(self, node):
        """The class of the object ``node`` evaluates to, when certain, else None."""
        if isinstance(node, gast.Name):
            return self.known.get(node.id) if isinstance(node.ctx, gast.Load) else None
        if isinstance(node, gast.Subscript) and isinstance(node.value, gast.Name) and \
                not isinstance(node.slice, gast.Slice):
            return self.lists.get(node.value.id)
        if isinstance(node, gast.Call):
            fn = self.called(node)
            return None if fn is None else (fn if isinstance(fn, type) else self.result(fn))
        if isinstance(node, gast.BinOp) and type(node.op) in _NAMES:
            found = self.binop(node)
            return found and self.result(found[0])
        if isinstance(node, gast.UnaryOp) and type(node.op) in _UNARY:
            cls = self.of(node.operand)
            fn = cls and self.method(cls, _UNARY[type(node.op)], dunder=True)
            return fn and self.result(fn)
        return None

    def called(self, call):
        """What ``call`` calls: a followed class, a function of the user's, the method of an
        object of known class; else None."""
        if any(isinstance(a, gast.Starred) for a in call.args) or any(
                k.arg is None for k in call.keywords):
            return None
        func = call.func
        target = resolve_any(self.src, func, self.local)
        if isinstance(target, type):
            return target if _followed(target) else None
        if passed_calls.callee_function(target):
            return target  # (passed_calls.callee, the function's bound names known)
        if isinstance(func, gast.Attribute) and isinstance(func.ctx, gast.Load):
            cls = self.of(func.value)
            return cls and self.method(cls, func.attr)
        return None

    def binop(self, node):
        """``(function, class, reflected)`` Python runs for the operator ``node``, else None."""
        name = _NAMES[type(node.op)]
        left, right = self.of(node.left), self.of(node.right)
        if left is not None:
            fn = self.operator(left, name, right)
            return (fn, left, False) if fn is not None else None
        if right is not None and isinstance(node.left, gast.Constant) and type(
                node.left.value) in (int, float):  # the number's own operator gives up
            fn = self.operator(right, "r" + name)
            return (fn, right, True) if fn is not None else None
        return None

    # ------------------------------------------------------------ names

    def _solve(self):
        bindings, bad, appended = {}, set(), {}
        for node in walk_nodes(self.fdef):
            if isinstance(node, (gast.Global, gast.Nonlocal)):
                bad.update(node.names)
        for node in self.nodes:
            if not isinstance(node, gast.Name) or isinstance(node.ctx, gast.Load):
                continue
            parent = self.parents.get(node)
            if isinstance(parent, gast.Assign) and parent.targets == [node]:
                bindings.setdefault(node.id, []).append(parent.value)
            elif isinstance(parent, gast.AugAssign) and parent.target is node and \
                    type(parent.op) in _NAMES:
                bindings.setdefault(node.id, []).append(gast.BinOp(
                    left=_name(node.id), op=parent.op, right=parent.value))
            elif isinstance(parent, gast.For) and parent.target is node:
                bindings.setdefault(node.id, []).append(("for", parent.iter))
            else:
                bad.add(node.id)
        for name in list(bindings):
            if name in bad:
                del bindings[name]
        lists = {name: bound for name, bound in bindings.items() if all(
            isinstance(b, gast.List) for b in bound)}
        for name in lists:
            appended[name] = self._list_uses(name)
        while True:  # grow: a name of one class found so far
            grown = False
            for name, bound in bindings.items():
                if name not in self.known:
                    found = {self._bound(b) for b in bound} - {None}
                    if len(found) == 1:
                        self.known[name] = found.pop()
                        grown = True
            for name, bound in lists.items():
                items = appended[name]
                if name not in self.lists and items is not None:
                    found = {self.of(e) for b in bound for e in b.elts} | {
                        self.of(e) for e in items}
                    if len(found) == 1 and None not in found:
                        self.lists[name] = found.pop()
                        grown = True
            if not grown:
                break
        while True:  # shrink: every binding such an object, given the others
            wrong = [n for n, bound in bindings.items() if n in self.known and any(
                self._bound(b) is not self.known[n] for b in bound)]
            wrong += [n for n in self.lists if any(self.of(e) is not self.lists[n] for e in (
                *[e for b in lists[n] for e in b.elts], *appended[n]))]
            if not wrong:
                break
            for n in wrong:
                self.known.pop(n, None)
                self.lists.pop(n, None)

    def _bound(self, value):
        if isinstance(value, tuple):  # for u in us
            iterated = value[1]
            return self.lists.get(iterated.id) if isinstance(iterated, gast.Name) else None
        return self.of(value)

    def _list_uses(self, name):
        """The values appended to the list ``name`` when every use only reads it (iterated,
        an item read, ``len``) or appends one value, else None."""
        out = []
        for node in walk_nodes(self.fdef):  # (a nested function's uses too)
            if not (isinstance(node, gast.Name) and node.id == name and isinstance(
                    node.ctx, gast.Load)):
                continue
            parent = self.parents.get(node)
            if parent is None:
                return None  # in a nested function
            if isinstance(parent, gast.For) and parent.iter is node:
                continue
            if isinstance(parent, gast.Subscript) and parent.value is node and isinstance(
                    parent.ctx, gast.Load):
                continue
            if isinstance(parent, gast.Call) and parent.args == [node] and isinstance(
                    parent.func, gast.Name) and parent.func.id == "len" and \
                    resolve_any(self.src, parent.func, self.local) is len:
                continue
            call = self.parents.get(parent)
            if isinstance(parent, gast.Attribute) and parent.attr == "append" and \
                    isinstance(call, gast.Call) and call.func is parent and \
                    len(call.args) == 1 and not call.keywords and \
                    isinstance(self.parents.get(call), gast.Expr):
                out.append(call.args[0])
                continue
            return None
        return out


def _may_make(src, func, local):
    """Whether a call of ``func`` may build or return an object of yours: a class, or a
    function of yours (not NumPy's, not a builtin)."""
    target = resolve_any(src, func, local)  # (an object's method: the object was built
    if target is None:  # or returned by such a call first)
        return False
    return isinstance(target, type) and _followed(target) or passed_calls.callee_function(
        target)


def _subclasses(cls):
    out, todo = [], list(cls.__subclasses__())
    while todo:
        sub = todo.pop()
        out.append(sub)
        todo.extend(sub.__subclasses__())
    return out


class _Calls(gast.NodeTransformer):
    """Operators and method calls on objects of known class -> ``C.m(obj, ...)``."""

    def __init__(self, classes, spell):
        self.classes, self.spell, self.made = classes, spell, []

    def _call(self, node, cls, attr, args, keywords=()):
        call = gast.Call(func=gast.Attribute(value=self.spell(cls), attr=attr,
                                             ctx=gast.Load()), args=list(args),
                         keywords=list(keywords))
        for sub in walk_nodes(call):
            if "lineno" in sub._attributes and not hasattr(sub, "lineno"):
                gast.copy_location(sub, node)
        self.made.append(call)
        return call

    def generic_visit(self, node):
        if isinstance(node, _SCOPES) and node is not self.classes.fdef:
            return node
        return super().generic_visit(node)

    def visit_BinOp(self, node):
        found = self.classes.binop(node) if type(node.op) in _NAMES else None
        self.generic_visit(node)  # (the classes found before the operands' rewrite)
        if found is None:
            return node
        fn, cls, reflected = found
        args = [node.right, node.left] if reflected else [node.left, node.right]
        return self._call(node, cls, fn.__name__, args)

    def visit_UnaryOp(self, node):
        cls = self.classes.of(node.operand) if type(node.op) in _UNARY else None
        fn = cls and self.classes.method(cls, _UNARY[type(node.op)], dunder=True)
        self.generic_visit(node)
        if not fn:
            return node
        return self._call(node, cls, fn.__name__, [node.operand])

    def visit_Call(self, node):
        func, fn = node.func, None
        if isinstance(func, gast.Attribute) and isinstance(func.ctx, gast.Load):
            cls = self.classes.of(func.value)  # u.scaled(2), (u * 2).norm(), V(w).scaled(2)
            fn = cls and self.classes.method(cls, func.attr)
            if fn and self.classes.result(fn) is None and (isinstance(
                    func.value, gast.Name) or isinstance(func.value, gast.Call) and isinstance(
                    self.classes.called(func.value), type)):
                fn = None  # (read as before: the method of an object named or built here)
        self.generic_visit(node)
        if not fn:
            return node
        return self._call(node, cls, func.attr, [func.value, *node.args], node.keywords)

    def visit_AugAssign(self, node):
        target = node.target
        cls = self.classes.known.get(target.id) if isinstance(target, gast.Name) and type(
            node.op) in _NAMES else None
        if cls is not None and getattr(cls, f"__i{_NAMES[type(node.op)]}__", None) is None:
            value = gast.copy_location(gast.BinOp(left=_name(target.id), op=node.op,
                                                  right=node.value), node)
            gast.copy_location(value.left, target)
            assign = gast.copy_location(gast.Assign(targets=[target], value=value,
                                                    type_comment=None), node)
            target.ctx = gast.Store()
            return self.visit(assign)
        self.generic_visit(node)
        return node


def lower(src):
    """Rewrite ``src.node`` in place, see above."""
    fdef = src.node
    nodes = _own_nodes(fdef)
    local = passed_calls.bound_names(fdef)
    if not any(isinstance(n, gast.Call) and _may_make(src, n.func, local) for n in nodes):
        return  # (no object of yours is built or returned here)
    classes = _Classes(src, fdef, nodes)
    if not classes.known and not classes.lists and not any(
            isinstance(n, gast.Call) and classes.of(n) is not None for n in classes.nodes):
        return
    taken = {n.id for n in walk_nodes(fdef) if isinstance(n, gast.Name)}
    spellings = {}

    def spell(cls):
        if cls not in spellings:
            name = cls.__name__
            if not name.isidentifier() or name in classes.local or resolve_any(
                    src, _name(name)) is not cls:
                name = f"{name if name.isidentifier() else 'cls'}_class"
                while name in taken or name in src.closure:
                    name += "_"
                src.closure[name] = cls
                src.cells[name] = types.CellType(cls)
                src.bound = {**getattr(src, "bound", {}), name: cls}
            taken.add(name)
            spellings[cls] = name
        return _name(spellings[cls])

    rewriter = _Calls(classes, spell)
    rewriter.visit(fdef)
    if not rewriter.made:
        return
    _name_objects(src, fdef, classes, set(map(id, rewriter.made)), taken)


def _name_objects(src, fdef, classes, made, taken):
    """Give each object a rewritten call returns, used inside a statement, a name of its
    own just before the statement (where that changes nothing)."""
    local = classes.local
    for node in _own_nodes(fdef):
        for field in ("body", "orelse", "finalbody"):
            body = getattr(node, field, None)
            if not (isinstance(body, list) and body and isinstance(body[0], gast.stmt)):
                continue
            out = []
            for stmt in body:
                out.extend(_named(src, stmt, classes, made, taken, local))
            setattr(node, field, out)


def _named(src, stmt, classes, made, taken, local):
    out = []
    root = getattr(stmt, "value", None)
    parents = {c: n for n in walk_nodes(stmt) for c in gast.iter_child_nodes(n)}
    while True:
        wanted = [n for n in walk_nodes(stmt) if n is not root and isinstance(n, gast.Call) and
                  (id(n) in made or id(parents.get(n)) in made) and classes.of(n) is not None]
        found = next((n for n in wanted if inline_objects.evaluated_first(src, stmt, n, local)),
                     None)
        if found is None and wanted and inline_objects._start(stmt) is not None:
            # a call of ours runs first: its value named first
            inner = {id(n) for w in wanted for n in walk_nodes(w)}
            def before(node, holder, field, inner=inner):
                return isinstance(node, gast.Call) and node is not root and id(
                    node) in made and not any(id(n) in inner for n in walk_nodes(node))

            first = inline_objects._first_object(src, inline_objects._start(stmt), local,
                                                 before)
            found = first[3] if first else None
        if found is None:
            return out + [stmt]
        cls = classes.of(found)
        new = "value" if cls is None else cls.__name__.lower() if cls.__name__.isidentifier() \
            else "obj"
        while new in taken:
            new += "_"
        taken.add(new)
        out.extend(_named(src, gast.copy_location(gast.Assign(
            targets=[gast.copy_location(_name(new, gast.Store()), found)], value=found,
            type_comment=None), stmt), classes, made, taken, local))  # (its own objects)
        parent = parents[found]
        for field, value in gast.iter_fields(parent):
            if value is found:
                setattr(parent, field, gast.copy_location(_name(new), found))
            elif isinstance(value, list) and any(v is found for v in value):
                value[[i for i, v in enumerate(value) if v is found][0]] = gast.copy_location(
                    _name(new), found)
        if cls is not None:
            classes.known[new] = cls
        local.add(new)
