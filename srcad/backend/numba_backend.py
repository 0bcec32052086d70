"""The Numba backend: the same adjoint, rewritten so that ``numba.njit`` compiles it.

The reverse pass saves values on stacks: one Python list per loop, holding a tuple per block,
walked by ``reversed(stack)``. Numba wants lists of one type and has no ``reversed``, so before
the adjoint is assembled :func:`realise` gives every saved value of every block a stack of its
own (one value type per list; popping or walking it backwards in step with the others is exact,
since each block pops what it pushed, in reverse order) and walks stacks by index. After tidying,
:func:`check` rewrites ``reversed(range(...))`` as a descending ``range`` and refuses, before
Numba sees the code, anything Numba cannot compile or would compile differently: the srcad
runtime helpers :mod:`.numba_helpers` lacks, calls of other user functions, global values
(Numba freezes them when it compiles; Python reads them when it runs), and calls outside
``math``, a set of ``numpy`` functions and a few builtins; it also gives ``**`` and the
``math`` functions that raise in Python (``math.sqrt(-1.0)``, ``math.exp(1000.0)``) versions
that raise too, where Numba's would return nan or inf. :func:`jit` compiles with
``numba.njit`` and turns a Numba error that still occurs (a type Numba cannot unify, say) into
a :class:`SrcadError`.

Imports: ``srcad.errors``, ``srcad.transform.nodes``; ``numba`` when a function is compiled.
"""

from __future__ import annotations

import ast
import builtins
import math
import re
import types

import numpy as np

from ..errors import SrcadError
from ..transform import nodes
from ..transform.nodes import Comment, PopMarker, PushMarker, assign, call, name

HINT = "differentiate it with backend='python' (the default), or rewrite the line"

#: builtins the generated code may call under Numba
BUILTINS = {"range", "len", "abs", "min", "max", "float", "int", "bool", "pow", "slice"}

#: NumPy functions Numba compiles with the meaning NumPy gives them (those srcad's rules and
#: templates emit for the constructs this backend covers)
NUMPY = {
    "sin", "cos", "tan", "arcsin", "arccos", "arctan", "arctan2", "sinh", "cosh", "tanh",
    "exp", "expm1", "log", "log1p", "log2", "log10", "sqrt", "abs", "absolute", "sign",
    "hypot", "power", "square", "zeros", "zeros_like", "ones", "ones_like", "empty",
    "empty_like", "sum", "dot", "where", "maximum", "minimum", "pi", "e", "shape", "copy",
    "float64", "negative", "multiply", "add", "subtract", "divide", "reciprocal",
}


#: ``math`` functions that raise in Python where Numba returns nan or inf: checked versions
CHECKED_MATH = ("sqrt", "log", "log2", "log10", "log1p", "acos", "asin", "acosh", "atanh",
                "exp", "expm1", "cosh", "sinh", "sin", "cos", "tan", "floor", "ceil")

#: the ``math`` names this backend compiles: those Numba computes as Python does, and the
#: checked ones (``math.pow`` is the checked ``**``)
MATH = set(CHECKED_MATH) | {
    "atan", "atan2", "tanh", "asinh", "fabs", "erf",
    "erfc", "pi", "e", "inf", "nan", "tau", "isnan", "isinf", "isfinite", "copysign", "pow",
    "degrees", "radians",
}

#: srcad's runtime helpers that :mod:`.numba_helpers` implements (for the types it names)
NUMBA_HELPERS = {"check_scalar", "add", "unbroadcast", "sign", "where", "unbroadcast_to",
                 "grad_sum", "grad_dot_a", "grad_dot_b", "zeros_like", "like",
                 "copy_tangent", "cleared"}


def available():
    """Whether ``numba`` can be imported."""
    try:
        import numba  # noqa: F401
    except ImportError:
        return False
    return True


def require():
    if not available():
        raise SrcadError("backend='numba' needs the numba package",
                         hint='install it: pip install "srcad[numba]"')


# ---------------------------------------------------------------- stacks, before assembly


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
    hoisted = _hoist(gen.forward, gen.backward, gen.saves, by_stack, maths,
                                namer) if maths else {}
    if hoisted:
        # a saved value read nowhere after the hoisting is not saved (nor set back)
        read = {n.id for n in _walk_values(gen.backward + list(gen.grads.values()))
                if n.__class__ is ast.Name and n.ctx.__class__ is ast.Load}
    saves = {}  # block -> the values pushed (names), the hoisted values (name, expression)
    for block, (_, values) in gen.saves.items():
        extra = hoisted.get(block, [])
        kept = [v for v in values if v in read] if extra else list(values)
        saves[block] = (kept, extra)

    def push(item):
        kept, extra = saves[item.block]
        return ([ast.Expr(value=nodes.method(stack_of(item.block, v), "append", name(v)))
                 for v in kept]
                + [ast.Expr(value=nodes.method(stack_of(item.block, h), "append", value))
                   for h, value in extra])

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
                if cls in (ast.If, ast.For, ast.While):
                    item.body = walk(item.body) or [ast.Pass()]
                    item.orelse = walk(item.orelse)
                out.append(item)
        return out

    gen.forward = walk(gen.forward)
    gen.backward = walk(gen.backward)
    gen.stacks = list(own.values())
    gen.saves = {}


