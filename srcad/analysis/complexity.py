"""Which values may be complex: a may-analysis beside kinds and activity.

After :func:`complex_values`, a name outside the set it returns holds a real value (or no
number at all) whenever the function runs with arguments of the kinds it was made for. A
value may be complex when it is a parameter named under ``kinds[COMPLEX]``, a complex
constant (``1j``, a global complex array, ``dtype=complex``), the result of a rule declared
complex (``np.fft.fft``, ``complex(a, b)``), of a user function whose own analysis says so,
or of any other operation with an operand that may be complex (``x * 1j``, ``np.exp(z)``),
except rules declared real (``np.abs``, ``np.real``, ``np.angle``) and comparisons; and the
result of a function with no rule from a module whose functions may return complex numbers for
real arguments (``np.emath.sqrt(-4.0)``, ``cmath.sqrt``: :data:`_MAY_BE_COMPLEX`).

The sweeps read it to pick a rule's complex form, to take the real part of what flows back
into a real operand (JAX's convention), and :mod:`srcad.analysis.soundness` to refuse a rule
that has no complex form. A function with no complex parameter and no complex constant or
producer has an empty set: its code is the code srcad made before it knew of complex numbers.

Imports ``srcad.core``, ``srcad.rules``, ``srcad.runtime`` and its neighbour
``srcad.analysis.user_calls``.
"""

from __future__ import annotations

import builtins
import math
import operator

import numpy as np

from ..core import ir
from ..core.kinds import ARRAY, SCALAR, is_complex_value
from ..rules import registry
from ..runtime import special
from ..runtime.derivatives import call_value
from ..runtime.spread_calls import star_call
from .user_calls import bind_call, user_callee

_REAL = {operator.lt, operator.le, operator.gt, operator.ge, operator.eq, operator.ne,
         operator.not_, operator.contains, operator.is_, operator.is_not, len, int, bool,
         float, round}


def complex_values(analysis, params):
    """The names of ``analysis.fn`` that may hold complex values; ``params``: the parameters
    that may (``kinds[COMPLEX]``)."""
    cx = set(params)

    def atom_cx(atom):
        if isinstance(atom, ir.Var):
            return atom.name in cx
        if isinstance(atom, ir.Const):
            return is_complex_value(atom.value)
        return any(a.name in cx for a in ir.atoms_in(atom))

    def prim_cx(prim):
        fn = prim.fn
        if fn is ir.BUILD_LIST or fn is ir.BUILD_TUPLE:
            return any(atom_cx(a) for a in prim.args)
        operands = list(prim.args) + list(prim.kwargs.values())
        anyc = any(atom_cx(a) for a in operands)
        if isinstance(fn, ir.BoolOp):
            return anyc
        if fn is call_value or fn is star_call:  # the function met at run time is checked
            return any(atom_cx(a) for a in prim.args[2:])  # to make none of real arguments
        if isinstance(fn, ir.Method):
            fn = registry.methods.get(fn.name, fn)
        elif isinstance(fn, ir.Attr):
            if fn.name in ("shape", "ndim", "size", "dtype"):
                return False
            fn = registry.attributes.get(fn.name, fn)
        try:
            if fn in _REAL:
                return False
        except TypeError:
            pass
        rule, _ = registry.find(fn, prim.args, prim.kwargs) if not isinstance(
            fn, (ir.Method, ir.Attr, ir.Build)) else (None, None)
        if rule is not None and rule.complex_out == "never":
            return False
        if rule is not None and rule.complex_out == "always":
            return True
        if rule is not None and callable(rule.complex_out):
            return rule.complex_out(prim, atom_cx)
        if rule is None and analysis.callees is not None and user_callee(fn):
            call = bind_call(prim, analysis.kind, atom_cx)
            if call is None:
                return True
            # a function srcad cannot read (a try/except in it, say) is taken as NumPy's
            # are: complex if an operand is. Given a differentiated value it is refused where
            # it is called (it cannot be differentiated); given none, its result is a
            # constant, and the gradient of a real argument is still checked real at run time
            # (unseen_complex: a call of a user function it cannot read), so a complex number
            # it returns is refused there, never taken into a wrong gradient
            return analysis.callees.result_complex(fn, call.kinds, call.arity, unreadable=anyc)
        if rule is None and _opaque(fn):
            return True  # np.emath.sqrt(-4.0), cmath.sqrt(-4.0): see _MAY_BE_COMPLEX
        return anyc

    for _ in range(50):
        before = len(cx)
        for stmt in ir.walk(analysis.fn.body):
            if isinstance(stmt, ir.Assign):
                value = stmt.value
                if stmt.target is None:
                    if isinstance(value, ir.Prim) and isinstance(value.fn, ir.Method) and \
                            value.fn.name in ("append", "extend", "insert") and value.args:
                        lst = value.args[0]
                        if isinstance(lst, ir.Var) and any(atom_cx(a) for a in value.args[1:]):
                            cx.add(lst.name)
                    continue
                if stmt.target in cx:
                    continue
                if (prim_cx(value) if isinstance(value, ir.Prim) else atom_cx(value)):
                    cx.add(stmt.target)
            elif isinstance(stmt, ir.SetItem):
                if atom_cx(stmt.obj) or atom_cx(stmt.value):
                    cx.add(stmt.target)
            for phi in getattr(stmt, "phis", ()):
                if phi.target not in cx and any(
                        s is not None and s != ir.UNSET and atom_cx(s) for s in phi.sources):
                    cx.add(phi.target)
        if len(cx) == before:
            return cx
    return cx


