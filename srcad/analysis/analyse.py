"""Kinds and activity of every SSA value.

After this pass each name has a *kind* — ``SCALAR`` (a Python or NumPy number), ``ARRAY``,
``SEQ`` (list or tuple), ``OTHER`` (a value that cannot carry a gradient: ranges, strings,
None) or ``ANY`` (not known until run time) — and an *activity*: a value is active when it
depends on a ``wrt`` argument through differentiable operations AND reaches the returned
value. Only active values get gradient code.

The kind and rank of each operation's result come from the rules of
:mod:`srcad.analysis.value_kinds` (a mixin of :class:`Analysis`); this module solves them over
the whole function, joins them at branches and loops, and works out activity.

Imports ``srcad.core``, ``srcad.rules``, ``srcad.analysis.value_kinds``,
``srcad.analysis.random_generators`` (and ``srcad.errors``,
to refuse).
"""

from __future__ import annotations

import operator

from ..core import ir
from ..core.kinds import (
    ANY,
    ARRAY,
    COMPLEX,
    OTHER,
    SCALAR,
    SEQ,
    DictItems,
    is_complex_value,
    join,
    kind_of_value,
)
from ..rules import registry
from ..runtime import family_of
from . import dict_keys, orders, stacks
from . import elems as lists
from .complexity import complex_values
from .dict_keys import is_append as _is_append
from .random_generators import made_generator
from .value_kinds import ValueKinds, inner_read

_BOOLEAN = {operator.lt, operator.le, operator.gt, operator.ge, operator.eq, operator.ne,
            operator.not_, operator.contains, operator.is_, operator.is_not}


