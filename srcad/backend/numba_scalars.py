"""Numba backend: small arrays of a length the code fixes, held as numbers (scalar replacement).

A derivative of code stepping 2-element positions (GradBench's ``particle``) makes several new
arrays a step: ``np.array([a, b])``, srcad's ``zeros_float``/``scatter``, the elementwise
``numba_fused_*`` of such arrays, the results of a callee's parts. Numba allocates each on the
heap (neither Numba nor LLVM removes an allocation): most of such a step's time. :func:`replace`
writes the compiled code again with each such array ``N`` of length ``n`` <= :data:`MAX_LENGTH`
as ``n`` numbers ``N__0 .. N__{n-1}``, across calls into user callees' parts (a copy of the
callee made for the caller's arguments: its small array parameters as numbers, its small array
results returned as numbers), or returns None where it finds none. An array is replaced only
where **every** use of it is one of these (else it stays an array, and what it is made from):

- made by ``np.array([e0, ..])`` (each item a float64 number: the guard ``numba_sr_float``
  makes any other type a typing error), ``zeros_float(M)``, ``scatter(v, M, c)`` with ``c`` an
  int constant in range, ``M``, ``M.copy()``, ``copy_tangent(M, V)`` / ``reuse_tangent(M, V)``
  with ``V`` replaced too and of ``M``'s length, a fused elementwise expression
  (``fused_e*``/``fused_w*``: the same operations, element by element, in the same order; its
  other operands numbers, guarded by ``numba_sr_number``) of replaced arrays of one length, a
  constant array (``numba_constants``), or a callee's part returning it;
- read as ``N[c]`` (an int constant in range), written as ``N[c] = e`` (stored as a float64
  element is, ``numba_sr_store``), given to one of the forms above or to a callee's part
  whose copy takes it as numbers, or returned (the function compiled returns
  ``np.array([N__0, ..])``, a callee's copy its numbers in its tuple), or its zeros
  returned (``zeros_float(N)``: forward mode's tangent of a value no input reaches).

Arrays have value semantics here, so aliasing must not be observable. srcad's generated code
copies before it writes an item (``y_1 = y.copy(); y_1[i] = v``), and hands over an array
without the copy only where :mod:`.numba_reuse` proved nothing reads the old name again
(``numba_update``'s in-place sums likewise); :func:`_writes_safe` checks the first again for
every item write, else the array stays an array. Every replaced element is a float64 (its
guards are typing errors otherwise), so each element is computed by the same float64
operations as NumPy's loop. The caller compiles the result and falls back to the code as it
was when Numba cannot type it (:mod:`.numba_passed`).

Imports ``ast``, ``types``, ``numpy``, :mod:`.numba_scalars_write` (the code written again),
:mod:`.numba_scalar_guards` and ``numba`` when the code is compiled.
"""

from __future__ import annotations

import ast
import types

import numpy as np

from .numba_scalars_write import (
    _COPIES,
    MAX_LENGTH,
    Writer,
    _constant_values,
    _fused_text,
    _int,
    _value,
)


def _helper_name(cells, ident):
    cell = cells.get(ident)
    try:
        return getattr(cell.cell_contents, "__srcad_numba_helper__", None)
    except (AttributeError, ValueError):
        return None


def _part(cells, ident):
    cell = cells.get(ident)
    try:
        value = cell.cell_contents
    except (AttributeError, ValueError):
        return None
    if getattr(value, "__srcad_numba_part__", False) and hasattr(value, "py_func"):
        return value
    return None