#: the modules whose functions return complex numbers for real arguments (np.emath.sqrt(-4.0),
#: cmath.sqrt, np.linalg.eigvals, scipy.linalg.sqrtm of a matrix with negative eigenvalues)
_MAY_BE_COMPLEX = ("numpy.lib.scimath", "numpy.emath", "numpy.lib._scimath_impl", "numpy.fft",
                   "numpy.linalg", "cmath", "scipy.linalg", "scipy.fft", "scipy.fftpack",
                   "scipy.signal", "scipy.special")


def _opaque(fn):
    """A function with no rule (for this call) and not declared constant (``nondiff``), from
    a module whose functions may return complex numbers for real arguments: its result may be
    complex."""
    if not callable(fn) or isinstance(fn, type) or registry.is_nondiff(fn):
        return False
    module = getattr(fn, "__module__", None) or ""
    if not module and hasattr(fn, "__self__"):
        module = getattr(type(fn.__self__), "__module__", "")
    return module.startswith(_MAY_BE_COMPLEX)


def unseen_complex(analysis):
    """Whether ``analysis.fn`` has an operation whose result this analysis takes for real but
    that can be complex at run time, for reasons no kind shows: a Python number to a power
    that is not an integer literal (``(-8.0) ** (1 / 3)`` is complex), or an object's
    attribute (``self.c``, read live, may hold a complex number on a later call), or a call
    of a user function (whose code may do either). The gradient
    of a real argument is then checked at run time (``runtime.check_real``): a complex one is
    refused, never returned."""
    for stmt in ir.walk(analysis.fn.body):
        value = getattr(stmt, "value", None)
        if not isinstance(stmt, ir.Assign) or not isinstance(value, ir.Prim):
            continue
        fn, args = value.fn, value.args
        if fn is operator.pow or fn is builtins.pow or fn is special.power_of:
            # a Python number's complex power, or runtime.log_base of a negative array
            if len(args) >= 2 and not analysis.is_complex(args[0]) and not (
                    isinstance(args[1], ir.Const) and type(args[1].value) is int):
                return True
        elif fn is math.pow or fn is np.power or fn is np.float_power:
            # no complex value, but a complex derivative (runtime.log_base, a ** (b - 1) of
            # a Python float) where the base is negative
            if len(args) >= 2 and not analysis.is_complex(args[0]) and not (
                    isinstance(args[1], ir.Const) and type(args[1].value) is int):
                return True
        elif user_callee(fn):
            if _callee_unseen(analysis, value):
                return True  # its code may do either (its own check is not made for callees)
        elif isinstance(fn, ir.Attr) and args and fn.name not in (
                "shape", "ndim", "size", "dtype", "real", "imag", "T") and \
                analysis.kind(args[0]) not in (ARRAY, SCALAR) and \
                not analysis.is_complex(args[0]):
            return True
    return False


def _callee_unseen(analysis, prim):
    """Whether the user function ``prim`` calls may make a complex number no kind shows: its
    own code asked (for the kinds of these arguments), or ``True`` when srcad cannot ask."""
    callees = analysis.callees
    if callees is None or not hasattr(callees, "unseen_complex"):
        return True
    call = bind_call(prim, analysis.kind, analysis.is_complex)
    if call is None:
        return True
    return callees.unseen_complex(prim.fn, call.kinds, call.arity)
