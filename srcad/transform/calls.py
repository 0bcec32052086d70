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

The pairs are made by the pipeline, which sits above this module: it hands its stages down as
a :class:`Callees` (``pipeline.CALLEES``), which the analysis and the sweeps reach through
``Analysis.callees``; nothing here imports the pipeline.
"""

from __future__ import annotations

import inspect
import threading
import types
from dataclasses import dataclass

from ..analysis import complexity, doubles, dtypes, effects, memory
from ..analysis import elems as lists
from ..analysis.analyse import Analysis
from ..analysis.user_calls import bind_call
from ..core import env, ir
from ..core.functions import ByFunction, bind
from ..core.kinds import (
    ANY,
    ARRAY,
    DOUBLE,
    SEQ,
    kind_of_value,
    made_for,
    made_items,
    made_result,
    made_stacks,
    rank_of_value,
    with_dtypes,
)
from ..errors import SrcadError


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
    code: object = None  # the callee's __code__ when it was made
    whole: tuple = ()  # per returned gradient: a whole list (.whole_lists.returned)


def _kinds_ranks(values):
    """The kinds of a call's arguments (parameter -> value) and their arrays' ranks: generated
    code called in code differentiated again is made for both (``x[0]`` of a vector is a
    number: no ``unbroadcast`` for it), as the plain key of the call already tells them apart
    (``srcad.backend.keys.plain_key``)."""
    kinds = with_dtypes({p: kind_of_value(v) for p, v in values.items()}, values)
    return kinds, None, {p: rank_of_value(v) for p, v in values.items()}


class Callees:
    """The user functions a program calls, made on demand with the stages handed in:
    ``to_ssa(fn, arity=...)`` gives a callee's IR, ``make_split(fn, wrt, kinds, entry, arity)``
    fills a :class:`Split`, ``make_tangent(fn, wrt, kinds, arity)`` compiles its forward mode.
    Everything made is cached on the callee (see :class:`srcad.functions.ByFunction`) and
    made again when a name it read means something else (:mod:`srcad.env`)."""

    def __init__(self, to_ssa, make_split, make_tangent):
        self._to_ssa = to_ssa
        self._make_split = make_split
        self._make_tangent = make_tangent
        self._splits = ByFunction()
        self._kinds = ByFunction()
        self._tangents = ByFunction()
        self._effects = ByFunction()
        self._unseen = ByFunction()
        self._in_progress = set()
        self._checking = set()
        self._asking = set()  # unseen_complex's keys being worked out
        self._lock = threading.RLock()

    def split(self, fn, wrt, kinds, arity=None, ranks=None, into=()):
        """The (possibly still being made) forward/backward pair of ``fn`` (for a call filling
        its ``*args``/``**kwargs`` as ``arity`` says; ``ranks``: the ranks of its array
        arguments where the caller knows them; ``into``: :mod:`srcad.transform.into`)."""
        ranks = {p: r for p, r in (ranks or {}).items() if r is not None}
        key = (fn, tuple(wrt), tuple(sorted(kinds.items())), arity) + (
            (tuple(sorted(ranks.items())),) if ranks else ()) + (("into", *into),) * bool(into)
        with self._lock:
            entry = self._splits.get(key)
            if entry is not None and (env.stale(entry.reads) or entry.defaults[0] is not
                                      fn.__defaults__ or entry.defaults[1] is not
                                      fn.__kwdefaults__ or entry.code is not
                                      getattr(fn, "__code__", None)):
                entry = None  # made for what a name (or a default) meant before: made again
            if entry is not None:
                env.record_all(entry.reads)  # the caller depends on them too
                return entry
            entry = Split(types.CellType(), types.CellType(), ANY, name=fn.__name__,
                          defaults=(fn.__defaults__, fn.__kwdefaults__),
                          code=getattr(fn, "__code__", None))
            self._splits[key] = entry
            try:
                with env.collecting() as reads:
                    self._make_split(fn, wrt, kinds, entry, arity, ranks or None, tuple(into))
            except BaseException:
                del self._splits[key]
                raise
            entry.reads = tuple(reads.values())
            return entry

    def split_call(self, code, wrt, args, kwargs):
        """The pair for a call ``code(*args, **kwargs)`` of generated code (a derivative srcad
        made, called inside differentiated code), specialised on the arguments' kinds."""
        arguments, _, _ = bind(code, args, kwargs)
        return self.split(code, list(wrt), *_kinds_ranks(arguments))

    def tangent_call(self, code, wrt, args, kwargs, tangents):
        """The forward mode of a call ``code(*args, **kwargs)`` of generated code (a
        derivative srcad made, called inside code differentiated in forward mode) along
        ``tangents``, specialised on the arguments' kinds: ``(value, tangent)``."""
        bound = inspect.signature(code).bind(*args, **kwargs)
        bound.apply_defaults()
        cell = self.tangent(code, list(wrt), *_kinds_ranks(bound.arguments))
        return cell.cell_contents(*bound.arguments.values(), *tangents)

    def tangent_code(self, code, wrt, args):
        """The forward-mode function of generated code ``code`` for positional arguments like
        ``args`` (all its parameters): ``jvp(*args, *tangents) -> (value, tangent)``."""
        params = inspect.signature(code).parameters
        if len(params) != len(args):
            raise SrcadError(f"{code.__name__} takes {len(params)} arguments, the call gives "
                             f"{len(args)}", hint="pass every argument positionally")
        return self.tangent(code, list(wrt), *_kinds_ranks(dict(zip(params, args)))).cell_contents

    def tangent(self, fn, wrt, kinds, arity=None, ranks=None):
        """A cell holding the forward-mode function of ``fn`` (filled after it is compiled;
        ``ranks``: of its array arguments, which the Numba backend's code is made for)."""
        ranks = {p: r for p, r in (ranks or {}).items() if r is not None}
        key = (fn, tuple(wrt), tuple(sorted(kinds.items())), arity, _code(fn)) + (
            (tuple(sorted(ranks.items())),) if ranks else ())
        known = self._tangents.get(key)
        if known is not None and not env.stale(known[1]):
            env.record_all(known[1])  # the caller depends on them too
            return known[0]
        cell = types.CellType()
        self._tangents[key] = (cell, ())  # a recursive call finds it
        try:
            with env.collecting() as reads:
                compiled = self._make_tangent(fn, wrt, kinds, arity, **(
                    {"ranks": ranks} if ranks else {}))
        except BaseException:
            del self._tangents[key]
            raise
        cell.cell_contents = compiled
        self._tangents[key] = (cell, tuple(reads.values()))
        return cell

    def result_kind(self, fn, kinds, arity=None, ranks=None):
        """The kind of ``fn``'s result for arguments of these kinds (and, for arrays, these
        ranks where the caller knows them).

        ``None`` while that is being worked out (a recursive call): the caller's join ignores
        it, which is the optimistic start of a fixed point; a second pass confirms the answer
        or falls back to ANY.
        """
        return self._result(fn, kinds, arity, ranks)[0]

    def result_rank(self, fn, kinds, arity=None, ranks=None):
        """The rank of ``fn``'s result when it is an array of one known rank, else None."""
        return self._result(fn, kinds, arity, ranks)[1]

    def result_items(self, fn, kinds, arity=None, ranks=None):
        """``{position: (kind, rank)}`` of the items of ``fn``'s result when every return is
        a tuple built there of the same items' kinds (``return hidden, cell``), else None."""
        return self._result(fn, kinds, arity, ranks)[2]

    def result_elems(self, fn, kinds, arity=None, ranks=None):
        """``{position: kind}`` of the lists of certain element kind in the tuple ``fn``
        returns (:mod:`srcad.analysis.elems`), else None."""
        return self._result(fn, kinds, arity, ranks)[3]

    def _result(self, fn, kinds, arity, ranks):
        ranks = {p: r for p, r in (ranks or {}).items() if r is not None} if arity is None \
            else {}
        key = (fn, tuple(sorted(kinds.items())), arity, _code(fn)) + (
            (tuple(sorted(ranks.items())),) if ranks else ())
        known = self._kinds.get(key)
        if known is not None and not env.stale(known[1]):
            env.record_all(known[1])
            return known[0]
        if key in self._in_progress:
            return self._kinds.get(key + ("guess",)), None, None, None
        self._in_progress.add(key)
        try:
            with env.collecting() as reads:
                ir_fn, _ = self._to_ssa(fn, arity=arity)
                made = made_for(fn, kinds)  # a function srcad generated: what it was made for
                items = made_items(fn, None)
                first = _result(Analysis(ir_fn, made, (), items, ranks or None, callees=self,
                                            param_stacks=made_stacks(fn)))
                self._kinds[key + ("guess",)] = first[0]
                second = _result(Analysis(ir_fn, made, (), items, ranks or None, callees=self,
                                            param_stacks=made_stacks(fn)))
            result = (made_result(fn, first[0] if first[0] == second[0] else ANY),
                      first[1] if first == second else None,
                      first[2] if first == second and first[0] == SEQ else None,
                      first[3] if first == second and first[0] == SEQ else None)
        except Exception:
            result = (ANY, None, None, None)
        finally:
            self._in_progress.discard(key)
        self._kinds[key] = (result, tuple(reads.values()))
        return result

    def result_complex(self, fn, kinds, arity=None, unreadable=True):
        """Whether ``fn``'s result may be complex for arguments of these kinds (``kinds``
        names the complex ones under ``COMPLEX``); worked out like :meth:`result_kind`, a
        recursive call first guessed real, then confirmed or taken as complex.
        ``unreadable``: the answer when srcad cannot read or analyse ``fn``."""
        key = (fn, tuple(sorted(kinds.items())), arity, "complex", unreadable, _code(fn))
        known = self._kinds.get(key)
        if known is not None and not env.stale(known[1]):
            env.record_all(known[1])
            return known[0]
        if key in self._in_progress:
            return self._kinds.get(key + ("guess",), False)
        self._in_progress.add(key)
        try:
            with env.collecting() as reads:
                ir_fn, _ = self._to_ssa(fn, arity=arity)
                made = made_for(fn, kinds)
                items = made_items(fn, None)
                first = _result_complex(Analysis(ir_fn, made, (), items, callees=self,
                                                     param_stacks=made_stacks(fn)))
                self._kinds[key + ("guess",)] = first
                second = _result_complex(Analysis(ir_fn, made, (), items, callees=self,
                                                     param_stacks=made_stacks(fn)))
            result = first or second
        except Exception:
            result = unreadable
        finally:
            self._in_progress.discard(key)
        self._kinds[key] = (result, tuple(reads.values()))
        return result

    def result_memory(self, fn, kinds, arity=None, fact=memory.result_memory, unknown=None):
        """What ``fn``'s result may be and hold for arguments of these kinds (or ``fact``:
        :func:`srcad.analysis.memory.result_may_be_list`), else ``unknown`` (unreadable)."""
        return _result_memory(self, fn, kinds, arity, fact, unknown)

    def result_inexact(self, fn, kinds, arity, inexact):
        """Whether every value ``fn`` returns is certainly floating-point (or complex) when
        the parameters named in ``inexact`` are (:func:`srcad.analysis.dtypes.inexact_result`);
        False when srcad cannot tell."""
        return self._read(fn, kinds, arity, tuple(sorted(inexact)), _inexact_result, False)

    def result_double(self, fn, kinds, arity, doubles_):
        """Whether every value ``fn`` returns is certainly of float64 when the parameters
        named in ``doubles_`` are (:func:`srcad.analysis.doubles.double_result`), or False."""
        kinds = {**kinds, DOUBLE: tuple(sorted(doubles_))} if doubles_ else kinds
        return self._read(fn, kinds, arity, (), _double_result, False)

    def _read(self, fn, kinds, arity, wrt, fact, unknown):
        """``fact(ir_fn, analysis)`` of ``fn`` analysed for arguments of these kinds (``wrt``:
        the parameters taken as floats), cached; ``unknown`` while it is being worked out
        (recursion) or when srcad cannot read ``fn``."""
        key = (fn, tuple(sorted(kinds.items())), arity, fact, wrt)
        known = self._kinds.get(key)
        if known is not None and not env.stale(known[1]):
            env.record_all(known[1])
            return known[0]
        if key in self._in_progress:
            return unknown
        self._in_progress.add(key)
        try:
            with env.collecting() as reads:
                ir_fn, _ = self._to_ssa(fn, arity=arity)
                result = fact(ir_fn, Analysis(ir_fn, made_for(fn, kinds), wrt,
                                              made_items(fn, None), callees=self,
                                              param_stacks=made_stacks(fn)))
        except Exception:  # noqa: BLE001 - unreadable: the caller assumes the worst
            result, reads = unknown, {}
        finally:
            self._in_progress.discard(key)
        self._kinds[key] = (result, tuple(reads.values()))
        return result

    def writes_nothing(self, fn, kinds, arity=None, params=False):
        """Whether a call of ``fn`` with arguments of these kinds provably changes no object
        its caller can see (``params``: none but its arguments' objects) (:func:`srcad.
        analysis.effects.writes_nothing`); ``False`` when srcad cannot read it."""
        key = (fn, tuple(sorted(kinds.items())), arity, _code(fn), params)
        known = self._effects.get(key)
        if known is not None and not env.stale(known[1]):
            env.record_all(known[1])
            return known[0]
        if key in self._checking:
            return True  # a recursive call: see srcad.analysis.effects
        top = not self._checking
        self._checking.add(key)
        try:
            with env.collecting() as reads:
                ir_fn, _ = self._to_ssa(fn, arity=arity)
                analysis = Analysis(ir_fn, made_for(fn, kinds), (), made_items(fn, None),
                                    callees=self, param_stacks=made_stacks(fn))
                answer = effects.writes_nothing(ir_fn, analysis, self._inner(analysis), params)
        except Exception:  # noqa: BLE001 - unreadable: not provably free of writes
            answer, reads = False, {}
        finally:
            self._checking.discard(key)
        if top or not answer:  # True below a recursive call holds only if that call's does
            self._effects[key] = (answer, tuple(reads.values()))
        return answer

    written = None  # below: calls.written

    def unseen_complex(self, fn, kinds, arity=None):
        """Whether ``fn``'s code, for arguments of these kinds, has an operation that may make
        a complex number no kind shows (:func:`srcad.analysis.complexity.unseen_complex`, its
        own callees asked in turn); ``True`` when srcad cannot read it. A recursive call is
        taken to make none while its own code is asked (what the rest of that code makes
        decides), and a ``False`` found under that assumption is kept only at the top."""
        key = (fn, tuple(sorted(kinds.items())), arity, "unseen", _code(fn))
        known = self._unseen.get(key)
        if known is not None and not env.stale(known[1]):
            env.record_all(known[1])
            return known[0]
        if key in self._asking:
            return False
        top = not self._asking
        self._asking.add(key)
        try:
            with env.collecting() as reads:
                ir_fn, _ = self._to_ssa(fn, arity=arity)
                analysis = Analysis(ir_fn, made_for(fn, kinds), (), made_items(fn, None),
                                    callees=self, param_stacks=made_stacks(fn))
                answer = complexity.unseen_complex(analysis)
        except Exception:  # noqa: BLE001 - unreadable: may make anything
            answer, reads = True, {}
        finally:
            self._asking.discard(key)
        if top or answer:  # False below a recursive call holds only if that call's does
            self._unseen[key] = (answer, tuple(reads.values()))
        return answer

    def _inner(self, analysis):
        def callee_writes_nothing(prim, params=False):
            call = bind_call(prim, analysis.kind)
            return call is not None and self.writes_nothing(prim.fn, call.kinds, call.arity,
                                                            params)
        return callee_writes_nothing

    def clear(self):
        with self._lock:
            self._effects.clear()
            self._unseen.clear()
            self._splits.clear()
            self._kinds.clear()
            self._tangents.clear()