class Analysis(ValueKinds):
    def __init__(self, fn: ir.Function, param_kinds: dict, wrt, param_items=None,
                 param_ranks=None, callees=None, param_stacks=None):
        self.fn = fn
        # the user functions this one calls (a srcad.calls.Callees, handed down by the
        # pipeline); None: a call of one has a result of kind ANY
        self.callees = callees
        # array name -> its number of axes (MIXED: not one known number); from the array
        # arguments' ranks, which the code is specialised on
        self.ranks = {p: r for p, r in (param_ranks or {}).items() if r is not None}
        self.ints = set()  # names certainly holding a Python int: loop counters, their sums
        self.items = dict(param_items or {})  # container param -> {key: kind}
        self.inner = {}  # w = params["w"] (an argument's container item, on down) -> {key: kind}
        self.elems = {}  # list name -> kind of its elements (joined over what is put in)
        # tuple name -> {position: (kind, rank)} of its items: a tuple built here, or one a
        # user function returns (``hidden, cell = cell_step(...)``); tuples never change
        self.tuple_items = {}
        # srcad's own stacks of saved tuples (and a context's: __srcad_param_stacks__)
        self.stacks = stacks.structure(fn)
        self.param_stacks = dict(param_stacks or {})
        self.kinds = dict(param_kinds)
        complex_params = self.kinds.pop(COMPLEX, ())
        lists.given(self, self.kinds)  # the certain element kinds of list parameters
        self.wrt = set(wrt)
        self.varied = set(wrt)
        self.useful = set()
        self.returns = [s for s in ir.walk(fn.body) if isinstance(s, ir.Return)]
        for name, items in self.items.items():
            if items:
                kinds = set(items.values())
                self.elems[name] = kinds.pop() if len(kinds) == 1 else ANY
        self.bools = set()  # names holding a Python bool (a comparison, a flag)
        orders.dict_keys_for_loops(fn, self.items)
        self._solving = True
        self._kinds()
        self._solving = False
        self._check_dict_iteration()
        orders.drop_known(fn, self)
        for name, kind in self.kinds.items():
            if kind is None:
                self.kinds[name] = ANY
        #: names that may hold complex values (srcad.analysis.complexity)
        self.complex = complex_values(self, complex_params)
        self._varied()
        self._useful()
        dict_keys.check(self)

    # ---------------------------------------------------------------- kinds

    def kind(self, atom):
        if isinstance(atom, ir.Var):
            # while solving, a name not reached yet is "no information" (None), not ANY
            return self.kinds.get(atom.name, None if self._solving else ANY)
        if isinstance(atom, ir.Const):
            return kind_of_value(atom.value)
        return OTHER

    def is_complex(self, atom):
        """Whether ``atom`` may hold a complex value."""
        if isinstance(atom, ir.Var):
            return atom.name in self.complex
        if isinstance(atom, ir.Const):
            return is_complex_value(atom.value)
        return any(a.name in self.complex for a in ir.atoms_in(atom))

    def any_complex(self, prim):
        """Whether an operand of ``prim`` may be complex."""
        return any(self.is_complex(a) for a in list(prim.args) + list(prim.kwargs.values()))

    def piecewise_constant(self, fn, prim):
        """Whether ``fn`` (declared ``nondiff``) has a zero derivative in this call: always,
        except a function piecewise constant for real numbers only (``np.sign``) given a value
        that may be complex, whose complex form (a rule) is used instead where it has one."""
        if not registry.is_nondiff(fn):
            return False
        if not (self.complex and self.any_complex(prim)):
            return True
        try:
            if fn not in registry.real_only:
                return True
        except TypeError:  # an unhashable callable
            return True
        return not any(rule.complex_rule is not None for rule in registry.rules_for(fn))

    def rule_form(self, rule, prim):
        """The form of ``rule`` for this call: its complex form where an operand may be
        complex and it has one, else itself."""
        if rule.complex_rule is not None and self.complex and self.any_complex(prim):
            return rule.complex_rule
        return rule

    def _kinds(self):
        for _ in range(50):
            before = (dict(self.kinds), dict(self.elems), dict(self.ranks), set(self.ints),
                      dict(self.tuple_items), lists.state(self))
            for stmt in _ifs_after_arms(self.fn.body):
                if isinstance(stmt, ir.Assign) and stmt.target is None and _is_append(stmt.value):
                    lst, item = stmt.value.args
                    if isinstance(lst, ir.Var):
                        self._put(lst.name, [self.kind(item)])
                if isinstance(stmt, ir.Assign) and stmt.target:
                    value = stmt.value
                    if isinstance(value, ir.Prim) and (value.fn in _BOOLEAN or isinstance(
                            value.fn, ir.BoolOp)):
                        self.bools.add(stmt.target)
                    if isinstance(value, ir.Prim) and value.fn == ir.Attr("shape"):
                        self._put(stmt.target, [SCALAR])
                    if isinstance(value, ir.Prim) and value.fn in (ir.BUILD_LIST, ir.BUILD_TUPLE):
                        self._put(stmt.target, [self.kind(a) for a in value.args])
                    if isinstance(value, ir.Prim) and value.fn is ir.BUILD_DICT:
                        self._put(stmt.target, [self.kind(a) for a in value.args[1::2]])
                    if isinstance(value, ir.Prim):
                        self._put(stmt.target, _items_put(self, value))  # ys[a:b], list(ys)
                    value = stmt.value
                    kind = self.prim_kind(value) if isinstance(value, ir.Prim) else self.kind(value)
                    self.kinds[stmt.target] = kind
                    inner_read(self, stmt.target, value, kind)  # w = params["w"]: its items
                    rank = self._rank_of(value) if kind == ARRAY else None
                    if rank is not None:
                        self.ranks[stmt.target] = rank
                    if self._int_result(value):
                        self.ints.add(stmt.target)
                    items = self._tuple_items(value) if kind == SEQ else None
                    if items is not None:
                        self.tuple_items[stmt.target] = items
                    else:
                        self.tuple_items.pop(stmt.target, None)
                    lists.assigned(self, stmt, _same_items)
                elif isinstance(stmt, ir.SetItem):
                    lists.set_item(self, stmt)
                    self.kinds[stmt.target] = self.kind(stmt.obj)
                    if isinstance(stmt.obj, ir.Var) and stmt.obj.name in self.ranks:
                        self.ranks[stmt.target] = self.ranks[stmt.obj.name]  # (its shape)
                    if self.kind(stmt.obj) == SEQ and isinstance(stmt.obj, ir.Var):
                        self._put(stmt.target, [self.elems.get(stmt.obj.name, ANY),
                                                self.kind(stmt.value)])
                elif isinstance(stmt, ir.If):
                    for phi in stmt.phis:
                        self.kinds[phi.target] = join(self.kind(s) for s in phi.sources
                                                      if s is not None and s != ir.UNSET)
                        self._join_ranks(phi)
                elif isinstance(stmt, ir.Loop):
                    if stmt.target:
                        self.kinds[stmt.target] = SCALAR
                        self.ints.add(stmt.target)  # range() counts in ints
                    for phi in stmt.phis:
                        self.kinds[phi.target] = join(self.kind(s) for s in phi.sources
                                                      if s is not None and s != ir.UNSET)
                        self._join_ranks(phi)
                for phi in getattr(stmt, "phis", ()):
                    lists.phi(self, phi)
                    for s in phi.sources:
                        if isinstance(s, ir.Var) and s.name in self.elems:
                            self._put(phi.target, [self.elems[s.name]])
            if (self.kinds, self.elems, self.ranks, self.ints, self.tuple_items,
                    lists.state(self)) == before:
                return


    def _check_dict_iteration(self):
        """``for k in d`` is lowered to indexing by position; a dict argument would be
        indexed by 0, 1, ...: refuse it, clearly, rather than fail with a KeyError."""
        counters = {s.target for s in ir.walk(self.fn.body) if isinstance(s, ir.Loop)}
        dicts = {name for name, items in self.items.items()
                 if items and set(items) != set(range(len(items)))}
        for stmt in ir.walk(self.fn.body):
            value = getattr(stmt, "value", None)
            if not (isinstance(stmt, ir.Assign) and isinstance(value, ir.Prim)
                    and value.fn is operator.getitem):
                continue
            obj, index = value.args
            if (isinstance(obj, ir.Var) and obj.name in dicts and isinstance(index, ir.Var)
                    and index.name in counters):
                from ..errors import UnsupportedSyntaxError

                src = self.fn.source
                raise UnsupportedSyntaxError(
                    f"a for loop over the dict {obj.name!r}", filename=src.filename,
                    lineno=stmt.line, construct=src.line_text(stmt.line),
                    hint=f"loop over {obj.name}.items() or list({obj.name}), or index it "
                    "with its keys")

    def _put(self, name, kinds):
        """Record that values of these kinds are put into the list ``name``."""
        kinds = [k for k in kinds if k is not None]
        if not kinds:
            return  # an empty literal says nothing about what will be put in
        known = [self.elems[name]] if name in self.elems else []
        self.elems[name] = join(known + list(kinds)) or ANY

    # ---------------------------------------------------------------- activity

    def differentiable_operands(self, stmt):
        """The operands through which ``stmt``'s result can depend on its inputs."""
        if isinstance(stmt, ir.SetItem):
            return [stmt.obj, *ir.atoms_in(stmt.value)]
        value = stmt.value
        if not isinstance(value, ir.Prim):
            return list(ir.atoms_in(value))
        fn = value.fn
        if isinstance(fn, ir.Method):
            fn = registry.methods.get(fn.name, fn)
        elif isinstance(fn, ir.Attr):
            fn = registry.attributes.get(fn.name, fn)
        if isinstance(fn, ir.BoolOp) or self.piecewise_constant(fn, value) or _keys_of(
                self, fn, value):
            return []
        if made_generator(self, stmt):
            return []  # a random generator made here: it carries no derivative
        if fn is operator.getitem:
            return list(ir.atoms_in(value.args[0]))
        if registry.has_rule(fn):
            rule, bound = registry.find(fn, value.args, value.kwargs)
            if rule is not None:
                rule = self.rule_form(rule, value)
                return [a for p, a in bound.items() if p in rule.templates
                        for a in ir.atoms_in(a)]
        return list(value.operands())

    def _edges(self):
        """(target, source) pairs: the target may depend on the source differentiably."""
        edges = []
        for stmt in ir.walk(self.fn.body):
            if isinstance(stmt, ir.Assign):
                ops = self.differentiable_operands(stmt)
                if stmt.target:
                    edges += [(stmt.target, v.name) for v in ops]
                elif _is_append(stmt.value):
                    obj = stmt.value.args[0]
                    if isinstance(obj, ir.Var):
                        edges += [(obj.name, v.name) for v in ir.atoms_in(stmt.value.args[1])]
            elif isinstance(stmt, ir.SetItem):
                edges += [(stmt.target, v.name) for v in self.differentiable_operands(stmt)]
            elif isinstance(stmt, (ir.If, ir.Loop)):
                for phi in stmt.phis:
                    for s in phi.sources:
                        edges += [(phi.target, v.name) for v in ir.atoms_in(s)]
        return edges

    def _varied(self):
        edges = self._edges()
        self._edge_list = edges
        positions = self._stack_positions()
        changed = True
        while changed:
            changed = False
            for target, source in edges:
                if source in self.varied and target not in self.varied:
                    sources = positions.get(target)
                    if sources is not None and not any(s in self.varied for s in sources):
                        continue  # an item popped from a stack of tuples: that slot is constant
                    self.varied.add(target)
                    changed = True

    def _stack_positions(self):
        """For ``v = xs.pop(); x = v[k]`` (or ``v = xs[j]``) where every item appended to
        ``xs`` is a tuple built here: the names that stood at position ``k``. A stack
        holding ``(i, value)`` pairs varies, but ``i`` taken back out of it does not (this
        matters for srcad's own generated code, differentiated again)."""
        tuples, appended, popped = {}, {}, {}
        for stmt in ir.walk(self.fn.body):
            if not isinstance(stmt, ir.Assign):
                continue
            value = stmt.value
            if stmt.target and isinstance(value, ir.Prim) and value.fn is ir.BUILD_TUPLE:
                tuples[stmt.target] = value.args
            elif stmt.target is None and _is_append(value) and isinstance(value.args[0], ir.Var):
                appended.setdefault(value.args[0].name, []).append(value.args[1])
            elif stmt.target and isinstance(value, ir.Prim) and isinstance(value.fn, ir.Method) \
                    and value.fn.name == "pop" and isinstance(value.args[0], ir.Var):
                popped[stmt.target] = value.args[0].name
            elif stmt.target and isinstance(value, ir.Prim) and value.fn is operator.getitem \
                    and isinstance(value.args[0], ir.Var) and not isinstance(
                        value.args[1], (ir.Slice, ir.Index)):
                popped[stmt.target] = value.args[0].name  # read in a reversed walk
        slots = {}
        for lst, items in appended.items():
            if all(isinstance(i, ir.Var) and i.name in tuples for i in items):
                slots[lst] = [tuples[i.name] for i in items]
        positions = {}
        for stmt in ir.walk(self.fn.body):
            if not (isinstance(stmt, ir.Assign) and stmt.target
                    and isinstance(stmt.value, ir.Prim) and stmt.value.fn is operator.getitem):
                continue
            obj, index = stmt.value.args
            lst = popped.get(obj.name) if isinstance(obj, ir.Var) else None
            if lst in slots and isinstance(index, ir.Const) and isinstance(index.value, int):
                k = index.value
                positions[stmt.target] = {a.name for t in slots[lst] if k < len(t)
                                          for a in ir.atoms_in(t[k])}
        return positions

    def _useful(self):
        for ret in self.returns:
            self.useful |= {v.name for v in ir.atoms_in(ret.value)}
        _reach(self.useful, self.varied, self._edge_list)

    def active(self, atom):
        return (isinstance(atom, ir.Var) and atom.name in self.varied
                and atom.name in self.useful)