class _Function:
    """One generated function (``fn``: its Python form, closure cells holding its helpers and
    callees' parts) analysed for the small arrays it can hold as numbers, given the lengths
    of its small array parameters (``given``: name -> length) and whether its small results
    are returned as numbers (``flat``)."""

    def __init__(self, fn, given, flat, program):
        self.fn, self.given, self.flat, self.program = fn, dict(given), flat, program
        self.fdef = ast.parse(fn.__srcad_source__).body[0]
        self.cells = dict(zip(fn.__code__.co_freevars, fn.__closure__ or ()))
        self.params = [a.arg for a in self.fdef.args.args]
        self.bad = set()
        self.stores = {}
        for node in ast.walk(self.fdef):
            if node.__class__ is ast.Name and node.ctx.__class__ is ast.Store:
                self.stores[node.id] = self.stores.get(node.id, 0) + 1
        self.returns = [n for n in ast.walk(self.fdef) if n.__class__ is ast.Return]
        self.solve()

    # -------------------------------------------------------------- what each value is
    def helper(self, call):
        if call.__class__ is ast.Call and call.func.__class__ is ast.Name and not call.keywords:
            return _helper_name(self.cells, call.func.id)
        return None

    def is_np_array(self, call):
        func = call.func
        return (func.__class__ is ast.Attribute and func.attr == "array"
                and func.value.__class__ is ast.Name
                and self.fn.__globals__.get(func.value.id) is np and len(call.args) == 1
                and not call.keywords and call.args[0].__class__ is ast.List)

    def length(self, node):
        """The length of the small array ``node`` stands for (a replaced name, a display of
        numbers, or a constant helper's call), else None."""
        if node.__class__ is ast.Name:
            return self.lengths.get(node.id)
        if node.__class__ is ast.Call and self.is_np_array(node) and not any(
                e.__class__ is ast.Starred or self.length(e) for e in node.args[0].elts):
            return len(node.args[0].elts) if len(node.args[0].elts) <= MAX_LENGTH else None
        helper = self.helper(node)
        if helper and helper.startswith("constant_") and not node.args:
            values = _constant_values(helper)
            return None if values is None else len(values)
        return None

    def made(self, value):
        """The length of the small array an assignment's ``value`` makes, None if it makes
        none, or "call" for a callee's part's call (its results: see :meth:`called`)."""
        if value.__class__ is ast.Name:
            return self.lengths.get(value.id)
        if value.__class__ is not ast.Call:
            return None
        if self.is_np_array(value):
            items = value.args[0].elts
            ok = 0 < len(items) <= MAX_LENGTH and not any(
                e.__class__ is ast.Starred or self.length(e) for e in items)
            return len(items) if ok else None
        func = value.func
        if func.__class__ is ast.Attribute and func.attr == "copy" and not value.args:
            return self.length(func.value)
        helper = self.helper(value)
        args = value.args
        if helper is None:
            if func.__class__ is ast.Name and _part(self.cells, func.id) is not None:
                return "call"
            return None
        if helper == "zeros_float" and len(args) == 1:
            return self.length(args[0])
        if helper == "scatter" and len(args) == 3 and _int(args[2]):
            n = self.length(args[1])
            if n and -n <= _value(args[2]) < n and not self.length(args[0]):
                return n
            return None
        if helper in _COPIES and len(args) == 2:
            n = self.length(args[0])
            return n if n and self.length(args[1]) == n else None
        if helper.startswith("constant_"):
            return self.length(value)
        if helper.startswith("fused_") and _fused_text(helper) is not None:
            lengths = {self.length(a) for a in args} - {None}
            return lengths.pop() if len(lengths) == 1 else None
        return None

    # -------------------------------------------------------------- the fixed point
    def solve(self):
        while True:
            self.lengths = {p: n for p, n in self.given.items() if p not in self.bad}
            self.calls = {}  # id(call) -> (the callee's copy, its analysis)
            changed = True
            while changed:
                changed = False
                for stmt in self.statements():
                    changed |= self.define(stmt)
            for ident in list(self.lengths):
                if not _assigned_ok(self, ident):
                    self.bad.add(ident)
            before = len(self.bad)
            self.verify()
            self.check_uses()
            if len(self.bad) == before and not (set(self.lengths) & self.bad):
                return

    def statements(self):
        for node in ast.walk(self.fdef):
            if isinstance(node, ast.stmt) and node is not self.fdef:
                yield node

    def define(self, stmt):
        """Record the lengths ``stmt`` gives names (whether it changed what is known)."""
        if stmt.__class__ is not ast.Assign or len(stmt.targets) != 1:
            return False
        target, changed = stmt.targets[0], False
        n = self.made(stmt.value)
        if n == "call":
            results = self.called(stmt.value, target)
            if results is None:
                return False
            names = [target] if target.__class__ is ast.Name else target.elts
            for t, m in zip(names, results):
                if m and t.id not in self.bad and t.id not in self.lengths:
                    self.lengths[t.id] = m
                    changed = True
            return changed
        if target.__class__ is ast.Name and n and target.id not in self.bad:
            if self.lengths.get(target.id) not in (None, n):
                self.bad.add(target.id)
                return True
            if target.id not in self.lengths:
                self.lengths[target.id] = n
                return True
        return False

    def called(self, call, target):
        """The lengths of a callee's part's results as this call's ``target`` receives them
        (a list, None for a result left as it is), analysing the callee's copy for the small
        arrays given to it; None where it returns no small array."""
        part = _part(self.cells, call.func.id)
        fn = part.py_func
        params = [a.arg for a in ast.parse(fn.__srcad_source__).body[0].args.args]
        if len(params) != len(call.args) or any(a.__class__ is ast.Starred for a in call.args):
            return None
        given = {p: self.length(a) for p, a in zip(params, call.args) if self.length(a)}
        flat = target.__class__ is ast.Tuple and all(t.__class__ is ast.Name
                                                     for t in target.elts)
        callee = self.program.function(fn, given, flat) if flat else None
        results = callee.results() if callee is not None else None
        if results is None or len(results) != len(target.elts):
            callee, results = self.program.function(fn, given, False), None
        if callee is None:
            return None
        self.calls[id(call)] = callee
        return results

    def results(self):
        """The lengths of the returned tuple's items (None for an item left as it is)."""
        if len(self.returns) != 1 or self.returns[0] is not self.fdef.body[-1]:
            return None
        value = self.returns[0].value
        items = value.elts if value.__class__ is ast.Tuple else None
        if items is None:
            return None
        return [self.length(self.zeros_of(e) or e) if e.__class__ in (ast.Name, ast.Call)
                else None for e in items]

    def zeros_of(self, node):
        """``M`` where ``node`` is ``zeros_float(M)`` or ``zeros_like(M)`` (of a float64 array: the
        same; a tangent returned of zeros), else None."""
        if self.helper(node) in ("zeros_float", "zeros_like") and len(node.args) == 1 and (
                node.args[0].__class__ is ast.Name):
            return node.args[0]
        return None

    def blocks(self):
        for node in ast.walk(self.fdef):
            for field in ("body", "orelse"):
                block = getattr(node, field, None)
                if isinstance(block, list) and block and isinstance(block[0], ast.stmt):
                    yield block

    def fused_elsewhere(self, target, value):
        """Whether ``value`` writes a fused expression into an array other than the one
        ``target`` names (``numba_update`` writes ``N = N + E`` only: anything else kept)."""
        helper = self.helper(value) if value.__class__ is ast.Call else None
        return bool(helper and helper.startswith("fused_w") and not (
            value.args and value.args[0].__class__ is ast.Name
            and value.args[0].id == target.id))

    def check_uses(self):
        """Mark bad every replaced name read anywhere but in a form of the module docstring."""
        allowed = set()  # ids of Name nodes read in an allowed place
        for stmt in self.statements():
            self.allow(stmt, allowed)
        for node in ast.walk(self.fdef):
            if (node.__class__ is ast.Name and node.ctx.__class__ is ast.Load
                    and node.id in self.lengths and id(node) not in allowed):
                self.bad.add(node.id)
            written = node.target if node.__class__ is ast.AugAssign else (
                node.targets[0] if node.__class__ is ast.Assign
                and node.targets[0].__class__ is ast.Tuple else None)
            for item in ast.walk(written) if written is not None else ():
                if item.__class__ is ast.Subscript and item.value.__class__ is ast.Name:
                    self.bad.add(item.value.id)  # N[c] += e, (N[c], a) = ...: kept arrays

    def allow(self, stmt, allowed):
        for node in ast.walk(stmt):  # N[c], read or written
            if node.__class__ is ast.Subscript and node.value.__class__ is ast.Name and _int(
                    node.slice):
                n = self.lengths.get(node.value.id)
                if n and -n <= _value(node.slice) < n:
                    allowed.add(id(node.value))
        if stmt.__class__ is ast.Return:
            value = stmt.value
            items = value.elts if value.__class__ is ast.Tuple else [value]
            if stmt is self.fdef.body[-1] and len(self.returns) == 1:
                allowed.update(id(self.zeros_of(e) or e) for e in items
                               if e.__class__ in (ast.Name, ast.Call))
            return
        if stmt.__class__ is not ast.Assign or len(stmt.targets) != 1:
            return
        target, value = stmt.targets[0], stmt.value
        n = self.made(value)
        if n == "call":
            callee = self.calls.get(id(value))
            if callee is not None:
                for p, a in zip(callee.params, value.args):
                    if a.__class__ is ast.Name and callee.lengths.get(p):
                        allowed.add(id(a))
            return
        if not (n and target.__class__ is ast.Name and target.id in self.lengths):
            return
        if value.__class__ is ast.Name:
            allowed.add(id(value))
        elif value.func.__class__ is ast.Attribute and value.func.attr == "copy":
            allowed.add(id(value.func.value))
        elif not self.is_np_array(value):
            allowed.update(id(a) for a in value.args if a.__class__ is ast.Name)

    def verify(self):
        """Mark bad a replaced name stored anywhere but by a form making an array of its
        length (a loop's target, an unpacking, another value)."""
        for stmt in self.statements():
            if stmt.__class__ is ast.Assign and len(stmt.targets) == 1:
                target, value = stmt.targets[0], stmt.value
                n = self.made(value)
                if target.__class__ is ast.Name:  # (a call's single result: an array)
                    if target.id in self.lengths and n != self.lengths[target.id]:
                        self.bad.add(target.id)
                    if n and n != "call" and self.fused_elsewhere(target, value):
                        self.bad.add(target.id)
                    continue
                if target.__class__ is ast.Tuple and n == "call" and id(value) in self.calls:
                    results = self.calls[id(value)].results() or [None] * len(target.elts)
                    if self.calls[id(value)].flat:
                        self.bad.update(t.id for t, m in zip(target.elts, results)
                                        if t.id in self.lengths and self.lengths[t.id] != m)
                    else:
                        self.bad.update(t.id for t in target.elts if t.id in self.lengths)
                    continue
                stores = [t for t in ast.walk(target) if t.__class__ is ast.Name
                          and t.ctx.__class__ is ast.Store]
            elif stmt.__class__ in (ast.If, ast.While):
                continue  # (their statements are visited themselves)
            else:  # a loop's target, an augmented assignment, a deletion...
                heads = [getattr(stmt, f) for f in ("target", "targets", "items")
                         if hasattr(stmt, f)]
                stores = [t for h in heads for t in ast.walk(ast.Tuple(
                    elts=h if isinstance(h, list) else [h])) if t.__class__ is ast.Name
                    and t.ctx.__class__ in (ast.Store, ast.Del)]
            self.bad.update(t.id for t in stores if t.id in self.lengths)

