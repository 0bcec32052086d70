"""Additions into an array, of an elementwise expression, as one loop (the Numba backend).

A backward sweep adds its terms into gradient arrays: ``dx[1:] += unbroadcast(g * y, t)``,
``dk += dt * h``. Numba compiles such a statement as NumPy runs it: the product made in a new
array, then added into the slice (and, for a subscript, the slice written back over itself:
three passes over the elements and an allocation). :func:`fused` rewrites the statement as a
call of a helper made for the expression's shape (``fused_vu_m_0_1``: into a view, ``unbroadcast``
of the product of operands 0 and 1) that, where it can, adds in one loop with no new array::

    numba_fused_vu_m_0_1(dx[1:], t, g, y)      # for i: out[i] += g[i] * y[i]
    dk = numba_fused_rn_m_0_1(dk, dt, h)

**When the loop runs** (decided per call, the code chosen by the types): the target a 1-D
float64 array, every operand a 1-D float64 array of the target's length or an int64 or
float64 number, the ``unbroadcast`` a no-op (its stand-in of the target's length; for
``unbroadcast_to``, a shape of one axis of that length), and no operand sharing memory with the
target unless it is the target itself, element for element (same address, same stride: each
element is read before it is written). The expression has only ``+``, ``-``, ``*`` and unary
``-`` (no ``/``: Numba's scalar division raises where NumPy's gives inf), so each element is
computed by the same operations, in the same order, as NumPy's (Numba does not contract a
product and a sum into a fused multiply-add), and the sum is the same to the last bit.
Otherwise (other ranks, broadcasting, other dtypes, overlapping memory) the helper runs the
statement as before: ``out += unbroadcast(expr, like)`` on the array (in place, as ``+=`` on
a NumPy array is), or ``out + expr`` for a number (which ``+=`` rebinds in Python); a name
holding anything else, ``out += ...`` and the name rebound to the result (a list extended in
place, a tuple made anew, as in Python); a slice of anything but an array is a typing error,
reported as a SrcadError when Numba compiles.

Rewritten: ``X += E`` with ``E`` holding at least one operation, and ``X[s] += E`` with ``s`` a
slice or a tuple of slices (a view of ``X``, so adding into it changes ``X``; an index holding
an int is left as it is). Operands are evaluated once each, left to right, as Python does.

Imports ``numba`` when a helper is made (only :mod:`.numba_helpers` calls :func:`helper`).
"""

from __future__ import annotations

import ast
import functools

import numpy as np

_OPS = {ast.Add: ("a", "+"), ast.Sub: ("s", "-"), ast.Mult: ("m", "*")}
_SYMBOL = {"a": "+", "s": "-", "m": "*"}
_WRAPS = {"unbroadcast": "u", "unbroadcast_to": "t"}
MAX_OPERANDS = 8
MAX_EXPRESSION = 16


def fused(stmt, helper_of, numba_helper):
    """``stmt`` rewritten as a call of a ``fused_*`` helper (see the module docstring), or
    ``stmt`` itself. ``helper_of``: spelling -> srcad helper; ``numba_helper(name)``: the name
    the code calls the Numba helper ``name`` by."""
    if stmt.__class__ is ast.Assign:
        return _scattered(stmt, helper_of, numba_helper)
    if stmt.__class__ is not ast.AugAssign or stmt.op.__class__ is not ast.Add:
        return stmt
    target, value = stmt.target, stmt.value
    if target.__class__ is ast.Subscript:
        index = target.slice
        slices = index.elts if index.__class__ is ast.Tuple else [index]
        if not slices or any(s.__class__ is not ast.Slice for s in slices):
            return stmt
    elif target.__class__ is not ast.Name:
        return stmt
    wrap, like, value = _unwrapped(value, helper_of)
    if not all(_simple(n) for n in like):
        return stmt  # (evaluated before the operands now: only what has no effect)
    operands = []
    code = _code(value, operands)
    if len(operands) > MAX_OPERANDS or (target.__class__ is ast.Name and not operands[1:]
                                        and value.__class__ is not ast.UnaryOp):
        return stmt  # (a name plus one operand: Numba adds in place already)
    load = ast.Subscript(value=target.value, slice=target.slice, ctx=ast.Load()) if (
        target.__class__ is ast.Subscript) else ast.Name(id=target.id, ctx=ast.Load())
    view = target.__class__ is ast.Subscript
    call = ast.Call(func=numba_helper(f"fused_{'v' if view else 'r'}{wrap}_{code}"),
                    args=[load, *like, *operands], keywords=[])
    if target.__class__ is ast.Subscript:
        return ast.copy_location(ast.Expr(value=call), stmt)
    return ast.copy_location(ast.Assign(targets=[ast.Name(id=target.id, ctx=ast.Store())],
                                        value=call), stmt)


