"""Builtins and ``math`` functions srcad reads as plain Python (as :mod:`.folds` does reduce).

A call of one of these in code srcad differentiates is a call of a function written out here
and read like the user's own code (its globals name a module of
:data:`srcad.core.functions.USER_LEVEL`), so the sweeps differentiate the arithmetic it does:

* ``divmod(a, b)``: ``(a // b, a % b)``, which is what Python computes (for floats, ints and
  arrays); the quotient is piecewise constant, the remainder takes the gradient ``%`` does;
* ``math.prod(xs, start=s)``: the loop ``value = s; for x in xs: value = value * x`` (exact at
  zeros, where a rule dividing by the item would not be);
* ``math.hypot(*coords)`` with other than two coordinates and ``math.dist(p, q)``: the square
  root of the sum of squares (Python's own scale the sum to avoid overflow; these do not, so
  coordinates beyond about 1e154 overflow here).

* ``itertools.combinations(xs, r)``, ``permutations``, ``combinations_with_replacement`` and
  ``product(xs, ys, repeat=k)``: the list of the tuples of items itertools gives, each item
  read by its position in a list of the iterable's items (the positions are integers, from
  itertools itself: ``index_tuples``), so each item's gradient goes back to its place.
  itertools reads its iterables whole when called, as the list does; its result is an
  iterator, the stand-in's a list (taken by a ``for`` loop, ``sum``, ``list``, a
  comprehension alike).

* ``np.subtract.outer(a, b)`` (any two-input ufunc with a rule): the ufunc of ``a`` given
  ``b``'s axes after its own, and ``b``; ``np.logaddexp.reduce(a, axis)`` and ``accumulate``
  (``logaddexp2``, ``hypot``, ``fmax``, ``fmin``: associative and commutative, so the loop's
  value is NumPy's): the ufunc applied in turn along the axis.

* ``np.apply_along_axis(f, axis, a)``: ``f`` of each 1-D slice along the axis, stacked with
  its result's axes where the axis was (NumPy's layout).

* ``np.vectorize(func)(a, b)`` (the vectorized function held in a name, or a module-level
  ``@np.vectorize`` function): ``func`` of each element of the arguments broadcast together,
  in NumPy's order, each element a Python number as NumPy gives it (``.item()``), the
  results in an array of the broadcast shape (``vectorized``); ``check_vectorized`` raises
  where NumPy's array would differ (a tuple of results, results of other types than the
  first's). ``otypes`` meaning float is read as ``np.array(outs, dtype=float)``.

``key_as_lambda`` reads ``max(d, key=d.get)`` (``min``, ``sorted``; any attribute as the key)
as ``max(d, key=lambda v: d.get(v))``: the bound method is a call srcad reads, its value none.

``inactive_key`` gives such a key (a lambda reading differentiated values, ``d.get`` of a dict
of them) those values through :func:`no_gradient`: which item is picked is piecewise constant
in the keys, so the key carries no gradient, and the function holding them is no longer a
differentiated value used other than by a call.

Imports the standard library, gast, NumPy, :mod:`srcad.core`, :mod:`srcad.rules` and
:mod:`srcad.runtime.containers`.
"""

from __future__ import annotations

import itertools
import math

import gast
import numpy as np

from ..core import ir
from ..core.functions import USER_LEVEL, run_source
from ..core.walk import walk_nodes
from ..errors import UnsupportedSyntaxError
from ..rules.registry import registry
from ..runtime import containers
from . import vectorized as _vectorized

