"""The Numba backend's stacks: one list per saved value, walked by index, and the ``math``
calls of saved values made in the forward code.

The reverse pass saves values on stacks: one Python list per loop, holding a tuple per block,
walked by ``reversed(stack)``. Numba wants lists of one type and has no ``reversed``, so before
the adjoint is assembled :func:`realise` gives every saved value of every block a stack of its
own (one value type per list; popping or walking it backwards in step with the others is exact,
since each block pops what it pushed, in reverse order) and walks stacks by index. A ``math``
call the backward code makes on saved values is made where the forward code pushes them
instead, and its result saved (:func:`_hoist`): the backward loop then reads a number, and the
processor overlaps the call with the forward's own work. :func:`rewrite_reversed` writes a loop
over ``reversed(range(...))`` as a descending ``range`` (Numba has no ``reversed``).

Imports ``srcad.transform.nodes``.
"""

from __future__ import annotations

import ast

from ..transform import nodes
from ..transform.nodes import PopMarker, PushMarker, assign, call, name


def realise(gen, namer, spelled=None):
    """Replace the push/pop markers of ``gen`` (a :class:`srcad.transform.sweep.Generated`)
    with one list per saved value and walk iterated stacks by index; ``gen.stacks`` becomes
    those lists (the type of what they hold is checked by :func:`check` and Numba).

    With ``spelled`` (helper -> its spelling), a ``math`` call of saved values of a block that
    the block's backward code makes unconditionally is made in the forward code instead, where
    the block pushes, and its result is saved rather than recomputed (:func:`_hoist`)."""
    own = {}  # (block, name) -> its stack

    def stack_of(block, value):
        key = (block, value)
        if key not in own:
            own[key] = namer.fresh(f"saved_{value}")
        return own[key]

    by_stack = {}  # the original stack -> the blocks that push on it
    for block, (stack, _) in gen.saves.items():
        by_stack.setdefault(stack, []).append(block)
    maths = {spelled["math"]} if spelled and "math" in spelled else set()
    hoisted = _hoist(gen.forward, gen.backward, gen.saves, by_stack, maths, namer,
                     gen.seed) if maths else {}
    if hoisted:
        # a saved value read nowhere after the hoisting is not saved (nor set back)
        read = {n.id for n in walk_values(gen.backward + list(gen.grads.values()))
                if n.__class__ is ast.Name and n.ctx.__class__ is ast.Load}
    saves = {}  # block -> the values pushed (names), the hoisted values (name, expression)
    for block, (_, values) in gen.saves.items():
        extra = hoisted.get(block, [])
        kept = [v for v in values if v in read] if extra else list(values)
        saves[block] = (kept, extra)
    np_ = spelled.get("np", "np") if spelled else "np"
    counted = _counted(gen.forward, gen.backward, by_stack, hoisted, namer, np_)
    arrays = {}  # stack -> the block's fill count (a hoisted value's preallocated array)

    def push(item):
        kept, extra = saves[item.block]
        out = [ast.Expr(value=nodes.method(stack_of(item.block, v), "append", name(v)))
               for v in kept]
        if item.block not in counted:
            return out + [ast.Expr(value=nodes.method(stack_of(item.block, h), "append",
                                                      value)) for h, value in extra]
        _, fill = counted[item.block]
        for h, value in extra:
            arrays[stack_of(item.block, h)] = fill
            out.append(ast.Assign(targets=[ast.Subscript(
                value=name(stack_of(item.block, h)), slice=name(fill), ctx=nodes.STORE)],
                value=value, lineno=0))
        return out + [ast.AugAssign(target=nodes.store(fill), op=ast.Add(),
                                    value=nodes.constant(1))]

    def pop(item):
        if item.block not in saves:
            return []
        kept, extra = saves[item.block]
        return [assign(v, nodes.method(stack_of(item.block, v), "pop"))
                for v in reversed(kept + [h for h, _ in extra])]

    def walk(code):
        out = []
        for item in code:
            cls = item.__class__
            if cls is PushMarker:
                out += push(item)
            elif cls is PopMarker:
                out += pop(item)
            else:
                if cls is ast.For and _iterates_stack(item, by_stack):
                    item = _by_index(item, by_stack, saves, stack_of, namer)
                for block, (loop, fill) in counted.items():
                    if loop is item:  # the arrays of its hoisted values, made before it
                        trips = call("len", call("range", *[nodes.copy_tree(a) for a in
                                                            loop.iter.args]))
                        out += [assign(fill, nodes.constant(0))] + [
                            assign(stack_of(block, h), call(nodes.attr(np_, "empty"), trips))
                            for h, _ in saves[block][1]]
                if cls in (ast.If, ast.For, ast.While):
                    item.body = walk(item.body) or [ast.Pass()]
                    item.orelse = walk(item.orelse)
                out.append(item)
        return out

    gen.forward = walk(gen.forward)
    gen.backward = walk(gen.backward)
    gen.stacks = [s for s in own.values() if s not in arrays]
    gen.stack_arrays = list(arrays)  # made by the forward code itself
    # the stacks of hoisted values: their cosines are taken apart (see numba_backend.check)
    gen.hoisted_stacks = {stack_of(block, h) for block, (_, extra) in saves.items()
                          for h, _ in extra}
    if arrays:
        gen.helpers.add("np")
    gen.saves = {}


