"""Tidy the generated code so it reads as a person would write it.

Rewrites on the final Python text, all exact (they never change a value), repeated until
none applies:

* **inline single-use temporaries**: ``t = 3 * a`` followed, in the same block, by the only
  read ``b = 5 - t`` becomes ``b = 5 - 3 * a`` (only names srcad invented, never the user's);
* **propagate copies**: ``dt = dg`` followed by reads of ``dt`` reads ``dg`` directly, when
  both names are assigned once and the copy is not inside a loop;
* **propagate constants**: ``dy = 1.0`` assigned once is written where it is read, then the
  arithmetic is simplified (``1.0 * e`` -> ``e``);
* **drop dead code**: values nothing reads, when computing them cannot fail or act, and an
  emptied ``if flag: pass`` whose flag another branch tests;
* **merge sums**: ``x = e1`` then ``x += e2`` becomes ``x = e1 + e2``.

Then, once: signs (``a + -b`` -> ``a - b``), float literals in gradient arithmetic, and float
literals next to certain floats in a float specialisation (:mod:`.floats`).

Comments (``# line 5: ...``) survive: they travel through the AST as marker calls.
"""

from __future__ import annotations

import ast
import collections
import re

from ..transform.templates import _is_num, _Simplify, simplify
from . import floats as float_arithmetic

_MARK = "__srcad_comment__"
_COMMENT = re.compile(r"^(\s*)# ?(.*)$")
_MARKED = re.compile(rf"^(\s*){_MARK}\((.*)\)$")


def tidy(text, temps, grads=(), floats=()):
    """``text`` (one function definition) tidied; ``temps`` are the names srcad invented,
    ``grads`` the names of gradients (a value's name never turns into a gradient's),
    ``floats`` the parameters whose argument is exactly a ``float`` (see :mod:`.floats`)."""
    lines = []
    for line in text.splitlines():
        match = _COMMENT.match(line)
        lines.append(f"{match.group(1)}{_MARK}({match.group(2)!r})" if match else line)
    tree = ast.parse("\n".join(lines))
    fdef = tree.body[0]
    temps, grads = set(temps), set(grads)
    for _ in range(50):
        for block, _ in _blocks(fdef):
            _drop_self_copies(block)
        changed = False
        for rewrite in (lambda: _propagate_copies(fdef, grads), lambda: _propagate_constants(
                fdef), lambda: _inline_temps(fdef, temps), lambda: _dead_code(fdef),
                lambda: _merge_sums(fdef), lambda: _idle_branches(fdef)):
            changed |= rewrite()  # each rewrite counts names afresh: the others changed them
        if not changed:
            break
    simplify(fdef)
    _Signs().visit(tree)
    _float_literals(fdef, grads)
    float_arithmetic.specialise(fdef, floats)
    _while_tests(fdef)
    _fill_empty(fdef)
    out = []
    for line in ast.unparse(tree).splitlines():
        match = _MARKED.match(line)
        if match:
            line = f"{match.group(1)}# {ast.literal_eval(match.group(2))}"
        out.append(_bare_return(line))
    return "\n".join(_drop_empty_comments(out)) + "\n"


def _bare_return(line):
    """``return (a, (b, c))`` -> ``return a, (b, c)``: the way people write it."""
    stripped = line.strip()
    if not (stripped.startswith("return (") and stripped.endswith(")")):
        return line
    candidate = "return " + stripped[len("return ("):-1]
    try:
        same = ast.dump(ast.parse(candidate)) == ast.dump(ast.parse(stripped))
    except SyntaxError:
        return line
    return line[: len(line) - len(stripped)] + candidate if same else line


def _drop_empty_comments(lines):
    """A ``# line N`` comment whose code was all tidied away goes too."""
    kept = []
    for i, line in enumerate(lines):
        stripped = line.strip()
        if stripped.startswith("# line "):
            nxt = next((later for later in lines[i + 1:] if later.strip()), "")
            indent = len(line) - len(line.lstrip())
            nxt_indent = len(nxt) - len(nxt.lstrip())
            if nxt.strip().startswith("# line ") and nxt_indent == indent or nxt_indent < indent:
                continue
        kept.append(line)
    return kept


