"""Helpers for dicts and sorting: the functions whose rules stand for ``d.keys()``,
``d.values()``, ``d.items()``, ``d.get(k)``, ``dict(...)`` and ``sorted(...)`` (the
lowering calls the first three for the methods, as lists a loop can index; ``d.get``,
``dict`` and ``sorted`` are called as the user wrote them), and the gradients and tangents
of those calls. Each gradient helper is linear in the gradient it is given and its
adjoint is its partner (``values_grad`` and ``values_tangent``, ...), so the generated code
can be differentiated again (srcad/rules/python.py).

A dict's gradient is a dict with the same keys; a key has no derivative (a gradient for one
is ``0.0``). ``xs.index(v)`` and ``xs.count(v)`` of a list or tuple are read through
``seq_index``/``seq_count`` (no derivative; refused on another object). Imports
``srcad.runtime.registry``, ``srcad.core.kinds`` and ``srcad.errors``.
"""

from __future__ import annotations

import itertools

import numpy as np

from ..core.kinds import duck_array
from ..errors import MissingRuleError
from .registry import helper


@helper("runtime")
def dict_keys(d):
    """``list(d.keys())``: no derivative."""
    return list(d.keys())


@helper("runtime")
def dict_values(d):
    """``list(d.values())``."""
    return list(d.values())


@helper("runtime")
def dict_items(d):
    """``list(d.items())``."""
    return list(d.items())


@helper("runtime")
def dict_get(d, key, default=None):
    """``d.get(key, default)``."""
    return d.get(key, default)


# ---------------------------------------------------------------- gradients and tangents


@helper("runtime")
def values_grad(grad, d):
    """The gradient of ``d`` from that of ``list(d.values())`` (its items in ``d``'s order)."""
    return {k: g_k for k, g_k in zip(d, grad)}


@helper("runtime")
def values_tangent(tangent, d):
    """The tangent of ``list(d.values())`` from ``d``'s tangent (a dict: by key)."""
    return [tangent[k] for k in d]


@helper("runtime")
def items_grad(grad, d):
    """The gradient of ``d`` from that of ``list(d.items())`` (pairs: key, value)."""
    return {k: pair[1] for k, pair in zip(d, grad)}


@helper("runtime")
def items_tangent(tangent, d):
    """The tangent of ``list(d.items())``: the keys' are ``0.0``."""
    return [[0.0, tangent[k]] for k in d]


@helper("runtime")
def get_grad(grad, d, key):
    """The gradient of ``d`` from that of ``d.get(key, ...)``: ``grad`` at ``key`` if ``d``
    has it, zeros elsewhere."""
    out = {k: _zeros(v) for k, v in d.items()}
    if key in d:
        out[key] = grad
    return out


@helper("runtime")
def get_tangent_or(tangent, d, key, default=None):
    """The tangent of ``d.get(key, default)`` from ``d``'s: its item at ``key``, else zeros
    shaped like ``default`` (a list's tangent is a list, ``[]`` for ``[]``). Also the adjoint
    of :func:`get_grad` in its gradient, ``default`` then being that gradient."""
    return tangent[key] if key in d else _zeros(default)


@helper("runtime")
def get_default_grad(grad, d, key):
    """The gradient (or tangent) of the default of ``d.get(key, default)``: ``grad`` if
    ``d`` has no ``key``, else none (0.0)."""
    return 0.0 if key in d else grad


@helper("runtime")
def seq_grad(grad, iterable):
    """The gradient of ``iterable`` from that of ``list(iterable)`` or ``tuple(iterable)``:
    ``grad`` itself, or for a dict (whose keys the list holds) zeros by key."""
    if isinstance(iterable, dict):
        return {k: _zeros(v) for k, v in iterable.items()}
    if isinstance(iterable, np.ndarray) or duck_array(iterable):
        if not isinstance(grad, (list, tuple)):
            return grad
        if not grad:  # an empty array's list
            return np.zeros(np.shape(iterable))
        rows = np.shape(iterable)[1:]  # an array of the items' gradients, never a list
        return np.stack([np.broadcast_to(g, rows) for g in grad])  # (a list * 2 repeats)
    return list(grad) if type(grad) is list else grad  # (a new list: see seq_back)


