"""Rewrite jumps and augmented assignments into plain structured statements.

After this pass the function body (a gast tree) has:

* no ``AugAssign``: ``x += e`` is ``x = x + e`` (``y[i] += v`` is ``y[i] = y[i] + v``);
* no ``Return`` except one, as the last statement of the body;
* no ``Break`` or ``Continue``: they set flags (``broke``, ``skip``); the statements after a
  jump are guarded by ``if not flag``; a loop that can be left early ends its body with
  ``if flag: break`` (the only ``break`` left, always last in the body);
* ``for ... else`` and ``while ... else`` as the loop followed by ``if not broke: ...``.

An arm that always returns takes no flag: the statements after its ``if`` move into the other
arm, so ``if x < 0: return -x`` / ``return x`` becomes one ``if``/``else``.

Imports: gast only; a tree-to-tree rewrite that knows nothing of srcad's IR or of the values
names refer to. Every node it builds is given all its fields, by keyword.
"""

from __future__ import annotations

import gast

from ..core.walk import walk_nodes

RETURN, BREAK, CONTINUE = "return", "break", "continue"


def _name(id_, ctx=None):
    return gast.Name(id=id_, ctx=ctx or gast.Load(), annotation=None, type_comment=None)


def _assign(target, value, like):
    node = gast.Assign(targets=[_name(target, gast.Store())], value=value, type_comment=None)
    return gast.copy_location(node, like)


def _const(value):
    return gast.Constant(value=value, kind=None)


def _any(flags):
    names = [_name(f) for f in sorted(flags)]
    return names[0] if len(names) == 1 else gast.BoolOp(op=gast.Or(), values=names)


class _Loop:
    def __init__(self):
        self.broke = None  # flag names, made on first use
        self.skip = None