#: the ``math`` functions whose calls on saved values the forward code makes (a cost worth
#: moving: beside the forward's own work, where the processor overlaps it, and out of the
#: backward loop); all are pure, and raise (under Numba too) on the same arguments wherever
#: they are called
HOISTED = {"sin", "cos", "tan", "asin", "acos", "atan", "atan2", "sinh", "cosh", "tanh",
           "asinh", "acosh", "atanh", "exp", "expm1", "log", "log1p", "log2", "log10", "sqrt",
           "pow", "erf", "erfc", "hypot"}


def _hoist(forward, backward, saves, by_stack, maths, namer):
    """Rewrite, in ``backward``, each ``math`` call (of :data:`HOISTED`) that reads values a
    block saved, and otherwise only names the code never assigns (parameters kept as they
    are) and constants, in a statement the block's backward code runs every time (its top
    level) before anything reassigns those values, as a name. Returns block ->
    [(name, the call)]: the forward code computes the call where the block pushes (its saved
    values hold there exactly what the backward code reads back), and saves the result."""
    found = {}
    assigned = {n.id for n in _walk_values(forward + backward) if n.__class__ is ast.Name
                and n.ctx.__class__ is not ast.Load}
    assigned |= {v for _, values in saves.values() for v in values}

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


# ---------------------------------------------------------------- the whole function, tidied


