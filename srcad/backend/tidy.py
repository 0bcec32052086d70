"""Tidy the generated code so it reads as a person would write it.

Rewrites of the function's tree, all exact (they never change a value), repeated until
none applies (each says whether it changed the tree, and changes nothing where it says not: so
a round stops once the rewrite that last changed the tree has run again without a change, the
ones after it having seen that very tree the round before; and the names a rewrite that
changed nothing counted are the next one's, :class:`.tidy_walk.KeptCounts`):

* **inline single-use temporaries**: ``t = 3 * a`` followed, in the same block, by the only
  read ``b = 5 - t`` becomes ``b = 5 - 3 * a`` (only names srcad invented, never the user's);
* **propagate copies**: ``dt = dg`` followed by reads of ``dt`` reads ``dg`` directly, when
  both names are assigned once and the copy is not inside a loop; a copy back (``a = b``,
  then ``b = a`` with neither rebound between, also in the arms of an ``if``) goes;
* **propagate constants**: ``dy = 1.0`` assigned once is written where it is read, then the
  arithmetic is simplified (``1.0 * e`` -> ``e``);
* **drop dead code**: values nothing reads, when computing them cannot fail or act, names
  read only by one another's assignments (:mod:`.tidy_dead`), and an emptied ``if flag:
  pass`` whose flag another branch tests;
* **merge sums**: ``x = e1`` then ``x += e2`` becomes ``x = e1 + e2``, and ``x = e1`` then
  ``x = x - e2`` becomes ``x = e1 - e2`` (NumPy then reuses the temporary ``e1``); ``x =
  1.0 / n`` then ``x = np.full(s, x)`` is ``x = np.full(s, 1.0 / n)``;
* **shared reads**: ``t = x[0]`` then ``t_3 = x[0]``, ``x`` unchanged between, is ``t``,
  read once and saved once; so is a copy ``a = b`` of a name bound once (:mod:`.tidy_reads`);
* **flags**: ``if c: v = True else: v = False``, ``v`` read only for its truth, is
  ``v = c`` (:mod:`.tidy_flags`); ``t = not v`` then ``if t:`` is ``if not v:``, and two
  ``if``s in a row on one flag are one (:mod:`.tidy_nots`);
* **sizes**: an inner loop's ``len_2 = len(x)`` is taken once, before the outer loop whose
  header takes ``len(x)``, and a name bound once at the top level is not saved per
  iteration; a top-level loop saving only its index walks back ``reversed(range(n))``
  (:mod:`.tidy_sizes`);
* **unread saves**: a value a loop saves that its backward loop never reads leaves the stack
  (:mod:`.tidy_stacks`); ``if t: a else: a`` (the same code in both arms) is ``a``.

Then, once: a second copy of an array nobody else holds goes (``a = x.copy(); a[0] = t;
b = a.copy(); b[1:] = u`` writes ``b`` in place: :func:`.tidy_copies.fresh_copies`); signs
(``unbroadcast(-g, x)`` -> ``-unbroadcast(g, x)``, ``a + -b`` -> ``a - b``, ``x += -b`` ->
``x -= b``, ``x += -b * c`` -> ``x -= b * c``), float literals in gradient
arithmetic, and float literals next to certain floats in a float specialisation
(:mod:`.floats`).

Comments are statements of their own (:class:`srcad.transform.nodes.Comment`); a ``# line N``
comment whose code was all tidied away goes too. Everything here rewrites the tree; the text
is made later, once, by :mod:`.emit`.

Imports: :mod:`srcad.transform` (the simplifier, the comment node), :mod:`.floats` and the
other ``tidy_`` modules.
"""

from __future__ import annotations

import ast
import collections

from ..core.walk import walk_nodes
from ..transform.nodes import Comment
from ..transform.templates import _is_num
from . import floats as float_arithmetic
from .tidy_copies import (
    _drop_copy_backs,
    _drop_self_copies,
    _merge_arms,
    _propagate_copies,
    fresh_copies,
)
from .tidy_dead import _dead_code
from .tidy_flags import flag_copies
from .tidy_nots import negated_flags
from .tidy_reads import shared_reads
from .tidy_sizes import sizes_once
from .tidy_stacks import _drop_unread_saves
from .tidy_unpack import tuple_lengths, unpack_results
from .tidy_values import (
    _inline_temps,
    _merge_sums,
    _propagate_constants,
    copy_aliases,
    simplify_keeping_new,
)
from .tidy_walk import KeptCounts, _blocks, _walk, same_tree