def _code(fn):
    """``fn``'s code object: part of every key (a function given another ``__code__`` is
    another function to differentiate)."""
    return getattr(fn, "__code__", None)


def _result_complex(analysis):
    return any(analysis.is_complex(r.value) for r in analysis.returns)


def _result(analysis):
    """The kind of what ``analysis``'s function returns, for an array its rank (None when
    the returns differ or it is not one known number), for a tuple built in the function
    the kinds and ranks of its items (None unless every return builds the same)."""
    rets = [analysis.kind(r.value) for r in analysis.returns]
    kind = rets[0] if len(set(rets)) == 1 else ANY
    ranks = {analysis.rank(r.value) for r in analysis.returns}
    items = [analysis.tuple_items.get(r.value.name) if isinstance(r.value, ir.Var) else None
             for r in analysis.returns]
    same = bool(items) and items[0] is not None and all(i == items[0] for i in items)
    return (kind, ranks.pop() if kind == ARRAY and len(ranks) == 1 else None,
            dict(items[0]) if same else None, lists.returned(analysis))


def _double_result(_, analysis):
    return doubles.double_result(analysis)


def _inexact_result(_, analysis):
    return dtypes.inexact_result(analysis)


def _result_memory(self, fn, kinds, arity, fact, unknown):
    """:meth:`Callees.result_memory`: the memory fact to a fixed point, other facts read once."""
    if fact is memory.result_memory:
        return _memory_fixed_point(self, fn, kinds, arity, unknown)
    return self._read(fn, kinds, arity, (), fact, unknown)