def _assigned_ok(self, ident):
    """Whether every item write into ``ident`` (of the :class:`_Function` ``self``) writes
    into an array nothing else holds (see the module docstring): it follows, in its block,
    ``ident``'s only assignment, of a new array or a hand-over of one no other statement
    reads afterwards."""
    writes = [s for s in self.statements() if s.__class__ is ast.Assign
              and s.targets[0].__class__ is ast.Subscript
              and s.targets[0].value.__class__ is ast.Name
              and s.targets[0].value.id == ident]
    if not writes:
        return True
    if self.stores.get(ident) != 1 or ident in self.params:
        return False
    for block in self.blocks():
        for k, stmt in enumerate(block):
            if stmt not in writes:
                continue
            j = k - 1
            while j >= 0 and block[j] in writes:
                j -= 1
            if j < 0 or not _fresh_or_handed(self, block, j, ident, k):
                return False
    return True

def _fresh_or_handed(self, block, j, ident, k):
    stmt = block[j]
    if not (stmt.__class__ is ast.Assign and stmt.targets[0].__class__ is ast.Name
            and stmt.targets[0].id == ident):
        return False
    value = stmt.value
    helper = self.helper(value) if value.__class__ is ast.Call else None
    if value.__class__ is ast.Call and (self.is_np_array(value) or helper in (
            "zeros_float", "scatter", "copy_tangent") or (
            value.func.__class__ is ast.Attribute and value.func.attr == "copy")):
        return True
    source = value if value.__class__ is ast.Name else (
        value.args[0] if helper == "reuse_tangent" else None)
    if source is None or source.__class__ is not ast.Name:
        return False
    name = source.id
    if name in self.params or self.stores.get(name) != 1:
        return False
    if not any(s.__class__ is ast.Assign and s.targets[0].__class__ is ast.Name
               and s.targets[0].id == name for s in block[:j]):
        return False
    end = k
    while end + 1 < len(block) and block[end + 1].__class__ is ast.Assign and (
            block[end + 1].targets[0].__class__ is ast.Subscript) and (
            getattr(block[end + 1].targets[0].value, "id", None) == ident):
        end += 1
    inside = {id(n) for s in block[:end + 1] for n in ast.walk(s)}
    return all(id(n) in inside for n in ast.walk(self.fdef)
               if n.__class__ is ast.Name and n.id == name)