def _counted(forward, backward, by_stack, hoisted, namer, np_):
    """The blocks whose hoisted values get a preallocated array (a math call's result is a
    float): the body of a ``for`` loop over ``range(...)`` of names and constants, at the top
    level of the forward code (it runs once), pushing at the top level of its body (once an
    iteration: as many pushes as the range has items), on a stack the backward code walks by
    index (never pops). block -> (the loop, the name counting the pushes)."""
    iterated = {item.iter.args[0].id for item in walk_values(backward)
                if item.__class__ is ast.For and _iterates_stack(item, by_stack)}
    found = {}
    for item in forward:
        if not (item.__class__ is ast.For and item.iter.__class__ is ast.Call
                and item.iter.func.__class__ is ast.Name and item.iter.func.id == "range"
                and not item.iter.keywords and 1 <= len(item.iter.args) <= 3
                and all(_simple(a) for a in item.iter.args) and not item.orelse
                and not any(n.__class__ in (ast.Break, ast.Continue, ast.Return)
                            for n in walk_values(item.body))):
            continue
        for marker in item.body:
            block = getattr(marker, "block", None)
            if (marker.__class__ is PushMarker and hoisted.get(block)
                    and any(block in by_stack[s] and len(by_stack[s]) == 1
                            for s in iterated)):
                found[block] = (item, namer.fresh("pushed"))
    return found


def _simple(value):
    """A name or a constant (``-1`` included)."""
    if value.__class__ is ast.UnaryOp and value.op.__class__ is ast.USub:
        value = value.operand
    return value.__class__ in (ast.Name, ast.Constant)


#: the ``math`` functions whose calls on saved values the forward code makes (a cost worth
#: moving: beside the forward's own work, where the processor overlaps it, and out of the
#: backward loop); all are pure, and raise (under Numba too) on the same arguments wherever
#: they are called
HOISTED = {"sin", "cos", "tan", "asin", "acos", "atan", "atan2", "sinh", "cosh", "tanh",
           "asinh", "acosh", "atanh", "exp", "expm1", "log", "log1p", "log2", "log10", "sqrt",
           "pow", "erf", "erfc", "hypot"}


def _hoist(forward, backward, saves, by_stack, maths, namer, seed=None):
    """Rewrite, in ``backward``, each ``math`` call (of :data:`HOISTED`) that reads values a
    block saved, and otherwise only names the code never assigns (parameters kept as they
    are) and constants, in a statement the block's backward code runs every time (its top
    level) before anything reassigns those values, as a name (``seed``: the output's gradient,
    set between the sweeps). Returns block ->
    [(name, the call)]: the forward code computes the call where the block pushes (its saved
    values hold there exactly what the backward code reads back), and saves the result."""
    found = {}
    assigned = {n.id for n in walk_values(forward + backward) if n.__class__ is ast.Name
                and n.ctx.__class__ is not ast.Load}
    assigned |= {v for _, values in saves.values() for v in values}
    assigned.add(seed)  # set between the sweeps (by the assembly), not in either

    def popped(stmt):
        """The names ``stmt`` sets back to saved values (its pops are markers still)."""
        return {v for node in ast.walk(stmt) if node.__class__ is PopMarker
                and node.block in saves for v in saves[node.block][1]}

    def pure(node, values):
        cls = node.__class__
        if cls is ast.Constant:
            return type(node.value) in (int, float)
        if cls is ast.Name:
            return node.id in values or node.id not in assigned
        if cls is ast.BinOp:
            return pure(node.left, values) and pure(node.right, values)
        if cls is ast.UnaryOp:
            return pure(node.operand, values)
        return (cls is ast.Call and not node.keywords and _math_call(node, maths) is not None
                and all(pure(a, values) for a in node.args))

    def replace(node, values, block):
        if node.__class__ is ast.Call and _math_call(node, maths) in HOISTED and pure(
                node, values) and any(n.__class__ is ast.Name and n.id in values
                                      for n in ast.walk(node)):
            fresh = namer.fresh(f"{_math_call(node, maths)}_{_first_name(node, values)}")
            found.setdefault(block, []).append((fresh, node))
            return name(fresh)
        for field, value in ast.iter_fields(node):
            if isinstance(value, ast.AST):
                setattr(node, field, replace(value, values, block))
            elif isinstance(value, list):
                value[:] = [replace(v, values, block) if isinstance(v, ast.AST) else v
                            for v in value]
        return node

    def body(stmts, block):
        values = set(saves[block][1])
        for stmt in stmts:
            if stmt.__class__ in (ast.Assign, ast.AugAssign) and values:
                stmt.value = replace(stmt.value, values, block)
            values -= {n.id for n in ast.walk(stmt) if n.__class__ is ast.Name
                       and n.ctx.__class__ is not ast.Load} | popped(stmt)

    def walk(code):
        for i, item in enumerate(code):
            cls = item.__class__
            if cls is PopMarker and item.block in saves:
                body(code[i + 1:], item.block)
            elif cls is ast.For and _iterates_stack(item, by_stack):
                body(item.body, by_stack[item.iter.args[0].id][0])
            if cls in (ast.If, ast.For, ast.While):
                walk(item.body)
                walk(item.orelse)

    walk(backward)
    return found