_DIVMOD = '''def divmod(a, b):
    """divmod(a, b) as srcad differentiates it: the quotient and the remainder."""
    return a // b, a % b
'''
_PROD = '''def prod(iterable, start=1):
    """math.prod as a loop srcad differentiates."""
    value = start
    for item in iterable:
        value = value * item
    return value
'''
_DIST = '''def dist(p, q):
    """math.dist as srcad differentiates it."""
    if len(p) != len(q):
        raise ValueError("both points must have the same number of dimensions")
    total = 0.0
    for a, b in zip(p, q):
        total = total + (a - b) * (a - b)
    return math.sqrt(total)
'''
_POOLED = '''def {kind}(iterable, r{default}):
    """itertools.{kind} as srcad differentiates it: the items at the positions itertools
    takes them (its tuples, in its order), as a list made at once (itertools reads the whole
    iterable when called too)."""
    pool = list(iterable)
    return [tuple([pool[i] for i in at]) for at in index_tuples("{kind}", [len(pool)], r)]
'''
_PRODUCT = '''def product({params}*, repeat=1):
    """itertools.product as srcad differentiates it: the items at the positions itertools
    takes them (its tuples, in its order), as a list made at once (itertools reads every
    iterable when called too)."""
    pools = [{pools}]
    lengths = [len(pool) for pool in pools]
    return [tuple([pools[k][i] for k, i in at])
            for at in index_tuples("product", lengths, repeat)]
'''
_ISLICE = '''def islice(iterable, {params}):
    """itertools.islice as srcad differentiates it: the items at the positions islice takes
    (from itertools itself, which checks the bounds), as a list."""
    check_sized(iterable, "islice")
    pool = list(iterable)
    return [pool[i] for i in index_tuples("islice", [len(pool)], ({params},))]
'''
_PAIRWISE = '''def pairwise(iterable):
    """itertools.pairwise as srcad differentiates it: the pairs of successive items, as a
    list."""
    check_sized(iterable, "pairwise")
    pool = list(iterable)
    return [(pool[i], pool[j]) for i, j in index_tuples("pairwise", [len(pool)])]
'''
_CHAIN = '''def chain({params}):
    """itertools.chain as srcad differentiates it: the items of each iterable in turn, as a
    list."""
{checks}    return {joined}
'''
_FROM_ITERABLE = '''def from_iterable(iterables):
    """itertools.chain.from_iterable as srcad differentiates it: the items of each iterable
    in turn, as a list."""
    check_sized(iterables, "chain.from_iterable")
    items = []
    for iterable in iterables:
        check_sized(iterable, "chain.from_iterable")
        items = items + list(iterable)
    return items
'''
#: itertools' functions of one pool srcad reads as Python: whether ``r`` may be left out
_ONE_POOL = {"combinations": False, "combinations_with_replacement": False,
             "permutations": True}
_UFUNC_METHODS = {
    "outer": '''def outer(a, b):
    """np.{name}.outer(a, b) as srcad differentiates it: np.{name} of ``a`` given ``b``'s
    axes after its own, and ``b``."""
    return ufunc(np.reshape(a, np.shape(a) + (1,) * np.ndim(b)), b)
''',
    "reduce": '''def reduce(array, axis=0):
    """np.{name}.reduce(array, axis) as srcad differentiates it: np.{name} applied in turn
    along the axis (an int, or None for every axis), as NumPy does."""
    a = np.ravel(array) if axis is None else np.moveaxis(np.asarray(array), axis, 0)
    value = a[0]
    for i in range(1, len(a)):
        value = ufunc(value, a[i])
    return value
''',
    "accumulate": '''def accumulate(array, axis=0):
    """np.{name}.accumulate(array, axis) as srcad differentiates it: the running values of
    np.{name} along the axis, as NumPy computes them."""
    a = np.moveaxis(np.asarray(array), axis, 0)
    values = [a[0]]
    for i in range(1, len(a)):
        values.append(ufunc(values[-1], a[i]))
    return np.moveaxis(np.stack(values), 0, axis)
''',
}

#: the ufuncs whose ``reduce`` and ``accumulate`` are read so: associative and commutative,
#: so NumPy's order and the loop's give one value (NumPy 2's ``power.reduce`` and
#: ``arctan2.reduce`` are not the left fold along the axis: refused, as the others are)
_FOLDED = {"logaddexp", "logaddexp2", "hypot", "fmax", "fmin"}
#: the calls of those read so: (positional count, keywords)
_UFUNC_CALLS = {"outer": [(2, set())],
                "reduce": [(1, set()), (2, set()), (1, {"axis"})],
                "accumulate": [(1, set()), (2, set()), (1, {"axis"})]}


def _ufunc_method(fn):
    """The ufunc whose ``outer``/``reduce``/``accumulate`` ``fn`` is, when srcad reads it as
    Python (a ufunc of two inputs with a rule; the method itself without one), else None."""
    owner = getattr(fn, "__self__", None)
    if not (isinstance(owner, np.ufunc) and owner.nin == 2 and owner.nout == 1
            and getattr(fn, "__name__", None) in _UFUNC_METHODS):
        return None
    if registry.has_rule(fn) or not registry.has_rule(owner):
        return None
    if fn.__name__ != "outer" and owner.__name__ not in _FOLDED:
        return None
    return owner


