"""``np.vectorize`` read as the Python loop it stands for.

``np.vectorize(func)(x, y)`` calls ``func`` on each element of ``x`` and ``y`` broadcast
together (as Python numbers: NumPy hands ``func`` the items of object arrays), in C order,
and puts the results in an array of the broadcast shape, of the type of the first result
(``otypes`` unset) or of ``otypes``. srcad reads such a call as that loop (:func:`text`,
made by :func:`srcad.frontend.builtin_code.stand_in`), so ``func`` is differentiated as any
callee, to any order, in both modes. The vectorized function may be made where it is called
(``np.vectorize(f)(x)``), held in a name (``vf = np.vectorize(f)``: a partial of
:func:`vectorized` with ``f``, :meth:`Callees.partial_value`), or be a module-level
``@np.vectorize`` function (an ``np.vectorize`` object: :func:`object_callee`).

What NumPy does and the loop would not is refused: ``signature=`` (sub-arrays per call),
``excluded=`` (arguments passed whole), ``otypes`` other than one float type, keyword
arguments in the call (NumPy vectorizes them too); and, when the code runs
(:func:`check_vectorized`), a function returning a tuple, or results
of other types than the first's (NumPy casts them to the first's).

Imports gast, NumPy, :mod:`srcad.core.ir`, :mod:`srcad.errors` and the rule registry.
"""

from __future__ import annotations

import linecache

import gast
import numpy as np

from ..core.ir import Const
from ..errors import UnsupportedSyntaxError
from ..rules.registry import registry as _registry

_TEXT = '''def vectorized(func, where, {params}):
    """np.vectorize(func)({params}) as srcad differentiates it: func of each element of
    the arguments broadcast together (Python numbers, as NumPy gives them), in NumPy's order,
    the results in an array of the broadcast shape."""
    shape = np.broadcast_shapes({shapes})
{broadcast}    outs = [func({items}) for at in np.ndindex(*shape)]
    check_vectorized(outs, {float_type}, where)
    return np.reshape(np.array(outs{dtype}), shape)
'''


def vectorized(func, where, *args):
    """``np.vectorize(func)(*args)``: what srcad reads a call of a vectorized function as
    (:func:`srcad.frontend.builtin_code.stand_in` gives the Python it differentiates);
    ``where``: the file and line named by a refusal when it runs."""
    return np.vectorize(func)(*args)


def vectorized_float(func, where, *args):
    """``np.vectorize(func, otypes=[float])(*args)``, read as :func:`vectorized`."""
    return np.vectorize(func, otypes=[float])(*args)


FUNCTIONS = (vectorized, vectorized_float)
vectorize_maker = np.vectorize
_HINT = ("write the loop it stands for, or a lambda fixing the other arguments: "
         "np.vectorize(lambda v: f(v, k))(x)")


def check_vectorized(outs, float_type, where):
    """Raise where ``np.vectorize(func)`` would make something other than the array of
    ``outs`` (the results of ``func``, in order) that srcad's reading of it makes: no
    results without ``otypes`` (NumPy's ``ValueError``), a result that is not a number
    (NumPy's ``ValueError``), several results (a tuple: NumPy returns a tuple of arrays), or,
    without ``otypes`` (``float_type`` False), results of other types than the first's (NumPy
    casts them all to it: an int first truncates the floats after it)."""
    if not outs and not float_type:
        raise ValueError("cannot call `vectorize` on size 0 inputs unless `otypes` is set")
    if any(isinstance(o, tuple) for o in outs[:1]):
        raise _refusal(
            where, "np.vectorize of a function returning a tuple (several outputs): srcad reads "
            "functions of one output", hint="vectorize one function per output, "
            "np.vectorize(lambda v: f(v)[0])")
    if any(np.ndim(o) != 0 for o in outs):
        raise ValueError("setting an array element with a sequence.")
    if not float_type and np.asarray(outs[0]).dtype != np.asarray(outs).dtype:
        raise _refusal(
            where, f"np.vectorize: the first result is of type {np.asarray(outs[0]).dtype} and "
            f"others make {np.asarray(outs).dtype}: NumPy casts every result to the first's "
            "type (an int first truncates the floats after it)",
            hint="give the type: np.vectorize(f, otypes=[float])")


_registry.nondiff.add(check_vectorized)  # a check: no derivative


def _where(lw, node):
    """The file and line of ``node``, for a refusal when the code runs."""
    return Const(f"{lw.source.filename}:{node.lineno}")


def _refusal(where, message, hint):
    filename, _, line = where.rpartition(":")
    return UnsupportedSyntaxError(message, filename=filename, lineno=int(line), hint=hint,
                                  construct=linecache.getline(filename, int(line)).strip())


