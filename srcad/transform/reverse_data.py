"""Reverse mode, data: subscripts, functional writes (``y = x.copy(); y[i] = v``), list
``append``/``pop``, list concatenation, and calls of user functions (their backward part,
with the context their forward part kept) and of derivatives srcad made.

A piece of :class:`srcad.transform.reverse.Reverse`. Imports: ``srcad.core``,
:mod:`.nodes`, :mod:`.number_writes`.
"""

from __future__ import annotations

import ast
import operator

import numpy as np

from ..analysis.elems import with_elems
from ..analysis.user_calls import bind_call, is_user_call, misfit
from ..core import functions, ir
from ..core.kinds import ANY, ARRAY, SCALAR, SEQ
from ..errors import SrcadError, reached_through_call
from . import into, nodes, number_writes, partition, whole_lists
from .nodes import assign, call, method, name, subscript


class Data:
    """Containers, writes and calls (see the module docstring)."""

    def getitem(self, stmt, gname, code, frame):
        obj, index = stmt.value.args
        if not self.an.active(obj):
            return
        kind = self.an.kind(obj)
        for v in ir.atoms_in(index):
            self.ref(v.name, frame)
        if kind == SEQ or isinstance(index, ir.Const) and isinstance(index.value, str):
            # a container (a string key: a dict, whatever the analysis knew of it)
            dobj = self.g(obj.name)
            plain = _plain_index(index, self.an)
            if plain and not getattr(self.an.callees, "compiles_all", False) and (  # Numba
                    obj.name not in self.sparse) and (
                    self.items_at(obj, dobj, index, gname, code, frame, stmt.target)):
                return
            was_live = dobj in self.live
            self.ensure_live(obj.name, code, frame)
            elem = self.an.elems.get(obj.name, ANY)

            def item():
                return subscript(dobj, nodes.expr(index))

            if not plain:
                # a slice, or an index that may be a slice object: add structure to structure,
                # into a new list (srcad refuses a slice assignment when it differentiates
                # this code again)
                code.append(assign(dobj, call(self.helper("added_at"), dobj,
                                              _index_node(index), gname)))
            elif elem == SCALAR:
                code.append(nodes.add_to(item(), gname))
            elif elem == ARRAY and self.sparse_add(obj, index, gname, code, frame):
                pass  # .sparse: stored where no gradient is yet
            elif elem == ARRAY:
                code.append(assign(item(), nodes.plus(item(), gname)))
            else:
                code.append(assign(item(), call(self.helper("add"), item(), gname)))
            self.note_contribution(dobj, was_live, self.zero_flag(name(gname)), code)
            return
        self.ref(obj.name, frame)
        dobj = self.g(obj.name)
        # (not of a value that may be complex: a real array would drop an imaginary part)
        basic = kind == ARRAY and _basic_index(index, self.an) and obj.name not in self.an.complex
        if partition.in_place(self, obj, dobj, index, _index_node(index), gname, code, basic):
            return  # an array this sweep made and nothing else holds: added into (.partition)
        made = dobj not in self.live
        contribution = call(self.helper("scatter"), gname, obj.name, _index_node(index))
        self.accumulate(obj, contribution, code, frame)
        if basic and made and dobj not in self.uniform:  # scatter made a new array of zeros
            partition.made_zeros(self, dobj, obj.name, code, contribution, index, frame)

    def items_at(self, obj, dobj, index, gname, code, frame, target):
        """The gradient of a container read item by item (``a, b = f(x)``), made by one
        ``items_at(obj, indices, values)`` where it starts, and the next items' gradients
        joined to that call while nothing comes between: no zeros then ``add`` per item."""
        made = self.items_made.get(dobj) if code else None
        if made is not None and code[-1] is made[0]:
            made[1].append(nodes.expr(index))
            made[2].append(name(gname))
            self.note_contribution(dobj, True, self.zero_flag(name(gname)), code)
            made[3].append(whole_array(self, gname))
            made[6].append(target)
            return True
        if dobj in self.live:
            return False
        # the zeros are shaped like the value: the value is read (unless the call becomes a
        # display: display_items)
        indices, values = [nodes.expr(index)], [name(gname)]
        stmt = assign(dobj, call(self.helper("items_at"), obj.name,
                                 ast.Tuple(elts=indices, ctx=ast.Load()),
                                 ast.Tuple(elts=values, ctx=ast.Load())))
        flag = []  # its flag before it: the next items join the call
        self.note_contribution(dobj, False, self.zero_flag(name(gname)), flag)
        code.extend(flag)
        code.append(stmt)
        self.live.add(dobj)
        self.items_made[dobj] = (stmt, indices, values, [whole_array(self, gname)], obj.name,
                                 frame, [target])
        return True

    def setitem(self, stmt, code, frame):
        target = ir.Var(stmt.target)
        if not self.an.active(target) or self.g(stmt.target) not in self.live:
            return
        self.comment(stmt, code)
        gname = self.g(stmt.target)
        for v in ir.atoms_in(stmt.index):
            self.ref(v.name, frame)
        value = stmt.value
        if self.an.active(value):
            whole = isinstance(stmt.index, ir.Const) and stmt.index.value is Ellipsis
            # y[...] = v: all of g
            block = name(gname) if whole else subscript(gname, nodes.expr(stmt.index))
            if _may_repeat(stmt.index, self.an) and isinstance(stmt.obj, ir.Var) and (
                    self.an.kind(stmt.obj) != SEQ):
                # y[[0, 2, 2]] = v: NumPy keeps one write per element, the others get nothing
                self.ref(stmt.obj.name, frame)
                block = call(self.helper("last_writes"), block, nodes.expr(stmt.obj),
                             _index_node(stmt.index))
            block = number_writes.kept_part(self, stmt, gname, block)  # (zeroed in place)
            part = number_writes.value_part(self, stmt, block, frame)  # y[i] = t: no t kept
            if stmt.target in self.an.complex and not self.an.is_complex(value):
                part = self.real_of(value, part)  # a real value into a complex array
            self.accumulate(value, part, code, frame)
        if id(stmt) in self.added_back:  # y[i] = x[i] + b: x's gradient is all of y's
            self.accumulate(stmt.obj, name(gname), code, frame)
        elif self.an.active(stmt.obj) and not (isinstance(stmt.index, ir.Const)
                                               and stmt.index.value is Ellipsis) and not (
                number_writes.cleared_in_place(self, stmt, gname, code, frame)):  # overwritten
            cleared = call(self.helper("cleared"), gname, _index_node(stmt.index))
            if stmt.target in self.an.complex and not self.an.is_complex(stmt.obj):
                cleared = self.real_of(stmt.obj, cleared)
            self.accumulate(stmt.obj, cleared, code, frame)

    def append(self, stmt, code, frame):
        lst, value = stmt.value.args
        if not (isinstance(lst, ir.Var) and self.an.active(lst)):
            return
        self.comment(stmt, code)
        gname = self.g(lst.name)
        if gname not in self.live:
            # nothing the forward sweep did later reads the list's gradient (a later append,
            # pop or read would have made it): the item's gradient is zero, and the list's is
            # a zero at the length the list had before, all but its last item
            self.ref(lst.name, frame)
            before = subscript(lst.name, ast.Slice(lower=None, upper=nodes.constant(-1),
                                                   step=None))
            code.append(assign(gname, call(self.helper("zeros_like"), before)))
            self.live.add(gname)
            return
        popped = method(gname, "pop")
        if self.an.active(value):
            if lst.name in self.an.complex and not self.an.is_complex(value):
                popped = self.real_of(value, popped)  # a real item of a complex list
            self.accumulate(value, popped, code, frame)
        else:
            code.append(nodes.expr_stmt(popped))

    def pop(self, stmt, code, frame):
        """``v = xs.pop()``: the backward sweep pushes ``v``'s gradient back onto ``xs``'s."""
        lst = stmt.value.args[0]
        if not (isinstance(lst, ir.Var) and self.an.active(lst)):
            return
        self.comment(stmt, code)
        was_live = self.g(lst.name) in self.live
        self.ensure_live(lst.name, code, frame)
        gname = self.g(stmt.target)
        if self.an.active(ir.Var(stmt.target)) and gname in self.live:
            grad = name(gname)
        else:
            grad = self.zero(stmt.target, frame)
        code.append(nodes.expr_stmt(method(self.g(lst.name), "append", grad)))
        self.note_contribution(self.g(lst.name), was_live, self.zero_flag(grad), code)

    def list_arithmetic(self, stmt, gname, code, frame):
        """``a + b`` on lists: each side gets its slice of the gradient; ``[x] * n`` is
        refused (the gradient of a repeated element is the sum of its copies')."""
        a, b = stmt.value.args
        if stmt.value.fn is operator.mul:
            raise self.unsupported(stmt, "repeating a list that carries gradients ([x] * n)",
                                   "build it with a comprehension: [x for _ in range(n)]")
        self.ref(a.name if isinstance(a, ir.Var) else "", frame)
        if isinstance(a, ir.Var):
            head = ast.Slice(lower=None, upper=call("len", nodes.expr(a)), step=None)
            self.accumulate(a, subscript(gname, head), code, frame)
        if isinstance(b, ir.Var):
            tail = ast.Slice(lower=call("len", nodes.expr(a)), upper=None, step=None)
            self.accumulate(b, subscript(gname, tail), code, frame)

    # ---------------------------------------------------------------- calls

    def user_call(self, stmt, gname, code, frame):
        """``y = helper(...)``: call the callee's backward part with what its forward kept."""
        prim = stmt.value
        bound = bind_call(prim, self.an.kind, self.an.is_complex)
        if bound is None:
            raise self.unsupported(stmt, f"a call that does not fit the parameters of "
                                   f"{prim.spelling or prim.fn.__name__} ({misfit(prim)})",
                                   "pass the arguments its def names")
        arguments, passed, arity = bound.arguments, bound.passed, bound.arity
        kinds = with_elems(self.an, bound.kinds, arguments, prim.fn)  # certain list items
        wrt = [p for p, a in arguments.items() if isinstance(a, ir.Var) and self.an.active(a)]
        if not wrt:
            return
        ranks = self.an.arg_ranks(arguments) if arity is None else None
        # the caller's arrays its backward part adds into (.into), and the pair
        entry, buffers = _split(self, stmt, wrt, arguments, kinds, arity, ranks, gname)
        base = prim.fn.__name__
        fwd = self.bind_cell(f"{base}_fwd", entry.fwd)
        bwd = self.bind_cell(f"{base}_bwd_into" if buffers else f"{base}_bwd", entry.bwd)
        ctx = self.namer.fresh(f"{stmt.target}_ctx")
        self.primals.add(ctx)
        forward = nodes.call_part(prim.fn, fwd, passed) if arity else None
        self.calls[id(stmt)] = (fwd, ctx, forward)
        self.ref(ctx, frame)
        self.parts_called = True
        self.whole_parts[bwd] = entry.whole  # (.whole_lists)
        if not buffers:
            self.call_backward([arguments[p] for p in wrt], call(bwd, ctx, gname), code, frame)
            return
        self.into_parts.add(bwd)
        backward = call(bwd, ctx, gname, *[self.g(arguments[p].name) for p in buffers])
        backward.adds_into = len(buffers)  # tidy: those names are changed in place here
        rest = into.returned(wrt, buffers)
        if rest:
            self.call_backward([arguments[p] for p in rest], backward, code, frame)
        else:
            code.append(nodes.expr_stmt(backward))
        for p in buffers:  # added into in place, as accumulate would have (see .into)
            self.note_contribution(self.g(arguments[p].name), True, None, code)

    def compiled_call(self, stmt):
        """For callees that must be compiled with their caller (``callees.compiles_all``:
        the Numba backend), the name of the forward part of an inactive call ``y =
        helper(...)`` (nothing to differentiate: its context is not used), else None."""
        prim = stmt.value
        if not (getattr(self.an.callees, "compiles_all", False) and isinstance(prim, ir.Prim)
                and not prim.kwargs and is_user_call(prim)):
            return None
        made = self.__dict__.setdefault("_compiled_calls", {})  # id(stmt) -> its name
        if id(stmt) in made:
            return made[id(stmt)]
        bound = bind_call(prim, self.an.kind, self.an.is_complex)
        if bound is None or bound.arity is not None:
            return None
        kinds = with_elems(self.an, bound.kinds, (arguments := bound.arguments), prim.fn)
        entry = self.an.callees.split(prim.fn, [], kinds, None, self.an.arg_ranks(arguments))
        made[id(stmt)] = self.bind_cell(f"{prim.fn.__name__}_fwd", entry.fwd)
        return made[id(stmt)]

    def call_backward(self, atoms, backward, code, frame):
        """``da, db = backward``: the gradients a callee's backward part returns, added in."""
        targets = []
        for atom in atoms:
            gname_arg = self.g(atom.name)
            if gname_arg in self.live or gname_arg in targets:
                part = self.namer.fresh(gname_arg + "_part")
                targets.append(part)
            else:
                targets.append(gname_arg)
        code.append(assign(targets[0] if len(targets) == 1 else targets, backward))
        for atom, target in zip(atoms, targets):
            if target == self.g(atom.name):
                self.live.add(target)
                self.note_contribution(target, False, None, code)
                self.borrowed.add(target)  # the callee's backward part may return its seed
                self.fresh.discard(target)  # (so not an array only this name holds)
            else:
                self.accumulate(atom, target, code, frame)

    def derivative_call(self, stmt, gname, code, frame):
        """``y = d_f(x)`` with ``d_f = srcad.grad(f)``: its generated code (made for the
        argument types met at run time) is split like a callee's, by ``derivative_fwd``."""
        prim = stmt.value
        try:
            arguments, _, _ = functions.bind(prim.fn, prim.args, prim.kwargs)
        except TypeError as exc:
            raise self.unsupported(stmt, f"a call that does not fit the parameters of "
                                   f"{prim.spelling} ({exc})", "pass the arguments it takes"
                                   ) from exc
        wrt = [p for p, a in arguments.items() if isinstance(a, ir.Var) and self.an.active(a)]
        if not wrt:
            return
        ctx = self.namer.fresh(f"{stmt.target}_ctx")
        self.primals.add(ctx)
        args, kwargs = functions.as_positional(prim.fn, prim.args, prim.kwargs)
        forward = ast.Call(
            func=self.helper("derivative_fwd"),
            args=[nodes.spelled(prim.spelling), nodes.literal(tuple(wrt))]
            + [nodes.expr(a) for a in args],
            keywords=[ast.keyword(arg=k, value=nodes.expr(a)) for k, a in kwargs.items()])
        self.calls[id(stmt)] = (None, ctx, forward)
        self.ref(ctx, frame)
        self.call_backward([arguments[p] for p in wrt],
                           call(self.helper("derivative_bwd"), ctx, gname), code, frame)

    def derivative_part_call(self, stmt, gname, code, frame):
        """``t = H(*args)`` with ``H`` one of the helpers that run a derivative called in code
        (``derivative_fwd``, ``derivative_bwd``, ``form_fwd`` ...: ``srcad.runtime.derivatives``)
        in the code of a derivative, differentiated again: ``form_fwd(H, k, varied, *args)``
        splits ``H``'s form at run time, ``derivative_bwd`` runs its backward part. Any order."""
        prim = stmt.value
        if prim.kwargs:
            raise self.missing_rule(stmt, prim)
        fixed = prim.fn.__srcad_statics__(prim.args)
        varied = [i for i, a in enumerate(prim.args[fixed:])
                  if isinstance(a, ir.Var) and self.an.active(a)]
        if not varied:
            return
        ctx = self.namer.fresh(f"{stmt.target}_ctx")
        self.primals.add(ctx)
        forward = call(self.helper("form_fwd"), self.helper(prim.fn.__name__),
                       nodes.literal(fixed), nodes.literal(tuple(varied)),
                       *[nodes.expr(a) for a in prim.args])
        self.calls[id(stmt)] = (None, ctx, forward)
        self.ref(ctx, frame)
        self.call_backward([prim.args[fixed + i] for i in varied],
                           call(self.helper("derivative_bwd"), ctx, gname), code, frame)


