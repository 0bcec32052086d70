"""Tidy, values: propagate constants (``dy = 1.0`` assigned once is written where it is read),
what may fail or act (:func:`_safe`, used by :mod:`.tidy_dead` to drop dead code), merge
sums (``x = e1`` then ``x += e2``), and inline single-use temporaries (``t = 3 * a`` then
the only read ``b = 5 - t`` becomes ``b = 5 - 3 * a``; only names srcad invented, never the
user's).

Imports: :mod:`srcad.transform.templates` (the simplifier), :mod:`srcad.transform.nodes` (the
comment node), :mod:`.tidy_walk`.
"""

from __future__ import annotations

import ast

from ..core.kinds import ARRAY
from ..core.walk import walk_nodes
from ..transform.nodes import Comment, method
from ..transform.templates import _Simplify, simplify
from .tidy_walk import (
    _blocks,
    _count_names,
    _fields,
    _header,
    _loads,
    _stores,
    _walk,
    added_into,
    name_counts,
)


def _is_number(node):
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
        node = node.operand
    return isinstance(node, ast.Constant) and type(node.value) in (int, float)


def _propagate_constants(fdef):
    """``dy = 1.0`` assigned once: write ``1.0`` where ``dy`` is read, then simplify the
    statements that changed."""
    if not any(_assigns_number(stmt) for block, _ in _blocks(fdef) for stmt in block):
        return False  # the common case after the first sweep: nothing to do, no walk
    stores, loads = {}, {}
    kept = set()  # 1.0[0], 1.0.shape or ``dy += ...`` would not work: keep those names
    changed_in_place = set()  # ``dx += g``, ``dx[i] += g``, ``dx[i] = g``: names of arrays
    for node in _walk(fdef):
        cls = node.__class__
        if cls is ast.Name:
            table = stores if node.ctx.__class__ is ast.Store else loads
            table[node.id] = table.get(node.id, 0) + 1
        elif cls is ast.arg:
            stores[node.arg] = stores.get(node.arg, 0) + 1
        elif cls is ast.AugAssign and node.target.__class__ is ast.Name:
            kept.add(node.target.id)
            changed_in_place.add(node.target.id)
        elif cls in (ast.Subscript, ast.Attribute) and node.value.__class__ is ast.Name:
            kept.add(node.value.id)
            if node.ctx.__class__ is ast.Store:
                changed_in_place.add(node.value.id)
        elif cls is ast.Call and node.func.__class__ is ast.Name:
            kept.add(node.func.id)
            kept.update(added_into(node))
            changed_in_place.update(added_into(node))
    values = {}
    for block, _ in _blocks(fdef):  # a literal assigned once is the same in every iteration
        left = []
        for stmt in block:
            if _assigns_number(stmt):
                name = stmt.targets[0].id
                if stores.get(name, 0) == 1 and loads.get(name) and name not in kept:
                    values[name] = stmt.value
                    continue
            left.append(stmt)
        if len(left) != len(block):
            block[:] = left or [ast.Pass()]
    if not values:
        return False
    for block, _ in _blocks(fdef):
        for k, stmt in enumerate(block):
            if isinstance(stmt, (ast.If, ast.While)):
                if _substitute(stmt.test, values):
                    stmt.test = _Simplify().visit(stmt.test)
            elif isinstance(stmt, ast.For):
                if _substitute(stmt.iter, values):
                    stmt.iter = _Simplify().visit(stmt.iter)
            elif _substitute(stmt, values):  # a simple statement (or, rarely, one of its own)
                block[k] = _unaliased(_Simplify().visit(stmt), None)  # copy_aliases decides
    return True


def changed_in_place(fdef):
    """The names changed in place below ``fdef``: ``x += g``, ``x[i] += g``, ``x[i] = g``, and
    the names copied into one of them."""
    names = set()
    for node in _walk(fdef):
        cls = node.__class__
        if cls is ast.AugAssign and node.target.__class__ is ast.Name:
            names.add(node.target.id)
        elif cls in (ast.Subscript, ast.Attribute) and node.value.__class__ is ast.Name and (
                node.ctx.__class__ is ast.Store):
            names.add(node.value.id)
        elif cls is ast.Call:
            names.update(added_into(node))
    return _through_copies(fdef, names)


