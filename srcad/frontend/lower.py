"""Lower the desugared gast tree to structured SSA (:mod:`srcad.core.ir`).

After this pass: every statement performs one primitive operation on atoms; every name is
assigned once (loop headers aside), versions named after the user's names (``x``, ``x_1``);
branches end in explicit phis and loops carry explicit header phis; every call's callee is
resolved to the Python object it names now (``math.sin``, ``np.dot``, a user function);
``for`` loops run over ``range(...)`` (other iterables are indexed); comprehensions, ternaries
and short-circuit ``and``/``or`` are statements. Copies (``a = b``) are propagated away.

:class:`Lowerer` is one object per function lowered, built from seven mixins that share its
state (the environment ``env`` from user names to atoms, the statement list ``out`` being
filled, the ``namer``) and call one another recursively, as the syntax nests:

==========================  ============================================================
:mod:`.lower_stmts`         statements, assignment targets, ``if`` and its phis
:mod:`.lower_loops`         ``while``, ``for``, comprehensions, loop-header phis
:mod:`.lower_exprs`         expressions to atoms; free names resolved to objects
:mod:`.lower_calls`         calls, ``*args``/``**kwargs``, nested functions lifted
:mod:`.lower_callees`       callees that are values: function parameters, methods, partials
:mod:`.lower_spread`        ``*``/``**`` in calls; ``map``, ``filter``, ``zip`` consumed at once
:mod:`.lower_iterators`     ``it = zip(...)`` read once later; ``a, b = zip(*rows)``
:mod:`.writes`              NumPy calls that write into an argument (functions, not a mixin)
==========================  ============================================================

This module holds the shared state and the few helpers every mixin uses (:meth:`~Lowerer.emit`,
:meth:`~Lowerer.assign`, :meth:`~Lowerer.sub_block`, :meth:`~Lowerer.error`) and the entry
point :meth:`Lowerer.function`.

Imports: :mod:`srcad.core`, :mod:`srcad.errors` and the lowering modules listed above (which
never import this one).
"""

from __future__ import annotations

import gast

from ..core import functions, ir
from ..core.ir import Const, Var
from ..core.walk import walk_nodes
from ..errors import UnsupportedSyntaxError
from ..runtime import containers
from . import fixed_lengths, held_objects, iterators_passed, misfit_calls, rebinding, recorded_lists
from .lower_callees import Callees, FunctionValues
from .lower_calls import Calls
from .lower_choices import Choices
from .lower_derivatives import Derivatives
from .lower_dicts import DictWrites
from .lower_exprs import Expressions
from .lower_iterators import Iterators, deferred_iterators
from .lower_loops import Loops
from .lower_spread import Spreads, frozen_names
from .lower_stmts import Statements, unrebound_tests