def check(fdef, user_func, spelled, namer, callees=()):
    """Rewrite the tidied adjoint ``fdef`` for Numba (``reversed(range(...))`` as a descending
    range, the helpers :mod:`.numba_helpers` implements) and refuse what Numba cannot compile
    (see the module docstring), naming the user's line. Returns ``(fdef, cells)``: the cells
    (name -> cell) of the Numba helpers it calls, for :func:`srcad.backend.emit.compile_function`.
    ``callees``: the names the code calls other user functions' derivatives by."""
    code = user_func.__code__
    filename = code.co_filename
    helper_of = {v: k for k, v in spelled.items()}
    own = _own_names(fdef)
    user_globals = user_func.__globals__
    free = dict(zip(code.co_freevars, (c.cell_contents for c in user_func.__closure__ or ())))
    used = {}  # numba helper -> its name in the code
    current_line = [code.co_firstlineno]  # the user's line of the statement being rewritten

    def refuse(what, line):
        raise SrcadError(f"backend='numba' cannot compile {what}", filename=filename,
                         lineno=line, hint=HINT)

    def module_of(ident):
        helper = helper_of.get(ident)
        if helper in ("math", "np"):
            return math if helper == "math" else np
        obj = free.get(ident, user_globals.get(ident, _MISSING))
        if obj is math or obj is np:
            return obj
        return None

    def numba_helper(helper):
        if helper not in used:
            used[helper] = namer.fresh("numba_" + helper.replace(".", "_"))
            own.add(used[helper])
        return name(used[helper])

    def rewrite(node):
        """A helper call this backend implements, as a call of its Numba version."""
        for field, value in ast.iter_fields(node):
            if isinstance(value, ast.AST):
                setattr(node, field, rewrite(value))
            elif isinstance(value, list):
                value[:] = [rewrite(v) if isinstance(v, ast.AST) else v for v in value]
        if node.__class__ is ast.BinOp and node.op.__class__ is ast.Pow:
            return ast.Call(func=numba_helper("power"), args=[node.left, node.right],
                            keywords=[])
        if node.__class__ is not ast.Call:
            return node
        func = node.func
        if (func.__class__ is ast.Attribute and func.value.__class__ is ast.Name
                and module_of(func.value.id) is math and func.attr in CHECKED_MATH + ("pow",)):
            if func.attr == "pow" and len(node.args) == 2 and not node.keywords:
                node.func = numba_helper("power")
            elif len(node.args) == 1 and not node.keywords:
                node.func = numba_helper(f"math.{func.attr}")
            else:
                refuse(f"math.{func.attr} with these arguments (write math.log(x) / "
                       "math.log(b) for a base)", current_line[0])
            return node
        if (func.__class__ is ast.Attribute and func.attr == "zeros_like"
                and func.value.__class__ is ast.Name and module_of(func.value.id) is np
                and len(node.args) == 1 and len(node.keywords) == 1
                and node.keywords[0].arg == "dtype"
                and ast.unparse(node.keywords[0].value) == "float"):
            node.func, node.keywords = numba_helper("zeros_float"), []
        if node.keywords:
            return node
        if func.__class__ is ast.Name and helper_of.get(func.id) in NUMBA_HELPERS:
            if helper_of[func.id] == "grad_sum" and [_constant(a) for a in node.args[2:]] in (
                    [None], [None, False]):
                node.args = node.args[:2]  # a sum of every element (the default arguments)
            node.func = numba_helper(helper_of[func.id])
        elif (func.__class__ is ast.Attribute and func.value.__class__ is ast.Name
              and module_of(func.value.id) is np and len(node.args) == 1
              and func.attr in ("shape", "sum")):
            node.func = numba_helper(f"{func.attr}_of")
        return node

    def scatter_add(stmt):
        """``X += scatter(v, like, i)`` as ``scatter_add(X, v, i)``."""
        value = getattr(stmt, "value", None)
        if (stmt.__class__ is ast.AugAssign and stmt.op.__class__ is ast.Add
                and stmt.target.__class__ is ast.Name and value.__class__ is ast.Call
                and value.func.__class__ is ast.Name and helper_of.get(value.func.id) ==
                "scatter" and len(value.args) == 3 and not value.keywords):
            target = name(stmt.target.id)
            return ast.Expr(value=ast.Call(func=numba_helper("scatter_add"), args=[
                target, value.args[0], value.args[2]], keywords=[]))
        return stmt

    def visit(stmts, line):
        out = []
        for stmt in stmts:
            if stmt.__class__ is Comment:
                found = re.match(r"line (\d+):", stmt.text)
                if found:
                    line = int(found.group(1))
                out.append(stmt)
                continue
            current_line[0] = line
            _rewrite_reversed(stmt, lambda what, ln=line: refuse(what, ln))
            stmt = scatter_add(stmt)
            for field in stmt._fields:
                if field not in ("body", "orelse"):
                    value = getattr(stmt, field)
                    if isinstance(value, ast.AST):
                        setattr(stmt, field, rewrite(value))
                    elif isinstance(value, list):
                        value[:] = [rewrite(v) if isinstance(v, ast.AST) else v
                                    for v in value]
            _check_node(stmt, line)
            for field in ("body", "orelse"):
                inner = getattr(stmt, field, None)
                if inner:
                    setattr(stmt, field, visit(inner, line))
            out.append(stmt)
        return out

    def _check_node(stmt, line):
        heads = [getattr(stmt, f) for f in stmt._fields if f not in ("body", "orelse")]
        bounds = {id(a) for node in _walk_values(heads) if node.__class__ is ast.Call
                  and node.func.__class__ is ast.Name and node.func.id == "slice"
                  for a in node.args}  # slice(1, None, None): None is an open bound there
        for head in heads:
            for node in _walk_values(head):
                cls = node.__class__
                if cls is ast.Attribute and node.value.__class__ is ast.Name:
                    module = module_of(node.value.id)
                    if module is np and node.attr not in NUMPY:
                        refuse(f"numpy.{node.attr} (Numba's NumPy is a subset)", line)
                    if module is math and node.attr not in MATH:
                        refuse(f"math.{node.attr} (not among the math functions Numba "
                               "computes as Python does)", line)
                    if module is None and node.value.id not in own:
                        refuse(f"{node.value.id}.{node.attr}: a global object", line)
                elif cls is ast.Name and node.id not in own:
                    ident = node.id
                    if ident in helper_of and helper_of[ident] not in ("math", "np"):
                        refuse(f"srcad's helper {helper_of[ident]}(...) (its construct needs "
                               "the Python backend)", line)
                    if module_of(ident) is not None:
                        continue
                    if ident in BUILTINS and ident not in user_globals and ident not in free:
                        continue
                    if ident in free or ident in user_globals:
                        value = free.get(ident, user_globals.get(ident))
                        what = ("a call of the user function " if callable(value)
                                else "the global value ")
                        refuse(f"{what}{ident!r} (Numba freezes globals and compiles no "
                               "Python callee; pass it as an argument or inline it)", line)
                    if ident in callees:
                        refuse("a call of another user function (this backend compiles "
                               "no callee yet: inline it)", line)
                    if hasattr(builtins, ident):
                        refuse(f"the builtin {ident}()", line)
                    refuse(f"the name {ident!r}", line)
                elif cls in (ast.ListComp, ast.GeneratorExp, ast.DictComp, ast.SetComp,
                             ast.Dict, ast.Set, ast.Lambda, ast.JoinedStr):
                    refuse(f"a {cls.__name__} expression", line)
                elif cls is ast.List and node.elts:
                    refuse("a list display (Numba gives a list one type for all its items, "
                           "an int among floats becoming a float: write a tuple or an "
                           "array)", line)
                elif cls is ast.Constant and not isinstance(node.value, (
                        int, float, bool, str)) and not (node.value is None
                                                         and id(node) in bounds):
                    refuse(f"the constant {node.value!r}", line)

    fdef.body = visit(fdef.body, code.co_firstlineno)
    if not used:
        return fdef, {}
    from . import numba_helpers

    return fdef, {spelling: types.CellType(numba_helpers.helper(helper))
                  for helper, spelling in used.items()}


