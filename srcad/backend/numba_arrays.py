"""``np.einsum``, its gradient, ``grad_reshape``, ``transpose_grad`` (of ``a.T``),
``scatter`` at an index holding ``None``, ``@`` of stacks of matrices (:func:`matmul`) and
``np.array`` of an array (:func:`array_of`, its gradient :func:`grad_array_of`), under the
Numba backend.

Numba has no ``np.einsum``. :func:`srcad.backend.numba_backend.check` writes
``np.einsum(spec, a, b)`` (one to three operands, a constant ``spec``) as :func:`einsum` and
srcad's ``grad_einsum(g, p, spec, ...)`` as :func:`grad_einsum`; each is made, when Numba
compiles, as the loop nest the subscripts spell: the output's letters outside, the summed ones
inside (a letter repeated within an operand, a diagonal, is one loop). The gradient into
operand ``k`` is the same nest with ``k``'s letters outside: ``g`` times the other operands,
summed over the letters ``k`` lacks; for a diagonal, only the diagonal is written. Refused
(a typing error, reported as a SrcadError): ``...``, operands other than float arrays; an
axis of length 1 that NumPy would broadcast raises a ValueError. The sums run in loop order
(NumPy's einsum can differ in the last bits).

Imports ``numba`` (through :mod:`.numba_helpers`, when a function is compiled).
"""

from __future__ import annotations

import numpy as np
from numba import types
from numba.core.errors import TypingError
from numba.extending import overload

from . import numba_batched_helpers

_SHAPED = "srcad (numba backend): einsum operands whose lengths differ (NumPy would broadcast)"


def einsum1(spec, a):
    """Stub: ``np.einsum(spec, a)``."""
    raise NotImplementedError


def einsum2(spec, a, b):
    """Stub: ``np.einsum(spec, a, b)``."""
    raise NotImplementedError


def einsum3(spec, a, b, c):
    """Stub: ``np.einsum(spec, a, b, c)``."""
    raise NotImplementedError


def grad_einsum1(g, p, spec, a):
    """Stub: srcad's ``grad_einsum``; ``(a, b, c)[p - 1]`` is the shape of the operand wanted."""
    raise NotImplementedError


def grad_einsum2(g, p, spec, a, b):
    """Stub: srcad's ``grad_einsum`` of two operands."""
    raise NotImplementedError


def grad_einsum3(g, p, spec, a, b, c):
    """Stub: srcad's ``grad_einsum`` of three operands."""
    raise NotImplementedError


def grad_reshape(g, a, order=None):
    """Stub: srcad's ``grad_reshape``, ``g`` reshaped to ``a``'s shape (C order)."""
    raise NotImplementedError


def _letters(spec, count):
    """The inputs' subscripts and the output's (implicit: the letters found once, sorted)."""
    if not isinstance(spec, types.StringLiteral):
        raise TypingError(f"srcad's numba backend: einsum with constant subscripts (got {spec})")
    text = spec.literal_value.replace(" ", "")
    if "." in text:
        raise TypingError("srcad's numba backend: einsum without '...'")
    inputs, arrow, output = text.partition("->")
    ins = inputs.split(",")
    if not arrow:
        output = "".join(sorted(c for c in set(inputs) if inputs.count(c) == 1))
    if len(ins) != count or not all(s.isalpha() for s in ins) or not (
            output.isalpha() or output == "") or len(set(output)) != len(output) or (
            set(output) - set(inputs)):
        raise TypingError(f"srcad's numba backend: einsum subscripts {text!r} for {count} "
                          "operands")
    return ins, output


def _nest(ins, names, output, target, body, sizes_from):
    """The lines of a loop nest: sizes read from ``sizes_from`` (letter -> (name, axis)) and
    checked equal, loops over ``output``'s letters outside and the rest inside, ``acc``
    summed over the inner ones and stored by ``target``."""
    lines = []
    for c, (arr, axis) in sizes_from.items():
        lines.append(f"    n_{c} = {arr}[{axis}]")
    for s, arr in zip(ins, names):
        for axis, c in enumerate(s):
            if sizes_from[c] != (f"{arr}.shape", axis):
                lines += [f"    if {arr}.shape[{axis}] != n_{c}:",
                          f"        raise ValueError({_SHAPED!r})"]
    inner = [c for c in dict.fromkeys("".join(ins)) if c not in output]
    indent = "    "
    if output and inner and target.endswith(" = acc"):
        # a small output summed over much (gmm's dls: k x d x d summed over n points): the
        # sums' letters outside and each output element added into in the same order, so
        # the inner loop runs along the output's last axis (the same numbers: each element's
        # terms are added in the same order, from 0.0)
        size = " * ".join(f"n_{c}" for c in output)
        summed = " * ".join(f"n_{c}" for c in inner)
        lines.append(f"    if ({size}) <= ({summed}):")
        lines.append(f"        {target.split(' = ')[0].split('[')[0]}.fill(0.0)")
        indent = "        "
        for c in inner + list(output):
            lines.append(f"{indent}for i_{c} in range(n_{c}):")
            indent += "    "
        lines.append(f"{indent}{target.split(' = ')[0]} += {body}")
        lines.append("    else:")
        indent = "        "
    start = len(indent)
    for c in output:
        lines.append(f"{indent}for i_{c} in range(n_{c}):")
        indent += "    "
    lines.append(f"{indent}acc = 0.0")
    for c in inner:
        lines.append(f"{indent}for i_{c} in range(n_{c}):")
        indent += "    "
    lines.append(f"{indent}acc += {body}")
    lines.append(" " * (start + 4 * len(output)) + target)
    return lines


