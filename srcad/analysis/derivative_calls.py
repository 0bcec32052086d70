"""A derivative srcad made, called inside a function compiled by the Numba backend.

The Python backend differentiates ``y = d_f(x, w)`` (``d_f = srcad.grad(f)``, passed in as an
argument or read as a global) when it runs: ``derivative_fwd`` asks ``d_f`` for the code it
runs for the argument types met, then splits that code (:mod:`srcad.runtime.derivatives`).
Compiled code cannot choose code when it runs; but the function differentiated is specialised
on the identity of the functions it is given (``srcad.specialise.cache_key``) and the kinds
and ranks of the call's arguments are known once its values are analysed, so the code ``d_f``
runs for them is known before compiling. For callees that are compiled with their caller
(``callees.compiles_all``: the Numba backend) the kinds pass reads such a call as a call of
that code (:func:`code_for`, the Python backend's generated function), and :func:`resolve`
makes it one, which the Numba backend then splits and compiles like any user callee,
differentiated again by the outer sweep.

A call whose arguments are not numbers, float arrays of a known rank or constants, or may
be complex, is left as it is (refused by ``numba_backend.check``, naming the line).
``srcad.jvp(f, primals, tangents)`` written in code (``srcad.nested.JvpOf``) is read as a call of
its forward-mode code the same way.

Imports ``numpy``, ``srcad.core``, ``srcad.errors``.
"""

from __future__ import annotations

import numpy as np

from ..core import ir
from ..core.functions import is_derivative
from ..core.kinds import ANY, ARRAY, MIXED, SCALAR
from ..errors import SrcadError


def compiled_with_caller(callees):
    """Whether ``callees`` compile a callee with the code calling it (the Numba backend's)."""
    return getattr(callees, "compiles_all", False)


def code_for(prim, analysis):
    """The code the derivative ``prim.fn`` (made by ``grad`` or ``value_and_grad``) runs for
    the call ``prim``'s arguments, as ``analysis`` knows them now, or None (not such a call,
    or arguments it cannot tell; while the kinds are being solved, a guess that makes srcad
    refuse the derivative's code is no information either)."""
    if not is_derivative(prim.fn):
        return None
    made = prim.fn.__srcad__
    mode = getattr(made, "_mode", None)
    if mode not in ("grad", "value_and_grad", "jvp") or mode == "jvp" and (
            prim.kwargs or not hasattr(made, "_code")):
        return None
    args = [_example(a, analysis) for a in prim.args]
    kwargs = {k: _example(a, analysis) for k, a in prim.kwargs.items()}
    if any(v is _UNKNOWN for v in args + list(kwargs.values())):
        return None
    try:
        if mode == "jvp":  # srcad.jvp(f, ...) in code: its forward-mode code (its
            return made._code(args)[0]  # parameters: the primals', then the tangents')
        return made.python_code(made._bind(args, kwargs))
    except (SrcadError, TypeError):
        return None


def pending(prim, analysis):
    """Whether ``prim`` is a call of a derivative compiled with its caller whose code
    :func:`code_for` does not know yet (its arguments' kinds or ranks are being worked out:
    no information yet, which the kinds pass's fixed point joins as such)."""
    return (compiled_with_caller(analysis.callees) and is_derivative(prim.fn)
            and getattr(prim.fn.__srcad__, "_mode", None) in ("grad", "value_and_grad", "jvp"))


def kind_of(prim, analysis):
    """The kind of a call of a derivative compiled with its caller: its argument's for a
    gradient (:func:`gradient_like`), else its code's result's; None (no information yet)
    while the arguments' kinds are being solved and the code is not known; False for any
    other call."""
    if not pending(prim, analysis):
        like = gradient_like(prim, analysis, compiled=False)
        return False if like is None else analysis.kind(like)
    like = gradient_like(prim, analysis)
    if like is not None:
        return analysis.kind(like)
    call = analysis._user_call(prim)
    if call is not None:
        return analysis.callees.result_kind(*call)
    return None if analysis._solving else ANY


def rank_of(prim, analysis):
    """The rank of such a call's result (as :func:`kind_of`; MIXED: not one known rank)."""
    like = gradient_like(prim, analysis, compiled=pending(prim, analysis))
    if like is not None:
        return analysis._rank_of(like) if isinstance(like, ir.Var) else np.ndim(like.value)
    if not pending(prim, analysis):
        return False
    call = analysis._user_call(prim)
    if call is not None:
        rank = analysis.callees.result_rank(*call)
        return rank if rank is not None and rank >= 1 else MIXED
    return None if analysis._solving else MIXED


def as_code_call(prim, analysis):
    """``prim`` as a call of the code its derivative runs (:func:`code_for`), for callees
    compiled with their caller; else None."""
    if not compiled_with_caller(analysis.callees):
        return None
    code = code_for(prim, analysis)
    return None if code is None else ir.Prim(code, prim.args, prim.kwargs, prim.spelling)


