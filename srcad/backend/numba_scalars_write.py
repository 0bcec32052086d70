"""Numba backend: the code :mod:`.numba_scalars` analysed, written again with its small arrays
as numbers (each ``N`` of length ``n`` as ``N__0 .. N__{n-1}``; see that module's docstring
for the forms and why the values are the same).

Imports ``ast``, ``struct`` (a constant's bytes), :mod:`.numba_fuse` (the fused expressions'
grammar). :mod:`.numba_scalars` imports this module.
"""

from __future__ import annotations

import ast
import struct

from .numba_fuse import _parse

MAX_LENGTH = 4
_COPIES = ("copy_tangent", "reuse_tangent")


def _int(node):
    """Whether ``node`` is an int constant, ``-c`` included."""
    return _value(node) is not None


def _value(node):
    """The int constant ``node`` is (``3``, ``-1``), else None."""
    if node.__class__ is ast.UnaryOp and node.op.__class__ is ast.USub:
        inner = _value(node.operand)
        return None if inner is None else -inner
    return node.value if node.__class__ is ast.Constant and type(node.value) is int else None


def _constant_values(helper):
    """The float64 values of ``numba_constants``' helper ``constant_<hex>``, or None."""
    text = helper[len("constant_"):]
    try:
        raw = bytes.fromhex(text)
    except ValueError:
        return None
    if not raw or len(raw) % 8 or len(raw) // 8 > MAX_LENGTH:
        return None
    return list(struct.unpack(f"<{len(raw) // 8}d", raw))


def _fused_text(helper):
    """The expression of a fused helper giving an elementwise value (``fused_en_*``,
    ``fused_wn_*``, ``fused_wi_*``) over ``{k}`` operands, or None."""
    parts = helper.split("_")
    if len(parts) < 3 or parts[1] not in ("en", "wn", "wi"):
        return None
    text, rest = _parse(parts[2:], "+")
    return None if rest else text