def _through_copies(fdef, names):
    """``names`` with every name copied into one of them (``y = x``, ``y`` changed in place:
    ``x``'s array is changed too; a loop's ``dc_2 = dc_1`` before ``dc_2 += g``)."""
    copies = [(s.targets[0].id, s.value.id) for s in _walk(fdef) if s.__class__ is ast.Assign
              and len(s.targets) == 1 and s.targets[0].__class__ is ast.Name
              and s.value.__class__ is ast.Name]
    names = set(names)
    grew = bool(copies)
    while grew:
        grew = False
        for target, source in copies:
            if target in names and source not in names:
                names.add(source)
                grew = True
    return names


def simplify_keeping_new(fdef):
    """Simplify ``fdef``, marking each assignment of a product that became a name
    (``dx = 1.0 * v`` is ``dx = v``): see :func:`copy_aliases`."""
    products = [s for s in _walk(fdef) if s.__class__ is ast.Assign
                and s.value.__class__ is ast.BinOp]
    fdef = simplify(fdef)
    for stmt in products:
        _unaliased(stmt, None)
    return fdef


def _unaliased(stmt, changed_in_place):
    """Mark ``dx = v`` where it was a product the sweep made a new array (``dx = 1.0 * v``
    simplified) and ``dx`` may be changed in place; :func:`copy_aliases` decides at the end."""
    if (stmt.__class__ is ast.Assign and len(stmt.targets) == 1
            and stmt.targets[0].__class__ is ast.Name and stmt.value.__class__ is ast.Name
            and (changed_in_place is None or stmt.targets[0].id in changed_in_place)):
        stmt.was_new = True
    return stmt


def copy_aliases(fdef, numbers=(), arrays=None):
    """A marked ``dx = v`` (see :func:`_unaliased`) whose ``dx`` is still changed in place
    (``dx += g`` not merged into ``dx = v + g``) is written ``dx = v.copy()`` where ``v`` is
    an array (``arrays``: the analysis' facts, :mod:`srcad.analysis.raise_facts`), else
    ``dx = v * 1.0`` (a number's too): a new array, as
    the sweep made it, never ``v`` itself, which the in-place add would change; so is one
    whose ``dx`` is returned when ``v`` is a parameter (``da = b`` of ``np.sum(a * b)``: the
    caller's array would be the gradient it may change); and of two or more returned names
    bound to one value (``da = exp``, ``db = exp``, marked or not) all but the first are
    copies (changing one gradient would change the other). A name in ``numbers`` (certainly a
    float) stays as it is."""
    returned = {n.id for stmt in fdef.body if stmt.__class__ is ast.Return
                and stmt.value is not None for n in walk_nodes(stmt.value)
                if n.__class__ is ast.Name}
    copies = [stmt for stmt in _walk(fdef) if stmt.__class__ is ast.Assign
              and len(stmt.targets) == 1 and stmt.targets[0].__class__ is ast.Name
              and stmt.value.__class__ is ast.Name and (
                  getattr(stmt, "was_new", False) or stmt.targets[0].id in returned)]
    if not copies:
        return
    changed = changed_in_place(fdef) if any(
        getattr(stmt, "was_new", False) for stmt in copies) else set()
    params = {a.arg for a in fdef.args.posonlyargs + fdef.args.args + fdef.args.kwonlyargs}
    shared = {}  # a value -> the returned gradients made from it, the first first
    for stmt in copies:
        if stmt.targets[0].id in returned:
            made = shared.setdefault(stmt.value.id, [])
            if stmt.targets[0].id not in made:
                made.append(stmt.targets[0].id)
    for stmt in copies:
        target, value = stmt.targets[0].id, stmt.value.id
        new = getattr(stmt, "was_new", False)
        if value in numbers:
            continue
        if new and (target in changed or target in returned and value in params) or (
                target in returned and target in shared.get(value, [])[1:]):
            if arrays is not None and arrays.analysis.kinds.get(value) == ARRAY:
                stmt.value = method(stmt.value, "copy")
                continue
            stmt.value = ast.BinOp(left=stmt.value, op=ast.Mult(), right=ast.Constant(1.0))
            stmt.value.copies = True  # the simplifier leaves it


def _assigns_number(stmt):
    return (stmt.__class__ is ast.Assign and len(stmt.targets) == 1
            and stmt.targets[0].__class__ is ast.Name and _is_number(stmt.value))


def _substitute(part, values):
    """Write the literal ``values[name]`` for every read of ``name`` below ``part``;
    whether anything changed."""
    changed = False
    for node in _walk(part):
        for name in _fields(node.__class__):
            child = getattr(node, name, None)
            if child.__class__ is ast.Name and child.id in values:
                setattr(node, name, _literal(values[child.id]))
                changed = True
            elif child.__class__ is list:
                for k, item in enumerate(child):
                    if item.__class__ is ast.Name and item.id in values:
                        child[k] = _literal(values[item.id])
                        changed = True
    return changed