def tidy(fdef, temps, grads=(), floats=(), sums=(), ints=(), arrays=(), makers=()):
    """``fdef`` (one function definition's tree) tidied in place and returned; ``temps`` are
    the names srcad invented, ``grads`` the names of gradients (a value's name never turns
    into a gradient's), ``floats`` the parameters whose argument is exactly a ``float`` (see
    :mod:`.floats`), ``sums`` the spellings of ``unbroadcast``, ``unbroadcast_to`` and ``total``
    here (a user's name may take one), ``ints`` the parameters given an ``int`` or ``bool``
    (numbers, never changed in place: returned as they are, no copy), ``arrays`` what the
    analysis knows of the values' names, numbers, arrays and their shapes' classes
    (:class:`srcad.analysis.raise_facts.Facts`; what may raise: :mod:`.tidy_dead`),
    ``makers`` the spellings of helpers that return a new array (:func:`.fresh_copies`)."""
    temps, grads = set(temps), set(grads)
    rewrites = (lambda: _drop_copy_backs(fdef), lambda: _merge_arms(fdef, grads),
                lambda: _propagate_copies(fdef, grads), lambda: _propagate_constants(fdef),
                lambda: _inline_temps(fdef, temps), lambda: _dead_code(fdef, arrays),
                lambda: _merge_sums(fdef), lambda: _idle_branches(fdef),
                lambda: _drop_unread_saves(fdef), lambda: flag_copies(fdef),
                lambda: shared_reads(fdef, temps), lambda: negated_flags(fdef, temps),
                lambda: sizes_once(fdef))
    kept = fdef._tidy_counts = KeptCounts()  # names counted by a rewrite changing nothing
    try:
        _rounds(fdef, rewrites, kept)
    finally:
        del fdef._tidy_counts
    fresh_copies(fdef, makers)  # b = a.copy() of an a nobody else holds: b is a
    simplify_keeping_new(fdef)
    _merge_sums(fdef)  # dx = v (a product simplified), dx += g: dx = v + g, a new array
    copy_aliases(fdef, (float_arithmetic._float_names(fdef, floats) if floats else set()) | set(
        ints), arrays)
    if sums:
        fdef = _NegateAfterSum(set(sums)).visit(fdef)
    fdef = _Signs().visit(fdef)
    _float_literals(fdef, grads)
    float_arithmetic.specialise(fdef, floats)
    _while_tests(fdef)
    _fill_empty(fdef)
    _drop_empty_comments(fdef)
    unpack_results(fdef, temps, tuple_lengths(arrays))  # (r, a_1), g_ctx = g_fwd(a, x)
    return fdef


#: the rewrites (by place in :func:`tidy`'s list) whose first count of names comes before
#: they change anything: given the counts kept from the rewrites before (:class:`KeptCounts`)
_COUNT_FIRST = frozenset({1, 2, 4, 5, 9, 10})


def _rounds(fdef, rewrites, kept):
    """Run ``rewrites`` until a round changes nothing (see the module docstring)."""
    last = None  # the last rewrite that changed the tree, in the round before
    for _ in range(50):
        dropped = False
        for block, _ in _blocks(fdef):
            dropped |= _drop_self_copies(block)
        if dropped:
            kept.end(True)
        changed = None
        for k, rewrite in enumerate(rewrites):
            kept.start(k in _COUNT_FIRST)
            done = rewrite()
            kept.end(done)
            if done:
                changed = k
            elif changed is None and k == last and not dropped:
                break  # the rest saw this very tree, and changed nothing, the round before
        if changed is None:
            break
        last = changed


def _drop_empty_comments(node):
    """A ``# line N`` comment whose code was all tidied away goes too: one last in its block,
    or followed by another such comment or by the ``return`` of the gradients (srcad's own
    statement, the code of no line: ``# line 5: a = x + w`` then ``return dx`` names a line
    that left nothing to read)."""
    for sub in _walk(node):
        for field in ("body", "orelse"):
            block = getattr(sub, field, None)
            if not isinstance(block, list) or not block:
                continue
            kept = [s for k, s in enumerate(block) if not (
                _line_comment(s) and (k + 1 == len(block) or _line_comment(block[k + 1])
                                      or block[k + 1].__class__ is ast.Return))]
            if len(kept) != len(block):
                block[:] = kept


def _line_comment(stmt):
    return stmt.__class__ is Comment and stmt.line is not None


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


def _idle(block):
    return all(isinstance(s, (ast.Pass, Comment)) for s in block)