def _index(arr, s):
    return f"{arr}[{', '.join('i_' + c for c in s)}]" if s else arr


def _floats(arrays):
    if not all(isinstance(t, types.Array) and isinstance(t.dtype, types.Float)
               and t.ndim > 0 for t in arrays):
        raise TypingError(f"srcad's numba backend: einsum of float arrays (got {arrays})")


def _compile(lines):
    scope = {"np": np, "einsum2": einsum2}
    exec("\n".join(lines), scope)  # noqa: S102 - made here from the constant subscripts
    return scope["impl"]


def _einsum(spec, *operands):
    ins, output = _letters(spec, len(operands))
    _floats(operands)
    names = ["a", "b", "c"][:len(operands)]  # the stubs' names
    split = numba_batched_helpers.pairs(ins, output) if len(operands) == 3 else None
    if split is not None:  # two einsums of two: each a matrix product where large
        (first, made), (then, _) = split
        pair = ", ".join(names[i] for i in made)
        return _compile([f"def impl(spec, {', '.join(names)}):",
                         f"    t = einsum2({first!r}, {pair})",
                         f"    return einsum2({then!r}, t, {names[3 - sum(made)]})"])
    sizes = {}
    for s, arr in zip(ins, names):
        for axis, c in enumerate(s):
            sizes.setdefault(c, (f"{arr}.shape", axis))
    body = " * ".join(_index(arr, s) for s, arr in zip(ins, names))
    target = f"{_index('out', output)} = acc" if output else "return acc"
    lines = [f"def impl(spec, {', '.join(names)}):"]
    nest = _nest(ins, names, output, target, body, sizes)
    lines += nest
    if output:
        at = next(i for i, ln in enumerate(lines) if ln.startswith(("    for ", "    if (")))
        lines.insert(at, f"    out = np.empty(({''.join(f'n_{c}, ' for c in output)}))")
        lines.append("    return out")
    if len(operands) == 2 and all(t.dtype == types.float64 for t in operands) and output:
        lines[1:1] = numba_batched_helpers.contraction(*ins, output, _SHAPED) or []
    return _compile(lines)


def _grad_einsum(g, p, spec, *args):
    if not isinstance(p, types.IntegerLiteral) or not 1 <= p.literal_value <= len(args):
        raise TypingError(f"srcad's numba backend: grad_einsum of a constant operand (got {p})")
    k = p.literal_value - 1
    ins, output = _letters(spec, len(args))
    shape = args[k]
    if not (isinstance(shape, types.BaseTuple) and len(shape) == len(ins[k]) > 0):
        raise TypingError(f"srcad's numba backend: grad_einsum given the shape {shape}")
    _floats([t for i, t in enumerate(args) if i != k])
    if not (isinstance(g, types.Array) and isinstance(g.dtype, types.Float)
            and g.ndim == len(output)) and not (output == "" and isinstance(g, types.Float)):
        raise TypingError(f"srcad's numba backend: grad_einsum of the gradient {g}")
    names = ["a", "b", "c"][:len(args)]
    sizes = {}
    for axis, c in enumerate(ins[k]):
        sizes.setdefault(c, (names[k], axis))
    for s, arr in zip(ins, names):
        if arr != names[k]:
            for axis, c in enumerate(s):
                sizes.setdefault(c, (f"{arr}.shape", axis))
    for axis, c in enumerate(output):
        sizes.setdefault(c, ("g.shape", axis))
    others = [(s, arr) for i, (s, arr) in enumerate(zip(ins, names)) if i != k]
    body = " * ".join([_index("g", output)] + [_index(arr, s) for s, arr in others])
    wanted = "".join(dict.fromkeys(ins[k]))
    lines = [f"def impl(g, p, spec, {', '.join(names)}):"]
    nest = _nest([output] + [s for s, _ in others], ["g"] + [a for _, a in others], wanted,
                 f"{_index('out', ins[k])} = acc", body, sizes)
    lines += nest
    at = next(i for i, ln in enumerate(lines) if ln.startswith(("    for ", "    if (")))
    dims = "".join(f"{names[k]}[{i}], " for i in range(len(ins[k])))
    lines.insert(at, f"    out = np.zeros(({dims}))")
    for axis, c in enumerate(ins[k]):
        if sizes[c] != (names[k], axis):
            lines.insert(at, f"    if {names[k]}[{axis}] != n_{c}:\n"
                             f"        raise ValueError({_SHAPED!r})")
    lines.append("    return out")
    return _compile(lines)