@helper("runtime")
def concat_tangent(ta, tb):
    """The tangent of ``a + b`` for lists or tuples (concatenation): a new list of both
    tangents (never one of them, which later appends to the result would change)."""
    return list(ta) + list(tb)


@helper("runtime")
def split_concat(grad, a, first):
    """The part of ``grad`` (a gradient of ``a + b``, a list) for ``a`` (``first``) or for
    ``b``: the adjoint of :func:`concat_tangent`."""
    n = len(a) if first else len(grad) - len(a)
    return list(grad[:n]) if first else list(grad[len(grad) - n:])


@helper("runtime")
def split_concat_back(back, grad, a, first):
    """The adjoint of :func:`split_concat` in ``grad``: ``back`` in its part, zeros in the
    other."""
    other = [_zeros(v) for v in (grad[len(a):] if first else grad[:len(a)])]
    return list(back) + other if first else other + list(back)


@helper("runtime")
def seq_back(back, grad, iterable):
    """The adjoint of :func:`seq_grad` in ``grad``: ``back`` (a copy of a list), or zeros like
    ``grad`` (a list again where ``grad`` is one and ``back`` an array)."""
    if isinstance(iterable, dict):
        return _zeros(grad)
    if isinstance(grad, (list, tuple)) and not isinstance(back, (list, tuple)) or type(
            back) is list:
        # a new list, never ``back`` itself: the backward sweep changes a list's gradient in
        # place (a pop's adjoint appends to it), which must not change ``back``'s
        return list(back)
    return back


@helper("runtime")
def dict_of_grad(grad, mapping):
    """The gradient of ``mapping`` from that of ``dict(mapping)``: by key for a dict; for
    pairs, ``[0.0, grad[k]]`` at the last pair with key ``k`` (the one ``dict`` keeps), zeros
    at the others."""
    if isinstance(mapping, dict):
        return {k: grad[k] for k in mapping}
    pairs = list(mapping)
    last = {k: i for i, (k, _) in enumerate(pairs)}
    return [[0.0, grad[k] if last[k] == i else _zeros(v)] for i, (k, v) in enumerate(pairs)]


@helper("runtime")
def dict_of_tangent(tangent, mapping):
    """The tangent of ``dict(mapping)`` from ``mapping``'s (a dict, or a list of pairs)."""
    if isinstance(mapping, dict):
        return {k: tangent[k] for k in mapping}
    out = {}
    for (k, _), pair in zip(mapping, tangent):
        out[k] = pair[1]
    return out


def _order(iterable, key=None, reverse=False):
    """The positions of ``iterable``'s items in the order ``sorted(iterable, key=key,
    reverse=reverse)`` puts them (the same stable sort, of their positions)."""
    items = list(iterable)
    if key is None:
        return sorted(range(len(items)), key=items.__getitem__, reverse=reverse)
    keys = [key(item) for item in items]
    return sorted(range(len(items)), key=keys.__getitem__, reverse=reverse)


@helper("runtime")
def sorted_grad(grad, iterable, key=None, reverse=False):
    """The gradient of ``iterable`` from that of ``sorted(iterable, key=..., reverse=...)``:
    each item's back at its place (a dict's keys have none: zeros)."""
    if isinstance(iterable, dict):
        return {k: _zeros(v) for k, v in iterable.items()}
    order = _order(iterable, key, reverse)
    if isinstance(iterable, np.ndarray):
        out = np.zeros(np.shape(iterable))
        out[order] = np.asarray(grad, dtype=float)
        return out
    out = [None] * len(order)
    for j, i in enumerate(order):
        out[i] = grad[j]
    return out


@helper("runtime")
def sorted_tangent(tangent, iterable, key=None, reverse=False):
    """The tangent of ``sorted(iterable, ...)`` from ``iterable``'s: its items in sorted order
    (a dict's keys: zeros)."""
    if isinstance(iterable, dict):
        return [0.0] * len(iterable)
    return [tangent[i] for i in _order(iterable, key, reverse)]


def _zeros(value):
    if isinstance(value, (list, tuple)):
        return [_zeros(v) for v in value]
    if isinstance(value, dict):
        return {k: _zeros(v) for k, v in value.items()}
    return np.zeros(np.shape(value)) if np.ndim(value) else 0.0


# ---------------------------------------------------------------- ys.sort(), ys.reverse()


