"""A function of the user's that chooses a function by a constant, called in differentiated
code (corpus28)::

    def activation(name):
        if name == "relu":
            return lambda z: np.maximum(z, 0.0)
        elif name == "tanh":
            return np.tanh
        return {"id": identity, "sin": np.sin}[name]

    def loss(W, x):
        h = activation("tanh")(x @ W)

A call of the function it returns was refused as a call of a closure (closure conversion
takes different functions on different paths only when each is a ``def`` or a lambda of the
same parameters). When the chooser's body computes nothing (only ``if``/``else`` on
comparisons of its parameters and constants, assignments and ``return`` of names, dotted
names, lambdas, nested ``def``s, dict, tuple and list displays and their items: no call at
all, so no effect and no value that could differ from run to run) and the call passes
constants (strings, numbers, None, bools, tuples of them, functions), the call is made when
the code is made: its result, a function, is a constant whose call srcad reads as any
function's. The free names the chooser reads are recorded (rebinding ``identity``, changing
a global dict of functions in place, or the chooser's code or defaults, makes the caller's
code again). Anything else keeps the refusal (or closure conversion).

Imports the standard library, gast, :mod:`srcad.core` and :mod:`.source`.
"""

from __future__ import annotations

import builtins
import inspect
import types

import gast

from ..core import env, functions
from ..core.ir import Const
from . import source as source_module

_MISSING = object()
_TESTS = (gast.Eq, gast.NotEq, gast.Is, gast.IsNot, gast.In, gast.NotIn)


def _constant(value):
    """Whether ``value`` may be passed to a chooser: a constant or a function."""
    if isinstance(value, tuple):
        return all(_constant(v) for v in value)
    return value is None or type(value) in (str, int, float, bool) or (
        functions.is_function_value(value))


class _Reader:
    """Whether a chooser's body computes nothing (see above), its free names' reads kept."""

    def __init__(self, fn, params):
        self.fn, self.local, self.params, self.reads = fn, set(params), set(params), []
        self.cells = dict(zip(fn.__code__.co_freevars, fn.__closure__ or ()))

    def block(self, stmts):
        return all(self.stmt(s) for s in stmts)

    def stmt(self, s):
        if isinstance(s, gast.Return):
            return s.value is None or self.expr(s.value)
        if isinstance(s, gast.If):
            return self.expr(s.test) and self.block(s.body) and self.block(s.orelse)
        if isinstance(s, gast.Assign):
            if len(s.targets) != 1 or not isinstance(s.targets[0], gast.Name) or not (
                    self.expr(s.value)):
                return False
            self.local.add(s.targets[0].id)
            return True
        if isinstance(s, gast.FunctionDef):  # made, not run (no defaults: nothing computed)
            if s.decorator_list or s.args.defaults or any(
                    d is not None for d in s.args.kw_defaults) or not self.apart(s):
                return False
            self.local.add(s.name)
            return True
        return isinstance(s, gast.Pass)

    def apart(self, made):
        """Whether a nested function or lambda made in the chooser holds nothing one made by
        another call would not: it reads no local the chooser assigns (the parameters are
        constants or functions; a dict display held would be one object for every run) and
        writes no name outside itself (``nonlocal``, ``global``)."""
        assigned = self.local - self.params
        return not any(isinstance(n, (gast.Nonlocal, gast.Global)) or isinstance(
            n, gast.Name) and n.id in assigned for n in gast.walk(made))

    def expr(self, e):
        if isinstance(e, gast.Constant):
            return True
        if isinstance(e, gast.Lambda):  # made, not run
            return not e.args.defaults and not any(
                d is not None for d in e.args.kw_defaults) and self.apart(e)
        if isinstance(e, (gast.Name, gast.Attribute)):
            return self.name(e)
        if isinstance(e, (gast.Tuple, gast.List)):
            return all(not isinstance(x, gast.Starred) and self.expr(x) for x in e.elts)
        if isinstance(e, gast.Dict):
            return all(isinstance(k, gast.Constant) for k in e.keys) and all(
                self.expr(v) for v in e.values)
        if isinstance(e, gast.Subscript):
            return not isinstance(e.slice, gast.Slice) and self.expr(e.value) and self.expr(
                e.slice)
        if isinstance(e, gast.IfExp):
            return self.expr(e.test) and self.expr(e.body) and self.expr(e.orelse)
        if isinstance(e, gast.BoolOp):
            return all(self.expr(v) for v in e.values)
        if isinstance(e, gast.UnaryOp):
            return isinstance(e.op, gast.Not) and self.expr(e.operand)
        if isinstance(e, gast.Compare):
            return all(isinstance(op, _TESTS) for op in e.ops) and self.expr(e.left) and all(
                self.expr(c) for c in e.comparators)
        return False

    def name(self, node):
        """A local, or a free name (a dotted path of one) naming a function, a module, a
        constant or a dict of them, its read recorded."""
        attrs = []
        while isinstance(node, gast.Attribute):
            attrs.append(node.attr)
            node = node.value
        if not isinstance(node, gast.Name) or not isinstance(node.ctx, gast.Load):
            return False
        if node.id in self.local:
            return not attrs
        attrs.reverse()
        if node.id in self.cells:
            try:
                value = self.cells[node.id].cell_contents
            except ValueError:
                return False
            namespace, cell = None, self.cells[node.id]
        else:
            namespace, cell = self.fn.__globals__, None
            value = namespace.get(node.id, getattr(builtins, node.id, _MISSING))
        for attr in attrs:
            if not isinstance(value, types.ModuleType):
                return False
            value = getattr(value, attr, _MISSING)
        if value is _MISSING:
            return False
        if type(value) is dict:  # a global dict of functions: its items guard the code
            if not all(type(k) is str and _constant(v) for k, v in value.items()):
                return False
            self.reads.append(env.ItemsRead(namespace, cell, node.id, attrs, value))
            return True
        if not (_constant(value) or isinstance(value, types.ModuleType)):
            return False
        self.reads.append(env.Read(namespace, cell, node.id, attrs, value))
        return True