def _while_tests(fdef):
    """``while True:`` opening with ``if not c: break`` is ``while c:``."""
    for node in _walk(fdef):
        if not (isinstance(node, ast.While) and isinstance(node.test, ast.Constant)
                and node.test.value is True and node.body and not node.orelse):
            continue
        first = node.body[0]
        if (isinstance(first, ast.If) and not first.orelse and len(first.body) == 1
                and isinstance(first.body[0], ast.Break)):
            test = first.test
            node.test = (test.operand if isinstance(test, ast.UnaryOp)
                         and isinstance(test.op, ast.Not) else ast.UnaryOp(op=ast.Not(),
                                                                             operand=test))
            node.body = node.body[1:] or [ast.Pass()]


def _is_marker(stmt):
    return (isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Call)
            and isinstance(stmt.value.func, ast.Name) and stmt.value.func.id == _MARK)


def _idle(block):
    return all(isinstance(s, ast.Pass) or _is_marker(s) for s in block)


def _idle_branches(fdef):
    """``if flag: pass`` (both arms emptied by the other rewrites) goes when another branch
    tests the same name (the backward sweep's ``if flag:``), so an ambiguous truth value
    (an array) still raises where the user's function would; or when it tests a literal.
    The flag's own assignment may then go too."""
    branches = [s for block, _ in _blocks(fdef) for s in block if isinstance(s, (ast.If,
                                                                                  ast.While))]
    idle = [s for s in branches if isinstance(s, ast.If) and _idle(s.body) and _idle(s.orelse)]
    if not idle:
        return False
    tested = collections.Counter(s.test.id for s in branches
                                 if isinstance(s.test, ast.Name) and s not in idle)
    changed = False
    for block, _ in list(_blocks(fdef)):
        kept = [s for s in block if not (s in idle and (
            isinstance(s.test, ast.Constant)
            or isinstance(s.test, ast.Name) and tested[s.test.id]))]
        if len(kept) != len(block):
            block[:] = kept or [ast.Pass()]
            changed = True
    return changed


def _fill_empty(node):
    """A block emptied by the rewrites gets ``pass``; a loop left doing nothing goes."""
    for sub in _walk(node):
        for field in ("body", "orelse"):
            block = getattr(sub, field, None)
            if not isinstance(block, list) or isinstance(sub, ast.Module):
                continue
            block[:] = [s for s in block if not (
                isinstance(s, ast.For) and _idle(s.body) and not s.orelse
                and isinstance(s.iter, ast.Call))]
            if field == "body" and _idle(block):
                block[:] = [ast.Pass()]
            elif field == "orelse" and block and _idle(block):
                block[:] = []


class _Signs(ast.NodeTransformer):
    """``a + -b`` -> ``a - b``, ``a - -b`` -> ``a + b``, and ``-(x * y)`` -> ``-x * y``."""

    def visit_UnaryOp(self, node):
        self.generic_visit(node)
        inner = node.operand
        if isinstance(node.op, ast.USub) and isinstance(inner, ast.BinOp) and isinstance(
            inner.op, ast.Mult
        ):
            # -(g * 3), -(3 * g) -> -3 * g: Python folds the negative literal, one operation fewer
            literal, other = ((inner.left, inner.right) if _is_num(inner.left)
                              else (inner.right, inner.left))
            if _is_num(literal):
                return ast.BinOp(left=ast.Constant(value=-literal.value), op=ast.Mult(),
                                 right=other)
        if isinstance(node.op, ast.USub) and isinstance(inner, ast.BinOp) and isinstance(
            inner.op, (ast.Mult, ast.Div)
        ) and isinstance(inner.left, ast.Name):
            left = ast.UnaryOp(op=ast.USub(), operand=inner.left)
            return ast.BinOp(left=left, op=inner.op, right=inner.right)
        return node

    def visit_BinOp(self, node):
        self.generic_visit(node)
        right = node.right
        if isinstance(node.op, (ast.Add, ast.Sub)) and isinstance(right, ast.UnaryOp) and (
            isinstance(right.op, ast.USub)
        ):
            op = ast.Sub() if isinstance(node.op, ast.Add) else ast.Add()
            return ast.BinOp(left=node.left, op=op, right=right.operand)
        return node