class Lowerer(Statements, Loops, Expressions, Calls, Callees, Derivatives, FunctionValues,
              Spreads, Iterators, Choices, DictWrites):
    """Lower one function: ``Lowerer(source, namer, flags).function(fdef, arity)``."""

    def __init__(self, source, namer, flags=(), fixed=None):
        self.source = source
        # parameters this specialisation fixes (srcad.core.functions.specialised): a
        # function value, or an Instance (the object's class)
        self.fixed = dict(fixed or functions.fixed_of(source.func))
        self.classes = {}  # name of a value whose class is known -> the class
        self.held = {}  # ... of those, the functions it holds in attributes: {name: function}
        self.parts = {}  # ... and the objects it holds: {attribute: Instance or Items}
        self.item_parts = {}  # name of a list read from an attribute -> its items' Instance
        self.checked_classes = {}  # name of a value read from an attribute -> its class
        self.part_origins = {}  # ... and how the code spells it (self._problem)
        self.classes_checked = set()  # (such a name, id of the call) checked there
        self.partials = {}  # name of a partial (or a lambda reading locals) -> its parts
        self.bound_methods = {}  # ... of those, f = self.method: name -> (function, object)
        self.choices = {}  # name of a merge of function values -> the Consts it may be
        self.candidates = {}  # name of a value read from a known container -> what it may be
        self.merged_partials = set()  # merges of functions holding values (h = make(a) or ...)
        self.unsure = set()  # ... of those, read from a list or dict (checked when called)
        self.read_from = {}  # names of values read from containers not known -> container
        self.param_names = set()  # the function's parameters (their first versions)
        self.dict_displays = {}  # name of a dict display with constant keys -> {key: atom}
        self.frozen = set()  # names of displays only spliced (srcad.frontend.lower_callees)
        self.unpacked_only = set()  # ... of those, only ever **unpacked
        self.stores = {}  # how many times the body assigns each name
        self.last_stores, self.tops = {}, {}  # see last_stores
        self.unrebound = {}  # id(if or ternary) -> names bound before its test (lower_stmts)
        self.starred = {}  # id of a *value node -> its atom (lowered once)
        self.lists = {}  # name of a list display -> its element atoms
        self.keyword_displays = {}  # name of a dict display only spliced -> {key: atom}
        self.namer = namer
        self.flags = set(flags)
        self.tuples = {}  # name of a tuple built here -> its element atoms
        self.dicts_built = set()  # names of dicts built here ({...}, dict(a=x)): for k in d
        self.maybe_unbound = {}  # merges of a name unset on some path -> flag: checked when read
        # srcad's own code (a derivative read again): never reads a name where it is unset
        self.generated = str(getattr(source, "filename", "")).startswith("<srcad ")
        self.lists_made = set()  # names of lists d.items() (say) made: loops index them
        self.dicts = {}  # the **kwargs parameter (not rebound) -> {key: atom} in this call
        self.local_functions = {}  # nested def name -> (lifted function, captured names)
        # spelling in generated code -> lifted function (rewrites bind some: src.bound)
        self.lifted = dict(getattr(source, "bound", {}))
        self.augmented = {}  # SSA name made by ``x += v`` -> the name it changes in place
        # SSA name made by ``ys[k] += v`` -> (the item it changes in place, the container)
        self.augmented_items = {}
        self.checked_items = set()  # ... of those, checked alone in the container when run
        self.row_writes = {}  # M[i][j] = v: the row's new version -> (row, M, text)
        self.spellings = {}  # SSA name srcad made -> the user's text (M[i]), for messages
        self.rows_once = {}  # id of the node M[i] of M[i][j] += v -> the row read once
        self.attribute_values = {}  # name of a value read from an attribute -> its spelling
        self.phi_sources = {}  # target of a merge -> its sources (.rebinding)
        self.iterated = {}  # counter of a ``for`` over a sequence -> the sequence atoms
        self.orders = {}  # name given a loop's check_positional -> the sequence checked
        self.positional = set()  # names of lists and tuples made by list(), sorted(), ...
        self.deferred_at = {}  # id of ``it = zip(...)`` whose values are taken later -> it
        self.deferred = {}  # such a name -> the call, its arguments lowered (lower_spread)
        self.call_results = {}  # name of a user function's result -> the function
        self.passed_iterators = set()  # names of an iterator's items passed to a callee
        self.function_lists = {}  # name of a display of known functions -> FunctionsPassed
        self.records = set()  # parameters only appended to: lists the caller passed
        self.env = {}
        self.out = []

    # ---------------------------------------------------------------- helpers

    def error(self, node, message, hint=None, cls=UnsupportedSyntaxError):
        line = getattr(node, "lineno", None)
        return cls(message, filename=self.source.filename, lineno=line,
                   construct=self.source.line_text(line), hint=hint)

    def emit(self, stmt):
        self.out.append(stmt)
        return stmt

    def assign(self, value, hint, node):
        """Emit ``name = value`` for a fresh name derived from ``hint``; return its Var."""
        if isinstance(value, (Var, Const)):
            return value
        name = self.namer.version(hint) if hint else self.namer.temp(_hint(value))
        self.emit(ir.Assign(name, value, getattr(node, "lineno", None)))
        if isinstance(value, ir.Prim) and value.fn is ir.BUILD_TUPLE:
            self.tuples[name] = list(value.args)  # its length is known: f(*t) can splice it
        if isinstance(value, ir.Prim) and value.fn is ir.BUILD_LIST:
            self.lists[name] = list(value.args)  # spliced only if never changed (frozen)
        if isinstance(value, ir.Prim) and value.fn is dict:
            self.dicts_built.add(name)  # dict(p), dict(a=x): a new dict
        if isinstance(value, ir.Prim) and value.fn is ir.BUILD_DICT:
            self.dicts_built.add(name)
            keys = value.args[0::2]
            if all(isinstance(k, Const) and type(k.value) in (int, str) for k in keys):
                self.dict_displays[name] = {k.value: a for k, a in zip(keys, value.args[1::2])}
        if isinstance(value, ir.Prim):
            rebinding.note_value(self, name, value)
            held_objects.note(self, name, value)
            self.note_candidates(name, value)
            if functions.is_user_function(value.fn):
                self.call_results[name] = value.fn  # f = make(a): f(x) is refused by name
        if isinstance(value, ir.Prim) and value.fn in _LIST_MAKERS:
            self.lists_made.add(name)
        if isinstance(value, ir.Prim) and value.fn in _POSITIONAL_MAKERS:
            self.positional.add(name)
        return Var(name)

    def sub_block(self, stmts):
        saved, self.out = self.out, []
        for stmt in stmts:
            self.stmt(stmt)
        block, self.out = self.out, saved
        return block

    def settled(self, name, node):
        """Whether ``name``, bound more than once, is bound for the last time before the
        top-level statement holding ``node`` (a function value reading it made there): Python
        reads it when the function is called, and from there on it holds the value it has now
        (``x = np.asarray(x)`` then ``g = lambda t: t * x``; fuzz22)."""
        top = self.tops.get(id(node))
        return top is not None and self.last_stores.get(name, top) < top

    # ---------------------------------------------------------------- function

    def function(self, fdef, arity=None):
        """Lower ``fdef``; ``arity`` (a :class:`srcad.core.functions.Arity`) gives the items of its
        ``*args`` and ``**kwargs`` in one call: each becomes a parameter of its own."""
        args = fdef.args
        self.frozen, self.unpacked_only = frozen_names(fdef)
        self.deferred_at = deferred_iterators(fdef)
        self.stores = store_counts(fdef)
        self.last_stores, self.tops = last_stores(fdef)
        self.fdef = fdef  # (.fixed_lengths reads its statements)
        self.unrebound = unrebound_tests(fdef)  # if y is None: y = X: the test reads the param
        if (args.vararg or args.kwarg) and arity is None:
            raise self.error(fdef, "differentiating a function with *args or **kwargs "
                             "parameters directly (srcad cannot tell which argument wrt means)",
                             hint="name each parameter the gradient may need; called from "
                             "the function you differentiate, such a function is fine (a "
                             "decorator's wrapper too, with functools.wraps)")
        params = [a.id for a in args.posonlyargs + args.args]
        kwonly = [a.id for a in args.kwonlyargs]
        items = list(arity.items) if arity else []
        keys = [name for _, name in arity.keys] if arity else []
        for p in params + items + kwonly + keys:
            self.namer.reserve(p)
            self.namer.versioned.add(p)
            if p not in items and p not in keys:
                self.env[p] = Var(p)
            value = self.fixed.get(p)
            if value is iterators_passed.ITERATED:
                continue  # an iterator's items (srcad.frontend.iterators_passed)
            if isinstance(value, iterators_passed.FunctionsPassed):
                value = value.value()  # a list or dict of functions: made for them
            if isinstance(value, fixed_lengths.Sized):
                continue  # a list or tuple of known length (its tests: .fixed_lengths)
            if isinstance(value, functions.Flag):
                self.env[p] = Const(value.value)  # an if on it alone takes one way
            elif isinstance(value, functions.Instance):
                self.classes[p] = value.cls
                self.held[p] = dict(value.held)
                self.parts[p] = dict(value.parts)
            elif isinstance(value, functions.Items):  # a list of objects of one class
                self.item_parts[p] = value.of
            elif value is not None:  # a function value: the parameter is that constant
                self.env[p] = Const(value, self.bound_name(value, getattr(
                    value, "__name__", None) or p))
        prologue = []
        if args.vararg:  # args = (args_0, args_1): a tuple of known length
            saved, self.out = self.out, prologue
            self.env[args.vararg.id] = self.assign(
                ir.Prim(ir.BUILD_TUPLE, [self.env.get(i, Var(i)) for i in items]),
                args.vararg.id, fdef)
            self.out = saved
        if args.kwarg:
            self.dicts[args.kwarg.id] = {key: self.env.get(name, Var(name))
                                         for key, name in arity.keys}
        params = params + items + kwonly + keys
        self.param_names = set(params) | ({args.vararg.id} if args.vararg else set())
        self.records = recorded_lists.record_params(fdef, self.generated)  # history.append(v)
        prologue += recorded_lists.guard(self, fdef, params + items + kwonly + keys)
        body = prologue + self.sub_block(fdef.body)
        misfit_calls.user_calls(self, body)  # f(x) for def f(x, t): Python's TypeError there
        fn = ir.Function(fdef.name, params, body, self.source)
        fn.records = set(self.records)
        fn.arity = arity
        fn.lifted = dict(self.lifted)
        fn.augmented = dict(self.augmented)
        fn.augmented_items = dict(self.augmented_items)
        fn.checked_items = set(self.checked_items)
        fn.row_writes = dict(self.row_writes)
        fn.spellings = dict(self.spellings)
        fn.temps = frozenset(self.namer.temps)  # (not versions of the user's t: messages)
        fn.iterated = dict(self.iterated)
        fn.orders = dict(self.orders)
        return fn


