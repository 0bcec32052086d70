"""Derivatives of a function of the user's that writes into the objects it is given (session
36): a layer's running statistics stored into the dict passed (``bn_param["running_mean"] =
...``), a boundary applied to the caller's arrays (``pos[out, d] *= -1``), a list item set.

``grad(f)(x, state)`` leaves ``state`` as ``f(x, state)`` would, and its gradient is that of
``f`` at the values the arguments hold when it is called::

    def loss(x, w, bn_param):
        ...
        bn_param["running_mean"] = 0.9 * running + 0.1 * mu
        return np.sum(out * w)

    srcad.grad(loss, wrt=1)(x, w, bn_param)   # bn_param["running_mean"] as loss leaves it

How: the parameters ``f`` writes into are those its text shows
(:func:`srcad.frontend.written_cells.params_written`, the writes of the functions it calls
included), and so are the closure values it writes into (``closure_written``). srcad
differentiates a copy of ``f`` (:func:`_state`: the same code, marked ``__srcad_owned__``,
its own closure cells for those values) whose writes into them the alias analysis reads as
writes into objects of its own (:func:`srcad.analysis.written_back.owned_params`; every
other write is checked as before), and calls that derivative with copies of the caller's
objects (:func:`_copied`: arrays, lists, dicts and tuples copied all the way down, another
object deep-copied; the cells' copies refreshed in place, :func:`_refreshed`, so the code
made for them stays), so the derivative sees the values of the call and changes nothing of
the caller's. Then ``f`` itself runs once, plainly, on the caller's objects
(:meth:`State.run`): what the caller holds afterwards is what the plain run leaves, its values
and its objects (an array changed in place, a dict item rebound, a list item set: the same
objects, the same identities). One plain run per call of a derivative, whatever the transform
(``grad``, ``value_and_grad``, ``vjp``, ``jvp``, ``linearize``, ``jacobian``, ``hessian``,
``hvp``) and whatever it runs inside (a ``jacobian`` calls the copy's code once per row: the
plain run is still once). A derivative of such a derivative (``grad(grad(f))``, ``hessian``
of ``grad(f)``) differentiates the inner copy's code and runs ``f`` once
(``__srcad_state__``).

Refused (:class:`MutationError`, before anything runs), where the copy's values would not be
Python's: an object the function writes into that is also reachable from another argument, or
from a global or closure name the function reads (``grad(f)(a, a)``, ``f(x, d)`` with
``d["w"]`` the array given for ``x``): Python changes both, the copy one; and a function
drawing random numbers (``np.random``, ``random``; the plain run would draw others). The
cost: the plain run, once per call (a function returning its new state instead, ``return
loss, new_state``, avoids it).

Imports the standard library, numpy, ``srcad.errors`` and ``srcad.frontend.written_cells``.
"""

from __future__ import annotations

import copy
import functools
import inspect
import sys
import types
import weakref

import numpy as np

from .errors import MutationError, SrcadError
from .frontend.written_cells import closure_written, params_written

_ATOMS = (int, float, complex, str, bytes, bool, type(None), np.generic, types.ModuleType)
_STATES = weakref.WeakKeyDictionary()  # function -> False: writes nothing (a State: on f)
#: names of a generator's methods drawing numbers (beside any name holding "rand")
_SAMPLERS = frozenset({"normal", "uniform", "choice", "shuffle", "permutation", "integers",
                       "standard_normal", "binomial", "poisson", "exponential",
                       "multivariate_normal", "dirichlet", "seed", "gauss", "sample"})
_WATCHED = 2  # the calls of a derivative watched for a plain run of the copy (State.run)
_DEPTH = 4  # how deep through the functions it calls randomness is looked for