class Desugar:
    def __init__(self, namer):
        self.namer = namer
        self.retval = None
        self.returned = None
        self.flags = set()  # the names of the jump flags this pass made

    # ---------------------------------------------------------------- entry

    def function(self, fdef):
        body = [_expand_aug(s) for s in fdef.body if not _is_docstring(s)]
        for stmt in body:
            _expand_aug_in(stmt)
            _named_tests_in(stmt)
        if _simple_return(body):
            fdef.body = body or [gast.copy_location(gast.Return(value=_const(None)), fdef)]
            return fdef
        self.retval = self.namer.fresh("result")
        self.returned = self.namer.fresh("returned")
        self.flags.add(self.returned)
        new = self.block(body, loop=None)
        unset = _assign(self.retval, _const(None), fdef)
        # every path sets the result when the function ends with a return: lower makes the
        # placeholder ir.UNSET, which merges ignore
        unset.srcad_unset = bool(body) and isinstance(body[-1], gast.Return)
        prologue = [
            unset,
            _assign(self.returned, _const(False), fdef),
        ]
        ret = gast.copy_location(gast.Return(value=_name(self.retval)), body[-1] if body else fdef)
        fdef.body = prologue + new + [ret]
        return fdef

    # ---------------------------------------------------------------- blocks

    def block(self, stmts, loop):
        """Rewrite ``stmts``; unused flag assignments are removed later by dead-code elimination."""
        out = []
        for i, stmt in enumerate(stmts):
            rest = stmts[i + 1:]
            if isinstance(stmt, gast.Return):
                value = stmt.value if stmt.value is not None else _const(None)
                out.append(_assign(self.retval, value, stmt))
                out.append(_assign(self.returned, _const(True), stmt))
                return out
            if isinstance(stmt, gast.Break):
                out.append(_assign(self._broke(loop), _const(True), stmt))
                return out
            if isinstance(stmt, gast.Continue):
                out.append(_assign(self._skip(loop), _const(True), stmt))
                return out
            if isinstance(stmt, gast.If):
                if self._if(stmt, rest, loop, out):
                    return out
                continue
            if isinstance(stmt, (gast.For, gast.While)):
                # a return in it, or a break/continue (of this block's loop) in its else part
                jumps, start = _jumps([stmt], inner=True), len(out)
                self._loop(stmt, out, loop)
                if jumps:
                    made = set().union(*(_assigned_in(s) for s in out[start:]))
                    flags = sorted(self._flags(loop) & made)
                    guarded = self.block(rest, loop)
                    if guarded:
                        out.extend([_guard(flags, guarded, stmt)] if flags else guarded)
                    return out
                continue
            out.append(stmt)
        return out

    def _if(self, stmt, rest, loop, out):
        """Append the rewritten ``if``; True when it took in the rest of the block."""
        if not (_jumps(stmt.body) or _jumps(stmt.orelse)):
            stmt.body = self.block(stmt.body, loop)
            stmt.orelse = self.block(stmt.orelse, loop)
            out.append(stmt)
            return False
        body_exits = loop is None and _always_returns(stmt.body)
        else_exits = loop is None and _always_returns(stmt.orelse)
        if body_exits or else_exits:
            # The rest of the block runs only on the arm that does not return: move it there.
            if not body_exits:
                stmt.body = stmt.body + rest
            if not else_exits:
                stmt.orelse = stmt.orelse + rest
            rest = []
        stmt.body = self.block(stmt.body, loop)
        stmt.orelse = self.block(stmt.orelse, loop)
        out.append(stmt)
        flags = self._flags(loop) & _assigned_in(stmt)
        guarded = self.block(rest, loop)
        if guarded:
            out.extend([_guard(flags, guarded, stmt)] if flags else guarded)
        return True

    def _flags(self, loop):
        flags = {self.returned} if self.returned else set()
        if loop is not None:
            flags |= {f for f in (loop.broke, loop.skip) if f}
        return flags

    # ---------------------------------------------------------------- loops

    def _loop(self, stmt, out, outer):
        loop = _Loop()
        orelse = stmt.orelse
        returns = bool(_jumps(stmt.body, inner=True) & {RETURN})
        body = self.block(stmt.body, loop)
        if loop.skip:
            body.insert(0, _assign(loop.skip, _const(False), stmt))
        exits = [f for f in (loop.broke,) if f]
        if returns:
            exits.append(self.returned)
        if exits:
            brk = gast.If(test=_any(exits), body=[gast.Break()], orelse=[])
            body.append(gast.copy_location(brk, stmt))
        stmt.body = body
        stmt.orelse = []
        if loop.broke:
            out.append(_assign(loop.broke, _const(False), stmt))
        out.append(stmt)
        if orelse:
            orelse = self.block(orelse, outer)
            if loop.broke:
                out.append(_guard([loop.broke], orelse, stmt))
            else:
                out.extend(orelse)

    def _broke(self, loop):
        if loop.broke is None:
            loop.broke = self.namer.fresh("broke")
            self.flags.add(loop.broke)
        return loop.broke

    def _skip(self, loop):
        if loop.skip is None:
            loop.skip = self.namer.fresh("skip")
            self.flags.add(loop.skip)
        return loop.skip

    def _returned(self):
        if self.returned is None:
            self.returned = self.namer.fresh("returned")
        return self.returned


def _assigned_in(stmt):
    names = set()
    for sub in walk_nodes(stmt):
        if isinstance(sub, gast.Assign):
            names |= {t.id for t in sub.targets if isinstance(t, gast.Name)}
    return names


def _named_tests_in(node):
    """``while (n := n + 1) < 4: body`` -> ``while True: if not (n := n + 1) < 4: break;
    body``: the assignment is in the body, evaluated on every pass like any statement of it
    (a loop's header is lowered once; lower_loops refuses a ``:=`` left in a test, a ``while``
    with an ``else``, whose ``else`` the break would skip)."""
    for sub in walk_nodes(node):
        if isinstance(sub, gast.While) and not sub.orelse and any(
                isinstance(n, gast.NamedExpr) for n in walk_nodes(sub.test)):
            test = gast.UnaryOp(op=gast.Not(), operand=sub.test)
            exit_ = gast.If(test=gast.copy_location(test, sub.test),
                            body=[gast.copy_location(gast.Break(), sub)], orelse=[])
            sub.body = [gast.copy_location(exit_, sub)] + sub.body
            sub.test = gast.copy_location(_const(True), sub.test)