def _split(sweep, stmt, *args):
    """:func:`.into.split` of the callee ``stmt`` calls; a ``try``/``except`` refused in it
    says which call makes srcad differentiate it."""
    fn = stmt.value.fn
    try:
        return into.split(sweep, fn, *args)
    except SrcadError as exc:
        raise reached_through_call(exc, sweep.fn.source, stmt.line, fn) from None


def _may_repeat(index, analysis):
    """Whether an index may name one element twice (an integer array or list)."""
    items = index.items if isinstance(index, ir.Index) else (index,)
    for item in items:
        if isinstance(item, ir.Var) and analysis.kind(item) != SCALAR:
            return True
        if isinstance(item, ir.Const) and isinstance(item.value, (list, tuple, np.ndarray)):
            flat = np.asarray(item.value)
            if flat.dtype.kind in "iu" and len(np.unique(flat)) != flat.size:
                return True
    return False


def _basic_index(index, an):
    """Whether ``index`` is known to be an int, a slice, or a tuple of them: it reaches each
    element at most once (never a repeated element, as an integer array may)."""
    items = index.items if isinstance(index, ir.Index) else (index,)
    for item in items:
        if isinstance(item, ir.Slice):
            continue
        if isinstance(item, ir.Const) and type(item.value) is int:
            continue
        if isinstance(item, ir.Var) and item.name in an.ints:
            continue
        return False
    return True


