"""``grad`` and ``value_and_grad`` of a function writing into what it is given, its body run
once per call (session 37): the derivative of a copy of ``f`` returning the objects it writes
into beside its value, then those objects' final state written back into the caller's.

:mod:`srcad.written_state` differentiates a copy of ``f`` on copies of what it writes into,
then runs ``f`` plainly on the caller's objects: anything else ``f`` does (a ``print``, a
file written) happened twice, and the call cost one plain run more. Here, for ``grad`` and
``value_and_grad`` (:func:`derivative`), the copy differentiated is ``f``'s text with every
``return e`` made ``return e, (p, q)`` (``p``, ``q``: the parameters it writes into), taken
``has_aux``: its one run gives the value, the gradient and the final state of ``p`` and
``q`` (srcad's own functional updates, so what the code returns for ``p`` is the object as
the call leaves it). Then :func:`_written_back` makes the caller's objects hold that state,
in place, the identities the caller sees being Python's:

* each object the caller passed is changed in place (an array ``a[...] = new``, its dtype
  kept; a list ``a[:] = ...``; a dict cleared and updated; a tuple's items in turn);
* what the final state holds that is srcad's copy of one of the caller's objects (through
  the copy's memo) is the caller's object, its own state written back the same way; what
  the run made (``p["m"] = new``) is stored as made;
* where the run made a new object in the place of one of the caller's (srcad's code
  rebuilds an object it changed; Python may have changed the old one in place or stored a
  new one), the two are alike only if nothing else holds the old one: every object nested
  in what is written into must be held by its container alone (its reference count, read
  before the run).

The two-run path of :mod:`srcad.written_state` stays where this cannot be exact, chosen
before anything runs: another transform (``vjp``, ``jvp``, ``jacobian``, ``hessian``,
``hvp``, ``linearize``, derivatives of derivatives), ``has_aux``, ``backend="numba"``,
closure values written into, a parameter written into that the function also binds (``p =
{}``), a ``return`` that is not the body's end or sits in a ``with`` or ``try``, an object
nested in the state that something else holds (``m = state["m"]`` kept by the caller) or of
another class than an array, list, dict, tuple, number or string; and for good, for that
function, where srcad refuses the copy returning its state (its code would read an object
changed through an alias). After the run, a stored view of an array of the state (``p["v"] =
p["a"][1:]``) or an array whose shape changed cannot be written back: ``f`` is then run
plainly on the caller's objects (the two-run result, its side effects twice).

Imports the standard library, numpy, gast, :mod:`srcad.errors` and the frontend's
:mod:`~srcad.frontend.aux_pairs`, :mod:`~srcad.frontend.passed_records`,
:mod:`~srcad.frontend.source` and :mod:`~srcad.frontend.changed_lists`.
"""

from __future__ import annotations

import copy
import functools
import sys

import gast
import numpy as np

from .errors import SrcadError
from .frontend import aux_pairs, passed_records
from .frontend import source as source_module
from .frontend.changed_lists import _own

_ATOMS = (int, float, complex, str, bytes, bool, type(None), np.generic)
_WATCHED = 2  # the calls of a derivative watched for a plain run of the copy (_watching)


def derivative(state, wrt, mode, make):
    """``grad``/``value_and_grad`` (``mode``) of ``state.plain`` with respect to ``wrt``,
    its body run once per call where it can be (above); ``make(g, wrt, mode, has_aux)``:
    srcad's derivative of ``g``. None where the two-run path is taken for good."""
    back = _back_copy(state)
    if back is None:
        return None
    inner = make(back, wrt, mode, True)
    twice = state.returning(lambda g: make(g, wrt, mode, False))
    value = mode.startswith("value_and_grad")
    refused, watched = [], []

    @functools.wraps(state.plain)
    def once(*args, **kwargs):
        if refused:
            return twice(*args, **kwargs)
        arguments = state._bound(args, kwargs)
        state._check(arguments)
        origin = {}
        copies = None if any(p not in arguments for p in state.written) else _copies(
            arguments, state.written, origin)  # (a default written into: the two runs)
        if copies is None:  # (something else holds an object of the state: two runs)
            return twice(*args, **kwargs)
        given = state._given((copies, []), again=False)
        try:
            if len(watched) >= _WATCHED or sys.getprofile() is not None:
                out = inner(*given[0], **given[1])
            else:  # the first calls: does srcad run the copy plainly (changing the copies
                watched.append(True)  # its code then reads)? A safety net: none is known
                out, ran = _watching(back.__code__, lambda: inner(*given[0], **given[1]))
                if ran:
                    refused.append(True)
                    once.__srcad_once__ = None
                    return twice(*args, **kwargs)
        except SrcadError:  # the copy returning its state refused (where its code is made,
            refused.append(True)  # before it runs; or by a check as it runs: f's effects
            once.__srcad_once__ = None  # before the check then happen a second time): the
            return twice(*args, **kwargs)  # two runs, from now on
        (result, final), grads = (out[0], out[1]) if value else ((None, out[1]), out[0])
        if not _written_back(arguments, state.written, final, origin,
                             back.__srcad_in_place__):
            state.plain(*args, **kwargs)  # (a view of the state stored: Python's own run)
        return (result, grads) if value else grads

    once.__wrapped__ = twice.__wrapped__
    once.__srcad_state__ = twice.__srcad_state__  # (a derivative of it: the two-run path)
    once.__srcad_once__ = inner  # (what srcad.source shows: written_state.made_of)
    return once