def _float_literals(fdef, grads):
    """``dx = -3 * dy`` -> ``dx = -3.0 * dy``: a gradient is a float, and float times float
    is the operation Python does fastest (int times float takes the generic path). Only
    the factors and divisors of a gradient's own arithmetic change, never an index."""
    for node in _walk(fdef):
        if isinstance(node, ast.Assign) and len(node.targets) == 1:
            target = node.targets[0]
        elif isinstance(node, ast.AugAssign):
            target = node.target
        else:
            continue
        if isinstance(target, ast.Name) and target.id in grads:
            _float_spine(node.value)


def _float_spine(node):
    if isinstance(node, ast.UnaryOp):
        _float_spine(node.operand)
    elif isinstance(node, ast.BinOp) and isinstance(node.op, (ast.Add, ast.Sub, ast.Mult,
                                                               ast.Div)):
        for side in ("left", "right"):
            operand = getattr(node, side)
            if isinstance(node.op, (ast.Mult, ast.Div)) and _is_small_int(operand):
                setattr(node, side, ast.Constant(value=float(operand.value)))
            else:
                _float_spine(operand)


def _is_small_int(node):
    return isinstance(node, ast.Constant) and type(node.value) is int and abs(
        node.value) < 2**53


# ---------------------------------------------------------------- counting


def _stores(node):
    if isinstance(node, ast.FunctionDef):
        return _count_names(node)[0]
    names = {}
    for sub in _walk(node):
        if isinstance(sub, ast.Name) and isinstance(sub.ctx, ast.Store):
            names[sub.id] = names.get(sub.id, 0) + 1
        elif isinstance(sub, ast.AugAssign) and isinstance(sub.target, ast.Name):
            names[sub.target.id] = names.get(sub.target.id, 0) + 1
        elif isinstance(sub, ast.arg):
            names[sub.arg] = names.get(sub.arg, 0) + 1
    return names


def _loads(node):
    if isinstance(node, ast.FunctionDef):
        return _count_names(node)[1]
    names = {}
    for sub in _walk(node):
        if isinstance(sub, ast.Name) and isinstance(sub.ctx, ast.Load):
            names[sub.id] = names.get(sub.id, 0) + 1
        elif isinstance(sub, ast.AugAssign) and isinstance(sub.target, ast.Name):
            names[sub.target.id] = names.get(sub.target.id, 0) + 1
    return names


#: the fields of each node class worth walking into: a ``ctx`` (Load/Store) or an operator
#: (Add, Lt) never holds a name, and skipping them halves the nodes every walk visits
_FIELDS = {}


def _fields(cls):
    fields = _FIELDS.get(cls)
    if fields is None:
        fields = _FIELDS[cls] = tuple(f for f in cls._fields if f not in ("ctx", "op", "ops"))
    return fields


def _walk(node):
    """``ast.walk``, same order, without its per-node generators and without the ``ctx`` and
    operator nodes (tidy walks a lot)."""
    todo = collections.deque([node])
    AST = ast.AST
    fields = _FIELDS
    while todo:
        node = todo.popleft()
        names = fields.get(node.__class__) or _fields(node.__class__)
        for name in names:
            child = getattr(node, name, None)
            if isinstance(child, AST):
                todo.append(child)
            elif child.__class__ is list:
                todo.extend([c for c in child if isinstance(c, AST)])
        yield node


def _count_names(fdef):
    """Stores and loads of every name of a function, in one walk."""
    stores, loads = {}, {}
    for sub in _walk(fdef):
        if isinstance(sub, ast.Name):
            table = stores if isinstance(sub.ctx, ast.Store) else loads
            table[sub.id] = table.get(sub.id, 0) + 1
        elif isinstance(sub, ast.AugAssign) and isinstance(sub.target, ast.Name):
            stores[sub.target.id] = stores.get(sub.target.id, 0) + 1
            loads[sub.target.id] = loads.get(sub.target.id, 0) + 1
        elif isinstance(sub, ast.arg):
            stores[sub.arg] = stores.get(sub.arg, 0) + 1
    return stores, loads


