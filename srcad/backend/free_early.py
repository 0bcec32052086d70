"""Memory given back as the gradient goes, not all at the end: the last rewrite of a gradient's
tree in the Python backend, for code that only runs (NumPy arrays; not code srcad reads
again, nor Numba's).

Two rewrites, exact (they change no value, only when a value's memory is given back):

* **a loop's stack is emptied as the backward loop walks it**: ``for a, b in
  reversed(stack):`` becomes ``while stack:`` with ``a, b = stack.pop()`` first, where the
  stack is this function's own list (made empty here, appended tuples to, walked once, read
  nowhere else) and its entries hold an array, a list or a callee's context (``keeps``).
  Each iteration's saved values then go when the iteration is done, and the arrays the
  backward sweep makes next take their memory (recently used, in the cache), where walking
  the stack frees every entry together when the function returns: several MB of values
  the processor reads back from memory to free them. An entry of numbers only is walked as
  before (a pop costs ~50 ns an iteration, about what a number's arithmetic does);
* **a name dead at the function's top level is deleted there**: after the top-level
  statement that reads it last (with at least :data:`_FEWEST` statements left before the
  return), ``del a, b`` for each name of ``keeps`` (arrays, lists, contexts: never numbers,
  nor the output ``grad`` checked to be a scalar) assigned by an earlier top-level
  statement (so certainly bound) and read by no later statement. NumPy reuses freed memory
  for the arrays made next: a gradient's sweeps keep fewer arrays alive at once, closer to
  what the function itself does, and glibc gives less memory back to the system only to
  fault it in again at the next call (gmm's n x k x d arrays: 944 page faults a call
  before).

Names read inside a nested function, lambda or comprehension, named by ``global`` or
``nonlocal``, deleted already, or the function's parameters (the caller holds those) are
left alone. Code rewritten so is never what srcad differentiates again: a derivative of it
reads its plain form (``pipeline.adjoints._keep_plain_form``, made when first asked for).

Imports: :mod:`srcad.transform.nodes` (the comment node), :mod:`.tidy_walk`.
"""

from __future__ import annotations

import ast

from ..transform.nodes import Comment
from .tidy_walk import _nodes

_SCOPES = (ast.Lambda, ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.ListComp,
           ast.SetComp, ast.DictComp, ast.GeneratorExp)


def free_early(fdef, keeps):
    """Rewrite ``fdef`` (a gradient's function definition) in place as the module docstring
    says; ``keeps``: the names that may hold arrays, lists or contexts. Whether anything
    changed (then a derivative of this code reads its plain form instead: srcad reads a
    popped stack's items as values of unknown kind, which may share memory)."""
    keeps = set(keeps) - _left_alone(fdef) - _checked_scalars(fdef)
    popped = _pop_stacks(fdef, keeps)
    return _delete_dead(fdef, keeps) or popped


def _checked_scalars(fdef):
    """The names ``grad`` checked to be scalars (``dy = check_scalar(y, where)`` at the top
    level): a number or an array of one element, no memory worth a ``del``. (A user's own
    ``check_scalar`` is another spelling of srcad's; were it matched, a name would only go
    undeleted.)"""
    return {s.value.args[0].id for s in fdef.body if s.__class__ is ast.Assign
            and s.value.__class__ is ast.Call and s.value.func.__class__ is ast.Name
            and s.value.func.id == "check_scalar" and s.value.args
            and s.value.args[0].__class__ is ast.Name}


def _left_alone(fdef):
    names = {a.arg for a in ast.walk(fdef.args) if isinstance(a, ast.arg)}
    for node in _nodes(fdef):
        if isinstance(node, _SCOPES) and node is not fdef:
            names |= {n.id for n in _nodes(node) if isinstance(n, ast.Name)}
        elif isinstance(node, (ast.Global, ast.Nonlocal)):
            names |= set(node.names)
        elif isinstance(node, ast.Delete):
            names |= {n.id for n in _nodes(node) if isinstance(n, ast.Name)}
    return names