overload(einsum1, prefer_literal=True)(lambda spec, a: _einsum(spec, a))
overload(einsum2, prefer_literal=True)(lambda spec, a, b: _einsum(spec, a, b))
overload(einsum3, prefer_literal=True)(lambda spec, a, b, c: _einsum(spec, a, b, c))
overload(grad_einsum1, prefer_literal=True)(lambda g, p, spec, a: _grad_einsum(g, p, spec, a))
overload(grad_einsum2, prefer_literal=True)(
    lambda g, p, spec, a, b: _grad_einsum(g, p, spec, a, b))
overload(grad_einsum3, prefer_literal=True)(
    lambda g, p, spec, a, b, c: _grad_einsum(g, p, spec, a, b, c))


@overload(grad_reshape)
def _grad_reshape(g, a, order=None):
    if not ((order is None or isinstance(order, (types.NoneType, types.Omitted)))
            and isinstance(a, types.Array)
            and isinstance(g, types.Array)):
        raise TypingError(f"srcad's numba backend reshapes an array gradient to an array's "
                          f"shape in C order (got {g} to {a}, order {order})")
    return lambda g, a, order=None: np.ascontiguousarray(g).reshape(a.shape)


def transpose_grad(g, axes=None):
    """Stub: srcad's ``transpose_grad``, the gradient of ``a.T`` (``np.transpose(a)``)."""
    raise NotImplementedError


@overload(transpose_grad)
def _transpose_grad(g, axes=None):
    if (axes is None or isinstance(axes, (types.NoneType, types.Omitted))) and isinstance(
            g, types.Array):
        return lambda g, axes=None: np.transpose(g)
    raise TypingError(f"srcad's numba backend has the gradient of a.T of an array only (got "
                      f"{g}, axes {axes})")


def without_none(value, like, index, add=False):
    """The implementation of ``scatter(value, like, index)`` (or, ``add``, of
    ``scatter_add(out, value, index)``, ``like`` being ``out``) for an index (types) holding
    ``None`` among ints and slices: ``value`` has a length-1 axis at each ``None``, dropped
    before it is written at the rest of the index (called by :mod:`.numba_helpers`)."""
    members = index.types
    kept = [i for i, t in enumerate(members) if not isinstance(t, types.NoneType)]
    if not (isinstance(like, types.Array) and isinstance(value, types.Array)
            and all(isinstance(members[i], (types.Integer, types.SliceType)) for i in kept)
            and any(isinstance(members[i], types.SliceType) for i in kept)):
        raise TypingError(f"srcad's numba backend scatters an array at slices, ints and None "
                          f"(got {value} at {index} of {like})")
    at = "(" + "".join(f"index[{i}], " for i in kept) + ")"
    first = "out" if add else "np.zeros(like.shape)"
    params = "out, value, index" if add else "value, like, index"
    lines = [f"def impl({params}):", f"    out = {first}", f"    view = out[{at}]",
             "    if value.size != view.size:",
             "        raise ValueError('srcad (numba backend): a gradient shaped unlike its "
             "value')",
             f"    view[:] {'+' if add else ''}= np.ascontiguousarray(value).reshape(view.shape)"]
    if not add:
        lines.append("    return out")
    return _compile(lines)


def matmul(a, b):
    """Stub: ``a @ b``. Numba's ``@`` takes vectors and matrices; a stack of matrices (rank
    3) is multiplied matrix by matrix, its stacks' lengths equal or one (NumPy broadcasts)."""
    raise NotImplementedError