def _idle_branches(fdef):
    """``if flag: pass`` (both arms emptied by the other rewrites) goes when another branch
    tests the same name (the backward sweep's ``if flag:`` or ``if not flag:``), so an
    ambiguous truth value (an array) still raises where the user's function would; or when
    it tests a literal.
    The flag's own assignment may then go too."""
    branches = [s for block, _ in _blocks(fdef) for s in block if isinstance(s, (ast.If,
                                                                                  ast.While))]
    idle = [s for s in branches if isinstance(s, ast.If) and (
        _idle(s.body) and _idle(s.orelse) or _same_arms(s))]
    if not idle:
        return False
    tested = collections.Counter(_tested_name(s.test) for s in branches if s not in idle)
    tested.update(_bool_flags(fdef))  # srcad's own flags (nz_dx = True): never ambiguous
    changed = False
    for block, _ in list(_blocks(fdef)):
        kept = []
        for s in block:
            if s in idle and (isinstance(s.test, ast.Constant)
                              or isinstance(s.test, ast.Name) and tested[s.test.id]):
                kept += [] if _idle(s.body) else [b for b in s.body
                                                   if not isinstance(b, Comment)]
            else:
                kept.append(s)
        if len(kept) != len(block) or any(a is not b for a, b in zip(kept, block)):
            block[:] = kept or [ast.Pass()]
            changed = True
    return changed


def _tested_name(test):
    """The name whose truth ``test`` takes: ``if t:`` and ``if not t:`` (both raise on an
    ambiguous truth), else ``None``."""
    if isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not):
        test = test.operand
    return test.id if isinstance(test, ast.Name) else None


def _bool_flags(fdef):
    """The names only ever assigned ``True``, ``False`` or another such name (the sweep's
    ``nz_`` flags and their copies, ``nz_dt_1 = nz_dbest_2``: by induction over the run,
    each holds a bool)."""
    values = collections.defaultdict(list)
    for node in walk_nodes(fdef):
        if isinstance(node, ast.Assign):
            for target in node.targets:
                for name in walk_nodes(target):
                    if isinstance(name, ast.Name):
                        values[name.id].append(node.value if target is name else None)
        elif isinstance(node, (ast.AugAssign, ast.AnnAssign, ast.For, ast.NamedExpr)):
            for name in walk_nodes(node.target):
                if isinstance(name, ast.Name):
                    values[name.id].append(None)
    for arg in fdef.args.args + fdef.args.kwonlyargs:
        values[arg.arg].append(None)
    flags = {name for name, vs in values.items() if all(
        isinstance(v, ast.Constant) and type(v.value) is bool or isinstance(v, ast.Name)
        for v in vs)}
    while True:  # the largest set closed under copying: a copy of anything else goes
        kept = {name for name in flags if all(
            not isinstance(v, ast.Name) or v.id in flags for v in values[name])}
        if kept == flags:
            return flags
        flags = kept


def _same_arms(node):
    """Whether both arms of ``if`` do the same (``if t: dv_1 = dv else: dv_1 = dv``, the
    backward sweep of a branch that changes nothing the gradient reads): comments aside."""
    def code(block):
        return [b for b in block if b.__class__ is not Comment]
    return bool(node.orelse) and same_tree(code(node.body), code(node.orelse))


def _fill_empty(node):
    """A block emptied by the rewrites gets ``pass``; a loop left doing nothing goes; an
    ``if`` with only its ``else`` left tests the negation."""
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
        if isinstance(sub, ast.If) and sub.orelse and _idle(sub.body):
            # ``if t: pass else: B`` reads as ``if not t: B``
            sub.test = ast.UnaryOp(op=ast.Not(), operand=sub.test)
            sub.body, sub.orelse = sub.orelse, []


class _NegateAfterSum(ast.NodeTransformer):
    """``unbroadcast(-g, x)`` -> ``-unbroadcast(g, x)`` (also ``unbroadcast_to``, and
    ``total``, a gradient summed down to a number): the sum over the broadcast axes first,
    then the sign on the smaller result. The same numbers: rounding
    to nearest is symmetric, so a sum of negated numbers is the negated sum (only a zero's
    sign may differ: -(0.0 + -0.0) is -0.0). Only these helpers, which only gradient code
    calls; never ``np.sum``, which the user's code may call with ``initial=`` or on a list."""

    def __init__(self, names):
        self.names = names

    def visit_Call(self, node):
        self.generic_visit(node)
        if (isinstance(node.func, ast.Name) and node.func.id in self.names and node.args
                and isinstance(node.args[0], ast.UnaryOp) and isinstance(node.args[0].op,
                                                                         ast.USub)):
            node.args[0] = node.args[0].operand
            return ast.UnaryOp(op=ast.USub(), operand=node)
        return node


