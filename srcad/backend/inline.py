"""Small straight-line callee parts written into the code that calls them.

A user function called by differentiated code is split into a forward part and a backward
part (:mod:`srcad.transform.calls`); a call of a small helper (``sigmoid``: three lines) then
costs more in Python's calls and returns than in its arithmetic. Where a part is straight-line
code of at most :data:`MAX_STATEMENTS` statements reading nothing but its parameters and
srcad's helpers, the caller's code reads its statements instead of the call:

    forget, forget_ctx = sigmoid_fwd(gates[0:h])

becomes

    x_1 = gates[0:h]
    # sigmoid
    exp_1 = np.exp(-x_1)
    forget = 1.0 / (1.0 + exp_1)
    forget_ctx = (exp_1, forget)

and ``dgates[0:h] += sigmoid_bwd(forget_ctx, dforget)`` the backward part's statements, then
``dgates[0:h] += dx_1``. The context tuple stays where the caller pushes it or keeps it; where
the caller is itself a split part that only hands it to its backward part, its items become
items of the caller's context (:func:`flatten`).

What holds: the statements are the part's own, its local names renamed to names new in the
caller, each parameter bound once to its argument (a name or a literal the part never assigns
is read in its place); a call inside a conditional expression, a boolean operation, a lambda
or a comprehension is left a call (it might not run), and so is one in a statement that makes
other calls (whose order with the part's statements would change); a backward part that
adds into the caller's arrays (``f_bwd_into``) is inlined only where its call is a statement
of its own; comments name the callee (a forward part's statements are headed by its name,
a backward part's by its lines). Only for code srcad's Python backend compiles for NumPy
(:func:`srcad.pipeline.make_split` marks the parts, :func:`srcad.pipeline.adjoint` and
``make_split`` inline them).

Imports: :mod:`srcad.transform.nodes` (the comment node), :mod:`.emit` (the helpers),
:mod:`srcad.core.functions` (the callee's name), :mod:`.tidy_unpack` (tuple results unpacked).
"""

from __future__ import annotations

import ast
import builtins
import copy
from dataclasses import dataclass

from ..core import functions
from ..core.walk import walk_nodes
from ..transform.nodes import Comment
from .emit import HELPER_OBJECTS
from .tidy_unpack import item_reads, unpack_results, unpacked_items

#: the largest part (statements, comments not counted) written into its caller
MAX_STATEMENTS = 8

_SCOPES = (ast.Lambda, ast.ListComp, ast.SetComp, ast.DictComp, ast.GeneratorExp,
           ast.NamedExpr, ast.Yield, ast.YieldFrom, ast.Await)
_LAZY = (ast.IfExp, ast.BoolOp) + _SCOPES


@dataclass
class Part:
    """A part that may be written into its callers: its definition, its free names (name ->
    the helper it spells, or None for a name of the user's module, read from ``globals``),
    the callee's name (for comments)."""

    tree: ast.FunctionDef
    free: dict
    globals: dict
    callee: str
    ctx_kinds: dict = None  # a forward part's: position in its context -> the item's kind
    filename: str = None  # the callee's file: the lines its statements name are there


def mark(fwd, fwd_def, bwd, bwd_def, spelled, helpers, callee, python, buffers=()):
    """Mark the compiled parts ``fwd`` and ``bwd`` (made from ``fwd_def``, ``bwd_def``, of
    the user's function ``callee``) as ones callers may inline, each that is small
    straight-line code whose free names are helpers or names of the user's module (not a
    builtin it shadows), and that changes no array in place but the caller's ``buffers``
    (a backward part's that adds into them: :mod:`srcad.transform.into`); only ``python``
    code (srcad's Python backend, NumPy arrays, calling no callee of its own), of a function
    without a closure. (Code that changes its own new arrays in place is not written into
    its caller: a derivative of the caller, reading it, could not tell them from the
    caller's arrays.)"""
    if not python or callee.__code__.co_freevars:
        return
    _mark(fwd, fwd_def, spelled, helpers, callee, ())
    _mark(bwd, bwd_def, spelled, helpers, callee, set(buffers))
    part = getattr(fwd, "__srcad_inline__", None)
    if part is not None and bwd_def.args.args:  # the kinds the context's items have
        items = getattr(bwd, "__srcad_param_items__", {})
        part.ctx_kinds = items.get(bwd_def.args.args[0].arg, {})