def _literal(node):
    """A fresh copy of a number node (``1.0`` or ``-(2.0)``)."""
    if isinstance(node, ast.UnaryOp):
        return ast.UnaryOp(op=ast.USub(), operand=ast.Constant(value=node.operand.value))
    return ast.Constant(value=node.value)


#: operations that cannot raise on floats, so an unused result may go unevaluated
_SAFE_BINOPS = (ast.Add, ast.Sub, ast.Mult, ast.Pow)
_PURE_HELPERS = {"unbroadcast", "unbroadcast_to", "broadcast_as", "zeros_like", "add", "fill",
                 "total", "expand", "scatter", "cleared", "like", "sign", "shape_of",
                 "zeros_array", "items_at"}


def _pure_call(call, libraries):
    """A call of ``np.f``/``math.f`` (those of ``libraries``), of a pure srcad helper, or
    ``a.sum()`` (what the forward sweep writes for ``np.sum(a)`` of an array, as pure)."""
    func = call.func
    if func.__class__ is not ast.Attribute:
        return func.__class__ is ast.Name and func.id in _PURE_HELPERS
    if func.attr == "sum" and not call.args and not call.keywords:
        return True
    return func.value.__class__ is ast.Name and func.value.id in libraries


def _safe(node, divisors=()):
    """Whether evaluating ``node`` cannot fail or act; with ``divisors``, but for dividing
    by those names."""
    for sub in _walk(node):
        if isinstance(sub, ast.BinOp) and not isinstance(sub.op, _SAFE_BINOPS) and not (
                isinstance(sub.op, ast.Div) and isinstance(sub.right, ast.Name)
                and sub.right.id in divisors):
            return False
        if isinstance(sub, ast.BinOp) and isinstance(sub.op, ast.Pow) and not _is_number(
            sub.right
        ):
            return False
        if isinstance(sub, ast.Call) and not _pure_call(sub, ("np",)):  # math.log(0) fails
            return False
        if isinstance(sub, (ast.Subscript, ast.Await, ast.Yield, ast.NamedExpr)):
            return False
    return True


def _merge_sums(fdef):
    """``x = e1`` then ``x += e2`` (``e2`` not reading ``x``): one statement, ``x = e1 + e2``;
    also ``x = e1`` then ``x = x - e2`` (any operator, ``x`` its left operand and read nowhere
    else there): ``x = e1 - e2``. The same operations in the same order; the sum's left
    operand is then a temporary, whose memory NumPy reuses for the result (a gradient's
    second contribution allocates no new array)."""
    changed = False
    owned = _Unshared(fdef)
    for block, _ in list(_blocks(fdef)):
        i = 0
        while i + 1 < len(block):
            first = block[i]
            j = i + 1
            while j < len(block) and isinstance(block[j], Comment):  # comments between do not count
                j += 1
            second = block[j] if j < len(block) else None
            k = _past_unrelated(owned, block, i, j)
            if k is not None:  # x = e1; S; x += e2 (x = x - e2): S; x = e1 + e2 (e1 - e2)
                if isinstance(block[k], ast.AugAssign):
                    first.value = ast.BinOp(left=first.value, op=ast.Add(),
                                            right=block[k].value)
                    block[k] = first
                else:
                    block[k].value.left = first.value
                del block[i]
                changed = True
                owned.dirty.add(first.targets[0].id)  # (the name merged)
                continue
            if (isinstance(first, ast.Assign) and len(first.targets) == 1
                    and isinstance(first.targets[0], ast.Name)
                    and isinstance(second, ast.AugAssign) and isinstance(second.op, ast.Add)
                    and isinstance(second.target, ast.Name)
                    and second.target.id == first.targets[0].id
                    and first.targets[0].id not in _loads(second.value)):
                first.value = ast.BinOp(left=first.value, op=ast.Add(), right=second.value)
                del block[j]
                changed = True
                owned.dirty.add(first.targets[0].id)  # (the name merged)
                continue
            if _into_call(first, second):  # x = e1; x = np.full(s, x): x = np.full(s, e1)
                del block[i]
                changed = True
                owned.dirty.add(first.targets[0].id)  # (the name merged)
                continue
            if (_assigns_only_name(first) and _assigns_only_name(second)
                    and second.targets[0].id == first.targets[0].id
                    and isinstance(second.value, ast.BinOp)
                    and isinstance(second.value.left, ast.Name)
                    and second.value.left.id == first.targets[0].id
                    and first.targets[0].id not in _loads(second.value.right)):
                second.value.left = first.value
                first.value = second.value
                del block[j]
                changed = True
                owned.dirty.add(first.targets[0].id)  # (the name merged)
                continue
            i += 1
    return changed