def text(count, float_type):
    """The Python of a vectorized function called with ``count`` arguments."""
    names = [f"a{k}" for k in range(count)]
    return _TEXT.format(
        params=", ".join(names), shapes=", ".join(f"np.shape({n})" for n in names),
        broadcast="".join(f"    b{k} = np.broadcast_to({n}, shape)\n"
                          for k, n in enumerate(names)),
        items=", ".join(f"b{k}[at].item()" for k in range(count)),
        float_type=float_type, dtype=", dtype=float" if float_type else "")


def _float_otypes(otypes):
    """Whether NumPy reads ``otypes`` (a string of type codes or a list of types) as one
    result of float64; None if there is none."""
    if otypes is None:
        return None
    try:
        types = [np.dtype(t) for t in (otypes if isinstance(otypes, (list, tuple, str)) else
                                       [otypes])]
    except TypeError:
        return False
    return len(types) == 1 and types[0] == np.float64


def refusal(otypes, excluded, signature):
    """Why srcad does not read a vectorized function with these options, as ``(message,
    hint)``, or None."""
    if signature is not None:
        return ("np.vectorize(..., signature=...) (a generalised ufunc: each call is given "
                "sub-arrays)", "np.apply_along_axis(f, axis, a) for one axis, or the loop "
                "over the rows it stands for")
    if excluded:
        return "np.vectorize(..., excluded=...) (arguments passed whole)", _HINT
    if _float_otypes(otypes) is False:
        return (f"np.vectorize(..., otypes={otypes!r}): srcad reads one result of float "
                "type (otypes=[float]) or NumPy's own choice (no otypes)",
                "leave otypes out, or give otypes=[float]")
    return None


def object_callee(lw, fn, args, node):
    """``(stand-in, arguments, spelling)`` for a call of the ``np.vectorize`` object ``fn`` (a
    module-level ``@np.vectorize`` function) with ``args``, or the refusal raised."""
    refused = refusal(fn.otypes, fn.excluded, fn.signature)
    if refused is not None:
        raise lw.error(node, refused[0], hint=refused[1])
    pyfunc = lw.bound_const(fn.pyfunc, getattr(fn.pyfunc, "__name__", "func"))
    return (vectorized_float if _float_otypes(fn.otypes) else vectorized), [
        pyfunc, _where(lw, node)] + args, None


def _static(lw, node):
    """The value of an option written as a literal, a name or ``np.float64``; raises
    ``LookupError`` for anything else."""
    if isinstance(node, gast.Constant):
        return node.value
    if isinstance(node, (gast.Name, gast.Attribute)) and not (
            isinstance(node, gast.Name) and node.id in lw.env):
        return lw.resolve_dotted(node)
    if isinstance(node, (gast.List, gast.Tuple, gast.Set)):
        return [_static(lw, e) for e in node.elts]
    raise LookupError


def value(lw, node, hint):
    """``np.vectorize(func, otypes=..., cache=..., doc=...)``: a partial of
    :func:`vectorized` (or :func:`vectorized_float`) with ``func``, whose calls
    :func:`srcad.frontend.builtin_code.stand_in` reads as Python."""
    if len(node.args) != 1 or any(k.arg is None for k in node.keywords):
        raise lw.error(node, "np.vectorize with its options given by position",
                       hint="give the function by position and the options by keyword: "
                       "np.vectorize(f, otypes=[float])")
    options = {"otypes": None, "excluded": None, "signature": None}
    for k in node.keywords:
        if k.arg not in options and k.arg not in ("cache", "doc"):
            raise lw.error(node, f"np.vectorize(..., {k.arg}=...)", hint="leave it out")
        try:
            options[k.arg] = _static(lw, k.value)
        except LookupError:
            raise lw.error(node, f"np.vectorize's {k.arg}= computed in the function: srcad "
                           "reads it when it makes the code", hint=f"write it as a literal "
                           f"({k.arg}=[float])") from None
    refused = refusal(options["otypes"], options["excluded"], options["signature"])
    if refused is not None:
        raise lw.error(node, refused[0], hint=refused[1])
    maker = vectorized_float if _float_otypes(options["otypes"]) else vectorized
    return lw.partial_value(Const(maker, lw.bound_name(maker, "vectorized")),
                            [lw.expr(node.args[0]), _where(lw, node)], {}, node,
                            hint or "vectorized")


def refuse_keywords(lw, fn, kwargs, node):
    """A call of a vectorized function with keywords (NumPy vectorizes them too)."""
    if kwargs and any(fn is v for v in FUNCTIONS):
        raise lw.error(node, "a vectorized function called with keyword arguments",
                       hint="pass them by position, or fix them in a lambda: "
                       "np.vectorize(lambda v: f(v, k=k))(x)")
