"""Calls to user functions: each callee is split into a forward part and a backward part.

For ``y = helper(a, b)`` with ``a`` active, the caller's generated code reads

    y, y_ctx = helper_fwd(a, b)          # forward sweep: the value, and what the backward needs
    ...
    da = helper_bwd(y_ctx, dy)           # backward sweep

``helper_fwd`` is ``helper``'s forward sweep returning its value and a tuple of the values its
backward sweep reads; ``helper_bwd`` unpacks them and runs the backward sweep. Each callee is
transformed once per (activity of its arguments, kinds of its arguments) and cached, so the
generated code of a call stays one line each way, recursion included: a recursive call finds
the pair being made and binds to it through closure cells filled in when it is ready.
"""

from __future__ import annotations

import inspect
import threading
import types
import weakref
from dataclasses import dataclass

from . import env
from .analyse import ANY


@dataclass
class Split:
    fwd: types.CellType  # cells: filled when compiled (recursion sees them empty until then)
    bwd: types.CellType
    result_kind: str
    fwd_text: str = ""
    bwd_text: str = ""
    name: str = ""
    reads: tuple = ()  # what making it read from the environment (srcad.env)
    defaults: tuple = (None, None)  # the callee's __defaults__, __kwdefaults__ (fwd has them)


class ByFunction:
    """A cache keyed by ``(function, ...)`` whose entries live *on the function* (in its
    ``__dict__``, under a name private to this cache), so they go when the function goes.

    A weak-keyed dict would not do: an entry's value is generated code whose globals are the
    function's module, which holds the function, so the entry would keep its own key alive
    (finding 19). Stored on the function, the entry is part of that cycle and is collected
    with it. A callable whose attributes cannot be set (a builtin, a bound method) is never
    cached. ``_holders`` (weak) finds the entries again for ``clear`` and ``values``.
    """

    _count = 0

    def __init__(self):
        ByFunction._count += 1
        self._attr = f"__srcad_cache_{ByFunction._count}__"
        self._holders = weakref.WeakSet()

    def _entries(self, fn, create=False):
        try:
            held = fn.__dict__.get(self._attr)
        except AttributeError:
            return None
        # functools.wraps copies __dict__: a wrapper would carry the entries of the function
        # it wraps, so each holds a weak reference to its owner and answers only to it
        if held is not None and held[0]() is fn:
            return held[1]
        if not create:
            return None
        try:
            held = fn.__dict__[self._attr] = (weakref.ref(fn), {})
            self._holders.add(fn)
        except TypeError:  # not weakly referable: never cached
            fn.__dict__.pop(self._attr, None)
            return None
        return held[1]

    def get(self, key, default=None):
        entries = self._entries(key[0])
        if not entries:
            return default
        try:
            return entries.get(key[1:], default)
        except TypeError:  # an unhashable part of the key: never cached
            return default

    def __contains__(self, key):
        return self.get(key, _MISSING) is not _MISSING

    def __getitem__(self, key):
        value = self.get(key, _MISSING)
        if value is _MISSING:
            raise KeyError(key)
        return value

    def __setitem__(self, key, value):
        entries = self._entries(key[0], create=True)
        if entries is not None:
            try:
                entries[key[1:]] = value
            except TypeError:
                pass

    def __delitem__(self, key):
        entries = self._entries(key[0])
        if entries:
            entries.pop(key[1:], None)

    def clear(self):
        for fn in list(self._holders):
            fn.__dict__.pop(self._attr, None)
        self._holders = weakref.WeakSet()

    def values(self):
        return [v for fn in list(self._holders) for v in (self._entries(fn) or {}).values()]


_MISSING = object()
_cache = ByFunction()
_lock = threading.RLock()


def is_user_function(fn):
    """A plain Python function srcad can read and differentiate (not a rule, not a builtin)."""
    if not inspect.isfunction(fn):
        return False
    module = getattr(fn, "__module__", "") or ""
    return module.split(".")[0] not in ("srcad", "numpy", "math")


def split(fn, wrt, kinds):
    """The (possibly still being made) forward/backward pair of ``fn``."""
    key = (fn, tuple(wrt), tuple(sorted(kinds.items())))
    with _lock:
        entry = _cache.get(key)
        if entry is not None and (env.stale(entry.reads) or entry.defaults[0] is not
                                  fn.__defaults__ or entry.defaults[1] is not fn.__kwdefaults__):
            entry = None  # made for what a name (or a default) meant before: made again
        if entry is not None:
            env.record_all(entry.reads)  # the caller depends on them too
            return entry
        entry = Split(types.CellType(), types.CellType(), ANY, name=fn.__name__,
                      defaults=(fn.__defaults__, fn.__kwdefaults__))
        _cache[key] = entry
        try:
            from . import pipeline

            with env.collecting() as reads:
                pipeline.make_split(fn, wrt, kinds, entry)
        except BaseException:
            del _cache[key]
            raise
        entry.reads = tuple(reads.values())
        return entry


_kinds = ByFunction()
_in_progress = set()


def result_kind(fn, kinds):
    """The kind of ``fn``'s result for arguments of these kinds.

    ``None`` while that is being worked out (a recursive call): the caller's join ignores it,
    which is the optimistic start of a fixed point; a second pass confirms the answer or
    falls back to ANY.
    """
    key = (fn, tuple(sorted(kinds.items())))
    known = _kinds.get(key)
    if known is not None and not env.stale(known[1]):
        env.record_all(known[1])
        return known[0]
    if key in _in_progress:
        return _kinds.get(key + ("guess",))
    from .analyse import Analysis
    from .pipeline import to_ssa

    _in_progress.add(key)
    try:
        with env.collecting() as reads:
            ir_fn, _ = to_ssa(fn)
            first = _result(Analysis(ir_fn, kinds, ()))
            _kinds[key + ("guess",)] = first
            second = _result(Analysis(ir_fn, kinds, ()))
        kind = first if first == second else ANY
    except Exception:
        kind = ANY
    finally:
        _in_progress.discard(key)
    _kinds[key] = (kind, tuple(reads.values()))
    return kind


def _result(analysis):
    rets = [analysis.kind(r.value) for r in analysis.returns]
    return rets[0] if len(set(rets)) == 1 else ANY


def clear():
    with _lock:
        _cache.clear()
        _kinds.clear()