def _into_call(first, second):
    """``x = e1`` then ``x = f(a, x)`` (``f`` NumPy's, ``math``'s or a pure helper of srcad's
    but ``add``; ``e1`` arithmetic calling nothing; ``x`` one of its arguments, read nowhere
    else there; the arguments before it unable to fail or act): ``second`` becomes ``x =
    f(a, e1)`` (``e1`` evaluated where ``x`` was read, after what cannot fail or act: the
    same order of everything that can), and the caller drops ``first``; whether it did
    (``dx = 1.0 / n`` then ``dx = np.full(np.shape(x), dx)`` is ``dx =
    np.full(np.shape(x), 1.0 / n)``)."""
    if not (_assigns_only_name(first) and _assigns_only_name(second)
            and second.targets[0].id == first.targets[0].id
            and second.value.__class__ is ast.Call and not second.value.keywords
            and _pure_call(second.value, ("np", "math"))
            and not (second.value.func.__class__ is ast.Name
                     and second.value.func.id == "add")):
        return False  # (a sum, x = add(x, g), keeps its own statement: no add(add(...)))
    if any(n.__class__ is ast.Call for n in _walk(first.value)):
        return False  # a call in a call's argument reads worse than two statements
    func = second.value.func
    if func.__class__ is ast.Attribute and func.attr == "broadcast_to" and (
            first.value.__class__ not in (ast.Name, ast.Constant)):
        return False  # np.broadcast_to(v, s) of a name: Dask's and CuPy's code (backend.duck)
    x, args = first.targets[0].id, second.value.args
    if _loads(second.value).get(x) != 1:
        return False
    at = next((k for k, a in enumerate(args) if a.__class__ is ast.Name and a.id == x), None)
    if at is None or not all(_safe(a) for a in args[:at]):
        return False
    args[at] = first.value
    return True


#: the most statements a sum merges across: the code of one source line (no ``# line``
#: comment between), so a gradient's terms stay beside the line that made them
_PAST = 3


def _past_unrelated(owned, block, i, j):
    """The index of ``x += e2`` (or ``x = x - e2``, any operator) when ``block[i]`` is
    ``x = e1`` (``e1`` pure: :func:`_safe`) and the statements from ``j`` (right after it) up
    to it, at most :data:`_PAST` and no comment, are assignments to names that neither read
    nor bind ``x`` nor bind a name ``e1`` reads (``dx = sigmoid_1``, ``dx_part = g_bwd(ctx,
    x)``, ``dx += dx_part``; ``dy = dt_1``, ``da += dt_1 / y``, ``dy = dy - dt_1 * t / y``):
    ``e1`` is evaluated later to the same value, as a gradient's code never changes a
    forward value in place; else ``None``."""
    first = block[i]
    if j != i + 1 or not (_assigns_only_name(first) and _safe(first.value)):
        return None
    x = first.targets[0].id
    reads = set(_loads(first.value))
    k = j
    while k < len(block) and k - j < _PAST and _binds_names(block[k]) and not (
            ({x} | reads) & set(_stores(block[k]))) and x not in _loads(block[k]) and (
                not isinstance(block[k], ast.AugAssign) or owned(block[k].target.id)):
        k += 1
    second = block[k] if k < len(block) else None
    if (k > j and isinstance(second, ast.AugAssign) and isinstance(second.op, ast.Add)
            and isinstance(second.target, ast.Name) and second.target.id == x
            and x not in _loads(second.value)):
        return k
    if (k > j and _assigns_only_name(second) and second.targets[0].id == x
            and isinstance(second.value, ast.BinOp) and isinstance(second.value.left, ast.Name)
            and second.value.left.id == x and x not in _loads(second.value.right)):
        return k
    return None


