"""The Numba backend: the same adjoint, rewritten so that ``numba.njit`` compiles it.

Before the adjoint is assembled, :func:`srcad.backend.numba_stacks.realise` gives every saved
value a stack of its own, walked by index. After tidying,
:func:`check` rewrites ``reversed(range(...))`` as a descending ``range`` and refuses, before
Numba sees the code, anything Numba cannot compile or would compile differently: the srcad
runtime helpers :mod:`.numba_helpers` lacks, recursive calls and nested functions (a callee's
parts, made for this backend by ``pipeline.NUMBA_CALLEES``, are Numba dispatchers that compile
with the code calling them), global values other than the numbers the function itself reads
(Numba freezes them when it compiles; Python reads them when it runs), and calls outside
``math``, a set of ``numpy`` functions and a few builtins; it also gives ``**`` and the
``math`` functions that raise in Python (``math.sqrt(-1.0)``, ``math.exp(1000.0)``) versions
that raise too, where Numba's would return nan or inf. :func:`jit` compiles with
``numba.njit`` and turns a Numba error that still occurs (a type Numba cannot unify, say) into
a :class:`SrcadError`.

Imports: ``srcad.errors``, ``srcad.transform.nodes``, :mod:`.numba_stacks`, :mod:`.numba_displays`,
:mod:`.numba_cache`, :mod:`.numba_names`, :mod:`.numba_update`, :mod:`.numba_constants`,
:mod:`.numba_checks` (srcad's run-time checks, refused at the construct),
:mod:`.numba_inlined` (callee parts inlined by Numba, or compiled apart), :mod:`.numba_errors`
(errors at the user's line), :mod:`.numba_reductions`, :mod:`.numba_index_checks`; ``numba``.
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
from ..transform.nodes import Comment, name
from . import numba_batched, numba_cache, numba_chains, numba_constants, numba_reuse, numba_update
from .numba_checks import refuse_check, view_line
from .numba_displays import array_displays, of_one_type, popped_gradients
from .numba_errors import compile_error
from .numba_errors import summary as _summary  # noqa: F401  (srcad.numba_forms reads it)
from .numba_fuse import expressions, fused
from .numba_index_checks import add_checks
from .numba_inlined import for_caller, inlined_part
from .numba_names import (  # noqa: F401  (read here by name, and by the tests)
    BUILTINS,
    CHECKED_MATH,
    MATH,
    NUMBA_HELPERS,
    NUMPY,
    REDUCTIONS,
    REFUSED_HELPERS,
    instead,
    refused_form,
)
from .numba_stacks import rewrite_reversed, walk_values

HINT = "differentiate it with backend='python' (the default), or rewrite the line"

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


# ---------------------------------------------------------------- the whole function, tidied


def check(fdef, user_func, spelled, namer, callees=(), hoisted=(), live=None):
    """Rewrite the tidied adjoint ``fdef`` for Numba (``reversed(range(...))`` as a descending
    range, the helpers :mod:`.numba_helpers` implements) and refuse what Numba cannot compile
    (see the module docstring), naming the user's line. Returns ``(fdef, cells)``: the cells
    (name -> cell) of the Numba helpers it calls, for :func:`srcad.backend.emit.compile_function`.
    ``callees``: the names the code calls other user functions' derivatives by (constant
    arrays given to them made once, :mod:`.numba_constants`). ``hoisted``: the stacks of values
    :func:`srcad.backend.numba_stacks.realise` hoisted into the forward code (a cosine pushed
    there: ``numba_math_cos_apart``, :func:`srcad.backend.numba_helpers.cos_apart`). A list
    display holding no constant is a list of items of one type (``numba_lists.array_list``),
    one with constants among its items, unless it only becomes an array, is refused here; a
    tuple's tangent (forward mode) is a tuple. ``live``: a dict, for the function called
    from Python (not a callee's part): the global numbers it reads (``x * SCALE``) become
    parameters, name -> value now, which :class:`srcad.backend.numba_passed.Passed` reads
    when the code runs (Numba would freeze them)."""
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

    def bare_math(node):
        """The name of the ``math`` function a global or free name is bound to (``from math
        import sin``), one this backend compiles; else None."""
        if node.__class__ is not ast.Name or node.id in own or node.id in helper_of:
            return None
        value = free.get(node.id, user_globals.get(node.id, _MISSING))
        named = getattr(value, "__name__", None)
        return named if named in MATH and getattr(math, named, None) is value else None

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
        if (node.__class__ is ast.List and node.elts and id(node) not in displays
                and node.ctx.__class__ is ast.Load and of_one_type(node)):
            return ast.Call(func=numba_helper("array_list"), args=node.elts, keywords=[])
        if node.__class__ is ast.BinOp and node.op.__class__ in (ast.Pow, ast.MatMult):
            helper = "power" if node.op.__class__ is ast.Pow else "matmul"
            return ast.Call(func=numba_helper(helper), args=[node.left, node.right],
                            keywords=[])
        if node.__class__ is ast.Name and node.id == "Ellipsis" and node.id not in own and (
                node.id not in user_globals and node.id not in free):
            return ast.Constant(value=...)  # y[Ellipsis] = v (out=): Numba takes y[...]
        if node.__class__ is not ast.Call:
            return node
        numba_batched.rewrite(node, module_of, numba_helper)  # batched forward mode's forms
        func = node.func
        bare = bare_math(func)  # sin(x) after from math import sin: as math.sin(x)
        if bare in CHECKED_MATH and len(node.args) == 1 and not node.keywords:
            node.func = numba_helper(f"math.{bare}")
            return node
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
        if (func.__class__ is ast.Attribute and func.value.__class__ is ast.Name
                and module_of(func.value.id) is np):
            if refused_form(func.attr, node):  # np.mean(a, axis=0), np.argsort(a)
                refuse(refused_form(func.attr, node), current_line[0])
            if func.attr in REDUCTIONS and _reduction(node, REDUCTIONS[func.attr]):
                node.func = numba_helper("reduce")
                return node
            if (func.attr == "stack" and not node.keywords and len(node.args) in (1, 2)
                    and _constant(node.args[-1]) in ((0,) if len(node.args) == 2 else (
                        _MISSING,))):
                node.func, node.args = numba_helper("stack"), node.args[:1]
                return node
            if (func.attr == "einsum" and not node.keywords and 2 <= len(node.args) <= 4
                    and isinstance(_constant(node.args[0]), str)):
                node.func = numba_helper(f"einsum{len(node.args) - 1}")
                return node
        if (func.__class__ is ast.Attribute and func.attr == "concatenate" and node.args
                and func.value.__class__ is ast.Name and module_of(func.value.id) is np
                and node.args[0].__class__ is ast.Call
                and node.args[0].func.__class__ is ast.Name
                and node.args[0].func.id == used.get("array_list")):
            # only read: a tuple (Numba's np.concatenate takes no list)
            node.args[0] = ast.Tuple(elts=node.args[0].args, ctx=ast.Load())
        if node.keywords:
            return node
        if (func.__class__ is ast.Attribute and func.attr == "array" and len(node.args) == 1
                and func.value.__class__ is ast.Name and module_of(func.value.id) is np
                and node.args[0].__class__ not in (ast.List, ast.Tuple)):
            node.func = numba_helper("array_of")  # of an array: a copy (Numba's takes none)
            return node
        if func.__class__ is ast.Name and helper_of.get(func.id) == "zeros_array" and len(
                node.args) == 1:
            node.func = numba_helper("zeros_float")  # (of an array: of a number, refused)
            return node
        if func.__class__ is ast.Name and helper_of.get(func.id) == "like_grad" and len(
                node.args) == 2:  # (of a leaf: unbroadcast; of a tuple: refused by it)
            node.func = numba_helper("unbroadcast")
            return node
        if func.__class__ is ast.Name and helper_of.get(func.id) == "items_at":
            return _items_at(node, numba_helper)
        if func.__class__ is ast.Name and helper_of.get(func.id) in NUMBA_HELPERS:
            first = {"grad_sum": 2, "grad_extremum": 3, "grad_reshape": 2,
                     "transpose_grad": 1, "grad_stack": 2, "grad_cumsum": 2}.get(
                helper_of[func.id])
            if first and [_constant(a) for a in node.args[first:]] in ([None], [None, False]):
                node.args = node.args[:first]  # of every element (the default arguments)
            if helper_of[func.id] == "grad_einsum" and 4 <= len(node.args) <= 6:
                node.func = numba_helper(f"grad_einsum{len(node.args) - 3}")
                return node
            node.func = numba_helper(helper_of[func.id])
        elif (func.__class__ is ast.Attribute and func.value.__class__ is ast.Name
              and module_of(func.value.id) is np and len(node.args) == 1
              and func.attr in ("shape", "sum")):
            node.func = numba_helper(f"{func.attr}_of")
        return node

    def apart(stmt):
        """``S[i] = math.cos(a)`` or ``S.append(math.cos(a))`` onto a stack of hoisted values:
        the cosine taken apart from any sine of ``a`` (no fused ``sincos``)."""
        value = None
        if (stmt.__class__ is ast.Assign and len(stmt.targets) == 1
                and stmt.targets[0].__class__ is ast.Subscript
                and stmt.targets[0].value.__class__ is ast.Name
                and stmt.targets[0].value.id in hoisted):
            value = stmt.value
        elif (stmt.__class__ is ast.Expr and stmt.value.__class__ is ast.Call
              and stmt.value.func.__class__ is ast.Attribute
              and stmt.value.func.attr == "append"
              and stmt.value.func.value.__class__ is ast.Name
              and stmt.value.func.value.id in hoisted and len(stmt.value.args) == 1):
            value = stmt.value.args[0]
        func = getattr(value, "func", None)
        if (value.__class__ is ast.Call and func.__class__ is ast.Attribute
                and func.attr == "cos" and func.value.__class__ is ast.Name
                and module_of(func.value.id) is math and len(value.args) == 1
                and not value.keywords):
            value.func = numba_helper("math.cos_apart")

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
            own = getattr(stmt, "srcad_line", None) or line  # a forward statement's own
            current_line[0] = own
            rewrite_reversed(stmt, lambda what, ln=own: refuse(what, ln))
            stmt = numba_update.in_place(stmt, owned, update_of, numba_helper)
            stmt = expressions(fused(scatter_add(stmt), helper_of, numba_helper), numba_helper,
                               adds)
            if hoisted:
                apart(stmt)
            for field in stmt._fields:
                if field not in ("body", "orelse"):
                    value = getattr(stmt, field)
                    if isinstance(value, ast.AST):
                        setattr(stmt, field, rewrite(value))
                    elif isinstance(value, list):
                        value[:] = [rewrite(v) if isinstance(v, ast.AST) else v
                                    for v in value]
            _check_node(stmt, own)
            for field in ("body", "orelse"):
                inner = getattr(stmt, field, None)
                if inner:
                    setattr(stmt, field, visit(inner, own))
            out.append(stmt)
        if "zeros_like" in used:
            out = _join_items(out, used, numba_helper)
        return out

    def _check_node(stmt, line):
        heads = [getattr(stmt, f) for f in stmt._fields if f not in ("body", "orelse")]
        bounds = {id(a) for node in walk_values(heads) if node.__class__ is ast.Call
                  and node.func.__class__ is ast.Name and node.func.id == "slice"
                  for a in node.args}  # slice(1, None, None): None is an open bound there
        # a[None, :] and scatter(v, a, (None, slice(...))): None is a new axis there
        for node in walk_values(heads):
            index = node.slice if node.__class__ is ast.Subscript else (
                node.args[2] if node.__class__ is ast.Call and len(node.args) == 3
                and node.func.__class__ is ast.Name and node.func.id in (
                    used.get("scatter"), used.get("scatter_add")) else None)
            if index.__class__ is ast.Tuple:
                bounds.update(id(e) for e in index.elts)
            elif index is not None:
                bounds.add(id(index))
        if stmt.__class__ is ast.Assign and all(t.__class__ is ast.Name
                                                 for t in stmt.targets):
            # x = None: a name set on one path only (Numba's optional type, which raises
            # where Python would on reading None as a number)
            bounds.add(id(stmt.value))
        for head in heads:
            for node in walk_values(head):
                cls = node.__class__
                if cls is ast.Attribute and node.value.__class__ is ast.Name:
                    module = module_of(node.value.id)
                    if module is np and node.attr not in NUMPY:
                        refuse(instead(f"numpy.{node.attr}", f"numpy.{node.attr} (Numba's "
                                       "NumPy is a subset)"), line)
                    if module is math and node.attr not in MATH:
                        refuse(f"math.{node.attr} (not among the math functions Numba "
                               "computes as Python does)", line)
                    if module is None and node.value.id not in own:
                        refuse(f"{node.value.id}.{node.attr}: a global object", line)
                elif cls is ast.Name and node.id not in own:
                    ident = node.id
                    if helper_of.get(ident) in REFUSED_HELPERS:
                        refuse(REFUSED_HELPERS[helper_of[ident]], line)
                    if ident in helper_of and helper_of[ident] not in ("math", "np"):
                        refuse(f"srcad's helper {helper_of[ident]}(...) (its construct needs "
                               "the Python backend)", line)
                    if module_of(ident) is not None:
                        continue
                    if ident in BUILTINS and ident not in user_globals and ident not in free:
                        continue
                    if ident in free or ident in user_globals:
                        value = free.get(ident, user_globals.get(ident))
                        if live is not None and isinstance(value, (int, float, np.number,
                                                                   np.bool_)):
                            live[ident] = value  # read when it runs: a parameter
                            own.add(ident)
                            continue
                        if bare_math(node) is not None and bare_math(node) not in CHECKED_MATH:
                            continue  # math.atan as atan: computed by Numba as by Python
                        if callable(value):
                            refuse(f"the Python function {ident!r}: Numba calls no Python "
                                   "object (a function with a rule of yours, or one used "
                                   "otherwise than called by position)", line)
                        refuse(f"the global value {ident!r} (Numba freezes globals when it "
                               "compiles; only the differentiated function's own global "
                               "numbers are passed at each call: pass it as an argument)",
                               line)
                    if ident in callees:
                        part = _part(callees[ident])
                        if part is _MISSING:
                            refuse("a recursive call (the context each call keeps for its "
                                   "backward part holds the next call's: a type without end "
                                   "for Numba; write the recursion as a loop)", line)
                        if getattr(part, "__srcad_numba_part__", False):
                            continue  # a callee's part, compiled with the code calling it
                        if getattr(part, "__module__", "").endswith(
                                ".view_indices"):  # srcad's own code for a view written
                            refuse("a write through a view of an array (v = y[1:3], then "
                                   "v *= 3): write into the array at the view's index, "
                                   "y[1:3] *= 3", view_line(stmt, ident, callees) or line)
                        refuse_check(part, ident, heads, callees)  # srcad's checks
                        if getattr(part, "__module__", "").startswith("srcad."):
                            own_name = getattr(part, "__name__", ident)  # np.add.at...
                            refuse(instead(own_name, "this line's construct, srcad's Python "
                                           f"function {own_name}()"), line)
                        refuse(instead(ident, f"the nested function {ident!r} (write it at "
                                       "module level)"), line)
                    if hasattr(builtins, ident):
                        refuse(instead(ident, f"the builtin {ident}()"), line)
                    refuse(f"the name {ident!r}", line)
                elif cls in (ast.ListComp, ast.GeneratorExp, ast.DictComp, ast.SetComp,
                             ast.Dict, ast.Set, ast.Lambda, ast.JoinedStr):
                    refuse(f"a {cls.__name__} expression", line)
                elif cls is ast.List and node.elts and id(node) not in displays:
                    # (np.array([a, b]) is one, see numba_displays)
                    refuse("a list display (Numba gives a list one type for all its items, "
                           "an int among floats becoming a float: write a tuple or an array; "
                           "as an index, np.array([...]): a tuple indexes several axes)", line)
                elif cls is ast.Constant and not isinstance(node.value, (
                        int, float, bool, str)) and not (node.value in (None, ...)
                                                         and id(node) in bounds) and not (
                        type(node.value) is tuple and node.value
                        and all(type(v) is int for v in node.value)):  # transpose's axes
                    refuse(f"the constant {node.value!r}", line)

    numba_reuse.reuse(fdef, helper_of, numba_helper, is_np := lambda i: module_of(i) is np)
    numba_constants.rewrite(fdef, is_np, numba_helper, callees)
    if live is None:  # a callee's part: its global ints as constants (srcad.core.env's guard)
        numba_constants.global_ints(fdef, lambda i: None if i in own or i in helper_of
                                    else free.get(i, user_globals.get(i)))
    adds = frozenset(k for k, v in helper_of.items() if v == "add")  # fused as + where floats
    displays = array_displays(fdef, is_np, helper_of)
    numba_chains.join_all(fdef, helper_of, numba_helper)
    from . import numba_casts, numba_helpers, numba_reductions  # noqa: F401  (overloads)
    owned = numba_update.owned(fdef, update_of := numba_casts.spelled(helper_of, callees), is_np)
    fdef.body = add_checks(fdef, visit(fdef.body, code.co_firstlineno), numba_helper)
    popped_gradients(fdef, used.get("grad_array"), numba_helper)  # a list, where popped
    fdef.args.args += [ast.arg(arg=ident) for ident in live or ()]
    if not used:
        return fdef, {}

    return fdef, {spelling: types.CellType(numba_helpers.helper(helper))
                  for helper, spelling in used.items()}


_MISSING = object()

def _part(cell):
    """What ``cell`` holds (a callee's part, a Numba dispatcher), or _MISSING while empty."""
    try:
        return cell.cell_contents
    except ValueError:
        return _MISSING


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


def _reduction(node, op):
    """In place: ``np.sum(a, axis=1, keepdims=True)``, ``np.max(a)`` and the like (a constant
    axis, or none, and a constant keepdims) as the arguments of ``numba_axes.reduce``:
    ``(a, "max", 1, True)``. A sum of all of ``a`` is left to Numba's (``sum_of``). Whether it
    was rewritten."""
    args, keywords = node.args, {k.arg: k.value for k in node.keywords}
    if len(args) not in (1, 2) or set(keywords) - {"axis", "keepdims"} or (
            len(args) == 2 and "axis" in keywords):
        return False
    axis = args[1] if len(args) == 2 else keywords.get("axis", nodes.constant(None))
    keepdims = keywords.get("keepdims", nodes.constant(False))
    value, keep = _constant(axis), _constant(keepdims)
    if (axis.__class__ is ast.UnaryOp and axis.op.__class__ is ast.USub
            and type(_constant(axis.operand)) is int):
        value = -axis.operand.value  # axis=-1
    if type(value) is tuple and len(value) == 1 and type(value[0]) is int:
        value = value[0]  # axis=(1,): one axis (batched forward mode shifts tuples so)
        axis = nodes.constant(value)
    if not ((value is None or type(value) is int) and type(keep) is bool):
        return False
    if value is None and (keep or op == "sum"):  # a whole sum: Numba's; keepdims: rare
        return False
    node.args = [args[0], nodes.constant(op)] + ([axis, keepdims] if value is not None else [])
    node.keywords = []
    return True


def _item_added(stmt, target, add):
    """``(index, v)`` where ``stmt`` is ``target[index] = add(target[index], v)``,
    ``target[index] = target[index] + v`` or ``target[index] += v`` with an int constant index
    and ``v`` not reading ``target``; else None."""
    def item(node):
        return (node.__class__ is ast.Subscript and node.value.__class__ is ast.Name
                and node.value.id == target and type(_constant(node.slice)) is int
                and node.slice.value >= 0)

    if stmt.__class__ is ast.AugAssign and stmt.op.__class__ is ast.Add and item(stmt.target):
        index, value = stmt.target.slice.value, stmt.value
    elif (stmt.__class__ is ast.Assign and len(stmt.targets) == 1 and item(stmt.targets[0])):
        index, value = stmt.targets[0].slice.value, stmt.value
        if (value.__class__ is ast.Call and value.func.__class__ is ast.Name
                and value.func.id == add and len(value.args) == 2 and not value.keywords):
            first, value = value.args
        elif value.__class__ is ast.BinOp and value.op.__class__ is ast.Add:
            first, value = value.left, value.right
        else:
            return None
        if not (item(first) and first.slice.value == index):
            return None
    else:
        return None
    if any(n.__class__ is ast.Name and n.id == target for n in ast.walk(value)):
        return None
    return index, value


def _join_items(stmts, used, numba_helper):
    """``d = zeros_like(x)`` and the statements after it adding into ``d``'s items at int
    indices, joined into one ``items_at_<indices>(x, values...)``
    (:func:`srcad.backend.numba_lists.items_at`): a tuple whose items differ in type gets a
    tuple of gradients (each item its own type), not a list Numba could not type."""
    out, k = [], 0
    while k < len(stmts):
        stmt = stmts[k]
        k += 1
        out.append(stmt)
        value = getattr(stmt, "value", None)
        if not (stmt.__class__ is ast.Assign and len(stmt.targets) == 1
                and stmt.targets[0].__class__ is ast.Name and value.__class__ is ast.Call
                and value.func.__class__ is ast.Name and value.func.id == used["zeros_like"]
                and len(value.args) == 1 and not value.keywords):
            continue
        target, added = stmt.targets[0].id, []
        while k < len(stmts):
            found = _item_added(stmts[k], target, used.get("add"))
            if found is None:
                break
            added.append(found)
            k += 1
        if added:
            spelled = "items_at_" + "_".join(str(i) for i, _ in added)
            stmt.value = ast.Call(func=numba_helper(spelled),
                                  args=[value.args[0], *(v for _, v in added)], keywords=[])
    return out


def _items_at(node, numba_helper):
    """``items_at(like, (1, 0), (a, b))`` as ``items_at_1_0(like, a, b)``
    (:func:`srcad.backend.numba_lists.items_at`), where the indices are int constants and the
    values a tuple display; otherwise left to be refused."""
    if len(node.args) != 3:
        return node
    like, indices, values = node.args
    if not (indices.__class__ is ast.Tuple and values.__class__ is ast.Tuple
            and len(indices.elts) == len(values.elts) and indices.elts
            and all(type(_constant(i)) is int and i.value >= 0 for i in indices.elts)):
        return node
    spelled = "items_at_" + "_".join(str(i.value) for i in indices.elts)
    return ast.Call(func=numba_helper(spelled), args=[like, *values.elts], keywords=[])


def indexes_only_stacks(fdef, stacks):
    """Whether every subscript in ``fdef`` is of one of srcad's ``stacks`` (names): an array
    the forward code fills once an iteration of a loop that runs once, and the backward code
    walks by index (:mod:`.numba_stacks`), in range by construction: compiled without Numba's
    bounds checks; any other subscript (the user's) keeps them (a list's are checked)."""
    return all(node.value.__class__ is ast.Name and node.value.id in stacks
               for node in ast.walk(fdef) if node.__class__ is ast.Subscript)


# ---------------------------------------------------------------- compiling


def jit(fn, where, example=None, callee=False, boundscheck=True):
    """``fn`` (generated Python) compiled now by ``numba.njit`` for the types of ``example``
    (its arguments, in order). For numbers only, the Numba dispatcher itself, compiling nothing
    more (srcad's cache key holds the Python types, so Numba's are those). With arrays (whose
    dtype srcad's key does not hold), or without an example (a pullback's cotangent and the
    tangents of forward mode are known at the first call), a wrapper that lets Numba compile
    for the types it is called with and reports a failure as a SrcadError. Any Numba error
    becomes a SrcadError naming ``where``. Indexing is bounds-checked, as in Python.
    ``py_func`` (Numba's name) is the Python code: a derivative of this derivative
    differentiates that. ``callee``: a part of a callee (:func:`srcad.pipeline.make_split`),
    the bare dispatcher, inlined by Numba into the code calling it outside a loop, a twin
    compiled apart where it is called in a loop (:mod:`.numba_inlined`).
    ``boundscheck=False`` where the code indexes only srcad's own stacks
    (:func:`indexes_only_stacks`; its parts are then all compiled apart, with their checks)."""
    import numba
    from numba.core.errors import NumbaError

    if callee:  # a callee's part: inlined by Numba into the code calling it
        return inlined_part(fn)
    fn, boundscheck = for_caller(fn, boundscheck)  # parts called in loops: compiled apart
    on_disk = numba_cache.from_file(fn, f"boundscheck={boundscheck}")
    compiled = numba_cache.njit(on_disk, boundscheck=boundscheck) if on_disk is not None \
        else numba.njit(boundscheck=boundscheck)(fn)
    try:
        if example is not None:
            compiled.compile(tuple(numba.typeof(value) for value in example))
    except (NumbaError, AssertionError) as exc:  # (an assert of Numba's own, when it compiles)
        raise compile_error(exc, fn, on_disk, where, HINT) from None
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
        except (NumbaError, AssertionError) as exc:
            raise compile_error(exc, fn, on_disk, where, HINT) from None

    numba_adjoint.__name__ = fn.__name__
    numba_adjoint.__srcad_source__ = fn.__srcad_source__
    numba_adjoint.__srcad_numba__ = compiled
    numba_adjoint.py_func = fn  # as a Numba dispatcher's: what a derivative of it reads
    return numba_adjoint