_APPLY_ALONG_AXIS = '''def apply_along_axis(func1d, axis, arr):
    """np.apply_along_axis as srcad differentiates it: func1d of each 1-D slice along the
    axis, the results stacked with their axes where the axis was, as NumPy does."""
    arr = np.asarray(arr)
    axis = axis % np.ndim(arr)
    a = np.moveaxis(arr, axis, -1)
    outs = [func1d(a[at]) for at in np.ndindex(*np.shape(a)[:-1])]
    res = np.reshape(np.stack(outs), np.shape(a)[:-1] + np.shape(outs[0]))
    k = np.ndim(outs[0])
    return np.moveaxis(res, list(range(np.ndim(res) - k, np.ndim(res))),
                       list(range(axis, axis + k)))
'''


def check_sized(iterable, name):
    """Raise unless ``iterable`` has a length (a list, tuple, array, range, dict): srcad reads
    ``itertools.<name>`` of it by taking its items at once, which an endless iterator
    (``itertools.count()``) never ends."""
    if not hasattr(iterable, "__len__"):
        raise UnsupportedSyntaxError(
            f"itertools.{name} of an iterator ({type(iterable).__name__}): srcad reads it by "
            "taking the iterator's items at once", hint=f"give {name} a list, tuple or array "
            f"(list(it) where it ends), or loop with range and indices")


registry.nondiff.add(check_sized)  # a check: no derivative
_MADE = {}


def _hypot_text(count):
    names = [f"c{i}" for i in range(count)]
    body = "0.0" if not names else f"abs({names[0]})" if count == 1 else \
        "math.sqrt(" + " + ".join(f"{c} * {c}" for c in names) + ")"
    return (f"def hypot({', '.join(names)}):\n    \"\"\"math.hypot of {count} coordinates as "
            f"srcad differentiates it.\"\"\"\n    return {body}\n")


def _made(key, text, name, **more):
    made = _MADE.get(key)
    if made is None:
        namespace = run_source(text, f"<srcad: {key[0]} as Python>",
                               {"__name__": f"{USER_LEVEL}.builtin_code", "math": math,
                                "np": np, "index_tuples": containers.index_tuples,
                                "check_vectorized": _vectorized.check_vectorized,
                                "check_sized": check_sized, **more})
        made = _MADE[key] = namespace[name]
    return made


def _chain_text(count):
    names = [f"iterable{k}" for k in range(count)]
    return _CHAIN.format(params=", ".join(names), checks="".join(
        f'    check_sized({n}, "chain")\n' for n in names), joined=" + ".join(
            f"list({n})" for n in names) or "[]")


def stands_for(fn):
    """Whether :func:`stand_in` may have a function for ``fn``."""
    return any(fn is f for f in (divmod, math.prod, math.dist, math.hypot, itertools.product,
                                 itertools.islice, itertools.pairwise, itertools.chain,
                                 itertools.combinations, itertools.permutations,
                                 itertools.combinations_with_replacement,
                                 np.apply_along_axis) + _vectorized.FUNCTIONS) or (
        isinstance(fn, np.vectorize)) or fn == itertools.chain.from_iterable or (
        _ufunc_method(fn) is not None)