class State:
    """What a derivative of ``plain`` (a function writing into ``written``, parameter names)
    differentiates (``pure``: the marked copy, or the inner derivative of such a copy) and
    runs after it."""

    def __init__(self, plain, pure, written, cells=(), derived=False):
        self.plain, self.pure, self.written = plain, pure, written
        self.derived = derived  # pure: a derivative of plain's copy (not the copy itself)
        self.cells = cells  # (the plain function's cell, the copy's cell) of each closure
        self.signature = inspect.signature(plain)  # value written into
        self.watched = 0  # calls watched for a plain run of the copy (_WATCHED)
        self.draws = None  # whether it may draw random numbers (_draws), at the first call
        self.positional = tuple(p.name for p in self.signature.parameters.values() if p.kind in (
            p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD))  # (a call binding them only: fast)

    def run(self, args, kwargs, call):
        """``call(pure, args_copied, kwargs_copied)``, then ``plain(*args, **kwargs)`` once;
        what ``call`` returns."""
        kept = self._kept(args, kwargs)
        given = self._given(kept, again=False)
        if self.watched >= _WATCHED or sys.getprofile() is not None:  # (a profiler's own)
            out = call(self.pure, *given)
        else:  # the first calls: does the transform run the copy plainly (on the copies its
            self.watched += 1  # code then reads, changed)? A safety net: none is known
            out, ran = _watching(getattr(self.pure, "__code__", None), lambda: call(
                self.pure, *given))
            if ran:
                raise SrcadError(
                    f"this derivative of {_name(self.plain)} runs it plainly on srcad's copies "
                    "of what it changes in place, then reads them: the result could be of "
                    "other values", **_where(self.plain), hint="return the new state instead "
                    "of changing the argument (return value, new_state), or use another "
                    "transform (jacfwd, grad)")
        self.plain(*args, **kwargs)
        return out

    def later(self, args, kwargs, call):
        """``(plain(*args, **kwargs), then)``, ``then(*more)`` being ``call(pure,
        args_copied, kwargs_copied, *more)`` on copies of what the arguments held before the
        plain run: ``vjp``'s pullback, ``linearize``'s ``f_jvp``, which run ``f`` plainly for
        its value first (that run is the plain run here: the value is Python's). For a
        derivative of such a function (``derived``: ``vjp(grad(f), ...)``), the value is
        ``pure``'s, on copies, then ``plain`` runs (session 37: the value was ``f``'s, not
        its derivative's: ``vjp(grad(f), 2.0, s)[0]`` gave f(2), a wrong value)."""
        kept = self._kept(args, kwargs)

        def then(*more):
            return call(self.pure, *self._given(kept), *more)

        if not self.derived:
            return self.plain(*args, **kwargs), then
        given = self._given(kept)
        value = self.pure(*given[0], **given[1])
        self.plain(*args, **kwargs)
        return value, then

    def vjp(self, args, wrt, has_aux, vjp, grad):
        """``srcad.vjp(f, *args)`` (``vjp``, ``grad``: srcad's): the plain run's value (and
        aux), and a pullback on copies of what the arguments held (:meth:`later`): for a
        number out, ``dy`` times the gradient (grad's code: srcad's vjp runs ``f`` plainly for
        the value first, which would change the copies its code then reads), else the
        pullback of the copy's vjp, the copies put back as they were after that plain run."""
        out, then = self.later(args, {}, lambda g, a, k, dy: pulled(g, a, dy))
        value = out[0] if has_aux else out

        def pulled(g, a, dy):
            if isinstance(value, (float, np.floating)) or isinstance(
                    value, np.ndarray) and value.ndim == 0:
                made = grad(g, tuple(range(len(a))) if wrt is None else wrt, has_aux=has_aux)
                return _scaled(made(*a)[0] if has_aux else made(*a), dy)
            kept = _copied(a, {})
            pullback = vjp(g, *a, wrt=wrt)[1]
            _refreshed(a, kept, {})
            return pullback(dy)

        def pullback(dy):
            return then(dy)

        return (value, pullback, out[1]) if has_aux else (value, pullback)

    def jvp(self, primals, tangents, wrt, backend, jvp):
        """``srcad.jvp(f, primals, tangents)`` (``jvp``: srcad's), through :meth:`run`."""
        return self.run(tuple(primals), {}, lambda g, a, k: jvp(g, a, tangents, wrt=wrt,
                                                                backend=backend))

    def returning(self, make):
        """The derivative ``make(pure)`` makes, called through :meth:`run`."""
        made = make(self.pure)

        @functools.wraps(self.plain)
        def derivative(*args, **kwargs):
            return self.run(args, kwargs, lambda g, a, k: made(*a, **k))

        derivative.__wrapped__ = made  # (srcad.source(derivative): made's code, made_of)
        derivative.__srcad_state__ = State(self.plain, made, self.written, self.cells, True)
        return derivative

    def _kept(self, args, kwargs):
        """Copies of the arguments (those written into: copies; the others themselves) and of
        the closure values written into, after the checks."""
        arguments = self._bound(args, kwargs)
        self._check(arguments)
        memo = {}
        return ({k: _copied(v, memo) if k in self.written else v
                 for k, v in arguments.items()},
                [_copied(theirs.cell_contents, memo) for theirs, _ in self.cells])

    def _given(self, kept, again=True):
        """``(args, kwargs)`` for ``pure``: ``kept``'s (``again``: copies of them), its
        closure cells holding copies too, the same objects where they can be."""
        arguments, cells = kept
        memo = {}
        for value, (_, mine) in zip(cells, self.cells):
            if not _refreshed(mine.cell_contents, value, memo):
                mine.cell_contents = _copied(value, memo)
        if again:
            arguments = {k: _copied(v, memo) if k in self.written else v
                         for k, v in arguments.items()}
        if len(arguments) == len(self.positional) and all(
                a == b for a, b in zip(arguments, self.positional)):
            return tuple(arguments.values()), {}
        bound = self.signature.bind_partial()
        bound.arguments.update(arguments)
        return bound.args, bound.kwargs

    def _bound(self, args, kwargs):
        """The arguments by parameter name (``inspect.BoundArguments.arguments``)."""
        if not kwargs and len(args) == len(self.positional):
            return dict(zip(self.positional, args))
        try:
            bound = self.signature.bind(*args, **kwargs)
        except TypeError:
            self.plain(*args, **kwargs)  # Python's own error for the call
            raise
        return bound.arguments

    def _check(self, arguments):
        where = _where(self.plain)
        if self.draws is None:
            self.draws = _draws(self.plain, 0, set())
        if self.draws:
            raise MutationError(
                f"{_name(self.plain)} changes what it is given ({_names(self)}) and draws "
                "random numbers: srcad runs it plainly after its derivative, to leave the "
                "caller's objects as it would, and that run would draw other numbers", **where,
                hint="draw the numbers outside and pass them, or return the new state (return "
                "value, new_state) instead of changing the argument")
        seen = {}
        mine = {id(theirs) for theirs, _ in self.cells}
        for name, value in arguments.items():
            _reach(value, name, seen, name in self.written, self.plain, where)
        for name, value, cell in _free_values(self.plain):
            _reach(value, f"the global (or closure) value {name}", seen, id(cell) in mine,
                   self.plain, where)