def _mark(compiled, fdef, spelled, helpers, callee, buffers):
    args = fdef.args
    if args.vararg or args.kwarg or args.kwonlyargs or args.posonlyargs or args.defaults:
        return
    body = fdef.body
    plain = [s for s in body if s.__class__ is not Comment]
    if not plain or len(plain) > MAX_STATEMENTS:
        return
    for i, stmt in enumerate(plain):
        last = i == len(plain) - 1
        if not (isinstance(stmt, (ast.Assign, ast.AugAssign)) or (
                last and isinstance(stmt, ast.Return) and stmt.value is not None)):
            return  # (a statement of a call alone, xs.append(v), changes something)
        if any(isinstance(n, _SCOPES) for n in walk_nodes(stmt)) or not _writes_names(
                stmt, buffers):
            return
    params = {a.arg for a in args.args}
    stored = _stored(body)
    by_spelling = {spelled.get(h, h): h for h in helpers}
    module = callee.__globals__
    free = {}
    for node in (n for s in body for n in walk_nodes(s)):
        if isinstance(node, ast.Name) and node.id not in params | stored:
            if node.id in by_spelling:
                free[node.id] = by_spelling[node.id]
            elif node.id in compiled.__code__.co_freevars or (
                    node.id in _BUILTINS and node.id in module):
                return  # a cell (a callee's part, the user's closure), a shadowed builtin
            else:
                free[node.id] = None
    compiled.__srcad_inline__ = Part(fdef, free, module, functions.shown_name(callee),
                                     filename=callee.__code__.co_filename)


def _writes_names(stmt, buffers):
    """Whether ``stmt`` assigns names only, or adds into one of ``buffers`` in place."""
    if isinstance(stmt, ast.AugAssign):
        target = stmt.target
        base = target.value if isinstance(target, ast.Subscript) else target
        return isinstance(base, ast.Name) and base.id in buffers
    if isinstance(stmt, ast.Assign):
        return all(isinstance(t, ast.Name) or isinstance(t, ast.Tuple) and all(
            isinstance(e, ast.Name) for e in t.elts) for t in stmt.targets)
    return True


def inline_parts(fdef, cells, spelled, helpers, namer, func, python=True, contexts=None,
                 loops_only=False):
    """Write the marked parts that ``fdef`` (code made for the user's function ``func``)
    calls through ``cells`` (name -> cell) into it, where their free names mean there what
    they mean in the parts; ``helpers`` gains the ones they read. Only in ``python`` code
    (srcad's Python backend, NumPy arrays): else ``fdef`` as it is. ``loops_only``: only the
    calls inside loops (the differentiated function's own code runs once a call: a call
    outside its loops costs a microsecond once, and reads better as a call)."""
    if not python:
        return fdef
    found = {}
    for name, cell in cells.items():
        try:
            part = getattr(cell.cell_contents, "__srcad_inline__", None)
        except ValueError:  # a recursive call's part, not made yet
            continue
        if part is not None:
            found[name] = part
    wanted = set(helpers) | {h for p in found.values() for h in p.free.values() if h}
    bound = {spelled.get(h, h): h for h in wanted}  # the helpers' names in the caller
    taken = set(cells) | set(func.__code__.co_freevars) | _stored(fdef.body)
    parts = {name: part for name, part in found.items() if all(
        _same_meaning(n, h, part, bound, taken, func) for n, h in part.free.items())}
    if not parts:
        return fdef
    writer = _Writer(parts, namer)
    writer.depth = 0 if loops_only else 1
    writer.filename = func.__code__.co_filename
    fdef.body = writer.block(fdef.body)
    for name in writer.used:
        helpers.update(h for h in parts[name].free.values() if h)
    if contexts is not None:
        contexts.update(writer.contexts)
    if writer.used:  # h_2 = (np.sin(p), 2.0 * p) then p_1 = h_2[0] ...: p_1, q = ...
        unpack_results(fdef, namer.temps)
    return fdef


def into_split(fwd_def, bwd_def, kept, cells, spelled, helpers, namer, func, python):
    """A split's two parts with their callees' marked parts written in (:func:`inline_parts`),
    and each context of an inlined forward part that the split only hands over to its
    backward part, where that unpacks it once, flattened into the split's own context
    (:func:`flatten`). Returns ``(fwd_def, bwd_def, kept, kinds)``: ``kept`` the names the
    context holds, ``kinds`` the kinds of the items flattened in (name -> kind)."""
    contexts = {}
    fwd_def = inline_parts(fwd_def, cells, spelled, helpers, namer, func, python, contexts)
    bwd_def = inline_parts(bwd_def, cells, spelled, helpers, namer, func, python)
    kinds = {}
    for made, (items, item_kinds) in contexts.items():
        written = list(items)  # in the inlined part's order (its kinds' positions)
        if made in kept and flatten(fwd_def, bwd_def, made, items):
            at = kept.index(made)
            kept = kept[:at] + items + kept[at + 1:]
            kinds.update((n, item_kinds[i]) for i, n in enumerate(written)
                         if i in item_kinds and n in items)
    return fwd_def, bwd_def, kept, kinds


