"""``srcad.grad(f, has_aux=True)`` and ``srcad.value_and_grad(f, has_aux=True)``: ``f`` returns
``(value, aux)``; the derivative returns ``(gradient, aux)`` or ``((value, aux), gradient)``.

Two forms, chosen once per function (:func:`made`):

* ``f`` whose every ``return`` gives a pair display (``return y, aux``, or ``r = (y, aux)``
  returned through copies, ``if`` branches and loops), the body ending with a ``return``
  (:func:`srcad.frontend.aux_pairs.returns_pairs`, :func:`~srcad.frontend.aux_pairs.split`):
  its own derivative, made with ``y`` as the output and ``aux`` carried through to the return
  (:mod:`srcad.frontend.aux_pairs`). It is the dispatcher of a
  :class:`srcad.specialise.Transformed` like ``grad(f)``'s, and costs what ``grad(f)`` costs;
* any other ``f`` (a pair returned by a call, read elsewhere, a return in a ``with``): a shim
  ``out = f(...); keep_aux(out); return out[0]`` is differentiated, and :func:`keep_aux`, run
  by its forward sweep, checks the pair and hands ``out[1]`` over through a box (a wrapper
  per call reads it).

Either way ``aux`` is the object ``f`` computed (its statements run once, in their order).
Called inside differentiated code, the first form is a derivative srcad made (its code,
returning the aux beside the gradient, is differentiated again), the second is read as the
plain form of :mod:`srcad.nested_aux` (from ``__srcad_aux_made__``), and so is either given
to ``has_aux=True`` again (:func:`target_of`).

Imports :mod:`srcad.specialise`, the pipeline and the layers below them.
"""

from __future__ import annotations

import functools
import threading
import weakref

from numpy import float64

from . import fast_calls, pipeline, rules
from .core import functions
from .errors import SrcadError
from .frontend import aux_pairs, entry
from .specialise import is_transformed


def made(f, wrt, mode, transform):
    """The derivative ``srcad.grad(f, wrt, has_aux=True)`` returns (``mode``: "grad",
    "value_and_grad", with "_holomorphic" added for ``holomorphic=True``); ``transform``:
    ``srcad.api._transform``, the :class:`~srcad.specialise.Transformed` of a function, made
    once."""
    target = target_of(f)
    if not mode.endswith("_holomorphic") and returns_pairs(target):
        fn = transform(f if target is f else target, wrt, mode + "_aux").function
        fn.__srcad_aux_made__ = (f, wrt, mode)
        return fn
    shim = entry.aux_shim(target, keep_aux)
    inner = transform(shim, wrt, mode).function

    @functools.wraps(f)
    def with_aux(*args, **kwargs):
        box = []
        _AUX.boxes = getattr(_AUX, "boxes", []) + [box]
        try:
            result = inner(*args, **kwargs)
        finally:
            _AUX.boxes = _AUX.boxes[:-1]
        aux = box[-1] if box else None
        if mode.startswith("value_and_grad"):
            return (result[0], aux), result[1]
        return result, aux

    with_aux.__srcad_aux_of__, with_aux.__srcad_aux_made__ = inner, (f, wrt, mode)
    return with_aux


def target_of(f):
    """The plain function srcad reads for ``f`` given with ``has_aux=True``: for a
    ``has_aux`` derivative itself (its second derivative), the plain form it is read as in
    code (:mod:`srcad.nested_aux`); another derivative srcad made is refused."""
    if is_transformed(f):
        made = getattr(f, "__dict__", {}).get("__srcad_aux_made__")
        if made is not None and functions.WITH_AUX:  # (its __srcad_plain__ is the dispatcher's)
            return functions.WITH_AUX[0](*made)()
        raise SrcadError("has_aux=True needs the function itself, not a derivative made by "
                         "srcad", hint="differentiate a function returning (value, aux)")
    return entry.target(f)


_PAIRS = weakref.WeakKeyDictionary()  # function -> (its code, whether it returns pairs)