class _Program:
    """The functions of one compiled derivative analysed and copied (see :func:`replace`)."""

    def __init__(self):
        self.functions, self.copies, self.guards, self.made = {}, {}, set(), {}
        self.depth = 0

    def function(self, fn, given, flat):
        key = (id(fn), tuple(sorted(given.items())), flat)
        if key in self.functions:
            return self.functions[key]
        self.functions[key] = None  # (recursion: refused by the backend; never loop)
        self.depth += 1
        try:
            found = None if self.depth > 8 else _Function(fn, given, flat, self)
        except (SyntaxError, IndexError, AttributeError, TypeError):
            found = None
        self.depth -= 1
        self.functions[key] = found
        return found

    def copy_name(self, callee):
        if id(callee) not in self.copies:
            self.copies[id(callee)] = f"{callee.fdef.name}__sr{len(self.copies)}"
        return self.copies[id(callee)]


def _compiled(fdef, fn, cells):
    """``fdef`` compiled as a function of ``fn``'s globals with the closure ``cells``."""
    text = ast.unparse(ast.fix_missing_locations(fdef))
    names = sorted(cells)
    body = "".join("    " + line + "\n" for line in text.splitlines())
    factory = f"def __srcad_factory__({', '.join(names)}):\n{body}    return {fdef.name}\n"
    scope = {}
    exec(compile(factory, f"<srcad numba scalars {fdef.name}>", "exec"), scope)  # noqa: S102
    inner = scope["__srcad_factory__"](*([None] * len(names))).__code__
    closure = tuple(cells[v] for v in inner.co_freevars)
    made = types.FunctionType(inner, fn.__globals__, fdef.name, None, closure or None)
    made.__srcad_source__ = text + "\n"
    return made


