"""Which values are random generators a call of the function makes for itself.

``rng = np.random.default_rng(seed); eps = rng.normal(size=n)`` changes the state of ``rng``
and nothing else. When ``rng`` is a generator this very call made, from a seed (not from a
generator or bit generator, whose state ``default_rng`` would share), that change is seen by
nobody outside the call, and every run of the code (the forward sweep, a derivative's own run
of it, a second derivative's) draws the same numbers in the same order: the draws are
constants of the function, as JAX's ``random.normal(key, shape)`` is of its key.
:mod:`srcad.analysis.effects` then takes the draw as changing nothing its caller sees.

A value is such a generator (:func:`fresh_generator`) when the statement defining it is

* ``np.random.default_rng(seed)`` or ``np.random.RandomState(seed)`` with a seed given
  (``None`` would draw from the system's entropy: no two runs agree) of a kind that is never
  a generator (a number, an array, a list or tuple: ``default_rng([g])`` raises), or
* a call of a function of yours whose every return is such a generator made in it (read
  through :meth:`Callees.result_memory <srcad.transform.calls.Callees.result_memory>` as a
  fact of the callee; unreadable or recursive: not one), or a copy of either.

A generator passed in, read from a global or a closure, merged from branches or carried by a
loop is not: its draws change what the caller sees, and a second run would draw other numbers.
The draws' own arguments are checked as any call's (a sampler is given no derivative: a value
carrying one is refused, :mod:`srcad.analysis.soundness`), and no draw is ever dropped as dead
code (:mod:`srcad.rules.random_methods`).

Imports ``srcad.core``, ``srcad.rules`` (and :mod:`.memory`, :mod:`.user_calls` beside it).
"""

from __future__ import annotations

from ..core import ir
from ..core.kinds import ARRAY, SCALAR, SEQ
from ..rules.random_methods import MAKERS, SAMPLERS
from .memory import _definitions
from .memory_tables import safe_in
from .user_calls import bind_call, is_user_call


def made_generator(analysis, stmt):
    """Whether ``stmt`` (an assignment) makes a random generator this function draws from
    (``rng.normal(...)``) and :func:`fresh_generator` holds of it: it carries no derivative,
    whatever its seed was made from (:mod:`srcad.analysis.analyse`'s activity)."""
    drawn = getattr(analysis, "_drawn_from", None)
    if drawn is None:
        names = {s.value.args[0].name for s in ir.walk(analysis.fn.body) if isinstance(
            s, ir.Assign) and isinstance(s.value, ir.Prim) and isinstance(
            s.value.fn, ir.Method) and s.value.fn.name in SAMPLERS and s.value.args
            and isinstance(s.value.args[0], ir.Var)}
        drawn = analysis._drawn_from = (names, _definitions(analysis.fn) if names else {})
    names, defs = drawn
    return stmt.target in names and fresh_generator(ir.Var(stmt.target), defs, analysis)


def draws_from_own(prim, defs, analysis):
    """Whether ``prim`` is a draw (a method of :data:`SAMPLERS`) from a generator this call of
    the function made (:func:`fresh_generator`)."""
    return isinstance(prim.fn, ir.Method) and prim.fn.name in SAMPLERS and bool(
        prim.args) and fresh_generator(prim.args[0], defs, analysis)


def fresh_generator(atom, defs, analysis, seen=()):
    """Whether ``atom`` is certainly a random generator made by this call from a seed."""
    if not isinstance(atom, ir.Var) or atom.name in seen:
        return False
    stmt = defs.get(atom.name)
    if not isinstance(stmt, ir.Assign):
        return False  # a parameter, a merge, a loop's carried value
    value = stmt.value
    if isinstance(value, ir.Var):
        return fresh_generator(value, defs, analysis, (*seen, atom.name))
    if not isinstance(value, ir.Prim):
        return False
    if safe_in(value.fn, MAKERS):
        seeds = list(value.args) + [value.kwargs[k] for k in value.kwargs if k == "seed"]
        return len(seeds) == 1 and len(value.kwargs) <= 1 and _seed(seeds[0], analysis)
    callees = analysis.callees
    if is_user_call(value) and callees is not None:
        call = bind_call(value, analysis.kind)
        return call is not None and callees.result_memory(
            value.fn, call.kinds, call.arity, fact=returns_fresh_generator, unknown=False) is True
    return False


def _seed(atom, analysis):
    if isinstance(atom, ir.Const):
        value = atom.value
        return type(value) is int or isinstance(value, (tuple, list)) and all(
            type(v) is int for v in value)
    return isinstance(atom, ir.Var) and analysis.kind(atom) in (SCALAR, ARRAY, SEQ)


def returns_fresh_generator(fn, analysis):
    """The fact read of a callee: every value it returns is a generator it made itself."""
    defs = _definitions(fn)
    returns = [s for s in ir.walk(fn.body) if isinstance(s, ir.Return)]
    return bool(returns) and all(fresh_generator(r.value, defs, analysis) for r in returns)