def returns_pairs(func):
    """Whether ``func``'s source returns pair displays only, and its SSA form splits them
    (:func:`srcad.frontend.aux_pairs.split` on a copy; found once per code object)."""
    code = getattr(func, "__code__", None)
    try:
        known = _PAIRS.get(func)
    except TypeError:  # not weakly referable
        known = None
    if known is not None and known[0] is code:
        return known[1]
    try:
        pairs = aux_pairs.returns_pairs(pipeline.read(func).node)
    except (SrcadError, TypeError, OSError):  # no source: refused where it is read, as before
        pairs = False
    if pairs:
        try:  # (a copy: the lowered form is kept for the specialisations, see pipeline.to_ssa)
            pairs = aux_pairs.splits(*pipeline.to_ssa(func))
        except SrcadError:  # refused where it is made, as before (the split is syntactic)
            pass
    try:
        _PAIRS[func] = (code, pairs)
    except TypeError:
        pass
    return pairs


_AUX = threading.local()  # the boxes of the has_aux calls running in this thread


def keep_aux(out, where=(None, None, "f")):
    """Check ``out`` is a pair ``(value, aux)`` and hand ``aux`` to the innermost ``has_aux``
    call running (the generated forward sweep calls it: it has no derivative, and it is never
    dropped as dead code). ``where``: the function's ``(file, line, name)``."""
    check_pair(out, where)
    boxes = getattr(_AUX, "boxes", None)
    if boxes:
        boxes[-1].append(out[1])


def check_pair(out, where):
    """Raise unless ``out`` is a pair ``(value, aux)`` (what ``has_aux=True`` asks of ``f``),
    naming ``where``, ``f``'s ``(file, line, name)``
    (:func:`srcad.frontend.entry.where_of`). One check for every
    use: ``srcad.vjp``'s run of ``f``, the shim's :func:`keep_aux`, and the plain form read
    in differentiated code (:mod:`srcad.nested_aux`, whose code calls it: it has no
    derivative and is kept where it is, for its message)."""
    if isinstance(out, (tuple, list)) and len(out) == 2:
        return
    filename, line, name = where
    raise SrcadError(f"with has_aux=True the function {name} must return a pair (value, aux), "
                     f"it returned {type(out).__name__}"
                     + (f" of length {len(out)}" if isinstance(out, (tuple, list)) else ""),
                     filename=filename, lineno=line,
                     hint="return value, aux (or leave has_aux out)")


def vjp_closure(f, wrt, types, where, transformed, gradient, value_and_grad):
    """Remember, for ``vjp(f, *args, wrt=wrt, has_aux=True)`` of ``f`` returning pairs (at
    ``where``) with arguments of ``types``, the closure ``srcad.vjp`` calls
    (:func:`srcad.backend.call_fronts.short_vjp`): ``f`` run once for the value and the aux,
    the pullback made of ``transformed`` (the pairs' first items' vjp code) and, for an output
    that is a number, ``gradient`` (their grad code), as :func:`srcad.fast_calls.vjp_closure`
    does; for an output that was a number and no ints, the value, aux and gradient by one
    call of ``value_and_grad()``'s code (:func:`srcad.fast_calls.eager_vjp` with the aux)."""
    if not fast_calls.plain_types(types):
        return
    table = fast_calls.kept(fast_calls.VJPS, f, ("has_aux", wrt))
    if table is None:
        return

    def vjp_of(args):
        out = f(*args)
        if out.__class__ is not tuple or len(out) != 2:
            check_pair(out, where)
        value, aux = out
        if gradient is not None and (value.__class__ is float or value.__class__ is float64):
            made = fast_calls.scalar_pullback(value, transformed, gradient, args)
        else:
            made = fast_calls.pullback(value, transformed, args)
        made.__srcad_vjp_of__ = (f, args, wrt, True, value)  # as srcad.vjp names it
        return value, made, aux

    table[types] = vjp_of
    if gradient is not None and int not in types:
        table[types] = fast_calls.eager_vjp(value_and_grad, transformed, gradient, vjp_of, f,
                                            wrt, aux=True)


rules.nondiff(keep_aux)
rules.registry.impure.add(keep_aux)
rules.nondiff(check_pair)
rules.registry.impure.add(check_pair)