def replace(fn):
    """``fn`` (generated code the Numba backend compiles) with its small arrays held as
    numbers, and the callees' parts it calls copied so (see the module docstring), or None
    where no array is replaced."""
    program = _Program()
    entry = program.function(fn, {}, False)
    if entry is None or not any(f is not None and f.lengths
                                for f in program.functions.values()):
        return None
    try:
        return _made(entry, program, fn.__name__)
    except ValueError:
        return None


def _made(function, program, name):
    """``function``'s rewritten code compiled (its callees' copies first)."""
    import numba

    from .numba_scalar_guards import guard

    for callee in list(_callees(function)):
        if id(callee) not in program.made:
            made = _made(callee, program, program.copy_name(callee))
            part = numba.njit(boundscheck=True, inline="always")(made)
            part.__srcad_source__ = made.__srcad_source__
            part.__srcad_numba_part__ = True
            part.__srcad_scalar_copy__ = True  # inlined: checked where it indexes
            program.made[id(callee)] = part
    fdef = Writer(function).rewrite(name)
    cells = dict(function.cells)
    for callee in _callees(function):
        cells[program.copy_name(callee)] = types.CellType(program.made[id(callee)])
    cells["sr__np"] = types.CellType(np)
    for kind in program.guards:
        cells[f"numba_sr_{kind}"] = types.CellType(guard(kind))
    used = {n.id for n in ast.walk(fdef) if n.__class__ is ast.Name}
    return _compiled(fdef, function.fn, {k: v for k, v in cells.items() if k in used})


def _callees(function):
    seen = []
    for callee in function.calls.values():
        if callee not in seen:
            seen.append(callee)
    return seen