def flatten(fwd_def, bwd_def, made, items):
    """``made = (a, b)`` in ``fwd_def``, read only where it returns its context, and unpacked
    once by ``bwd_def`` (``a_1, b_1 = made``), which reads it nowhere else: the context holds
    ``a, b`` in its place and ``bwd_def`` unpacks them there. Whether it did."""
    def loads(tree):
        return [n for n in walk_nodes(tree) if isinstance(n, ast.Name) and n.id == made
                and isinstance(n.ctx, ast.Load)]

    ret = fwd_def.body[-1]
    first = bwd_def.body[0] if bwd_def.body else None
    if not (isinstance(ret, ast.Return) and isinstance(ret.value, ast.Tuple) and len(
            ret.value.elts) == 2 and isinstance(ret.value.elts[1], ast.Tuple)):
        return False
    packed = ret.value.elts[1].elts
    if not (isinstance(first, ast.Assign) and isinstance(first.targets[0], ast.Tuple) and len(
            first.targets[0].elts) == len(packed)):
        return False
    made_at = [i for i, st in enumerate(fwd_def.body) if isinstance(st, ast.Assign) and len(
        st.targets) == 1 and isinstance(st.targets[0], ast.Name) and st.targets[0].id == made]
    unpack_at = [i for i, st in enumerate(bwd_def.body) if isinstance(st, ast.Assign) and (
        isinstance(st.value, ast.Name) and st.value.id == made)]
    position = [i for i, e in enumerate(packed) if isinstance(e, ast.Name) and e.id == made]
    if len(made_at) != 1 or len(unpack_at) != 1 or len(position) != 1 or len(
            loads(fwd_def)) != 1 or len(loads(bwd_def)) != 1:
        return False
    unpack = bwd_def.body[unpack_at[0]]
    target = unpack.targets[0]
    if len(unpack.targets) != 1 or not isinstance(target, ast.Tuple) or len(
            target.elts) != len(items) or not all(isinstance(e, ast.Name) for e in target.elts):
        return False
    at = position[0]
    if not (isinstance(first.targets[0].elts[at], ast.Name)
            and first.targets[0].elts[at].id == made):
        return False
    # an item the context holds already (``forget`` of ``(exp, forget)``): read there
    held = {e.id: first.targets[0].elts[i].id for i, e in enumerate(packed)
            if isinstance(e, ast.Name) and isinstance(first.targets[0].elts[i], ast.Name)}
    renamed = {m.id: held[n] for n, m in zip(items, target.elts) if n in held}
    if len(set(items)) != len(items) or set(renamed) & _stored(bwd_def.body[:unpack_at[0]] + (
            bwd_def.body[unpack_at[0] + 1:])):
        return False
    del fwd_def.body[made_at[0]]
    new = [n for n in items if n not in held]
    packed[at:at + 1] = [ast.Name(id=n, ctx=ast.Load()) for n in new]
    del bwd_def.body[unpack_at[0]]
    first.targets[0].elts[at:at + 1] = [ast.Name(id=m.id, ctx=ast.Store()) for n, m in zip(
        items, target.elts) if n not in held]
    if renamed:
        bwd_def.body = [_Rename({k: ast.Name(id=v, ctx=ast.Load()) for k, v in
                                 renamed.items()}).visit(st) for st in bwd_def.body]
    items[:] = new
    return True


def _same_meaning(name, helper, part, bound, taken, func):
    """Whether ``name``, free in ``part`` (the helper ``helper``, or the user's global when
    None), means the same in code made for ``func``."""
    if name in taken:
        return False
    if helper is not None:
        return bound.get(name) == helper
    if part.globals is not func.__globals__ or name in _BUILTINS and name in func.__globals__:
        return False
    return name not in bound or HELPER_OBJECTS[bound[name]] is func.__globals__.get(name)


def _shadowed(fdef, part):
    """Whether ``fdef`` assigns a name the part reads as a helper."""
    return bool(_stored(fdef.body) & set(part.free))


def _stored(stmts):
    names = set()
    for node in (n for s in stmts for n in walk_nodes(s)):
        if isinstance(node, ast.Name) and isinstance(node.ctx, (ast.Store, ast.Del)):
            names.add(node.id)
        elif isinstance(node, (ast.For, ast.comprehension)) and isinstance(
                node.target, ast.Name):
            names.add(node.target.id)
    return names