#: the code of functions found not to be choosers (read once: a parse per call otherwise)
_PLAIN = set()


def chooser_reads(fn):
    """The reader of ``fn`` (its free names' ``reads``, the names its body reads,
    ``loaded``) when ``fn``'s body computes nothing (see above), else None."""
    if not isinstance(fn, types.FunctionType) or fn.__code__ in _PLAIN:  # (not read here)
        return None
    reader = _chooser_reader(fn)
    if reader is None:
        _PLAIN.add(fn.__code__)  # (a chooser's reads are taken again each time: live values)
    return reader


def _chooser_reader(fn):
    try:
        src = source_module.read(fn)
    except Exception:  # noqa: BLE001 - no source: not such a chooser
        return None
    fdef = src.node
    if not isinstance(fdef, gast.FunctionDef) or fdef.decorator_list or (
            fdef.args.vararg or fdef.args.kwarg):
        return None
    args = fdef.args
    reader = _Reader(fn, [a.id for a in args.posonlyargs + args.args + args.kwonlyargs])
    body = list(fdef.body)
    if body and isinstance(body[0], gast.Expr) and isinstance(body[0].value, gast.Constant):
        body = body[1:]  # the docstring
    if not body or not reader.block(body):
        return None
    reader.loaded = {n.id for n in gast.walk(fdef) if isinstance(n, gast.Name) and isinstance(
        n.ctx, gast.Load)}
    return reader


def _given(atom, param, loaded):
    """The value passed for ``param`` when the chooser is called early: the constant, or
    None for a value not known yet (an object, a differentiated value) that the chooser
    never reads (``self`` of ``def act(self, name)``); else ``_MISSING``."""
    if _literal(atom):
        return atom.value
    return None if param not in loaded else _MISSING


def _literal(atom):
    """Whether ``atom`` is a constant the user wrote (``"tanh"``, ``2``): not a name the
    generated code reads when it runs (a global ``K``, spelled so: its value may change
    between calls, and a function made from it now would keep the old one)."""
    return isinstance(atom, Const) and atom.spelling is None and _constant(atom.value)


def call(lowerer, fn, args, kwargs):
    """``chooser("tanh")`` made now when ``fn`` computes nothing and the call passes
    constants (or values it never reads): the function it returns, a constant; else None."""
    if not any(_literal(a) for a in (*args, *kwargs.values())):
        return None  # (a chooser chooses by a constant)
    reader = chooser_reads(fn)
    if reader is None:
        return None
    reads = reader.reads
    try:
        bound = inspect.signature(fn).bind(*args, **kwargs)
    except TypeError:
        return None
    for param, atom in list(bound.arguments.items()):
        bound.arguments[param] = _given(atom, param, reader.loaded)
        if bound.arguments[param] is _MISSING:
            return None
    try:
        made = fn(*bound.args, **bound.kwargs)
    except Exception:  # noqa: BLE001 - (a KeyError): raised again when the code runs
        return None
    if not functions.is_function_value(made):
        return None
    space = {fn.__name__: fn}
    env.record_all(reads + env.code_reads(space) + [env.Read(
        space, None, fn.__name__, ("__defaults__",), fn.__defaults__), env.Read(
            space, None, fn.__name__, ("__kwdefaults__",), fn.__kwdefaults__)])
    name = getattr(made, "__name__", "fn")
    return Const(made, lowerer.bound_name(made, name if name.isidentifier() else "chosen"))