def _watching(code, call):
    """``(call(), whether the code object ``code`` ran meanwhile)`` (``sys.setprofile``)."""
    ran = []

    def seen(frame, event, arg):
        if event == "call" and frame.f_code is code:
            ran.append(True)

    sys.setprofile(seen)
    try:
        out = call()
    finally:
        sys.setprofile(None)
    return out, bool(ran)


def _back_copy(state):
    """The copy of ``state.plain`` whose every ``return e`` is ``return e, (p, ...)`` (the
    parameters it writes into), marked as :mod:`srcad.written_state`'s copies are; None where
    the two-run path is kept (see the module's docstring)."""
    f, written = state.plain, tuple(state.written)
    if state.cells or not written:
        return None
    try:
        src = source_module.read(f)
    except Exception:  # noqa: BLE001 - no source: the two runs
        return None
    fdef = src.node
    if _rebinds(fdef, written) or not aux_pairs.returns_pairs(fdef):
        return None

    tree = copy.deepcopy(fdef)
    for node in _own(tree):
        if isinstance(node, gast.Return) and node.value is not None:
            node.value = gast.Tuple(elts=[node.value, gast.Tuple(
                elts=[_load(p) for p in written], ctx=gast.Load())], ctx=gast.Load())
    try:  # (not through returned_records' cache, which would keep f: the derivative holds it)
        passed_records.bare_signature(tree)
        back = passed_records._run(tree, f, src, {}, {"state": []}, f.__name__)
    except Exception:  # noqa: BLE001 - not copied: the two runs
        return None
    back.__srcad_owned__ = frozenset(written)
    back.__srcad_owned_cells__ = ()
    back.__srcad_in_place__ = _augmented_items(fdef, written)
    return back


def _augmented_items(fdef, written):
    """``(p, k)`` of each ``p[k] op= v`` (``k`` a constant): Python changes the array
    ``p[k]`` in place (the same object), where srcad's code makes a new one."""
    return frozenset((n.target.value.id, n.target.slice.value) for n in gast.walk(fdef)
                     if isinstance(n, gast.AugAssign) and isinstance(n.target, gast.Subscript)
                     and isinstance(n.target.value, gast.Name) and n.target.value.id in written
                     and isinstance(n.target.slice, gast.Constant))


def _load(name):
    return gast.Name(id=name, ctx=gast.Load(), annotation=None, type_comment=None)


def _rebinds(fdef, written):
    """Whether ``fdef`` binds (or deletes) one of ``written`` anywhere but as the target of
    ``p op= v`` (the object changed in place)."""
    augmented = {id(n.target) for n in gast.walk(fdef) if isinstance(n, gast.AugAssign)}
    return any(isinstance(n, gast.Name) and n.id in written and isinstance(
        n.ctx, (gast.Store, gast.Del)) and id(n) not in augmented for n in gast.walk(fdef)) or \
        any(isinstance(n, (gast.Global, gast.Nonlocal)) and set(n.names) & set(written)
            for n in gast.walk(fdef))


def _held(value):
    """The references to ``value``: its container's, the caller's name for it and this
    call's (:data:`_ALONE` where its container alone holds it)."""
    return sys.getrefcount(value)


def _alone_count():
    holder = [[1.0]]
    for item in holder:  # (as _copied reads an item)
        return _held(item)
    return 0


_ALONE = _alone_count()


def _copies(arguments, written, origin):
    """The arguments, those written into copied all the way down (``origin``: id of each copy
    -> the caller's object it copies); None where an object nested in what is written into is
    held by something else than its container, or is of another class (the two-run path)."""
    out = {}
    for name, value in arguments.items():
        if name in written:
            made = _copied(value, {}, origin, 0)
            if made is _NO:
                return None
            out[name] = made
        else:
            out[name] = value
    return out


_NO = object()