def _keys_of(an, fn, prim):
    """Whether ``prim`` is ``sorted(d)``, ``list(d)`` or ``tuple(d)`` of a dict argument (its
    keys known): the keys, which carry no derivative, as ``for k in d`` and ``d.keys()``."""
    if fn not in (sorted, list, tuple) or len(prim.args) != 1 or prim.kwargs:
        return False
    arg = prim.args[0]
    return isinstance(arg, ir.Var) and isinstance(an.items.get(arg.name), DictItems)


def _reach(useful, varied, edges):
    """Add to ``useful`` every source of an edge ``(target, source)`` whose target is useful
    and varied, to the fixed point: a worklist from the useful names (sweeping the edges until
    nothing changed took one sweep per statement of a long chain)."""
    sources = {}
    for target, source in edges:
        sources.setdefault(target, []).append(source)
    todo = list(useful)
    while todo:
        target = todo.pop()
        if target not in varied:
            continue
        for source in sources.get(target, ()):
            if source not in useful:
                useful.add(source)
                todo.append(source)


def _items_put(an, prim):
    """The kinds of the items the list ``prim`` makes holds, as far as its arguments tell
    (``[]``: nothing known): those of its first argument's items (:func:`_same_items`), or
    ``v`` for ``fill(v, ys)`` (``[v] * len(ys)``)."""
    args = prim.args
    if args and isinstance(args[0], ir.Var) and args[0].name in an.elems and (
            _same_items(prim) or lists.dict_copy(an, prim)):
        return [an.elems[args[0].name]]
    helper = getattr(prim.fn, "__name__", None) if family_of(prim.fn) == "runtime" else None
    if helper in ("added_at", "cleared") and args and isinstance(args[0], ir.Var) and (
            an.elems.get(args[0].name) in (SCALAR, ARRAY, ANY)):  # (ANY: said, not dropped)
        # added_at(dys, i, v): dys' items, v (a number's or an array's gradient) added at
        # i, or v's items at a slice; cleared(dys, i): dys' items, one the number 0.0
        item = an.elems[args[0].name]  # (not an array's zero: the old item's shape may differ)
        if helper == "cleared":
            return [item, SCALAR]
        added = args[2] if len(args) == 3 else None
        kind = an.kind(added)
        if kind == SEQ and isinstance(added, ir.Var) and added.name in an.elems:
            return [item, an.elems[added.name]]
        return [item, kind] if kind in (SCALAR, ARRAY) else []
    if helper == "seq_grad" and len(args) == 2 and all(
            isinstance(a, ir.Var) and an.elems.get(a.name) in (SCALAR, ARRAY) for a in args):
        return [an.elems[a.name] for a in args]  # list(ys)'s gradient: its items (zeros)
    if prim.fn is range:
        return [SCALAR]  # (its items are ints: list(range(n))[i] too)
    if family_of(prim.fn) == "runtime" and getattr(prim.fn, "__name__", None) == "add" and (
            len(args) == 2 and all(isinstance(a, ir.Var) and a.name in an.elems for a in args)):
        return [an.elems[a.name] for a in args]  # add(dys, fill(v, ys)): new items of those
    if prim.fn in (list, tuple) and len(args) == 1 and not prim.kwargs and an.rank(args[0]):
        # list(v) of an array: its numbers (NumPy scalars, never changed in place) for a
        # vector, views of its rows otherwise
        return [SCALAR if an.rank(args[0]) == 1 else ARRAY]
    if family_of(prim.fn) == "runtime" and getattr(prim.fn, "__name__", None) == "fill" and (
            len(args) == 2 and an.kind(args[1]) == SEQ):
        return [an.kind(args[0])]
    return []