_MISSING = object()


def _walk_values(node):
    """Every node under ``node``: a tree, or a list of them (of lists...)."""
    if isinstance(node, ast.AST):
        yield from ast.walk(node)
    elif isinstance(node, list):
        for item in node:
            yield from _walk_values(item)


def _own_names(fdef):
    """Parameters and every name the function assigns (its locals)."""
    args = fdef.args
    own = {a.arg for a in args.posonlyargs + args.args + args.kwonlyargs}
    for node in ast.walk(fdef):
        if node.__class__ is ast.Name and node.ctx.__class__ is not ast.Load:
            own.add(node.id)
    return own


def _constant(node):
    """The value of a constant node, or a marker no constant equals."""
    return node.value if node.__class__ is ast.Constant else _MISSING


def _simple(value):
    """A name or a constant (``-1`` included): safe to read twice."""
    if value.__class__ is ast.UnaryOp and value.op.__class__ is ast.USub:
        value = value.operand
    return value.__class__ in (ast.Name, ast.Constant)


def _rewrite_reversed(node, refuse):
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


# ---------------------------------------------------------------- compiling


def jit(fn, where, example=None):
    """``fn`` (generated Python) compiled now by ``numba.njit`` for the types of ``example``
    (its arguments, in order). For numbers only, the Numba dispatcher itself, compiling nothing
    more (srcad's cache key holds the Python types, so Numba's are those). With arrays (whose
    dtype srcad's key does not hold), or without an example (a pullback's cotangent and the
    tangents of forward mode are known at the first call), a wrapper that lets Numba compile
    for the types it is called with and reports a failure as a SrcadError. Any Numba error
    becomes a SrcadError naming ``where``. Indexing is bounds-checked, as in Python.
    ``py_func`` (Numba's name) is the Python code: a derivative of this derivative
    differentiates that."""
    import numba
    from numba.core.errors import NumbaError

    compiled = numba.njit(boundscheck=True)(fn)
    try:
        if example is not None:
            compiled.compile(tuple(numba.typeof(value) for value in example))
    except NumbaError as exc:
        raise SrcadError(f"Numba could not compile {where}: {_summary(exc)}",
                         hint=HINT) from None
    if example is not None and not any(isinstance(value, np.ndarray) for value in example):
        compiled.disable_compile()
        compiled.__srcad_source__ = fn.__srcad_source__
        # the compiled code for exactly these types, without Numba's dispatch on them: the
        # gradient function calls it behind its own check of the argument classes
        (signature,) = compiled.signatures
        compiled.__srcad_entry__ = compiled.overloads[signature].entry_point
        return compiled

    def numba_adjoint(*args):
        try:
            return compiled(*args)
        except NumbaError as exc:
            raise SrcadError(f"Numba could not compile {where}: {_summary(exc)}",
                             hint=HINT) from None

    numba_adjoint.__name__ = fn.__name__
    numba_adjoint.__srcad_source__ = fn.__srcad_source__
    numba_adjoint.__srcad_numba__ = compiled
    numba_adjoint.py_func = fn  # as a Numba dispatcher's: what a derivative of it reads
    return numba_adjoint


def _summary(exc):
    """The informative lines of a Numba error (its first problem and where), one line."""
    text = re.sub(r"\x1b\[[0-9;]*m", "", str(exc))
    lines = [ln.strip() for ln in text.splitlines() if ln.strip()]
    ours = [ln for ln in lines if "srcad's numba backend" in ln]  # a helper's own reason
    if ours:
        return ours[0]
    keep = [ln for ln in lines if not ln.startswith(("Failed in ", "During: ", "^"))]
    return " / ".join(keep[:4]) or text