class Writer:
    """The rewriting of one analysed function ``f`` (a ``numba_scalars._Function``)."""

    def __init__(self, f):
        self.f = f

    def rewrite(self, name):
        """The function written with its small arrays as numbers, named ``name``."""
        fdef = self.f.fdef
        self.names = {s for s in self.f.stores} | set(self.f.params)
        loaded = {n.id for n in ast.walk(fdef) if n.__class__ is ast.Name} | self.names
        if any("__" in ident and ident.rsplit("__", 1)[0] in self.f.lengths
               or ident.startswith("sr__") for ident in loaded):
            raise ValueError("srcad: a name of the form the replaced elements take")
        self.temps = 0
        args = []
        for a in fdef.args.args:
            n = self.f.lengths.get(a.arg)
            args += [ast.arg(arg=c) for c in self.parts(a.arg, n)] if n else [a]
        fdef.args.args = args
        fdef.name = name
        fdef.body = self.block(fdef.body)
        return fdef

    def parts(self, ident, n):
        return [f"{ident}__{k}" for k in range(n)]

    def temp(self):
        self.temps += 1
        return f"sr__{self.temps}"

    def block(self, stmts):
        out = []
        for stmt in stmts:
            for field in ("body", "orelse"):
                inner = getattr(stmt, field, None)
                if isinstance(inner, list) and inner and isinstance(inner[0], ast.stmt):
                    setattr(stmt, field, self.block(inner))
            out += self.statement(stmt)
        return out

    def items(self, node):
        """The expressions of the elements of the small array ``node``."""
        if node.__class__ is ast.Name:
            return [ast.Name(id=c, ctx=ast.Load()) for c in self.parts(node.id,
                                                                        self.f.lengths[node.id])]
        if self.f.is_np_array(node):  # a display given to an expression: its items, each once
            return [self.guard("float", e) for e in node.args[0].elts]
        return [ast.Constant(value=v) for v in _constant_values(self.f.helper(node))]

    def guard(self, kind, node):
        self.f.program.guards.add(kind)
        return ast.Call(func=ast.Name(id=f"numba_sr_{kind}", ctx=ast.Load()), args=[node],
                        keywords=[])

    def statement(self, stmt):
        stmt = self.expressions(stmt)
        if stmt.__class__ is ast.Return:
            return [self.returned(stmt)]
        if stmt.__class__ is not ast.Assign or len(stmt.targets) != 1:
            return [stmt]
        target, value = stmt.targets[0], stmt.value
        if target.__class__ is ast.Name and target.ctx.__class__ is ast.Store and (
                target.id.startswith("sr__")):
            return [stmt]
        if value.__class__ is ast.Call and id(value) in self.f.calls:
            return self.call(target, value)
        if target.__class__ is ast.Name and target.id in self.f.lengths:
            n = self.f.lengths[target.id]
            pre, values = self.elements(value, n)
            names = self.parts(target.id, n)
            return pre + [ast.Assign(targets=[ast.Tuple(
                elts=[ast.Name(id=c, ctx=ast.Store()) for c in names], ctx=ast.Store())],
                value=ast.Tuple(elts=values, ctx=ast.Load()))]
        return [stmt]

    def elements(self, value, n):
        """``(statements, expressions)``: the elements of the array ``value`` makes."""
        if value.__class__ is ast.Name or (value.__class__ is ast.Call and self.f.helper(
                value) and self.f.helper(value).startswith("constant_")):
            return [], self.items(value)
        func, args = value.func, value.args
        if self.f.is_np_array(value):
            return [], [self.guard("float", e) for e in args[0].elts]
        if func.__class__ is ast.Attribute and func.attr == "copy":
            return [], self.items(func.value)
        helper = self.f.helper(value)
        if helper == "zeros_float":
            return [], [ast.Constant(value=0.0)] * n
        if helper == "scatter":
            at = _value(args[2]) % n
            t = self.temp()
            pre = [ast.Assign(targets=[ast.Name(id=t, ctx=ast.Store())],
                              value=self.guard("store", args[0]))]
            return pre, [ast.Name(id=t, ctx=ast.Load()) if k == at else ast.Constant(value=0.0)
                         for k in range(n)]
        if helper in _COPIES:
            return [], self.items(args[0])
        text = _fused_text(helper)  # an elementwise expression
        pre, operands = [], []
        for a in args:
            if self.f.length(a):
                operands.append(self.items(a))
            else:
                t = self.temp()
                pre.append(ast.Assign(targets=[ast.Name(id=t, ctx=ast.Store())],
                                      value=self.guard("number", a)))
                operands.append([ast.Name(id=t, ctx=ast.Load())] * n)
        values = []
        for k in range(n):
            texts = [ast.unparse(o[k]) for o in operands]
            values.append(ast.parse(text.format(*texts), mode="eval").body)
        return pre, values

    def call(self, target, value):
        callee = self.f.calls[id(value)]
        args = []
        for p, a in zip(callee.params, value.args):
            args += self.items(a) if callee.lengths.get(p) else [a]
        value.args = args
        value.func = ast.Name(id=self.f.program.copy_name(callee), ctx=ast.Load())
        after = []
        if callee.flat:
            elts = []
            for t, m in zip(target.elts, callee.results()):
                n = self.f.lengths.get(t.id)
                if n or not m:
                    elts += [ast.Name(id=c, ctx=ast.Store()) for c in self.parts(t.id, n)] \
                        if n else [t]
                    continue
                temps = [self.temp() for _ in range(m)]  # an array after all: made here
                elts += [ast.Name(id=c, ctx=ast.Store()) for c in temps]
                after.append(ast.parse(f"{t.id} = sr__np.array([{', '.join(temps)}])").body[0])
            target = ast.Tuple(elts=elts, ctx=ast.Store())
        return [ast.Assign(targets=[target], value=value)] + after

    def returned(self, stmt):
        value = stmt.value
        items = value.elts if value.__class__ is ast.Tuple else [value]
        flatten, out = self.f.results() is not None, []
        for e in items:
            zeros = self.f.zeros_of(e) if e.__class__ is ast.Call else None
            n = self.f.lengths.get((zeros or e).id) if (zeros or e).__class__ is ast.Name \
                else None
            if not n:
                out.append(e)
            elif zeros is not None:
                out += [ast.Constant(value=0.0)] * n if self.f.flat and flatten else [
                    ast.parse(f"sr__np.zeros({n})", mode="eval").body]
            elif self.f.flat and flatten:
                out += self.items(e)
            else:
                out.append(ast.parse(f"sr__np.array([{', '.join(self.parts(e.id, n))}])",
                                     mode="eval").body)
        if value.__class__ is ast.Tuple:
            stmt.value = ast.Tuple(elts=out, ctx=ast.Load())
        else:
            stmt.value = out[0]
        return stmt

    def expressions(self, stmt):
        """``N[c]`` read as ``N__c``; ``N[c] = e`` as ``N__c = numba_sr_store(e)``."""
        lengths = self.f

        class Items(ast.NodeTransformer):
            def visit_Subscript(self, node):
                self.generic_visit(node)
                if node.value.__class__ is ast.Name and _int(node.slice):
                    n = lengths.lengths.get(node.value.id)
                    if n:
                        return ast.Name(id=f"{node.value.id}__{_value(node.slice) % n}",
                                        ctx=node.ctx)
                return node

        stmt = Items().visit(stmt)
        if stmt.__class__ is ast.Assign and stmt.targets[0].__class__ is ast.Name and (
                stmt.targets[0].id.count("__") and stmt.targets[0].id.rsplit("__", 1)[0]
                in self.f.lengths and stmt.targets[0].id not in self.names):
            stmt.value = self.guard("store", stmt.value)
        return stmt