def expressions(stmt, numba_helper, adds=frozenset()):
    """``stmt`` with each elementwise tree of at least two operations in its own expressions
    (not its body, targets, subscripts' indices or ``range``/``slice`` bounds) a call of a
    ``fused_en_<code>`` helper: the value made in one loop, with no array between the
    operations, where the types allow (see :func:`helper`). ``e = y + h * (a + 2 * b)``:
    ``e = numba_fused_en_a_0_m_1_a_2_m_3_4(y, h, a, 2, b)``. ``adds``: the names srcad's
    ``add`` of two gradients is called by, an operation of the tree too (token ``p``: in the
    loop ``+``, which is what ``add`` does for numbers and float arrays; elsewhere ``add``
    itself, which refuses what ``+`` would concatenate)."""
    for field in stmt._fields:
        if field in ("body", "orelse", "targets", "target", "handlers", "finalbody"):
            continue
        value = getattr(stmt, field)
        if isinstance(value, ast.AST):
            setattr(stmt, field, _expression(value, numba_helper, adds))
        elif isinstance(value, list):
            value[:] = [_expression(v, numba_helper, adds) if isinstance(v, ast.AST) else v
                        for v in value]
    return stmt


def _expression(node, numba_helper, adds=frozenset()):
    if node.__class__ in (ast.BinOp, ast.UnaryOp) or _added(node, adds):
        operands = []
        code = _code(node, operands, adds)
        if sum(not t.isdigit() for t in code.split("_")) >= 2 and (
                len(operands) <= MAX_EXPRESSION):  # (one operation: Numba's loop is as fast)
            args = [_expression(o, numba_helper, adds) for o in operands]
            return ast.copy_location(ast.Call(func=numba_helper(f"fused_en_{code}"),
                                              args=args, keywords=[]), node)
    if node.__class__ is ast.Subscript:
        node.value = _expression(node.value, numba_helper, adds)
        return node
    if (node.__class__ is ast.Call and node.func.__class__ is ast.Name
            and node.func.id in ("range", "slice")):
        return node
    for field, value in ast.iter_fields(node):
        if isinstance(value, ast.AST):
            setattr(node, field, _expression(value, numba_helper, adds))
        elif isinstance(value, list):
            value[:] = [_expression(v, numba_helper, adds) if isinstance(v, ast.AST) else v
                        for v in value]
    return node


def _added(node, adds):
    """Whether ``node`` is ``add(a, b)``, srcad's helper called by one of ``adds``."""
    return (node.__class__ is ast.Call and node.func.__class__ is ast.Name
            and node.func.id in adds and len(node.args) == 2 and not node.keywords
            and not any(a.__class__ is ast.Starred for a in node.args))


def _unwrapped(value, helper_of):
    """``(wrap, [like], expression)`` of ``unbroadcast(expression, like)``,
    ``unbroadcast_to(expression, shape)`` or another expression (wrap ``n``)."""
    func = getattr(value, "func", None)
    if (value.__class__ is ast.Call and func.__class__ is ast.Name and len(value.args) == 2
            and not value.keywords and helper_of.get(func.id) in _WRAPS):
        return _WRAPS[helper_of[func.id]], [value.args[1]], value.args[0]
    return "n", [], value