def _plain_index(index, an):
    """An index naming one item: a number (a list's item), or a constant string (a dict's
    key, whose gradient is added at the key, in place, not into a new container)."""
    return not isinstance(index, (ir.Slice, ir.Index)) and (an.kind(index) == SCALAR or (
        isinstance(index, ir.Const) and type(index.value) is str))


def _index_node(index):
    """An index as a value that can be passed to a function: ``slice(a, b, None)`` for
    ``a:b``, a tuple for several."""
    if isinstance(index, ir.Slice):
        parts = [nodes.constant(None) if p is None else nodes.expr(p)
                 for p in (index.lower, index.upper, index.step)]
        return call("slice", *parts)
    if isinstance(index, ir.Index):
        return ast.Tuple(elts=[_index_node(i) for i in index.items], ctx=nodes.LOAD)
    return nodes.expr(index)


def whole_array(data, gname):
    """Whether the gradient ``gname`` of an item is, where it is read, an array of the
    item's shape: the item is an array and the gradient not one number standing for it
    (the sweep keeps every other array gradient at its value's shape)."""
    return data.an.kinds.get(data.primal_of.get(gname)) == ARRAY and (
        gname not in data.uniform)

def display_items(data, backward, outside):
    """Each ``items_at`` call that places every item of a tuple of arrays once, each
    gradient a whole array of its item's shape, becomes a list display of them (what
    ``items_at`` returns then, without a call: a new list sharing those arrays). The
    tuple's length is the analysis's (a display or a user function's result). Called
    once the backward sweep is made, before the saves are chosen: a display does not
    read the tuple.

    When every item is read once but not all are such arrays (a list among them: a
    callee's ``return y, new_state``), the call stays and its first argument becomes a
    display of the names the items were read into, ``items_at((ypred, layers), ...)``: the
    same objects (a tuple's items are never rebound), so the backward sweep keeps those
    names, which the forward sweep holds anyway, instead of the tuple (one container less
    kept per call: in a loop, one less for the collector to walk each iteration).

    A list among the items whose gradient is a whole list (:mod:`.whole_lists`: every entry
    an array of its item's shape) is placed as ``list(dxs)`` in such a display, as
    ``items_at`` would place it after checking each entry (in code that runs on NumPy arrays
    only, not code srcad reads again or runs on other arrays)."""
    wholes = None
    for stmt, indices, values, whole, obj, frame, targets in data.items_made.values():
        items = data.an.tuple_items.get(obj) or {}
        n = len(items)
        at = [i.value + n if type(i.value) is int and i.value < 0 else i.value
              for i in indices if isinstance(i, ast.Constant)]
        every = set(items) == set(range(n)) and len(at) == len(indices) and (
            all(type(k) is int for k in at) and sorted(at) == list(range(n)))
        lists = set()  # the values that are whole lists: placed as list(dxs)
        if every and not all(whole) and len(targets) == n and data.runs_only:  # NumPy's
            wholes = whole_lists.whole_names(backward, data, outside) if wholes is None else (
                wholes)
            lists = {id(v) for w, v, t in zip(whole, values, targets) if not w and (
                _whole_list(data, v, t, wholes))}
            whole = [w or id(v) in lists for w, v in zip(whole, values)]
        if every and all(whole) and all(kind in (ARRAY, SEQ) for kind, _ in items.values()):
            order = dict(zip(at, values))
            stmt.value = ast.List(elts=[call("list", order[k]) if id(order[k]) in lists else
                                        order[k] for k in range(n)], ctx=ast.Load())
        elif every and n and len(targets) == n:
            read = dict(zip(at, targets))
            stmt.value.args[0] = ast.Tuple(elts=[name(read[k]) for k in range(n)],
                                           ctx=ast.Load())
            for k in range(n):
                data.ref(read[k], frame)
        else:
            data.ref(obj, frame)


def _whole_list(data, value, target, wholes):
    """Whether ``value`` (a name node) is the gradient of the list of real arrays ``target``
    and a whole list where it is read (:mod:`.whole_lists`)."""
    return isinstance(value, ast.Name) and value.id in wholes and (
        data.an.kinds.get(target) == SEQ and data.an.elems.get(target) == ARRAY) and (
        target not in data.an.complex)