class _Unshared:
    """:func:`_unshared` of every name of ``fdef``, from one walk (a walk per question made
    tidy quadratic in a function's length: 90 % of its time at 200 statements). A merge of
    :func:`_merge_sums` changes the statements of one name ``x`` only (its assignment takes
    the sum, a read of ``x`` goes), so only ``x``'s answer may change: the caller puts ``x``
    in :attr:`dirty`, and its answer is asked again of the tree."""

    def __init__(self, fdef):
        self.fdef, self.shared, self.dirty = fdef, None, set()

    def __call__(self, name):
        if self.shared is None:
            self.shared = _shared_names(self.fdef)
        if name in self.dirty:
            self.dirty.discard(name)
            if _unshared(self.fdef, name):
                self.shared.discard(name)
            else:
                self.shared.add(name)
        return name not in self.shared


def _shared_names(fdef):
    """The names :func:`_unshared` says no to, from one walk."""
    returned = {id(n) for stmt in _walk(fdef) if stmt.__class__ is ast.Return
                and stmt.value is not None for n in (
                    stmt.value.elts if stmt.value.__class__ is ast.Tuple else [stmt.value])}
    shared = set()
    for node in _walk(fdef):
        cls = node.__class__
        if cls is ast.Name:
            if node.ctx.__class__ is ast.Load and id(node) not in returned:
                shared.add(node.id)
        elif cls is ast.Assign:
            if not (_assigns_only_name(node) and _is_number(node.value)):
                shared.update(_stores(node))
        elif cls in (ast.For, ast.NamedExpr):
            shared.update(_stores(node.target))
        elif cls is ast.withitem:
            if node.optional_vars is not None:
                shared.update(_stores(node.optional_vars))
        elif cls is ast.arg:
            shared.add(node.arg)
    return shared


def _unshared(fdef, name):
    """Whether ``name``'s value is its own object, shared with no other name, so ``name +=
    g`` changes no value another name reads: every assignment of ``name`` is a number
    (``da = 0.0``) or ``name += g`` (a float and an array make a new array), and it is read
    only where returned (``return da``)."""
    returned = {id(n) for stmt in _walk(fdef) if stmt.__class__ is ast.Return
                and stmt.value is not None for n in (
                    stmt.value.elts if stmt.value.__class__ is ast.Tuple else [stmt.value])}
    for node in _walk(fdef):
        if node.__class__ is ast.Name and node.id == name and node.ctx.__class__ is ast.Load \
                and id(node) not in returned:
            return False
        if node.__class__ is ast.Assign and name in _stores(node) and not (
                _assigns_only_name(node) and _is_number(node.value)):
            return False
        if node.__class__ in (ast.For, ast.NamedExpr) and name in _stores(node.target) or (
                node.__class__ is ast.withitem and node.optional_vars is not None
                and name in _stores(node.optional_vars)) or (
                node.__class__ is ast.arg and node.arg == name):
            return False
    return True


def _binds_names(stmt):
    """Whether ``stmt`` is ``a = e``, ``a, b = e`` or ``a += e``: it binds names only."""
    if isinstance(stmt, ast.AugAssign):
        return isinstance(stmt.target, ast.Name)
    return isinstance(stmt, ast.Assign) and all(
        isinstance(n, (ast.Name, ast.Tuple)) for t in stmt.targets for n in _walk(t))


def _assigns_only_name(stmt):
    return (isinstance(stmt, ast.Assign) and len(stmt.targets) == 1
            and isinstance(stmt.targets[0], ast.Name))


# ---------------------------------------------------------------- temporaries