class _Writer:
    def __init__(self, parts, namer):
        self.parts = parts
        self.namer = namer
        self.used = set()
        self.contexts = {}  # y_ctx -> (the names of its items, their kinds): see flatten
        self.depth = 1  # loops around the statement (0: calls there are left as they are)
        self.filename = None  # the caller's file, and its line the statement comes from:
        self.line = self.via = None  # a part's statements name the call (see _placed)

    def block(self, stmts):
        out = []
        line = self.line
        for stmt in stmts:
            if isinstance(stmt, Comment) and stmt.line is not None:
                self.line = stmt.line  # (as srcad.backend.emit reads the lines)
            self.via = getattr(stmt, "srcad_line", None) or self.line
            if isinstance(stmt, (ast.For, ast.While, ast.If, ast.With, ast.Try)):
                loop = isinstance(stmt, (ast.For, ast.While))
                self.depth += loop
                for field in ("body", "orelse", "finalbody"):
                    if getattr(stmt, field, None):
                        setattr(stmt, field, self.block(getattr(stmt, field)))
                for handler in getattr(stmt, "handlers", ()):
                    handler.body = self.block(handler.body)
                self.depth -= loop
                out.append(stmt)
            else:
                out.extend(self.statement(stmt) if self.depth else [stmt])
        self.line = line
        return out

    def statement(self, stmt):
        if isinstance(stmt, ast.Assign) and len(stmt.targets) == 1 and isinstance(
                stmt.targets[0], ast.Tuple) and len(stmt.targets[0].elts) == 2 and all(
                isinstance(t, ast.Name) for t in stmt.targets[0].elts):
            call = self.part_call(stmt.value)
            if call is not None:  # y, y_ctx = f_fwd(...)
                names = [t.id for t in stmt.targets[0].elts]
                made = self.expand(call, names)
                if made is not None:
                    return made
        unpacked = unpacked_items(stmt, self.part_call)  # (p, q), h_ctx = h_fwd(x)
        if unpacked is not None:
            whole = self.namer.temp(unpacked[1][:-4] if unpacked[1].endswith("_ctx") else "y")
            made = self.expand(stmt.value, [whole, unpacked[1]])
            if made is not None:
                return made + item_reads(whole, unpacked[0])
        if not isinstance(stmt, (ast.Assign, ast.AugAssign, ast.Expr, ast.Return)):
            return [stmt]
        if isinstance(stmt, ast.Expr) and self.part_call(stmt.value) is not None:
            made = self.expand(stmt.value, None)  # f_bwd_into(ctx, dy, dx): a statement
            if made is not None:
                return made
        before = []
        target = stmt.targets[0].id if isinstance(stmt, ast.Assign) and len(
            stmt.targets) == 1 and isinstance(stmt.targets[0], ast.Name) else None
        if target is not None and self.part_call(stmt.value) is not None:
            made = self.expand(stmt.value, [target])  # dx = f_bwd(ctx, dy)
            if made is not None:
                return made
        found = self._eager_calls(stmt)
        inside = {id(n) for _, _, c in found for n in walk_nodes(c)}
        if any(isinstance(n, ast.Call) and id(n) not in inside for n in walk_nodes(stmt)):
            return [stmt]  # another call (dxs.pop()) might run before it: left as it is
        for holder, field, call in found:
            made = self.expand(call, [])  # hoisted: its value read where the call was
            if made is None:
                continue
            *made, result = made
            before += made
            if isinstance(field, tuple):  # an item of a list field (a call's arguments)
                getattr(holder, field[0])[field[1]] = result
            else:
                setattr(holder, field, result)
        return before + [stmt]

    def part_call(self, node):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and (
                node.func.id in self.parts) and not node.keywords and not any(
                isinstance(a, ast.Starred) for a in node.args):
            part = self.parts[node.func.id]
            if len(node.args) == len(part.tree.args.args):
                return node
        return None

    def _eager_calls(self, stmt):
        """(node, field, call) of each part call ``stmt`` always evaluates, innermost first,
        whose arguments hold no other part call."""
        found = []

        def visit(node):
            if isinstance(node, _LAZY):
                return
            for field, value in ast.iter_fields(node):
                items = [(field, value)] if isinstance(value, ast.AST) else [
                    ((field, i), v) for i, v in enumerate(value)] if isinstance(
                    value, list) else []
                for where, child in items:
                    if not isinstance(child, ast.AST):
                        continue
                    visit(child)
                    call = self.part_call(child)
                    if call is not None and not any(
                            self.part_call(n) is not None for a in call.args
                            for n in walk_nodes(a)):
                        found.append((node, where, call))

        visit(stmt)
        return found

    def expand(self, call, targets):
        """The statements of the part ``call`` calls. ``targets``: None for a part whose
        value is not read; ``[y, y_ctx]`` of a forward part, ``[dx]`` of a backward part:
        the statements end by assigning them; ``[]``: they end with the value's
        expression (an ``ast.expr``, the last item)."""
        part = self.parts[call.func.id]
        tree = part.tree
        body = [s for s in tree.body if not isinstance(s, ast.Return)]
        returned = tree.body[-1].value if isinstance(tree.body[-1], ast.Return) else None
        if targets is None and returned is not None and not _is_none(returned):
            return None
        if targets and returned is None:
            return None
        if targets and len(targets) == 2 and not (
                isinstance(returned, ast.Tuple) and len(returned.elts) == 2):
            return None
        params = [a.arg for a in tree.args.args]
        stored = _stored(tree.body)
        mapping, out = {}, []
        read_args = set()
        for p, arg in zip(params, call.args):
            if isinstance(arg, ast.Constant) and p not in stored or (
                    isinstance(arg, ast.Name) and p not in stored):
                mapping[p] = arg
                if isinstance(arg, ast.Name):
                    read_args.add(arg.id)
            else:
                fresh = self.namer.fresh(p)
                out.append(_assign(fresh, arg))
                mapping[p] = ast.Name(id=fresh, ctx=ast.Load())
        values = list(returned.elts) if targets and len(targets) == 2 else (
            [returned] if targets else [])
        ends = []  # the part's own names that hold the values: the targets' names instead
        for t, value in zip(targets or [], values):
            if isinstance(value, ast.Name) and value.id in stored and value.id not in params \
                    and t not in read_args and value.id not in mapping:
                mapping[value.id] = ast.Name(id=t, ctx=ast.Load())
                ends.append(None)
            else:
                ends.append(t)
        for local in sorted(stored - set(params) - set(mapping)):
            mapping[local] = ast.Name(id=self.namer.fresh(local), ctx=ast.Load())
        if not any(isinstance(stmt, Comment) for stmt in body):
            out.append(Comment(part.callee))  # a forward part: its statements named
        line = None  # the callee's line the statements come from (errors name it)
        for stmt in body:
            if isinstance(stmt, Comment):
                line = stmt.line if stmt.line is not None else line
                out.append(Comment(f"{part.callee}, {stmt.text}"))
                continue
            line = getattr(stmt, "srcad_line", None) or line
            out.append(self.placed(_Rename(mapping).visit(copy.deepcopy(stmt)), part, line))
        self.used.add(call.func.id)
        line = getattr(tree.body[-1], "srcad_line", None) or line
        for t, value, end in zip(targets or [], values, ends):
            if end is not None:
                out.append(self.placed(_assign(t, _Rename(mapping).visit(
                    copy.deepcopy(value))), part, line))
        made = out[-1].value if targets and len(targets) == 2 and ends[1] is not None else None
        if isinstance(made, ast.Tuple) and all(isinstance(e, ast.Name) for e in made.elts) \
                and part.ctx_kinds is not None:
            self.contexts[targets[1]] = ([e.id for e in made.elts], part.ctx_kinds)
        if targets == []:
            out.append(_Rename(mapping).visit(copy.deepcopy(returned)))
        return out


    def placed(self, stmt, part, line):
        """``stmt``, a statement of ``part`` written into its caller, naming the callee's
        file and ``line``, and the caller's line of the call (:mod:`srcad.backend.emit`'s
        line map: ``(file, line, (file, line))``), where known."""
        if line is None or part.filename is None:
            return stmt
        via = self.via if isinstance(self.via, tuple) or self.filename is None or (
            self.via is None) else (self.filename, self.via)
        stmt.srcad_line = line if isinstance(line, tuple) else (
            part.filename, line, via[:2] if via else None)
        return stmt


class _Rename(ast.NodeTransformer):
    def __init__(self, mapping):
        self.mapping = mapping

    def visit_Name(self, node):
        new = self.mapping.get(node.id)
        if new is None:
            return node
        if isinstance(new, ast.Name):
            return ast.copy_location(ast.Name(id=new.id, ctx=node.ctx), node)
        return copy.deepcopy(new)  # a literal argument: read only (the part never assigns it)


def _assign(target, value):
    return ast.Assign(targets=[ast.Name(id=target, ctx=ast.Store())], value=value, lineno=0)


def _is_none(node):
    return isinstance(node, ast.Constant) and node.value is None


_BUILTINS = frozenset(dir(builtins))