def stand_in(fn, count, kwargs):
    """The plain function standing for ``fn`` called with ``count`` positional arguments and
    the keywords ``kwargs``, or ``fn`` itself."""
    if fn is divmod and count == 2 and not kwargs:
        return _made(("divmod",), _DIVMOD, "divmod")
    if fn is math.prod and count == 1 and set(kwargs) <= {"start"}:
        return _made(("math.prod",), _PROD, "prod")
    if fn is math.dist and count == 2 and not kwargs:
        return _made(("math.dist",), _DIST, "dist")
    if fn is math.hypot and count != 2 and not kwargs and count < 64:
        return _made((f"math.hypot{count}",), _hypot_text(count), "hypot")
    kind = getattr(fn, "__name__", None)
    if kind in _ONE_POOL and fn is getattr(itertools, kind) and set(kwargs) <= {"r"} and (
            count + len(kwargs) == 2 or (_ONE_POOL[kind] and count + len(kwargs) == 1)):
        return _made((f"itertools.{kind}",), _POOLED.format(
            kind=kind, default="=None" if _ONE_POOL[kind] else ""), kind)
    if any(fn is v for v in _vectorized.FUNCTIONS) and 2 < count < 32 and not kwargs:
        float_type = fn is _vectorized.vectorized_float  # (func, where, arguments...)
        return _made((f"np.vectorize{count - 2}{'f' if float_type else ''}",),
                     _vectorized.text(count - 2, float_type), "vectorized")
    if fn is itertools.islice and 2 <= count <= 4 and not kwargs:
        names = ["stop"] if count == 2 else ["start", "stop", "step"][:count - 1]
        return _made((f"itertools.islice{count}",), _ISLICE.format(
            params=", ".join(names)), "islice")
    if fn is itertools.pairwise and count == 1 and not kwargs:
        return _made(("itertools.pairwise",), _PAIRWISE, "pairwise")
    if fn is itertools.chain and count < 32 and not kwargs:
        return _made((f"itertools.chain{count}",), _chain_text(count), "chain")
    if fn == itertools.chain.from_iterable and count == 1 and not kwargs:
        return _made(("itertools.chain.from_iterable",), _FROM_ITERABLE, "from_iterable")
    if fn is np.apply_along_axis and count == 3 and not kwargs:
        return _made(("np.apply_along_axis",), _APPLY_ALONG_AXIS, "apply_along_axis")
    ufunc = _ufunc_method(fn)
    if ufunc is not None and (count, set(kwargs)) in _UFUNC_CALLS[kind]:
        return _made((f"np.{ufunc.__name__}.{kind}",), _UFUNC_METHODS[kind].format(
            name=ufunc.__name__), kind, ufunc=ufunc)
    if fn is itertools.product and 0 < count < 16 and set(kwargs) <= {"repeat"}:
        names = [f"iterable{k}" for k in range(count)]
        return _made((f"itertools.product{count}",), _PRODUCT.format(
            params="".join(f"{n}, " for n in names), pools=", ".join(
                f"list({n})" for n in names)), "product")
    return fn


def key_as_lambda(call, extreme=False):
    """``key=d.get`` (an attribute: a bound method) of the call node ``call`` made
    ``key=lambda srcad_key: d.get(srcad_key)``, in place; for ``min``/``max`` (``extreme``)
    several arguments with a key, ``max(a, b, key=abs)``, made ``max((a, b), key=abs)``."""
    if extreme and len(call.args) > 1 and not any(isinstance(a, gast.Starred)
                                                  for a in call.args) and [
            k.arg for k in call.keywords] == ["key"]:
        call.args = [gast.copy_location(gast.Tuple(elts=call.args, ctx=gast.Load()), call)]
    for keyword in call.keywords:
        if keyword.arg == "key" and isinstance(keyword.value, gast.Attribute):
            method = keyword.value
            arg = gast.Name(id="srcad_key", ctx=gast.Param(), annotation=None,
                            type_comment=None)
            body = gast.Call(func=method, args=[gast.Name(
                id="srcad_key", ctx=gast.Load(), annotation=None, type_comment=None)],
                keywords=[])
            keyword.value = gast.Lambda(args=gast.arguments(
                args=[arg], posonlyargs=[], vararg=None, kwonlyargs=[], kw_defaults=[],
                kwarg=None, defaults=[]), body=body)
            for sub in walk_nodes(keyword.value):
                if "lineno" in sub._attributes:
                    gast.copy_location(sub, method)


def no_gradient(value):
    """``value`` itself, carrying no gradient (what a ``key=`` function reads)."""
    return value


registry.nondiff.add(no_gradient)


def inactive_key(lw, key, node):
    """The key function ``key`` (an atom) of ``max``/``min``/``sorted`` in the lowering ``lw``:
    a function holding values (a partial) holds them through :func:`no_gradient`."""
    if not isinstance(key, ir.Var) or key.name not in lw.partials:
        return key
    inner, lead, lead_kw, spelling = lw.partials[key.name]

    def cut(atom):
        if not isinstance(atom, ir.Var):
            return atom
        return lw.assign(ir.Prim(no_gradient, [atom], spelling=lw.bound_name(
            no_gradient, "no_gradient")), "key_reads", node)

    fn = ir.Const(inner, spelling or lw.bound_name(inner, getattr(inner, "__name__", "key")))
    return lw.partial_value(fn, [cut(a) for a in lead], {k: cut(a) for k, a in
                                                        lead_kw.items()}, node, "key")