def _inline_temps(fdef, temps):
    stores, loads = _count_names(fdef)
    changed = False
    written = {}  # id of a statement -> the names it writes into (:func:`_written_into`)
    known = {}  # the name counts of each statement looked at (:func:`.name_counts`), by id:
    # a statement changed is forgotten (and its block's sweep stops at it; the blocks
    # holding it were swept before it, :func:`._blocks` giving a block before those inside)
    for block, _ in list(_blocks(fdef)):
        done = set()  # statements changed in this sweep: looked at again in the next
        i = 0
        while i < len(block):
            stmt = block[i]
            i += 1
            if id(stmt) in done or not (isinstance(stmt, ast.Assign) and len(stmt.targets) == 1
                                        and isinstance(stmt.targets[0], ast.Name)):
                continue
            name = stmt.targets[0].id
            if name not in temps or stores.get(name) != 1 or loads.get(name) != 1:
                continue
            reads = set(_loads(stmt.value))
            # a value that can act (``dL.pop()``) or fail moves only into the next statement,
            # and never where it might not be evaluated (a branch of ``a if c else b``)
            acts = _acts(stmt.value)
            # a call adding into arrays (.transform.into) goes nowhere that names them:
            # ``dx[0] += f_into(c, g, dx)`` reads ``dx[0]`` before the call adds into it
            changes = {n for sub in _walk(stmt.value) if sub.__class__ is ast.Call
                       for n in added_into(sub)}
            # and an acting value goes nowhere that reads what it may change: in
            # ``dL[-1] += dL.pop() * 2.0`` the item is read before the pop (sound29)
            held = {n for n in reads if stores.get(n)} | _method_bases(stmt.value) if acts \
                else set()
            for j in range(i, len(block)):
                later = block[j]
                if id(later) in done or acts and j > i:
                    break
                later_stores, later_loads = name_counts(later, known)
                if changes and changes & (later_loads.keys() | later_stores.keys()):
                    break
                header = _header(later)
                header_loads = later_loads if header is later else _loads(header)
                if name in header_loads:
                    if acts and (_conditional_use(header, name)
                                 or held & (header_loads.keys() - {name})):
                        break
                    if _replace_once(header, name, stmt.value) or _replace_test(
                            later, name, stmt.value):
                        known.pop(id(later), None)
                        done.add(id(later))
                        del block[i - 1]
                        i -= 1
                        changed = True
                    break
                if name in later_loads or later_stores.keys() & (reads | {name}) or (
                        reads & _written_into(later, written)):
                    break  # (dt = dy[i] moves nowhere past dy[i] = 0.0: .number_writes)
    return changed


def _written_into(stmt, cache):
    """The names ``stmt`` writes into (``y[i] = v``, ``y[i] += v``, ``y.a = v``), its blocks'
    statements included, and the names sharing the array a write in place marks
    (:func:`srcad.transform.owned_writes.mark_writes`); ``cache``: by the statement's id."""
    found = cache.get(id(stmt))
    if found is None:
        found = cache[id(stmt)] = set()
        for sub in _walk(stmt):
            found.update(getattr(sub, "srcad_writes_into", ()))  # (a view's name too)
            if sub.__class__ in (ast.Subscript, ast.Attribute) and (
                    sub.ctx.__class__ is ast.Store):
                while sub.__class__ in (ast.Subscript, ast.Attribute):
                    sub = sub.value  # (y[i][j] = v writes into y)
                if sub.__class__ is ast.Name:
                    found.add(sub.id)
    return found


def _acts(node):
    """Can evaluating ``node`` change something (``dL.pop()``, a call srcad does not know to be
    pure)? Arithmetic and subscripts may fail but change nothing."""
    for sub in _walk(node):
        if isinstance(sub, ast.Call) and not _pure_call(sub, ("np", "math")):
            return True
        if isinstance(sub, (ast.Await, ast.Yield, ast.NamedExpr)):
            return True
    return False


def _method_bases(node):
    """The names whose methods ``node`` calls (``dL`` of ``dL.pop()``)."""
    return {sub.func.value.id for sub in _walk(node) if sub.__class__ is ast.Call
            and sub.func.__class__ is ast.Attribute and sub.func.value.__class__ is ast.Name}


def _conditional_use(node, name):
    """Is ``name`` read somewhere in ``node`` that is evaluated only on some paths?"""
    for sub in _walk(node):
        if isinstance(sub, ast.IfExp):
            parts = [sub.body, sub.orelse]
        elif isinstance(sub, ast.BoolOp):
            parts = sub.values[1:]
        elif isinstance(sub, (ast.Lambda, ast.ListComp, ast.SetComp, ast.DictComp,
                              ast.GeneratorExp)):
            parts = [sub]
        else:
            continue
        if any(name in _loads(part) for part in parts):
            return True
    return False



def _replace_test(stmt, name, value):
    """``if t:`` whose test is ``name`` itself tests ``value`` (``t_3 = not returned`` then
    ``if t_3:`` is ``if not returned:``); never a ``while`` test, evaluated again each turn."""
    if stmt.__class__ is ast.If and stmt.test.__class__ is ast.Name and stmt.test.id == name:
        stmt.test = value
        return True
    return False


def _replace_once(node, name, value):
    for parent in _walk(node):
        for field, child in ast.iter_fields(parent):
            if isinstance(child, ast.Name) and child.id == name and isinstance(child.ctx,
                                                                                ast.Load):
                setattr(parent, field, value)
                return True
            if isinstance(child, list):
                for k, item in enumerate(child):
                    if isinstance(item, ast.Name) and item.id == name and isinstance(
                        item.ctx, ast.Load
                    ):
                        child[k] = value
                        return True
    return False