def _expand_aug_in(node):
    """``x += e`` as ``x = x + e`` in the blocks of ``node``, not in a nested function's: that
    is lifted and lowered as a function of its own (its ``z += e`` on a parameter changes the
    caller's array; written ``z = z + e`` here it read as a new value, sound29)."""
    for sub in _own_nodes(node):
        for field in ("body", "orelse"):
            block = getattr(sub, field, None)
            if isinstance(block, list):
                block[:] = [_expand_aug(s) for s in block]


def _own_nodes(node):
    """The nodes under ``node`` outside nested function definitions."""
    todo = [node]
    while todo:
        n = todo.pop()
        if isinstance(n, (gast.FunctionDef, gast.AsyncFunctionDef)):
            continue
        yield n
        todo.extend(gast.iter_child_nodes(n))


def _expand_aug(stmt):
    if not isinstance(stmt, gast.AugAssign):
        return stmt
    target = stmt.target
    load = _as_load(target)
    value = gast.copy_location(gast.BinOp(left=load, op=stmt.op, right=stmt.value), stmt)
    store = gast.Assign(targets=[target], value=value, type_comment=None)
    store.srcad_augmented = True  # Python may change the object in place: lower checks aliases
    return gast.copy_location(store, stmt)


def _as_load(target):
    if isinstance(target, gast.Name):
        return gast.copy_location(_name(target.id), target)
    if isinstance(target, gast.Subscript):
        node = gast.Subscript(value=target.value, slice=target.slice, ctx=gast.Load())
        return gast.copy_location(node, target)
    if isinstance(target, gast.Attribute):
        node = gast.Attribute(value=target.value, attr=target.attr, ctx=gast.Load())
        return gast.copy_location(node, target)
    return target


def _guard(flags, stmts, like):
    test = gast.UnaryOp(op=gast.Not(), operand=_any(flags))
    guard = gast.If(test=test, body=stmts, orelse=[])
    return gast.copy_location(guard, stmts[0] if stmts else like)


def _jumps(stmts, inner=False):
    """Jumps that leave ``stmts`` at this loop level (``inner``: returns in nested loops too)."""
    found = set()
    for stmt in stmts:
        if isinstance(stmt, gast.Return):
            found.add(RETURN)
        elif isinstance(stmt, gast.Break):
            found.add(BREAK)
        elif isinstance(stmt, gast.Continue):
            found.add(CONTINUE)
        elif isinstance(stmt, gast.If):
            found |= _jumps(stmt.body, inner) | _jumps(stmt.orelse, inner)
        elif isinstance(stmt, (gast.For, gast.While)):
            # the body's break and continue are its own; its else part's leave this level
            found |= (_jumps(stmt.body, True) & {RETURN}) | _jumps(stmt.orelse, inner)
    return found


def _always_returns(stmts):
    for stmt in stmts:
        if isinstance(stmt, gast.Return):
            return True
        if isinstance(stmt, gast.If) and _always_returns(stmt.body) and _always_returns(
            stmt.orelse
        ):
            return True
        if isinstance(stmt, gast.Raise):
            return True
    return False


def _simple_return(body):
    """True when the body has no jumps but a single final ``return`` (or none)."""
    jumps = [
        n for s in body for n in walk_nodes(s) if isinstance(n, (gast.Return, gast.Break,
                                                                  gast.Continue))
    ]
    if not jumps:
        return True
    return len(jumps) == 1 and isinstance(body[-1], gast.Return)


def _is_docstring(stmt):
    return (
        isinstance(stmt, gast.Expr)
        and isinstance(stmt.value, gast.Constant)
        and isinstance(stmt.value.value, str)
    )