def _copied(value, memo, origin, depth):
    """``value`` copied all the way down, each copy's original recorded in ``origin``; _NO
    where an object below the top is held elsewhere (or is of a class not copied here)."""
    if isinstance(value, _ATOMS) or callable(value) and not isinstance(
            value, (np.ndarray, dict, list, tuple)):
        return value
    if id(value) in memo:  # (shared within the state: refused by State._check before)
        return memo[id(value)]
    if isinstance(value, np.ndarray) and type(value) is np.ndarray:
        out = value.copy()
    elif type(value) is dict:
        out = {}
        for k in value:
            item = value[k]
            if not isinstance(item, _ATOMS) and _held(item) > _ALONE:
                return _NO
            made = _copied(item, memo, origin, depth + 1)
            if made is _NO:
                return _NO
            out[k] = made
    elif type(value) is list or type(value) is tuple:
        items = []
        for item in value:
            if not isinstance(item, _ATOMS) and _held(item) > _ALONE:
                return _NO
            made = _copied(item, memo, origin, depth + 1)
            if made is _NO:
                return _NO
            items.append(made)
        out = items if type(value) is list else tuple(items)
    else:
        return _NO
    memo[id(value)] = out
    origin[id(out)] = value
    return out


def _written_back(arguments, written, final, origin, in_place=frozenset()):
    """Make the caller's objects (``arguments``' values of the parameters ``written``) hold
    ``final`` (their states as the copy's run left them), in place; False, having changed
    nothing, where it cannot be exact (then the caller runs ``f`` plainly); ``in_place``:
    the ``(p, k)`` whose array Python changes in place (``p[k] += v``), the caller's array
    kept and given the new values."""
    steps = []
    done = {}
    try:
        for name, state in zip(written, final):
            mine = arguments[name]
            if mine is None:  # (None given: the function made its own object)
                continue
            for p, k in in_place:
                _kept_array(mine, state, k, origin, done, steps) if p == name else None
            _into(mine, state, origin, steps, done)
    except _Inexact:
        return False
    for step in steps:
        step()
    return True


def _kept_array(theirs, mine, k, origin, done, steps):
    """For ``p[k] op= v``: the caller's array ``theirs[k]`` given the values of the new one
    ``mine[k]`` (where both are arrays of one shape and dtype)."""
    try:
        old, new = theirs[k], mine[k]
    except (KeyError, IndexError, TypeError):
        return
    if isinstance(old, np.ndarray) and isinstance(new, np.ndarray) and id(
            new) not in origin and new.shape == old.shape and new.dtype == old.dtype and \
            id(new) not in done:
        done[id(new)] = old
        steps.append(lambda: np.copyto(old, new))


class _Inexact(Exception):
    pass


def _into(theirs, mine, origin, steps, done):
    """Steps making the caller's object ``theirs`` hold what ``mine`` holds, in place."""
    if isinstance(theirs, np.ndarray):
        if not isinstance(mine, np.ndarray) or mine.shape != theirs.shape:
            raise _Inexact
        steps.append(lambda: np.copyto(theirs, mine, casting="unsafe"))
    elif type(theirs) is dict and isinstance(mine, dict):
        items = {k: _placed(v, origin, steps, done) for k, v in mine.items()}
        steps.append(lambda: (theirs.clear(), theirs.update(items)))
    elif type(theirs) is list and isinstance(mine, list):
        items = [_placed(v, origin, steps, done) for v in mine]
        steps.append(lambda: theirs.__setitem__(slice(None), items))
    elif type(theirs) is tuple and isinstance(mine, tuple) and len(theirs) == len(mine):
        for a, b in zip(theirs, mine):
            if isinstance(a, _ATOMS):
                if not (a is b or type(a) is type(b) and a == b):
                    raise _Inexact
            else:
                _into(a, b, origin, steps, done)
    elif not (theirs is mine or isinstance(theirs, _ATOMS) and type(theirs) is type(
            mine) and theirs == mine):
        raise _Inexact


def _placed(value, origin, steps, done):
    """What the caller's state holds where the copy's holds ``value``: the caller's object a
    copy was made of (its state written back), or what the run made (its items placed in
    turn), stored as made."""
    if isinstance(value, _ATOMS):
        return value
    key = id(value)
    if key in done:
        return done[key]
    theirs = origin.get(key)
    if theirs is not None:
        done[key] = theirs
        _into(theirs, value, origin, steps, done)
        return theirs
    done[key] = value
    if isinstance(value, np.ndarray):
        base = value.base
        while base is not None:  # (a view of an array of the state: Python's is of theirs)
            if id(base) in origin:
                raise _Inexact
            base = getattr(base, "base", None)
    elif type(value) is dict:
        items = {k: _placed(v, origin, steps, done) for k, v in value.items()}
        steps.append(lambda: (value.clear(), value.update(items)))
    elif type(value) is list:
        items = [_placed(v, origin, steps, done) for v in value]
        steps.append(lambda: value.__setitem__(slice(None), items))
    elif type(value) is tuple:
        placed = tuple(_placed(v, origin, steps, done) for v in value)
        if any(a is not b for a, b in zip(placed, value)):
            done[key] = placed
            return placed
    elif not callable(value):
        raise _Inexact  # (an object of another class made by the run: not followed)
    return value