def _scaled(tree, dy):
    """``tree`` (gradients: numbers, arrays, tuples, lists, dicts) times the number ``dy``."""
    if isinstance(dy, (int, float)) and dy == 1.0:
        return tree
    if isinstance(tree, tuple):
        return tuple(_scaled(t, dy) for t in tree)
    if isinstance(tree, list):
        return [_scaled(t, dy) for t in tree]
    if isinstance(tree, dict):
        return {k: _scaled(t, dy) for k, t in tree.items()}
    return tree * dy


def writer(f):
    """The :class:`State` of a function writing into what it is given (or of a derivative
    of one made here), else None."""
    state = getattr(f, "__srcad_state__", None)
    if isinstance(state, State):
        return state
    if not isinstance(f, types.FunctionType) or hasattr(f, "__srcad_owned__") or hasattr(
            f, "__srcad__"):
        return None
    known = _STATES.get(f, vars(f).get("__srcad_written__"))
    if known is None:
        try:
            written, cells = params_written(f), closure_written(f)
        except Exception:  # noqa: BLE001 - not read: the analysis decides, as before
            written, cells = (), ()
        known = _state(f, written, cells) if written or cells else False
        if known:  # kept on f (a cycle the collector frees: a weak key's value holding the
            f.__srcad_written__ = known  # key, f, would keep f alive for good)
        else:
            _STATES[f] = known
    return known or None


def _state(f, written, cells):
    """The :class:`State` of ``f``, writing into its parameters ``written`` and into what the
    closure cells at the places ``cells`` hold: its copy (the same code) whose writes into
    those srcad reads as writes into its own objects, its own cells holding copies."""
    closure = list(f.__closure__ or ())
    pairs = []
    for k in cells:
        pairs.append((closure[k], types.CellType(_copied(closure[k].cell_contents, {}))))
        closure[k] = pairs[-1][1]
    pure = types.FunctionType(f.__code__, f.__globals__, f.__name__, f.__defaults__,
                              tuple(closure) if f.__closure__ is not None else None)
    pure.__kwdefaults__ = f.__kwdefaults__
    pure.__qualname__, pure.__module__ = f.__qualname__, f.__module__
    pure.__srcad_owned__ = frozenset(written)
    pure.__srcad_owned_cells__ = tuple(mine for _, mine in pairs)
    return State(f, pure, written, tuple(pairs))