def _blocks(node, in_loop=False):
    """Every statement list, with whether it lies inside a loop."""
    for field in ("body", "orelse"):
        block = getattr(node, field, None)
        if isinstance(block, list) and block and isinstance(block[0], ast.stmt):
            inner = in_loop or isinstance(node, (ast.For, ast.While))
            if isinstance(node, ast.FunctionDef):
                inner = False
            yield block, inner
            for stmt in block:
                yield from _blocks(stmt, inner)


def _rename(node, old, new):
    for sub in _walk(node):
        if isinstance(sub, ast.Name) and sub.id == old:
            sub.id = new


# ---------------------------------------------------------------- copies


def _propagate_copies(fdef, grads):
    stores, loads = _count_names(fdef)
    params = {a.arg for a in fdef.args.args + fdef.args.kwonlyargs}
    returned = {n for stmt in fdef.body if isinstance(stmt, ast.Return) for n in _loads(stmt)}
    touched = set()  # names changed in this sweep: their counts are stale until the next
    renames = {}  # applied in one walk at the end (a walk per copy made this pass quadratic)
    cache = {}  # id(statement) -> (stores, loads), for the statements scanned in this sweep
    changed = False
    for block, in_loop in list(_blocks(fdef)):
        i = 0
        while i < len(block):
            stmt = block[i]
            i += 1
            if not _is_copy(stmt):
                continue
            a, b = stmt.targets[0].id, stmt.value.id
            if a == b or a in params or a in touched or b in touched:
                continue
            mixed = (a in grads) != (b in grads)  # dw = a: keep the value's name and the copy
            if not mixed and _coalesce(fdef, block, i - 1, a, b, stores, loads, params):
                touched |= {a, b}
                changed = True
                i -= 1
                continue
            if mixed and a in returned:
                continue
            if stores.get(a, 0) != 1 or a in returned:
                continue
            if (in_loop or stores.get(b, 0) > 1) and not _local_uses(block, i - 1, a, b,
                                                                      loads, cache):
                continue
            del block[i - 1]
            i -= 1
            if loads.get(b, 0) == 1 and b not in params and not mixed:
                renames[b] = a  # b was only copied: its definition becomes a's
            else:
                renames[a] = b
            touched |= {a, b}
            changed = True
    if renames:
        for node in _walk(fdef):
            if isinstance(node, ast.Name) and node.id in renames:
                node.id = renames[node.id]
        for block, _ in _blocks(fdef):
            _drop_self_copies(block)
    return changed


def _drop_self_copies(block):
    kept = [s for s in block if not (_is_copy(s) and s.targets[0].id == s.value.id)]
    if len(kept) != len(block):
        block[:] = kept or [ast.Pass()]


def _is_copy(stmt):
    return (isinstance(stmt, ast.Assign) and len(stmt.targets) == 1
            and isinstance(stmt.targets[0], ast.Name) and isinstance(stmt.value, ast.Name))


def _coalesce(fdef, block, i, a, b, stores, loads, params):
    """``b = e; ...; a = b`` with ``b`` read only there: write ``a = e`` in place of ``b``."""
    if b in params or stores.get(b, 0) != 1 or loads.get(b, 0) != 1:
        return False
    for j in range(i - 1, -1, -1):
        stmt = block[j]
        if isinstance(stmt, ast.Assign) and len(stmt.targets) == 1 and isinstance(
            stmt.targets[0], ast.Name
        ) and stmt.targets[0].id == b:
            if a in _loads(stmt.value):
                # ``a = f(a)`` is fine: the old ``a`` is read before the new one is written
                pass
            del block[i]
            stmt.targets[0].id = a
            return True
        if a in _loads(stmt) or a in _stores(stmt):
            return False
    return False