def _simple(node):
    """A name, a constant, ``slice(...)`` of them or a tuple of these: evaluated in any
    order with the same result and no effect."""
    if node.__class__ in (ast.Name, ast.Constant):
        return True
    if node.__class__ is ast.Subscript:  # saved_x[step]: a read
        return node.value.__class__ is ast.Name and _simple(node.slice)
    if node.__class__ is ast.UnaryOp and node.op.__class__ is ast.USub:
        return node.operand.__class__ is ast.Constant
    if node.__class__ is ast.Tuple:
        return all(_simple(e) for e in node.elts)
    return (node.__class__ is ast.Call and node.func.__class__ is ast.Name
            and node.func.id == "slice" and not node.keywords
            and all(_simple(a) for a in node.args))


def _index(node):
    """A name, ``slice(...)`` of simple bounds, or a tuple of these: no ``None`` (a new
    axis, which only ``scatter`` itself reads as one) and no int constant."""
    if node.__class__ is ast.Tuple:
        return bool(node.elts) and all(_index(e) for e in node.elts)
    return node.__class__ is ast.Name or (node.__class__ is ast.Call and _simple(node))


def _scattered(stmt, helper_of, numba_helper):
    """``X = scatter(E, like, index)`` (new zeros, ``E`` written at ``index``), ``E`` an
    elementwise expression: ``X = fused_s<wrap>_<code>(like, index, ...)``, which makes the
    zeros and adds ``E`` into them at ``index`` in one loop where it can (else calls
    ``scatter`` as before)."""
    value = stmt.value
    func = getattr(value, "func", None)
    if not (len(stmt.targets) == 1 and stmt.targets[0].__class__ is ast.Name
            and value.__class__ is ast.Call and func.__class__ is ast.Name
            and helper_of.get(func.id) == "scatter" and len(value.args) == 3
            and not value.keywords and _simple(value.args[1]) and _index(value.args[2])):
        return stmt
    wrap, like, inner = _unwrapped(value.args[0], helper_of)
    if not all(_simple(n) for n in like):
        return stmt
    operands = []
    code = _code(inner, operands)
    if len(operands) > MAX_OPERANDS or inner.__class__ not in (ast.BinOp, ast.UnaryOp):
        return stmt
    stmt.value = ast.Call(func=numba_helper(f"fused_s{wrap}_{code}"),
                          args=[value.args[1], value.args[2], *like, *operands], keywords=[])
    return stmt


def _code(node, operands, adds=frozenset()):
    """The expression ``node`` in prefix form (``m_0_1``), its leaves appended to
    ``operands`` in the order Python evaluates them (``adds``: see :func:`expressions`)."""
    if node.__class__ is ast.BinOp and node.op.__class__ in _OPS:
        op = _OPS[node.op.__class__][0]
        left = _code(node.left, operands, adds)
        return f"{op}_{left}_{_code(node.right, operands, adds)}"
    if _added(node, adds):
        left = _code(node.args[0], operands, adds)
        return f"p_{left}_{_code(node.args[1], operands, adds)}"
    if node.__class__ is ast.UnaryOp and node.op.__class__ is ast.USub:
        return f"n_{_code(node.operand, operands, adds)}"
    operands.append(node)
    return str(len(operands) - 1)


def _parse(tokens, plus="+"):
    """``(text, rest)``: the expression of the prefix tokens over operands ``o<k>``, each
    written ``{k}`` (filled in as ``o0`` or ``o0[i]``); ``p`` (srcad's ``add``) written
    with ``plus`` (``+`` in a loop over elements, else ``add``)."""
    head, rest = tokens[0], tokens[1:]
    if head in _SYMBOL or head == "p":
        left, rest = _parse(rest, plus)
        right, rest = _parse(rest, plus)
        if head == "p" and plus != "+":
            return f"{plus}({left}, {right})", rest
        return f"({left} {_SYMBOL.get(head, '+')} {right})", rest
    if head == "n":
        inner, rest = _parse(rest, plus)
        return f"(-{inner})", rest
    return "{" + head + "}", rest