@helper("runtime")
def sort_value(seq, key=None, reverse=False, axis=-1, kind=None):
    """What ``seq.sort(...)`` leaves in ``seq``, made on a copy: srcad reads ``ys.sort()`` on a
    local list or array as ``ys = sort_value(ys)``, a write into ``ys`` that nobody else may
    see (the alias analysis checks it like ``ys += v``)."""
    if isinstance(seq, list):
        if axis != -1 or kind is not None:
            raise TypeError("list.sort() takes key= and reverse= only")
        out = list(seq)
        out.sort(key=key, reverse=reverse)
        return out
    if isinstance(seq, np.ndarray) or duck_array(seq):
        if key is not None or reverse:
            raise TypeError("an array's .sort() takes no key= or reverse=")
        out = seq.copy()
        out.sort(axis=axis, kind=kind)
        return out
    raise TypeError(f"srcad reads .sort() as a list's or an array's, not a "
                    f"{type(seq).__name__}'s")


def _array_order(seq, axis):
    return np.argsort(seq, axis=axis, kind="stable")


@helper("runtime")
def sort_value_grad(grad, seq, key=None, reverse=False, axis=-1, kind=None):
    """The gradient of ``seq`` from that of :func:`sort_value`: each item's back at its place
    (a permutation: an array's along ``axis``)."""
    if isinstance(seq, list):
        return sorted_grad(grad, seq, key, reverse)
    out = np.zeros(np.shape(seq))
    np.put_along_axis(out, _array_order(seq, axis), np.asarray(grad, dtype=float), axis)
    return out


@helper("runtime")
def sort_value_tangent(tangent, seq, key=None, reverse=False, axis=-1, kind=None):
    """The tangent of :func:`sort_value` from ``seq``'s: its items in sorted order."""
    if isinstance(seq, list):
        return sorted_tangent(tangent, seq, key, reverse)
    return np.take_along_axis(np.asarray(tangent), _array_order(seq, axis), axis)


@helper("runtime")
def reverse_value(seq):
    """What ``seq.reverse()`` leaves in the list ``seq``, made on a copy (as
    :func:`sort_value` is)."""
    if not isinstance(seq, list):
        raise TypeError(f"srcad reads .reverse() as a list's, not a {type(seq).__name__}'s")
    return seq[::-1]


@helper("runtime")
def reverse_grad(grad):
    """The gradient (or tangent) of a reversed list: ``grad`` in the other order (its own
    adjoint)."""
    if isinstance(grad, np.ndarray):
        return grad[::-1]
    return list(grad)[::-1]


@helper("runtime")
def extend_value(seq, more):
    """What ``seq.extend(more)`` leaves in the list ``seq`` (``more`` a list of the items),
    made on a copy (as :func:`sort_value` is)."""
    if not isinstance(seq, list):
        raise TypeError(f"srcad reads .extend() as a list's, not a {type(seq).__name__}'s")
    return seq + more


def _a_list(seq, method):
    if not isinstance(seq, list):
        raise TypeError(f"srcad reads .{method}() as a list's, not a {type(seq).__name__}'s")
    return list(seq)


@helper("runtime")
def insert_value(seq, i, value):
    """What ``seq.insert(i, value)`` leaves in the list ``seq``, made on a copy (as
    :func:`sort_value` is)."""
    out = _a_list(seq, "insert")
    out.insert(i, value)
    return out


@helper("runtime")
def insert_position(seq, i):
    """Where ``seq.insert(i, v)`` puts ``v``: ``i`` as Python reads it (from the end when
    negative, clipped to the list)."""
    n, i = len(seq), int(i)
    return min(max(i + n, 0) if i < 0 else i, n)


@helper("runtime")
def pop_value(seq, i=-1):
    """What ``seq.pop(i)`` leaves in the list (or dict) ``seq`` (the item itself is read as
    ``seq[i]`` before), made on a copy."""
    out = dict(seq) if isinstance(seq, dict) else _a_list(seq, "pop")
    out.pop(i)
    return out


@helper("runtime")
def pop_position(seq, i=-1):
    """The position of the item ``seq.pop(i)`` takes (``i`` from the end when negative; the
    key ``i`` of a dict)."""
    if isinstance(seq, dict):
        return i
    i = int(i)
    return i + len(seq) if i < 0 else i