def _local_uses(block, i, a, b, loads, cache=None):
    """In a loop: every read of ``a`` follows the copy in this block, ``b`` unchanged till then
    (a copy back, ``b = a``, leaves ``b`` equal to ``a``: it becomes ``b = b`` and goes)."""
    cache = {} if cache is None else cache
    seen = 0
    for stmt in block[i + 1:]:
        key = id(stmt)
        if key not in cache:
            cache[key] = (_stores(stmt), _loads(stmt))
        stmt_stores, stmt_loads = cache[key]
        if b in stmt_stores and not (_is_copy(stmt) and stmt.value.id == a
                                     and stmt.targets[0].id == b):
            if _assigns_only(stmt, b):
                # ``b = f(a)``: the right side is read before b changes, so a may be b there
                seen += _loads(stmt.value).get(a, 0)
                return seen == loads.get(a, 0)
            return seen == loads.get(a, 0) and a not in stmt_loads
        seen += stmt_loads.get(a, 0)
    return seen == loads.get(a, 0)


def _assigns_only(stmt, name):
    return (isinstance(stmt, ast.Assign) and len(stmt.targets) == 1
            and isinstance(stmt.targets[0], ast.Name) and stmt.targets[0].id == name)


# ---------------------------------------------------------------- constants, dead code


def _is_number(node):
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
        node = node.operand
    return isinstance(node, ast.Constant) and type(node.value) in (int, float)


def _propagate_constants(fdef):
    """``dy = 1.0`` assigned once: write ``1.0`` where ``dy`` is read, then simplify the
    statements that changed."""
    if not any(_assigns_number(stmt) for block, _ in _blocks(fdef) for stmt in block):
        return False  # the common case after the first sweep: nothing to do, no walk
    stores, loads = {}, {}
    kept = set()  # 1.0[0], 1.0.shape or ``dy += ...`` would not work: keep those names
    for node in _walk(fdef):
        cls = node.__class__
        if cls is ast.Name:
            table = stores if node.ctx.__class__ is ast.Store else loads
            table[node.id] = table.get(node.id, 0) + 1
        elif cls is ast.arg:
            stores[node.arg] = stores.get(node.arg, 0) + 1
        elif cls is ast.AugAssign and node.target.__class__ is ast.Name:
            kept.add(node.target.id)
        elif cls in (ast.Subscript, ast.Attribute) and node.value.__class__ is ast.Name:
            kept.add(node.value.id)
        elif cls is ast.Call and node.func.__class__ is ast.Name:
            kept.add(node.func.id)
    values = {}
    for block, _ in _blocks(fdef):  # a literal assigned once is the same in every iteration
        left = []
        for stmt in block:
            if _assigns_number(stmt):
                name = stmt.targets[0].id
                if stores.get(name, 0) == 1 and loads.get(name) and name not in kept:
                    values[name] = stmt.value
                    continue
            left.append(stmt)
        if len(left) != len(block):
            block[:] = left or [ast.Pass()]
    if not values:
        return False
    for block, _ in _blocks(fdef):
        for k, stmt in enumerate(block):
            if isinstance(stmt, (ast.If, ast.While)):
                if _substitute(stmt.test, values):
                    stmt.test = _Simplify().visit(stmt.test)
            elif isinstance(stmt, ast.For):
                if _substitute(stmt.iter, values):
                    stmt.iter = _Simplify().visit(stmt.iter)
            elif _substitute(stmt, values):  # a simple statement (or, rarely, one of its own)
                block[k] = _Simplify().visit(stmt)
    return True


def _assigns_number(stmt):
    return (stmt.__class__ is ast.Assign and len(stmt.targets) == 1
            and stmt.targets[0].__class__ is ast.Name and _is_number(stmt.value))


def _substitute(part, values):
    """Write the literal ``values[name]`` for every read of ``name`` below ``part``;
    whether anything changed."""
    changed = False
    for node in _walk(part):
        for name in _fields(node.__class__):
            child = getattr(node, name, None)
            if child.__class__ is ast.Name and child.id in values:
                setattr(node, name, _literal(values[child.id]))
                changed = True
            elif child.__class__ is list:
                for k, item in enumerate(child):
                    if item.__class__ is ast.Name and item.id in values:
                        child[k] = _literal(values[item.id])
                        changed = True
    return changed