@functools.cache  # one stub and overload a name, a process
def helper(name, unbroadcast, unbroadcast_to, scatter, add=None):
    """The Numba helper ``name`` (``fused_<target><wrap>_<prefix code>``: ``v`` a view or
    ``r`` a name rebound, ``n``/``u``/``t`` no wrapper, ``unbroadcast``, ``unbroadcast_to``;
    see :func:`fused`; ``s`` a scatter, ``e`` an expression's value, ``h`` its shape; ``w``
    an expression written into its first operand, ``wi`` rank 1 only: :mod:`.numba_update`).
    Expressions of rank 3 or more broadcast by :func:`_broadcast`'s loops."""
    from numba import types
    from numba.core.errors import TypingError
    from numba.extending import overload, register_jitable

    _, (target, wrap), *tokens = name.split("_")
    text, rest = _parse(tokens)
    if rest or not ((target in ("v", "r", "s") and wrap in ("n", "u", "t"))
                    or (target in ("e", "h") and wrap == "n")
                    or (target == "w" and wrap in ("n", "i"))):
        raise ValueError(f"srcad: no fused helper {name}")
    count = len({t for t in tokens if t.isdigit()})
    ops = [f"o{k}" for k in range(count)]
    head = ["base", "index"] if target == "s" else [] if target in ("e", "h", "w") else [
        "out"]
    params = ", ".join(head + (["like"] if wrap in ("u", "t") else []) + ops)
    scope = {}
    exec(f"def stub({params}):\n    raise NotImplementedError\n", scope)  # noqa: S102
    stub = scope["stub"]
    whole = _parse(tokens, "add")[0].format(*ops)  # (add itself outside the loops)
    if wrap in ("u", "t"):
        whole = f"{'unbroadcast' if wrap == 'u' else 'unbroadcast_to'}({whole}, like)"

    def number(t):
        return t in (types.float64, types.int64)

    def typer(out, *rest_types):
        if target == "s":  # scatter's like and index: out, new zeros of the like's shape
            return _scatter_typer(out, rest_types[0], rest_types[1:])
        if target in ("e", "h"):  # no target: ``out`` is the first operand's type
            return _expression_typer([out, *rest_types])
        if target == "w":  # into the first operand (numba_update)
            return _into_typer([out, *rest_types])
        given = list(rest_types[1:] if wrap != "n" else rest_types)
        like = rest_types[0] if wrap != "n" else None
        loop = (isinstance(out, types.Array) and out.ndim == 1 and out.dtype == types.float64
                and fits(given, like))
        lines = [f"def impl({params}):"]
        if loop:
            arrays = [o for o, t in zip(ops, given) if isinstance(t, types.Array)]
            checks = [f"{o}.shape[0] == n and apart(out, {o})" for o in arrays] + wrapped(wrap)
            element = text.format(*(f"{o}[i]" if o in arrays else o for o in ops))
            lines += ["    n = out.shape[0]", f"    if {' and '.join(checks) or 'True'}:",
                      "        for i in range(n):", f"            out[i] += {element}",
                      "        return out"]
        if isinstance(out, types.Number):
            lines += [f"    return out + {whole}"]
        elif isinstance(out, types.Array) or target == "r":  # (a name: rebound to the sum)
            lines += [f"    out += {whole}", "    return out"]
        else:  # X[s] += E on what is not an array: no view to add into
            raise TypingError(f"srcad's numba backend adds into a slice of an array, not of "
                              f"{out}")
        made = {"apart": _apart(register_jitable), "unbroadcast": unbroadcast,
                "unbroadcast_to": unbroadcast_to, "add": add}
        exec("\n".join(lines), made)  # noqa: S102 - made here from the name's own tokens
        return made["impl"]

    def _scatter_typer(base, index, rest_types):
        given = list(rest_types[1:] if wrap != "n" else rest_types)
        like = rest_types[0] if wrap != "n" else None
        lines = [f"def impl({params}):"]
        if (isinstance(base, types.Array) and base.ndim == 1
                and isinstance(index, types.SliceType) and fits(given, like)):
            arrays = [o for o, t in zip(ops, given) if isinstance(t, types.Array)]
            checks = [f"{o}.shape[0] == n" for o in arrays] + wrapped(wrap)
            element = text.format(*(f"{o}[i]" if o in arrays else o for o in ops))
            lines += ["    out = np.zeros(base.shape)", "    view = out[index]",
                      "    n = view.shape[0]", f"    if {' and '.join(checks) or 'True'}:",
                      "        for i in range(n):", f"            view[i] += {element}",
                      "        return out"]
        lines.append(f"    return scatter({whole}, base, index)")
        made = {"np": np, "scatter": scatter, "unbroadcast": unbroadcast,
                "unbroadcast_to": unbroadcast_to, "add": add}
        exec("\n".join(lines), made)  # noqa: S102 - made here from the name's own tokens
        return made["impl"]

    def _expression_typer(given):
        """``e``: the expression's value, a new array made in one loop where every array
        operand is a float64 array of one shape (of rank 1, or C-contiguous); ``h``: its
        shape, without computing it there. Otherwise as NumPy (broadcasting, other dtypes,
        numbers only)."""
        arrays = [(o, t) for o, t in zip(ops, given) if isinstance(t, types.Array)]
        rank = arrays[0][1].ndim if arrays else 0
        loop = rank >= 1 and all(number(t) or (
            isinstance(t, types.Array) and t.dtype == types.float64 and t.ndim == rank
            and (rank == 1 or t.layout == "C")) for t in given)
        lines = [f"def impl({params}):"]
        if loop:
            first = arrays[0][0]
            checks = " and ".join(f"{o}.shape == {first}.shape" for o, _ in arrays[1:])
            lines.append(f"    if {checks or 'True'}:")
            if target == "h":
                lines.append(f"        return {first}.shape")
            else:
                flat = {o: (f"{o}.reshape(-1)" if rank > 1 else o) for o, _ in arrays}
                element = text.format(*(f"f{o}[i]" if o in flat else o for o in ops))
                lines += [f"        out = np.empty({first}.shape)",
                          f"        fout = {'out.reshape(-1)' if rank > 1 else 'out'}",
                          *(f"        f{o} = {v}" for o, v in flat.items()),
                          "        for i in range(fout.shape[0]):",
                          f"            fout[i] = {element}", "        return out"]
        broad = _broadcast(ops, given, text)
        if broad is not None:  # (rank 3 or more: NumPy's loops take Numba seconds to compile)
            lines += broad[0] + [f"    return {broad[1]}" if target == "h" else broad[2]]
        else:
            lines.append(f"    return {whole}" if target == "e" else f"    return ({whole}).shape")
        made = {"np": np, "add": add}
        exec("\n".join(lines), made)  # noqa: S102 - made here from the name's own tokens
        return made["impl"]

    def _into_typer(given):
        """``w``: the expression's value written into operand 0 (an array nothing else holds,
        :mod:`.numba_update`) in one loop where operand 0 is a mutable float64 array (rank 1
        for ``wi``; else rank 1 or C-contiguous), every other array operand a float64 array
        of its shape and layout sharing no memory with it (or it itself, element for
        element); otherwise the new value, as NumPy makes it."""
        first, rank = given[0], getattr(given[0], "ndim", 0)
        loop = (isinstance(first, types.Array) and first.mutable and first.dtype == types.float64
                and (rank == 1 or (wrap == "n" and rank > 1 and first.layout == "C"))
                and all(number(t) or (isinstance(t, types.Array) and t.dtype == types.float64
                                      and t.ndim == rank and (rank == 1 or t.layout == "C"))
                        for t in given[1:]))
        lines = [f"def impl({params}):"]
        if loop:
            arrays = [o for o, t in zip(ops, given) if isinstance(t, types.Array)]
            flat = {o: (f"{o}.reshape(-1)" if rank > 1 else o) for o in arrays}
            checks = [f"{o}.shape == o0.shape" for o in arrays[1:]] + [
                f"apart(fo0, f{o})" for o in arrays[1:]]
            element = text.format(*(f"f{o}[i]" if o in flat else o for o in ops))
            lines += [*(f"    f{o} = {v}" for o, v in flat.items()),
                      f"    if {' and '.join(checks) or 'True'}:",
                      "        for i in range(fo0.shape[0]):",
                      f"            fo0[i] = {element}", "        return o0"]
        broad = _broadcast(ops, given, text)
        lines += broad[0] + [broad[2]] if broad is not None else [f"    return {whole}"]
        made = {"np": np, "add": add, "apart": _apart(register_jitable)}
        exec("\n".join(lines), made)  # noqa: S102 - made here from the name's own tokens
        return made["impl"]

    def fits(given, like):
        return (all(number(t) or (isinstance(t, types.Array) and t.ndim == 1
                                  and t.dtype == types.float64) for t in given)
                and (wrap == "n" or (wrap == "u" and isinstance(like, types.Array)
                                     and like.ndim == 1)
                     or (wrap == "t" and isinstance(like, types.UniTuple) and len(like) == 1
                         and isinstance(like.dtype, types.Integer))))

    scope = {"typer": typer}
    exec(f"def typing({params}):\n    return typer({params})\n", scope)  # noqa: S102
    overload(stub, jit_options={"boundscheck": False})(scope["typing"])
    return stub