def _math_call(node, maths):
    """``f`` for a call ``math.f(...)`` (``math`` spelled as in ``maths``), else None."""
    func = node.func
    if (func.__class__ is ast.Attribute and func.value.__class__ is ast.Name
            and func.value.id in maths):
        return func.attr
    return None


def _first_name(node, values):
    return next(n.id for n in ast.walk(node) if n.__class__ is ast.Name and n.id in values)


def _iterates_stack(loop, by_stack):
    it = loop.iter
    return (it.__class__ is ast.Call and it.func.__class__ is ast.Name
            and it.func.id == "reversed" and len(it.args) == 1
            and it.args[0].__class__ is ast.Name and it.args[0].id in by_stack)


def _by_index(loop, by_stack, saves, stack_of, namer):
    """``for a, b in reversed(stack):`` as ``for k in range(len(saved_a) - 1, -1, -1):``
    reading ``a = saved_a[k]``, ``b = saved_b[k]`` (and the block's hoisted values)."""
    (block,) = by_stack[loop.iter.args[0].id]
    kept, extra = saves[block]
    values = kept + [h for h, _ in extra]
    index = namer.fresh("step")
    first = stack_of(block, values[0])
    loop.iter = call("range", ast.BinOp(left=call("len", first), op=ast.Sub(),
                                        right=nodes.constant(1)),
                     nodes.constant(-1), nodes.constant(-1))
    loop.target = nodes.store(index)
    reads = [assign(v, ast.Subscript(value=name(stack_of(block, v)), slice=name(index),
                                     ctx=nodes.LOAD)) for v in values]
    loop.body = reads + loop.body
    return loop


def popped(code):
    """The stacks ``code`` pops (``stack.pop()``): the others it reads by index."""
    return {node.func.value.id for node in walk_values(code) if node.__class__ is ast.Call
            and node.func.__class__ is ast.Attribute and node.func.attr == "pop"
            and node.func.value.__class__ is ast.Name}


def walk_values(node):
    """Every node under ``node``: a tree, or a list of them (of lists...)."""
    if isinstance(node, ast.AST):
        yield from ast.walk(node)
    elif isinstance(node, list):
        for item in node:
            yield from walk_values(item)


def _simple(value):
    """A name or a constant (``-1`` included): safe to read twice."""
    if value.__class__ is ast.UnaryOp and value.op.__class__ is ast.USub:
        value = value.operand
    return value.__class__ in (ast.Name, ast.Constant)


def rewrite_reversed(node, refuse):
    """In place: ``for ... in reversed(range(a, b)):`` iterates ``range(b - 1, a - 1, -1)``
    (and a range with a step, from its last item)."""
    if node.__class__ is not ast.For:
        return
    it = node.iter
    if not (it.__class__ is ast.Call and it.func.__class__ is ast.Name
            and it.func.id == "reversed"):
        return
    inner = it.args[0] if len(it.args) == 1 else None
    if not (inner.__class__ is ast.Call and inner.func.__class__ is ast.Name
            and inner.func.id == "range" and 1 <= len(inner.args) <= 3
            and all(_simple(a) for a in inner.args)):
        refuse("reversed(...) of anything but a range of names and constants")
    args = inner.args

    def minus_one(value):
        if value.__class__ is ast.Constant and type(value.value) is int:
            return nodes.constant(value.value - 1)
        return ast.BinOp(left=value, op=ast.Sub(), right=nodes.constant(1))

    if len(args) < 3:
        start, stop = (nodes.constant(0), args[0]) if len(args) == 1 else args
        node.iter = call("range", minus_one(stop), minus_one(start), nodes.constant(-1))
        return
    # range(a, b, c) backwards: from its last item, a + (len - 1) * c, down to a
    a, _, c = args
    copy = nodes.copy_tree
    last = ast.BinOp(left=copy(a), op=ast.Add(), right=ast.BinOp(
        left=minus_one(call("len", copy(inner))), op=ast.Mult(), right=copy(c)))
    node.iter = call("range", last, ast.BinOp(left=copy(a), op=ast.Sub(), right=copy(c)),
                     ast.UnaryOp(op=ast.USub(), operand=copy(c)))