def _literal(node):
    """A fresh copy of a number node (``1.0`` or ``-(2.0)``)."""
    if isinstance(node, ast.UnaryOp):
        return ast.UnaryOp(op=ast.USub(), operand=ast.Constant(value=node.operand.value))
    return ast.Constant(value=node.value)


#: operations that cannot raise on floats, so an unused result may go unevaluated
_SAFE_BINOPS = (ast.Add, ast.Sub, ast.Mult, ast.Pow)
_PURE_HELPERS = {"unbroadcast", "broadcast_as", "zeros_like", "add", "fill", "total",
                 "expand", "scatter", "cleared", "like", "sign"}


def _pure_call(call, libraries):
    """A call of ``np.f``/``math.f`` (those of ``libraries``) or of a pure srcad helper."""
    func = call.func
    library = (isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name)
               and func.value.id in libraries)
    return library or isinstance(func, ast.Name) and func.id in _PURE_HELPERS


def _safe(node):
    for sub in _walk(node):
        if isinstance(sub, ast.BinOp) and not isinstance(sub.op, _SAFE_BINOPS):
            return False
        if isinstance(sub, ast.BinOp) and isinstance(sub.op, ast.Pow) and not _is_number(
            sub.right
        ):
            return False
        if isinstance(sub, ast.Call) and not _pure_call(sub, ("np",)):  # math.log(0) fails
            return False
        if isinstance(sub, (ast.Subscript, ast.Await, ast.Yield, ast.NamedExpr)):
            return False
    return True


def _dead_code(fdef):
    """Drop assignments nothing reads whose evaluation cannot fail or act (the forward values
    only the discarded output needed, in a function that returns gradients only)."""
    loads = _loads(fdef)
    dead = _self_updates_only(fdef, loads)
    for block, _ in _blocks(fdef):  # all of a name's assignments go, or none
        for stmt in block:
            if _assigns_only_name(stmt) and stmt.targets[0].id in dead and not _safe(
                stmt.value
            ):
                dead.discard(stmt.targets[0].id)
            elif not _assigns_only_name(stmt) and not isinstance(stmt, ast.Expr):
                dead -= set(_stores(stmt) if not isinstance(stmt, (ast.If, ast.For,
                                                                    ast.While)) else ())
    loads = dict(loads)  # counted down below as statements go
    changed, dropped = False, True
    while dropped:  # a dropped statement's reads may leave another value unread: go again
        dropped = False
        for block, _ in list(_blocks(fdef)):
            kept = []
            for stmt in block:
                if (_assigns_only_name(stmt) and (not loads.get(stmt.targets[0].id)
                                                  or stmt.targets[0].id in dead)
                        and _safe(stmt.value)):
                    for name, n in _loads(stmt.value).items():
                        loads[name] -= n
                    dropped = True
                else:
                    kept.append(stmt)
            if len(kept) != len(block):
                block[:] = kept or [ast.Pass()]
        changed |= dropped
    return changed


def _merge_sums(fdef):
    """``x = e1`` then ``x += e2`` (``e2`` not reading ``x``): one statement, ``x = e1 + e2``."""
    changed = False
    for block, _ in list(_blocks(fdef)):
        i = 0
        while i + 1 < len(block):
            first = block[i]
            j = i + 1
            while j < len(block) and _is_marker(block[j]):  # comments between do not count
                j += 1
            second = block[j] if j < len(block) else None
            if (isinstance(first, ast.Assign) and len(first.targets) == 1
                    and isinstance(first.targets[0], ast.Name)
                    and isinstance(second, ast.AugAssign) and isinstance(second.op, ast.Add)
                    and isinstance(second.target, ast.Name)
                    and second.target.id == first.targets[0].id
                    and first.targets[0].id not in _loads(second.value)):
                first.value = ast.BinOp(left=first.value, op=ast.Add(), right=second.value)
                del block[j]
                changed = True
                continue
            i += 1
    return changed


