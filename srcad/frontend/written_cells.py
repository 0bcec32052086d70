"""Which closure values a function of the user's writes into (session 36, for
:mod:`srcad.written_state`): ``grad(lambda w: layer(w, x, bn_param))``, ``layer`` storing
its running statistics into ``bn_param``, a dict the lambda closes over.

:func:`closure_written` gives the places (in ``f.__closure__``) of the cells whose value
the function's text may write into, as :mod:`.written_args` reads a parameter's uses: an
item set (``state[k] = v``, ``state[i] += v``), ``state op= v``, a method changing its
object, ``out=state``, ``np.add.at(state, ...)``, the NumPy writers, a view of it written
(``v = state[1:]``), or the value given to a function of the user's that writes into that
parameter; and, where the call spreads it (``layer(*args, *consts)``), to a function of the
user's that writes into any of its parameters (the place cannot be told from the text).
Only cells holding a list, a dict, a tuple or an array, never bound in the function.
:func:`params_written`: the same reading of the parameters, those the function binds again
too (``if bn_param is None: bn_param = {}``: a dict given is still written into).

Imports gast, numpy, :mod:`.source`, :mod:`.passed_calls`, :mod:`.built_records` and
:mod:`.written_args`.
"""

from __future__ import annotations

import gast
import numpy as np

from . import passed_calls
from . import source as source_module
from .built_records import name_path
from .changed_lists import _own
from .written_args import _WRITERS, _use, _views_of, changed_params

_DEPTH = 4  # how deep through functions of the user's a write is looked for


def closure_written(f):
    """The places in ``f.__closure__`` of the cells ``f`` may write into (see above)."""
    code = getattr(f, "__code__", None)
    cells = getattr(f, "__closure__", None) or ()
    places = {name: k for k, name in enumerate(getattr(code, "co_freevars", ()))
              if k < len(cells) and _holds_objects(cells[k])}
    found = _written_names(f, places, 0) if places else ()
    return tuple(places[name] for name in found)


def params_written(f, depth=0):
    """The parameters ``f`` may write into: :func:`.written_args.changed_params`'s, and those
    it also binds to another object somewhere (``if p is None: p = {}``)."""
    code = getattr(f, "__code__", None)
    if code is None or depth > _DEPTH:
        return ()
    names = code.co_varnames[:code.co_argcount + code.co_kwonlyargcount]
    return tuple(dict.fromkeys(changed_params(f)[0] + _written_names(f, names, depth, True)))


def _written_names(f, names, depth, bound=False):
    """Which of ``names`` (free names, or with ``bound`` parameters, which the function may
    bind again) ``f``'s text may write into."""
    uses = _uses(f, tuple(names), bound)
    if uses is None:
        return ()
    cells = zip(f.__code__.co_freevars, f.__closure__ or ())
    space = ({n: c.cell_contents for n, c in cells if _filled(c)}, f.__globals__)
    return tuple(name for name, (local, found) in uses.items()
                 if any(_writes(space, use, local, depth) for use in found))


#: (code object, names, bound) -> (code, {name: (local names, uses)}): what the text alone
#: says, read once per code object (a lambda made again each call is read once)
_USES = {}


def _uses(f, names, bound):
    code = getattr(f, "__code__", None)
    key = (id(code), names, bound)
    known = _USES.get(key)
    if known is not None and known[0] is code:
        return known[1]
    try:
        fdef = source_module.read(f).node
    except Exception:  # noqa: BLE001 - no source: nothing known (the analysis refuses)
        return None
    nodes = _own(fdef)
    parents = {c: n for n in nodes for c in gast.iter_child_nodes(n)}
    local = passed_calls.bound_names(fdef)
    out = {}
    for name in names:
        if name in local and not bound:
            continue
        shared = _views_of(name, nodes, parents)
        out[name] = (local, [_spread(n, parents) or _use(n, parents) for n in nodes
                             if isinstance(n, gast.Name) and n.id in shared])
    if len(_USES) >= 4096:
        _USES.clear()
    _USES[key] = (code, out)
    return out


def _filled(cell):
    try:
        return cell.cell_contents is not _filled or True
    except ValueError:  # (a name the closure has not bound yet)
        return False


def _spread(node, parents):
    """``(func, False, True, 0)`` for a name spread into a call (``layer(*a, *consts)``)."""
    star = parents.get(node)
    call = parents.get(star)
    if isinstance(star, gast.Starred) and isinstance(call, gast.Call) and star in call.args:
        return call.func, False, True, 0
    return None


def _holds_objects(cell):
    try:
        value = cell.cell_contents
    except ValueError:
        return False
    return isinstance(value, (list, dict, tuple, np.ndarray))


def _writes(space, use, local, depth):
    if use is True or use is False:
        return use
    func, first, starred, position = use
    callee = _resolve(space, func, local)
    if any(callee is w for w in _WRITERS):
        return first
    if not passed_calls.callee_function(callee):
        return False
    written = params_written(callee, depth + 1)
    if starred:
        return bool(written)
    inner = list(callee.__code__.co_varnames[:callee.__code__.co_argcount])
    return position < len(inner) and inner[position] in written


def _resolve(space, node, local):
    """The object the name or dotted name ``node`` refers to in ``space`` (the function's
    closure values, its globals; not recorded), else None."""
    named = name_path(node, local)
    if named is None:
        return None
    value = space[0].get(named[0], space[1].get(named[0]))
    for attr in named[1]:
        value = getattr(value, attr, None)
    return value