_MEMORY_ROUNDS = 6  # readings of a recursive function's result before srcad assumes the worst


def _collapsed(tokens):
    """``tokens`` with each object made inside an object a call made (``("new", x, "in",
    ...)``, nested as deep as the recursion) as one object made by that call: still new (no
    argument's, no global's), possibly the same as another such (which only adds aliases)."""
    return frozenset(t[:4] + ("*",) if len(t) > 4 and t[0] == "new" and t[2] == "in" else t
                     for t in tokens)


def _asked(self):
    """The facts of callees being worked out now (reads, effects, writes, complex values): an
    assumption of the memory fixed point is handed only to its own reading, never to another
    fact read meanwhile (which would be kept, cached, under an assumption not yet settled)."""
    return (frozenset(self._in_progress), frozenset(self._checking),
            frozenset(self._asking), frozenset(getattr(self, "_assumed", None) or ()))


def _memory_fixed_point(self, fn, kinds, arity, unknown):
    """:meth:`Callees.result_memory` of ``fn``. A function calling itself directly (the
    backward part srcad makes of a recursive function, read again for a second derivative) is
    read with its own result assumed, from nothing up, and read again with what it was found
    to return added, until that holds (a fixed point): a result is made at some finite depth
    by a return of the body, which the reading sees. Any other call of a function being read
    (mutual recursion, or fn's call met while another fact is read: :func:`_asked`), or a
    result not settled in ``_MEMORY_ROUNDS`` readings, is ``unknown``: the worst."""
    key = (fn, tuple(sorted(kinds.items())), arity, memory.result_memory, ())
    reading = self.__dict__.setdefault("_memory_reading", [])
    if key in self._in_progress:
        if reading and reading[-1][0] == key and reading[-1][3] == _asked(self):
            reading[-1][2] = True  # fn's own call, no other fact being read in between
            return reading[-1][1]
        return unknown
    known = self._kinds.get(key)
    if known is not None and not env.stale(known[1]):
        env.record_all(known[1])
        return known[0]
    entry = [key, (frozenset(), frozenset()), False, None]
    reading.append(entry)
    self._in_progress.add(key)
    entry[3] = _asked(self)
    try:
        with env.collecting() as reads:
            ir_fn, _ = self._to_ssa(fn, arity=arity)
            for _ in range(_MEMORY_ROUNDS):
                entry[2] = False
                result = memory.result_memory(ir_fn, Analysis(
                    ir_fn, made_for(fn, kinds), (), made_items(fn, None), callees=self,
                    param_stacks=made_stacks(fn)))
                if entry[2]:
                    result = (_collapsed(result[0]), _collapsed(result[1]))
                own, held = entry[1]
                if not entry[2] or (result[0] <= own and result[1] <= held):
                    break
                entry[1] = (own | result[0], held | result[1])
            else:  # (what a call makes is named after the call: names may keep growing)
                result = unknown
    except Exception:  # noqa: BLE001 - unreadable: the caller assumes the worst
        result, reads = unknown, {}
    finally:
        self._in_progress.discard(key)
        reading.pop()
    self._kinds[key] = (result, tuple(reads.values()))
    return result


