"""Backward parts that add into their caller's gradient arrays (srcad issue 18).

For ``h = cell(w, h)`` in a loop, a caller whose gradient ``dw`` is an array it made and that
nothing else holds (``Reverse.fresh``: ``zeros_array(w)`` before the loop, say) would add
each call's part into it in place::

    dw_part, dh = cell_bwd(h_ctx, dh_1)
    dw += dw_part

It calls instead the variant of the backward part that takes ``dw`` after the seed and adds
into it, as a person writing the adjoint by hand would::

    dh = cell_bwd_into(h_ctx, dh_1, dw)

Inside that variant the parameter's gradient starts live and new (the caller's array), so the
sweep's own rules add into it in place: ``dw += g * h``, ``dw[1:] += g`` where the plain
variant made ``dw = scatter(g, w, slice(1, None))`` and returned it.

**Why it is sound.** The call replaces ``dw += dw_part`` exactly where the caller would have
written that statement (its gradient live, an array, in ``fresh``, not one number standing
for an array, not the gradient of a value that may be complex, passed for one parameter
only, of a known rank above 0: NumPy's arithmetic on 0-d arrays gives numbers, which nothing
adds into in place): the caller's array receives the same sum. Inside the variant, the
buffer's name is only ever the target of ``+=`` (of the name or of a subscript of it) with a
value that does not read it, or the buffer handed on to another variant's call
(:func:`adds_only`, checked on the tidied code); when that does not hold, or the callee
returns the parameter itself (``return u if c else u``: its seed would be the buffer's name,
fuzz22), the variant is not made (:class:`Unproved`) and the caller calls the plain backward
part. So the callee neither
reads the caller's array, nor keeps it, nor returns it.

**Where it is not used.** Code srcad may read again (a derivative of a derivative, a
Hessian, Jacobians of gradients) is made without it: a derivative made with these calls
carries its plain form, made again without them when asked (``__srcad_numpy_form__``, as for
the array API's), whose callees are split by ``pipeline.PLAIN_CALLEES``; code srcad
generated (a derivative differentiated again) never uses it; nor the Dask/CuPy and array-API
backends (their ``Callees.into_calls`` is unset), nor forward mode. The Numba backend does
(``pipeline.NUMBA_CALLEES``; ``NUMBA_PLAIN_CALLEES`` for code srcad made).

Imports: ``srcad.core``.
"""

from __future__ import annotations

import ast

from ..core.kinds import ARRAY
from ..core.walk import walk_nodes


class Unproved(Exception):
    """A variant whose code does not pass :func:`adds_only`: the caller calls the plain
    backward part (never seen by the user)."""


def buffers(sweep, wrt, arguments, seed):
    """The parameters in ``wrt`` (of a call of a user function, its arguments bound as
    ``arguments``) for which ``sweep`` passes its own gradient array to the backward part
    (see the module docstring); ``seed``: the name of the gradient the call is given."""
    if not getattr(sweep.an.callees, "into_calls", False):
        return []
    atoms = [arguments[p].name for p in wrt]
    chosen = []
    for p in wrt:
        atom = arguments[p]
        gname = sweep.g(atom.name)
        if (atoms.count(atom.name) == 1 and gname != seed and gname in sweep.live
                and gname in sweep.fresh and gname not in sweep.uniform
                and sweep.an.kinds.get(atom.name) == ARRAY
                and sweep.an.rank(atom) is not None  # not 0-d: a 0-d array's sum is a number
                and atom.name not in sweep.an.complex and not sweep.an.is_complex(atom)):
            chosen.append(p)
    return chosen


def split(sweep, fn, wrt, arguments, kinds, arity, ranks, seed):
    """``(entry, buffers)``: the split pair of the callee ``fn`` for a call whose backward part
    adds into the caller's arrays for the parameters ``buffers`` (:func:`buffers`), or the
    plain pair and no buffers where the variant's code is :class:`Unproved`."""
    chosen = buffers(sweep, wrt, arguments, seed)
    if chosen:
        try:
            return sweep.an.callees.split(fn, wrt, kinds, arity, ranks, tuple(chosen)), chosen
        except Unproved:
            pass
    return sweep.an.callees.split(fn, wrt, kinds, arity, ranks), []


def adds_only(fdef, names, parts, rows=("add_row", "add_into")):
    """Whether, in the function ``fdef`` (whose parameters include ``names``), every
    occurrence of each name in ``names`` is the target of ``+=`` (the name, or a subscript of
    it; or the first argument of one of ``rows``, the helpers
    :func:`srcad.runtime.items.add_row` and ``add_into``, ``dw[i] += g`` written so), whose
    value and index do not mention it, or an argument after the first two of a call of one
    of ``parts`` (the variants that add into what they are given: a call's
    result may be another's argument, ``f_into(c, g_into(c2, g, dw), dw)``, evaluated
    first), that name given once to that call."""
    names = set(names)
    if not names <= {a.arg for a in fdef.args.args}:
        return False
    allowed = set()
    for node in walk_nodes(fdef):
        if isinstance(node, ast.AugAssign) and isinstance(node.op, ast.Add):
            target = node.target
            base = target.value if isinstance(target, ast.Subscript) else target
            if isinstance(base, ast.Name) and base.id in names:
                inside = [node.value] + ([target.slice] if base is not target else [])
                if any(isinstance(n, ast.Name) and n.id in names for part in inside
                       for n in walk_nodes(part)):
                    return False
                allowed.add(id(base))
        elif isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and (
                node.func.id in rows) and len(node.args) == 3 and not node.keywords:
            base = node.args[0]
            if isinstance(base, ast.Name) and base.id in names:
                if any(isinstance(n, ast.Name) and n.id in names for part in node.args[1:]
                       for n in walk_nodes(part)):
                    return False
                allowed.add(id(base))
        elif isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and (
                node.func.id in parts) and not node.keywords:
            given = [a.id for a in node.args[2:] if isinstance(a, ast.Name)]
            if len(given) != len(node.args[2:]) or len(set(given)) != len(given):
                return False
            allowed.update(id(a) for a in node.args[2:] if a.id in names)
    return all(id(n) in allowed for n in walk_nodes(fdef)
               if isinstance(n, ast.Name) and n.id in names)


def returned(wrt, into):
    """The parameters whose gradients a backward part made for ``into`` returns."""
    return [w for w in wrt if w not in into]