def callee_ranks(analysis, arguments, arity):
    """The ranks of a callee's array arguments (parameter -> rank), which forward mode's
    callees compiled with their caller (or batched: ``ranked`` callees) are made for; None
    otherwise."""
    if arity is not None or not (compiled_with_caller(analysis.callees)
                                 or getattr(analysis.callees, "ranked", False)):
        return None
    return analysis.arg_ranks(arguments)


def gradient_like(prim, analysis, compiled=True):
    """For a call of a derivative made by ``grad`` with respect to one parameter, compiled
    with its caller: the argument given for that parameter, which its gradient is like (its
    kind and rank: the kinds pass cannot always tell them from the generated code, whose
    ``scatter`` and the like it reads as of any kind); else None. ``compiled=False``: such a
    call in the Python backend's code (run by ``derivative_fwd``), for an argument that is an
    array of a known rank >= 1 or a number: its gradient is an array of its shape, or a number
    (``grad``'s contract, its dtype guarded; particle's force, known a vector in the outer
    loop)."""
    if compiled and not compiled_with_caller(analysis.callees) or not is_derivative(prim.fn):
        return None
    made = prim.fn.__srcad__
    if getattr(made, "_mode", None) != "grad" or not made._single or getattr(
            made, "_aux", False) or getattr(made, "_holomorphic", False):  # (pairs; complex)
        return None
    try:
        bound = made._bind(prim.args, prim.kwargs)
    except TypeError:
        return None
    atom = bound.arguments.get(made._wrt[0])
    if not compiled and not (isinstance(atom, ir.Var) and (
            analysis.kinds.get(atom.name) == SCALAR or analysis.rank(atom) is not None)):
        # (a 0-d array's gradient is a NumPy number: only arrays of a known rank >= 1)
        return None
    return atom if isinstance(atom, (ir.Var, ir.Const)) else None


def jvp_items(prim, analysis):
    """For a call of ``srcad.jvp``'s code (``J(*primals, *tangents) -> (value, tangent)``)
    compiled with its caller: ``{position: (kind, rank)}`` of the pair, both like the value of
    the function for the primals (the callees work it out from its source; the generated
    code's tangent passes through helpers the kinds pass reads as of any kind); else None."""
    if not (compiled_with_caller(analysis.callees) and is_derivative(prim.fn)):
        return None
    made = prim.fn.__srcad__
    if getattr(made, "_mode", None) != "jvp" or prim.kwargs or not hasattr(made, "_target"):
        return None
    target = made._target
    user = target.__srcad__._user if hasattr(target, "__srcad__") else target
    primals = dict(zip(made._params, prim.args[:made._n]))
    if len(primals) != made._n or not all(isinstance(a, (ir.Var, ir.Const))
                                          for a in primals.values()):
        return None
    kinds = {p: analysis.kind(a) for p, a in primals.items()}
    if any(k is None for k in kinds.values()):
        return None
    ranks = {p: analysis.rank(a) for p, a in primals.items() if isinstance(a, ir.Var)}
    kind = analysis.callees.result_kind(user, kinds, None, ranks)
    if kind not in (SCALAR, ARRAY):
        return None
    rank = analysis.callees.result_rank(user, kinds, None, ranks) if kind == ARRAY else None
    return {0: (kind, rank), 1: (kind, rank)}


def analysed(fn, analyse):
    """``analyse()``, an :class:`Analysis` of ``fn``; for callees compiled with their caller,
    made again after :func:`resolve` made calls of derivatives calls of their code."""
    analysis = analyse()
    if compiled_with_caller(analysis.callees) and resolve(fn, analysis):
        return analyse()
    return analysis


def resolve(fn, analysis):
    """In place: each call in ``fn`` (SSA) of a derivative whose code :func:`code_for` knows
    becomes a call of that code. Whether any call changed (the caller analyses ``fn`` again:
    they are user calls now)."""
    changed = False
    for stmt in ir.walk(fn.body):
        prim = getattr(stmt, "value", None)
        if isinstance(prim, ir.Prim) and is_derivative(prim.fn):
            code = code_for(prim, analysis)
            if code is not None:
                prim.fn = code
                changed = True
    return changed


_UNKNOWN = object()


def _example(atom, analysis):
    """A value of the kind (and rank) ``atom`` has, for choosing the code a derivative runs
    (srcad specialises on kinds, ranks and dtypes, not on values or sizes): a constant's own
    value; a float, an int (a loop counter, say) or a float array of the atom's rank.
    ``_UNKNOWN`` otherwise."""
    if isinstance(atom, ir.Const):
        return atom.value
    if not isinstance(atom, ir.Var) or atom.name in getattr(analysis, "complex", ()):
        return _UNKNOWN
    kind = analysis.kind(atom)
    if kind == SCALAR:
        if atom.name in analysis.bools:
            return _UNKNOWN
        return 1 if atom.name in analysis.ints else 0.5
    if kind == ARRAY:
        rank = analysis.rank(atom)
        if rank is None:
            return _UNKNOWN
        return np.full((2,) * rank, 0.5)
    return _UNKNOWN