@overload(matmul)
def _matmul(a, b):
    if not (isinstance(a, types.Array) and isinstance(b, types.Array)):
        raise TypingError(f"srcad's numba backend multiplies arrays with @, not {a} @ {b}")
    if a.ndim <= 2 and b.ndim <= 2:
        return lambda a, b: a @ b
    if not (min(a.ndim, b.ndim) >= 2
            and isinstance(a.dtype, types.Float) and isinstance(b.dtype, types.Float)):
        raise TypingError(f"srcad's numba backend multiplies stacks of float matrices (rank "
                          f"3 or more) with @, not {a} @ {b}")
    if a.dtype == b.dtype == types.float64:  # loops: no BLAS call per small matrix
        return _compile(numba_batched_helpers.matmul_stacks(a, b))
    if a.ndim > 3 or b.ndim > 3:
        raise TypingError(f"srcad's numba backend multiplies stacks of float64 matrices of "
                          f"rank 4 or more with @, not {a} @ {b}")
    left = "a[k if a.shape[0] > 1 else 0]" if a.ndim == 3 else "a"
    right = "b[k if b.shape[0] > 1 else 0]" if b.ndim == 3 else "b"
    count = " max(a.shape[0], b.shape[0])" if a.ndim == b.ndim else (
        " a.shape[0]" if a.ndim == 3 else " b.shape[0]")
    lines = ["def impl(a, b):", f"    n ={count}"]
    if a.ndim == b.ndim:
        lines += ["    if a.shape[0] != b.shape[0] and min(a.shape[0], b.shape[0]) != 1:",
                  "        raise ValueError('matmul: mismatch in the stacks of matrices')"]
    lines += ["    out = np.empty((n, a.shape[-2], b.shape[-1]))",
              "    for k in range(n):",
              f"        out[k] = np.ascontiguousarray({left}) @ np.ascontiguousarray({right})",
              "    return out"]
    return _compile(lines)


def broadcast_as(value, like):
    """Stub: srcad's ``broadcast_as`` (a tangent broadcast to its value's shape)."""
    raise NotImplementedError


@overload(broadcast_as)
def _broadcast_as(value, like):
    if isinstance(like, types.Array) and isinstance(value, types.Number):
        return lambda value, like: np.full(like.shape, value)
    if isinstance(like, types.Number) and isinstance(value, types.Number):
        return lambda value, like: value  # a tangent written into an item of an array
    if not (isinstance(like, types.Array) and isinstance(value, types.Array)
            and value.ndim <= like.ndim):
        raise TypingError(f"srcad's numba backend broadcasts a number or an array to an "
                          f"array's shape, not {value} to {like}")
    if value.ndim == like.ndim:
        def same_rank(value, like):
            if value.shape == like.shape:
                return np.asarray(value)
            return np.ascontiguousarray(np.broadcast_to(value, like.shape))
        return same_rank
    return lambda value, like: np.ascontiguousarray(np.broadcast_to(value, like.shape))


#: the zero a float64 array's stand-in shows at every index (Numba compiles it in, read-only)
_ZERO = np.zeros(1)


def layout(x):
    """Stub: srcad's ``layout``, a stand-in for ``x`` where only its layout is read."""
    raise NotImplementedError


@overload(layout)
def _layout(x):
    # an array of numbers: a read-only view of one zero, broadcast to its shape (every stride
    # 0), so no array is kept alive for its shape alone (as the Python helper's stand-in);
    # a tuple, its items' layouts; anything else (a number, a list: it may change) itself
    if isinstance(x, types.Array) and x.ndim >= 1 and x.dtype == types.float64:
        return lambda x: np.broadcast_to(_ZERO, x.shape)  # (a constant: nothing allocated)
    if isinstance(x, types.Array) and x.ndim >= 1 and isinstance(
            x.dtype, (types.Integer, types.Float, types.Complex, types.Boolean)):
        return lambda x: np.broadcast_to(np.zeros(1, x.dtype), x.shape)
    if isinstance(x, types.BaseTuple) and len(x) and any(
            isinstance(t, (types.Array, types.BaseTuple)) for t in x.types):
        items = ", ".join(f"layout(x[{k}])" for k in range(len(x)))
        scope = {"layout": layout}
        exec(f"def items(x):\n    return ({items},)", scope)  # noqa: S102 - made here
        return scope["items"]
    return lambda x: x


def array_of(x):
    """Stub: ``np.array(x)`` of a name or an expression (no display): of an array, a copy, as
    NumPy makes it (Numba's ``np.array`` takes no array); of a list or tuple, Numba's."""
    raise NotImplementedError


@overload(array_of)
def _array_of(x):
    if isinstance(x, types.Array):
        return lambda x: x.copy()  # (the same dtype; C order, as np.array gives)
    return lambda x: np.array(x)


def grad_array_of(g, obj):
    """The implementation of ``grad_array`` (the gradient of ``np.array(obj)``) for an array
    ``obj``: ``g`` itself, shaped like it (as srcad's Python helper); refused for anything
    but a list or tuple of numbers (:mod:`.numba_helpers`) or an array."""
    if isinstance(obj, types.Array) and isinstance(g, types.Array) and g.ndim == obj.ndim:
        def same(g, obj):
            if g.shape != obj.shape:
                raise ValueError("srcad (numba backend): a gradient shaped unlike its value")
            return g
        return same
    raise TypingError(f"srcad's numba backend has the gradient of np.array of an array, a list "
                      f"of numbers or rows of numbers only (got {obj})")