def _broadcast(ops, given, text):
    """``(lines, shape, compute)`` of the elementwise expression ``text`` over operands ``ops``
    of Numba types ``given`` broadcast as NumPy does, as loops over the output's axes (an
    operand's index times 0 along an axis it has of length 1): ``lines`` compute the shape
    ``n0, n1, ...`` (a ValueError where NumPy's would be), ``shape`` is its tuple, ``compute``
    the lines making and returning the value. None unless every operand is a float64 array
    or an int64/float64 number and one array has rank 3 or more (NumPy's broadcasting loops
    of such ranks take Numba 2-15 s to compile; these a fraction of a second)."""
    from numba import types

    arrays = [(o, t) for o, t in zip(ops, given) if isinstance(t, types.Array)]
    if not arrays or any(not (t in (types.float64, types.int64) or (
            isinstance(t, types.Array) and t.dtype == types.float64)) for t in given):
        return None
    rank = max(t.ndim for _, t in arrays)
    if rank < 3:
        return None
    lines = []
    for p in range(rank):
        lines.append(f"    n{p} = 1")
        for o, t in arrays:
            q = p - rank + t.ndim
            if q >= 0:
                lines += [f"    if {o}.shape[{q}] != 1:",
                          f"        if n{p} != 1 and n{p} != {o}.shape[{q}]:",
                          "            raise ValueError('operands could not be broadcast "
                          "together')",
                          f"        n{p} = {o}.shape[{q}]",
                          f"    {o}_{p} = 1 if {o}.shape[{q}] != 1 else 0"]
    shape = "(" + "".join(f"n{p}, " for p in range(rank)) + ")"
    compute = [f"    out = np.empty({shape})"]
    pad = "    "
    for p in range(rank):
        compute.append(f"{pad}for i{p} in range(n{p}):")
        pad += "    "

    def item(o, t):
        first = rank - t.ndim
        return f"{o}[{', '.join(f'i{p} * {o}_{p}' for p in range(first, rank))}]"

    element = text.format(*(item(o, t) if isinstance(t, types.Array) else o
                            for o, t in zip(ops, given)))
    compute += [f"{pad}out[{', '.join(f'i{p}' for p in range(rank))}] = {element}",
                "    return out"]
    return lines, shape, "\n".join(compute)


def wrapped(wrap):
    """The run-time condition under which ``unbroadcast``/``unbroadcast_to`` change nothing."""
    return ["like.shape[0] == n"] if wrap == "u" else ["like[0] == n"] if wrap == "t" else []


@functools.cache
def _apart(register_jitable):
    @register_jitable
    def apart(out, other):
        """Whether ``other`` shares no memory with ``out`` (1-D), or is ``out`` itself element
        for element (same first address and stride)."""
        size = out.itemsize
        a, b = np.intp(out.ctypes.data), np.intp(other.ctypes.data)
        sa, sb = out.strides[0], other.strides[0]
        if a == b and sa == sb:
            return True
        n, m = out.shape[0], other.shape[0]
        if n == 0 or m == 0:
            return True
        a_lo, a_hi = min(a, a + sa * (n - 1)), max(a, a + sa * (n - 1)) + size
        b_lo, b_hi = min(b, b + sb * (m - 1)), max(b, b + sb * (m - 1)) + size
        return a_hi <= b_lo or b_hi <= a_lo

    return apart
