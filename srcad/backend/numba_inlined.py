"""A callee's part inlined by Numba into the code calling it, or compiled apart.

Numba gives every function it compiles a library of its own, optimised and made machine code,
then links that IR into the caller's library, optimised and made machine code again. A
part made with ``numba.njit(inline="always")`` (:func:`inlined_part`) is instead copied into
the caller by Numba's untyped inlining pass, typed and lowered once, there: GradBench's ht
(a part called once) compiles in about 47-53 s of CPU instead of 70.

Where the code calls a part inside a loop, it calls a twin compiled apart instead
(:func:`_outlined`, as before parts were inlined): inlined into ode's loop, ``rhs``'s parts
made the gradient 4-9 % slower (CPU time, side by side), as did inlining with bounds checks
turned on for the whole caller. The twin is compiled with bounds checks, as a part always was;
an inlined part is lowered with the caller's options, so a caller compiled without bounds
checks (:func:`srcad.backend.numba_backend.indexes_only_stacks`) that calls a part outside a
loop gets the twin too (an index past the end in the callee raises IndexError as in Python).
:mod:`.numba_scalars`' copies of callees' parts (``__srcad_scalar_copy__``) are always
inlined, in loops too: a caller compiled without bounds checks that holds a copy indexing
anything (itself, or a part it calls) is compiled with them instead.

Imports ``ast``, ``types``; ``numba`` when a part is made.
"""

from __future__ import annotations

import ast
import types


def inlined_part(fn):
    """``fn`` (a callee's generated part) as a Numba dispatcher inlined where it is called
    outside a loop (its own parts called in a loop: twins, :func:`for_caller`)."""
    import numba

    fn, _ = for_caller(fn, True)
    compiled = numba.njit(boundscheck=True, inline="always")(fn)
    compiled.__srcad_source__ = fn.__srcad_source__
    compiled.__srcad_numba_part__ = True
    compiled.__srcad_inlined_part__ = True
    return compiled


def for_caller(fn, boundscheck):
    """``(fn, boundscheck)`` for the code ``fn`` about to be compiled: ``fn`` with the inlined
    parts in its closure that it calls inside a loop (all of them, where it is compiled
    without bounds checks) replaced by their twins compiled apart; compiled with bounds checks
    where a part cannot be so replaced (read as a global, or a cell still empty), or where
    it holds a scalar copy that indexes (:func:`_copy_indexes`)."""
    try:
        values = [cell.cell_contents for cell in fn.__closure__ or ()]
    except ValueError:  # an empty cell (a part being made): checked, to be safe
        return fn, True
    if any(_inlined(fn.__globals__.get(ident)) for ident in fn.__code__.co_names):
        return fn, True
    if not boundscheck and any(_copy_indexes(v, set()) for v in values):
        boundscheck = True  # the copy is lowered with the caller's options: checked
    if not any(_inlined(v) for v in values):
        return fn, boundscheck
    looped = _called_in_loops(fn) if boundscheck else None
    cells = [types.CellType(_outlined(v) if looped is None or name in looped else v)
             for name, v in zip(fn.__code__.co_freevars, values)]
    made = types.FunctionType(fn.__code__, fn.__globals__, fn.__name__, fn.__defaults__,
                              tuple(cells))
    made.__kwdefaults__ = fn.__kwdefaults__
    made.__dict__.update(fn.__dict__)
    return made, boundscheck


def _called_in_loops(fn):
    """The names ``fn``'s source calls inside a ``for`` or ``while`` loop."""
    found = set()
    for loop in ast.walk(ast.parse(fn.__srcad_source__)):
        if loop.__class__ in (ast.For, ast.While):
            found.update(node.func.id for node in ast.walk(loop) if node.__class__ is ast.Call
                         and node.func.__class__ is ast.Name)
    return found


def _copy_indexes(value, seen):
    """Whether ``value`` is a scalar copy (:mod:`.numba_scalars`) whose code, or the code of
    a part it calls (inlined into it, hence into its caller), subscripts anything."""
    if not getattr(value, "__srcad_scalar_copy__", False):
        return False
    return _indexes(value, seen)


def _indexes(part, seen):
    if id(part) in seen:
        return False
    seen.add(id(part))
    fn = part.py_func
    if any(node.__class__ is ast.Subscript for node in ast.walk(ast.parse(fn.__srcad_source__))):
        return True
    for cell in fn.__closure__ or ():
        try:
            value = cell.cell_contents
        except ValueError:  # an empty cell: indexing, to be safe
            return True
        if getattr(value, "__srcad_numba_part__", False) and hasattr(value, "py_func") and (
                _indexes(value, seen)):
            return True
    return False


def _inlined(value):
    return getattr(value, "__srcad_inlined_part__", False)


def _outlined(value):
    """An inlined part's twin compiled apart, with bounds checks (made once); anything else
    as it is."""
    if not _inlined(value):
        return value
    twin = getattr(value, "__srcad_outlined__", None)
    if twin is None:
        import numba

        twin = numba.njit(boundscheck=True)(value.py_func)
        twin.__srcad_source__ = value.__srcad_source__
        twin.__srcad_numba_part__ = True
        value.__srcad_outlined__ = twin
    return twin