def _self_updates_only(fdef, loads):
    """Names read only to compute themselves (``total = total + t``, nothing else reads
    ``total``): every assignment of them is dead."""
    readers = {}
    for block, _ in _blocks(fdef):
        for stmt in block:
            if isinstance(stmt, (ast.If, ast.For, ast.While)):
                for name in _loads(_header(stmt)):
                    readers.setdefault(name, set()).add(None)
                continue
            target = stmt.targets[0].id if _assigns_only_name(stmt) else None
            for name in _loads(stmt.value if target else stmt):
                readers.setdefault(name, set()).add(target)
    return {name for name, targets in readers.items() if targets == {name}}


def _assigns_only_name(stmt):
    return (isinstance(stmt, ast.Assign) and len(stmt.targets) == 1
            and isinstance(stmt.targets[0], ast.Name))


# ---------------------------------------------------------------- temporaries


def _inline_temps(fdef, temps):
    stores, loads = _count_names(fdef)
    changed = False
    for block, _ in list(_blocks(fdef)):
        done = set()  # statements changed in this sweep: looked at again in the next
        i = 0
        while i < len(block):
            stmt = block[i]
            i += 1
            if id(stmt) in done or not (isinstance(stmt, ast.Assign) and len(stmt.targets) == 1
                                        and isinstance(stmt.targets[0], ast.Name)):
                continue
            name = stmt.targets[0].id
            if name not in temps or stores.get(name) != 1 or loads.get(name) != 1:
                continue
            reads = set(_loads(stmt.value))
            # a value that can act (``dL.pop()``) or fail moves only into the next statement,
            # and never where it might not be evaluated (a branch of ``a if c else b``)
            acts = _acts(stmt.value)
            for j in range(i, len(block)):
                later = block[j]
                if id(later) in done or acts and j > i:
                    break
                if name in _loads(_header(later)):
                    if acts and _conditional_use(_header(later), name):
                        break
                    if _replace_once(_header(later), name, stmt.value):
                        done.add(id(later))
                        del block[i - 1]
                        i -= 1
                        changed = True
                    break
                if name in _loads(later) or set(_stores(later)) & (reads | {name}):
                    break
    return changed


def _acts(node):
    """Can evaluating ``node`` change something (``dL.pop()``, a call srcad does not know to be
    pure)? Arithmetic and subscripts may fail but change nothing."""
    for sub in _walk(node):
        if isinstance(sub, ast.Call) and not _pure_call(sub, ("np", "math")):
            return True
        if isinstance(sub, (ast.Await, ast.Yield, ast.NamedExpr)):
            return True
    return False


def _conditional_use(node, name):
    """Is ``name`` read somewhere in ``node`` that is evaluated only on some paths?"""
    for sub in _walk(node):
        if isinstance(sub, ast.IfExp):
            parts = [sub.body, sub.orelse]
        elif isinstance(sub, ast.BoolOp):
            parts = sub.values[1:]
        elif isinstance(sub, (ast.Lambda, ast.ListComp, ast.SetComp, ast.DictComp,
                              ast.GeneratorExp)):
            parts = [sub]
        else:
            continue
        if any(name in _loads(part) for part in parts):
            return True
    return False


def _header(stmt):
    """The part of a statement evaluated before any nested block: where a value may go."""
    if isinstance(stmt, (ast.If, ast.While)):
        return stmt.test
    if isinstance(stmt, ast.For):
        return stmt.iter
    if isinstance(stmt, (ast.Assign, ast.AugAssign, ast.Expr, ast.Return)):
        return stmt
    return ast.Pass()


def _replace_once(node, name, value):
    for parent in _walk(node):
        for field, child in ast.iter_fields(parent):
            if isinstance(child, ast.Name) and child.id == name and isinstance(child.ctx,
                                                                                ast.Load):
                setattr(parent, field, value)
                return True
            if isinstance(child, list):
                for k, item in enumerate(child):
                    if isinstance(item, ast.Name) and item.id == name and isinstance(
                        item.ctx, ast.Load
                    ):
                        child[k] = value
                        return True
    return False