def _pop_stacks(fdef, keeps):
    uses, made, appended = {}, {}, {}
    for node in _nodes(fdef):
        if isinstance(node, ast.Name):
            uses[node.id] = uses.get(node.id, 0) + 1
        elif isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(
                node.targets[0], ast.Name):
            made[node.targets[0].id] = made.get(node.targets[0].id, 0) + (
                1 if isinstance(node.value, ast.List) and not node.value.elts else 2)
        elif isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and \
                node.func.attr == "append" and isinstance(node.func.value, ast.Name) and \
                len(node.args) == 1 and not node.keywords:
            appended[node.func.value.id] = appended.get(node.func.value.id, 0) + 1
    changed = False
    for block in _blocks(fdef.body):
        for k, stmt in enumerate(block):
            stack = _walked_stack(stmt)
            if stack is None or made.get(stack) != 1 or not appended.get(stack) or (
                    uses[stack] != 2 + appended[stack]):
                continue  # not only made empty once, appended to and walked once
            targets = {n.id for n in _nodes(stmt.target) if isinstance(n, ast.Name)}
            if not targets & keeps:
                continue  # numbers only: walked
            pop = ast.Assign(targets=[stmt.target], value=ast.Call(
                func=ast.Attribute(value=_load(stack), attr="pop", ctx=ast.Load()), args=[],
                keywords=[]), lineno=0)
            block[k] = ast.While(test=_load(stack), body=[pop] + stmt.body, orelse=[])
            changed = True
    return changed


def _walked_stack(stmt):
    """``s`` when ``stmt`` is ``for ... in reversed(s):`` with no ``else``."""
    if not isinstance(stmt, ast.For) or stmt.orelse:
        return None
    it = stmt.iter
    if isinstance(it, ast.Call) and isinstance(it.func, ast.Name) and it.func.id == (
            "reversed") and len(it.args) == 1 and not it.keywords and isinstance(
            it.args[0], ast.Name):
        return it.args[0].id
    return None


def _blocks(block):
    """``block`` and every statement list inside it (not inside nested functions)."""
    yield block
    for stmt in block:
        if isinstance(stmt, _SCOPES):
            continue
        for field in ("body", "orelse", "finalbody"):
            inner = getattr(stmt, field, None)
            if isinstance(inner, list) and inner and isinstance(inner[0], ast.stmt):
                yield from _blocks(inner)
        for handler in getattr(stmt, "handlers", ()):
            yield from _blocks(handler.body)


#: a name is deleted only with at least this many statements left before the return: what is
#: made after a ``del`` takes the memory it gives back; with fewer left the frame's end comes
#: soon, and the ``del`` would only make short code longer to read
_FEWEST = 3


def _delete_dead(fdef, keeps):
    body = fdef.body
    reads = [_read(stmt) for stmt in body]
    later = set()  # the names read after statement k
    last = {}  # statement index -> the names it reads last
    for k in range(len(body) - 1, -1, -1):
        dying = (reads[k] & keeps) - later
        if dying:
            last[k] = dying
        later |= reads[k]
    end = len(body)  # the statements from here on only return: the frame's end frees all
    while end and isinstance(body[end - 1], (Comment, ast.Return)):
        end -= 1
    bound = set()
    out = []
    changed = False
    for k, stmt in enumerate(body):
        out.append(stmt)
        bound |= _bound_by(stmt)
        gone = sorted(last.get(k, set()) & bound)
        left = sum(not isinstance(s, Comment) for s in body[k + 1:end])
        if gone and left >= _FEWEST and not isinstance(stmt, (ast.Return, ast.Raise)):
            out.append(ast.Delete(targets=[ast.Name(id=n, ctx=ast.Del()) for n in gone],
                                  lineno=0))
            changed = True
    body[:] = out
    return changed


def _read(stmt):
    if isinstance(stmt, Comment):
        return set()
    names = {n.id for n in _nodes(stmt) if isinstance(n, ast.Name) and not isinstance(
        n.ctx, ast.Store)}
    if isinstance(stmt, ast.AugAssign) and isinstance(stmt.target, ast.Name):
        names.add(stmt.target.id)
    return names


def _bound_by(stmt):
    """The names a top-level simple statement certainly binds."""
    if isinstance(stmt, ast.Assign):
        return {n.id for t in stmt.targets for n in _nodes(t) if isinstance(n, ast.Name)
                and isinstance(n.ctx, ast.Store) and not _starred_or_sub(t)}
    if isinstance(stmt, (ast.AugAssign, ast.AnnAssign)) and isinstance(stmt.target,
                                                                      ast.Name):
        return {stmt.target.id} if not isinstance(stmt, ast.AnnAssign) or stmt.value else set()
    return set()


def _starred_or_sub(target):
    return isinstance(target, (ast.Subscript, ast.Attribute))


def _load(name_):
    return ast.Name(id=name_, ctx=ast.Load())