def _same_items(prim):
    """Whether ``prim``'s result holds items of the kinds its first argument's items are:
    ``ys[a:b]``, ``list(ys)``, ``tuple(ys)``, ``ys.copy()``, ``zeros_like(ys)`` (a zero like
    each item: a number, an array, a list)."""
    fn, args = prim.fn, prim.args
    if fn is operator.getitem:
        return len(args) == 2 and isinstance(args[1], ir.Slice)
    if fn in (list, tuple) or fn == ir.Method("copy"):
        return len(args) == 1 and not prim.kwargs
    return len(args) == 1 and family_of(fn) == "runtime" and getattr(
        fn, "__name__", None) == "zeros_like"


def _ifs_after_arms(stmts):
    """:func:`srcad.core.ir.walk`'s statements, an ``if`` after its arms: its phis join what
    the arms made in this pass (before them, one pass more a level of ``if``s nested in one
    another's arms, as a ``continue`` in a loop writes them: the analysis was quadratic in
    the number of ``continue``s)."""
    for stmt in stmts:
        if isinstance(stmt, ir.If):
            yield from _ifs_after_arms(stmt.body)
            yield from _ifs_after_arms(stmt.orelse)
            yield stmt
        else:
            yield stmt
            for block in ir.blocks_of(stmt):
                yield from _ifs_after_arms(block)