def written(self, fn, args, kwargs, analysis):
    """The atoms of the call ``fn(*args, **kwargs)`` (of the function ``analysis``
    reads) whose objects ``fn`` changes in place (:func:`effects.written_params`), and
    ``("items", atom)`` for those whose items (what they hold) it changes: the caller checks
    them as writes of its own. ``()`` when srcad cannot read ``fn`` (it is
    then refused where it is split)."""
    try:
        arguments, _, arity = bind(fn, args, kwargs)
    except TypeError:
        return ()
    kinds = {p: analysis.kind(a) if isinstance(a, (ir.Var, ir.Const)) else
             kind_of_value(a) for p, a in arguments.items()}
    key = (fn, tuple(sorted(kinds.items())), arity, "written", _code(fn))
    known = self._effects.get(key)
    if known is None or env.stale(known[1]):
        assumed = getattr(self, "_assumed", None)
        if assumed is None:
            assumed = self._assumed = {}
        if key in assumed:  # a recursive call, its body being read: what the body was
            assumed[key][1] = True  # found to change so far (read again until stable)
            return [a for p, a in arguments.items() if p in assumed[key][0]] + [
                ("items", a) for p, a in arguments.items() if (p, "items") in assumed[key][0]]
        names = set()
        try:
            with env.collecting() as reads:
                ir_fn, _ = self._to_ssa(fn, arity=arity)
                inner = Analysis(ir_fn, made_for(fn, kinds), (), made_items(fn, None),
                                 callees=self, param_stacks=made_stacks(fn))
                while True:
                    assumed[key] = [frozenset(names), False]
                    names |= effects.written_params(
                        ir_fn, inner, lambda f, a, k: self.written(f, a, k, inner))
                    if not assumed[key][1] or names <= assumed[key][0]:
                        break
        except Exception:  # noqa: BLE001 - unreadable: refused where it is split
            names, reads = set(), {}
        finally:
            assumed.pop(key, None)
        known = self._effects[key] = (frozenset(names), tuple(reads.values()))
    env.record_all(known[1])
    return [a for p, a in arguments.items() if p in known[0]] + [
        ("items", a) for p, a in arguments.items() if (p, "items") in known[0]]


Callees.written = written