def _refreshed(mine, theirs, memo):
    """Make ``mine`` (a copy made before) hold copies of what ``theirs`` holds now, in place
    (the same objects, so the code made for them stays); False where it cannot."""
    if isinstance(mine, np.ndarray) and isinstance(theirs, np.ndarray):
        if mine.shape != theirs.shape or mine.dtype != theirs.dtype:
            return False
        np.copyto(mine, theirs)
    elif type(mine) is dict and type(theirs) is dict:
        mine.clear()
        mine.update((k, _copied(v, memo)) for k, v in theirs.items())
    elif type(mine) is list and type(theirs) is list:
        mine[:] = [_copied(v, memo) for v in theirs]
    elif type(mine) is tuple and type(theirs) is tuple and len(mine) == len(theirs):
        return all(_refreshed(a, b, memo) for a, b in zip(mine, theirs))
    else:
        return mine is theirs or type(mine) is type(theirs) and isinstance(
            mine, _ATOMS) and mine == theirs
    memo[id(theirs)] = mine
    return True


def _copied(value, memo):
    """``value`` copied all the way down (shared objects once, as ``copy.deepcopy``)."""
    if id(value) in memo:
        return memo[id(value)]
    if isinstance(value, np.ndarray):
        out = value.copy()
    elif type(value) is dict:
        out = memo[id(value)] = {}
        out.update((k, _copied(v, memo)) for k, v in value.items())
    elif type(value) is list:
        out = memo[id(value)] = []
        out.extend(_copied(v, memo) for v in value)
    elif type(value) is tuple:
        out = tuple(_copied(v, memo) for v in value)
    elif isinstance(value, _ATOMS) or callable(value):
        return value
    else:
        out = copy.deepcopy(value, memo)
    memo[id(value)] = out
    return out


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


def _reach(value, path, seen, written, f, where, depth=0):
    """Record the objects ``value`` is or holds (``seen``: key -> (path, written)); refuse
    one of an argument ``f`` writes into reached again (see the module's docstring)."""
    if isinstance(value, np.ndarray):
        base = value
        while isinstance(base.base, np.ndarray):
            base = base.base
        keys = [("memory", id(base))]
    elif isinstance(value, (dict, list)) or (isinstance(value, tuple) and depth < 8):
        keys = [("object", id(value))] if not isinstance(value, tuple) else []
    else:
        return
    for key in keys:
        if key in seen and (written or seen[key][1]):
            first = seen[key][0]
            raise MutationError(
                f"{_name(f)} changes what it is given in place, and what it changes is also "
                f"reached through {path} and {first} (the same object, or sharing memory): "
                "srcad differentiates it on copies of the objects it changes, where Python "
                "changes both", **where,
                hint="pass a copy for one of them (write .copy() after it): each object the "
                "function changes reached through one argument alone")
        seen.setdefault(key, (path, written))
    items = value.values() if isinstance(value, dict) else value if isinstance(
        value, (list, tuple)) else ()
    for item in items:
        _reach(item, path, seen, written, f, where, depth + 1)


def _free_values(f):
    """(name, object, its cell or None) of the globals and closure values ``f``'s code
    names."""
    code = f.__code__
    for name, cell in zip(code.co_freevars, f.__closure__ or ()):
        try:
            yield name, cell.cell_contents, cell
        except ValueError:
            continue
    for name in code.co_names:
        if name in f.__globals__:
            yield name, f.__globals__[name], None


def _codes(code):
    yield code
    for const in code.co_consts:
        if isinstance(const, types.CodeType):
            yield from _codes(const)


def _draws(f, depth, done):
    """Whether ``f`` (or a function of the user's it names) may draw random numbers."""
    if depth > _DEPTH or id(f) in done or not isinstance(f, types.FunctionType):
        return False
    done.add(id(f))
    for code in _codes(f.__code__):
        if any("rand" in n or n in _SAMPLERS for n in code.co_names):
            return True
    return any(_draws(v, depth + 1, done) for _, v, _ in _free_values(f)
               if isinstance(v, types.FunctionType) and
               getattr(v, "__module__", None) == f.__module__)


def _names(state):
    code = state.plain.__code__
    places = {id(cell): name for name, cell in zip(code.co_freevars,
                                                   state.plain.__closure__ or ())}
    return ", ".join(list(state.written) + [places[id(c)] for c, _ in state.cells])


def mode_for(g, mode):
    """The Jacobian's mode for ``g``: by columns (forward mode) for the copy of a function
    itself (reverse mode runs it plainly for the value, changing the copies its rows read)."""
    return "fwd" if hasattr(g, "__srcad_owned__") else mode


def made_of(g):
    """``g``, or for a derivative made here (:meth:`State.returning`), the derivative of the
    copy it calls (what ``srcad.source`` shows)."""
    state = getattr(g, "__srcad_state__", None)
    return state.pure if isinstance(state, State) else g


def _name(f):
    return getattr(f, "__name__", "f")


def _where(f):
    code = f.__code__
    return {"filename": code.co_filename, "lineno": code.co_firstlineno,
            "construct": f"def {_name(f)}(...)"}