class _Signs(ast.NodeTransformer):
    """``a + -b`` -> ``a - b``, ``a - -b`` -> ``a + b``, ``x += -b`` -> ``x -= b``, and
    ``-(x * y)`` -> ``-x * y``; a product or quotient whose first factor is negated counts
    as negated (``a + -b * c`` -> ``a - b * c``, ``-(-a * b)`` -> ``a * b``, ``-(-a)`` ->
    ``a``): the same
    numbers, a negation being exact."""

    def visit_UnaryOp(self, node):
        self.generic_visit(node)
        inner = node.operand
        if isinstance(node.op, ast.USub) and isinstance(inner, ast.UnaryOp) and isinstance(
                inner.op, ast.USub):
            return inner.operand  # -(-a): a
        if isinstance(node.op, ast.USub) and _negated_product(inner) is not None:
            return _negated_product(inner)
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

    def visit_AugAssign(self, node):
        self.generic_visit(node)
        if isinstance(node.op, (ast.Add, ast.Sub)) and isinstance(node.value, ast.UnaryOp) and (
            isinstance(node.value.op, ast.USub)
        ):  # x += -b -> x -= b: no negated copy of b
            node.op = ast.Sub() if isinstance(node.op, ast.Add) else ast.Add()
            node.value = node.value.operand
        elif isinstance(node.op, (ast.Add, ast.Sub)) and _negated_product(
                node.value) is not None:  # x += -b * c -> x -= b * c
            node.op = ast.Sub() if isinstance(node.op, ast.Add) else ast.Add()
            node.value = _negated_product(node.value)
        return node

    def visit_BinOp(self, node):
        self.generic_visit(node)
        right = node.right
        if isinstance(node.op, (ast.Add, ast.Sub)) and isinstance(right, ast.UnaryOp) and (
            isinstance(right.op, ast.USub)
        ):
            op = ast.Sub() if isinstance(node.op, ast.Add) else ast.Add()
            return ast.BinOp(left=node.left, op=op, right=right.operand)
        if isinstance(node.op, (ast.Add, ast.Sub)) and _negated_product(right) is not None:
            op = ast.Sub() if isinstance(node.op, ast.Add) else ast.Add()
            return ast.BinOp(left=node.left, op=op, right=_negated_product(right))
        return node


def _negated_product(node):
    """``b * c`` for ``-b * c`` (``-2.0 * c``: ``2.0 * c``; ``-b / c * d``: ``b / c * d``),
    else ``None``."""
    if not (isinstance(node, ast.BinOp) and isinstance(node.op, (ast.Mult, ast.Div))):
        return None
    left = node.left
    if isinstance(left, ast.UnaryOp) and isinstance(left.op, ast.USub):
        return ast.BinOp(left=left.operand, op=node.op, right=node.right)
    if isinstance(left, ast.Constant) and type(left.value) in (int, float) and left.value < 0:
        return ast.BinOp(left=ast.Constant(value=-left.value), op=node.op, right=node.right)
    inner = _negated_product(left)
    return None if inner is None else ast.BinOp(left=inner, op=node.op, right=node.right)


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
            node.value = _SignIntoLiteral().visit(node.value)
            _float_spine(node.value)


class _SignIntoLiteral(ast.NodeTransformer):
    """``-g * 2.0`` -> ``g * -2.0`` (and ``2.0 * -g`` -> ``-2.0 * g``) in a gradient's own
    arithmetic: one array operation instead of two (no negated copy of ``g``), the same
    numbers (rounding to nearest is symmetric: ``(-g) * c`` is ``-(g * c)`` is
    ``g * (-c)``)."""

    def visit_BinOp(self, node):
        self.generic_visit(node)
        if not isinstance(node.op, ast.Mult):
            return node
        for side, other in (("left", "right"), ("right", "left")):
            neg, literal = getattr(node, side), getattr(node, other)
            if isinstance(neg, ast.UnaryOp) and isinstance(neg.op, ast.USub) and _is_num(
                    literal) and not isinstance(literal.value, bool):
                setattr(node, side, neg.operand)
                setattr(node, other, ast.Constant(value=-literal.value))
                return node
        return node


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