def _hint(prim):
    fn = prim.fn
    if isinstance(fn, ir.Method):
        return fn.name
    if isinstance(fn, ir.Attr):
        return fn.name if fn.name != "T" else "transpose"
    shown = getattr(fn, "__srcad_shown__", None)  # a copy srcad made: its origin's name
    if shown and shown.isidentifier():
        return shown
    if prim.spelling:
        return prim.spelling.rsplit(".", 1)[-1]
    return "t"


#: calls whose result a loop indexes by position as Python iterates it
_POSITIONAL_MAKERS = (list, tuple, sorted, range, ir.BUILD_LIST, ir.BUILD_TUPLE)
#: helpers the lowering calls for d.keys(), d.values(), d.items(): they make lists
_LIST_MAKERS = (containers.dict_keys, containers.dict_values, containers.dict_items)


def last_stores(fdef):
    """``(last, tops)``: for each name the function binds, the index in its body of the last
    top-level statement binding it (-1 for a parameter only; past the end for a name declared
    ``global``/``nonlocal``), and for each node of the body (by ``id``) the index of the
    top-level statement holding it."""
    args = fdef.args
    last = {a.id: -1 for a in args.posonlyargs + args.args + args.kwonlyargs}
    tops = {}
    for i, stmt in enumerate(fdef.body):
        for node in walk_nodes(stmt):
            tops[id(node)] = i
            if isinstance(node, gast.Name) and isinstance(node.ctx, (gast.Store, gast.Del)):
                last[node.id] = i
            elif isinstance(node, (gast.Global, gast.Nonlocal)):
                last.update((n, len(fdef.body)) for n in node.names)
    return last, tops


def store_counts(fdef):
    """How many times the function binds each name: its parameters once, each assignment in
    its body once (a loop's counts once)."""
    args = fdef.args
    counts = {a.id: 1 for a in args.posonlyargs + args.args + args.kwonlyargs}
    for node in walk_nodes(fdef):
        if isinstance(node, gast.Name) and isinstance(node.ctx, (gast.Store, gast.Del)):
            counts[node.id] = counts.get(node.id, 0) + 1
    return counts