@helper("runtime")
def remove_value(seq, value):
    """What ``seq.remove(value)`` leaves in the list ``seq``, made on a copy."""
    out = _a_list(seq, "remove")
    out.remove(value)
    return out


@helper("runtime")
def remove_position(seq, value):
    """The position of the item ``seq.remove(value)`` takes: the first equal to ``value``."""
    return list(seq).index(value)


@helper("runtime")
def clear_value(seq):
    """What ``seq.clear()`` leaves in the list ``seq``: a new empty list."""
    _a_list(seq, "clear")
    return []


@helper("runtime")
def without_item(grad, k):
    """``grad`` (a list's gradient) without its item at position ``k``: the gradient of a list
    from that of the list with an item inserted at ``k`` (a dict's: without its key ``k``)."""
    out = dict(grad) if isinstance(grad, dict) else list(grad)
    del out[k]
    return out


@helper("runtime")
def with_zero_at(grad, seq, k):
    """``grad`` with a zero (shaped like ``seq[k]``) put back at ``k``: the gradient of ``seq``
    from that of ``seq`` without its item ``k`` (a dict's: with the key ``k`` again, in its
    place)."""
    if isinstance(seq, dict):
        return {key: _zeros(seq[k]) if key == k else grad[key] for key in seq}
    out = list(grad)
    out.insert(k, _zeros(seq[k]))
    return out


for _fn, _name in ((sort_value, ".sort()"), (reverse_value, ".reverse()"),
                   (extend_value, ".extend()"), (insert_value, ".insert()"),
                   (pop_value, ".pop(i)"), (remove_value, ".remove()"),
                   (clear_value, ".clear()")):
    _fn.srcad_in_place = _name  # named so in a refusal (srcad.analysis.alias)
del _fn, _name


@helper("runtime")
def extreme_index(items, key, largest):
    """The position of the item ``max(items, key=key)`` returns (``min`` unless ``largest``):
    ``key`` called once per item, in order, and the keys compared as Python's ``max``
    compares them (the first of equal ones). No derivative: the choice is piecewise constant."""
    keys = [key(item) for item in items]
    pick = max if largest else min
    return pick(range(len(keys)), key=keys.__getitem__)


@helper("runtime")
def seq_index(seq, value, *bounds):
    """``seq.index(value, *bounds)`` of a list or tuple: a position (no derivative: it changes
    only where an item comes to equal ``value``). Any other object's ``index`` method may
    compute anything: refused (``x.index(...)`` is read as this for every ``x``)."""
    return _sequence_method(seq, "index")(value, *bounds)


@helper("runtime")
def seq_count(seq, value):
    """``seq.count(value)`` of a list or tuple: a number of items (no derivative)."""
    return _sequence_method(seq, "count")(value)


def _sequence_method(seq, name):
    if type(seq) not in (list, tuple, str, range):
        raise MissingRuleError(
            f"x.{name}(...) is read as a list's or tuple's {name} (a position or a count, with "
            f"no derivative), but x is a {type(seq).__name__} when the code runs",
            construct=f".{name}()", hint=f"call the class's function ({type(seq).__name__}."
            f"{name}(x, ...)) or give it a rule with @srcad.extend.defvjp")
    return getattr(seq, name)


@helper("runtime")
def index_tuples(kind, lengths, r=None):
    """The positions ``itertools.<kind>`` takes the items at, as a list of tuples: for
    ``combinations``, ``permutations``, ``combinations_with_replacement`` of one pool of
    ``lengths[0]`` items (``r`` at a time), the positions in it; for ``product`` of pools of
    ``lengths`` (``r``: ``repeat``), ``(pool, position)`` pairs (srcad.frontend.builtin_code
    reads the items there: the tuples are the same as itertools'); for ``pairwise``, the
    pairs of positions; for ``islice`` (``r``: its ``(start, stop, step)``, checked as
    itertools checks them), the positions themselves."""
    if kind == "product":
        pools = [[(k, i) for i in range(n)] for k, n in enumerate(lengths)]
        return list(itertools.product(*pools, repeat=1 if r is None else r))
    if kind == "islice":  # positions, not tuples (r: islice's start, stop, step)
        return list(itertools.islice(range(lengths[0]), *r))
    return list(getattr(itertools, kind)(range(lengths[0]), *(() if r is None else (r,))))
