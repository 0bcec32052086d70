"""``F(a)(b)``: a function of the user's that returns a derivative of one of its own lambdas,
called at once (closures29, issue 16; dtak/rrr's ``input_gradients``)::

    def input_gradients(params, y=None, scale='log'):
        if scale == 'log':
            p = lambda x: feed_forward(params, x)
        else:
            p = lambda x: np.exp(feed_forward(params, x))
        ...
        return elementwise_grad(p2)

    def objective(params, X):
        return l2_norm(input_gradients(params)(X))

The function returned closes over ``params``, a differentiated value, so it cannot be made
while the code is made (:mod:`.chosen_functions`, :mod:`.derivative_makers` take constants
only). The call is read instead as a call of a copy of ``F`` whose every ``return e`` is
``return e(*srcad_applied)``, given ``srcad_applied=(b, ...)``: the derivative is then called
where it is made, in ``F``'s own code, where srcad differentiates ``elementwise_grad(p2)(x)``
of a local lambda as it does in any function (the outer gradient sees through the inner one),
and where the choice among the lambdas is made by the specialisation's constants (a string,
None or a bool passed or defaulted: :mod:`.fixed_tests`), or stays a branch.

Same values as Python: ``F(a)(b)`` evaluates ``b`` after ``F``'s body; the copy reads the
names ``b`` before it, which is the same when ``b`` is names and constants only (required)
and ``F`` rebinds no global or outer name (no ``global``/``nonlocal``: required). Falling off
``F``'s end calls ``None``: the copy raises Python's TypeError there. Only where one of
``F``'s ``return`` values is a derivative maker (``srcad.grad``, ``elementwise_grad``
declared one, ``jacobian``, ...) applied to a name ``F`` binds (not a parameter): other
function-returning functions keep their own readings.

Imports the standard library, gast, :mod:`srcad.core`, :mod:`srcad.rules.registry`,
:mod:`.returned_records` and :mod:`.source`.
"""

from __future__ import annotations

import types

import gast

from ..core import env, functions
from ..core.ir import Const
from ..core.walk import walk_nodes
from ..rules.registry import registry as _registry
from . import returned_records
from . import source as source_module

#: the keyword-only parameter of the copy holding the outer call's arguments
APPLIED = "srcad_applied"


def applied(lw, node):
    """``(copy, inner call node)`` for ``F(a)(b)`` read as above, else None."""
    inner = node.func
    if not (isinstance(inner, gast.Call) and isinstance(inner.func, gast.Name)) or (
            node.keywords or not all(isinstance(a, (gast.Name, gast.Constant))
                                     for a in node.args)):
        return None
    name = inner.func.id
    if name in lw.env or name in lw.local_functions or lw.stores.get(name):
        return None
    try:
        fn = lw.source.lookup(name)
    except KeyError:
        return None
    if not isinstance(fn, types.FunctionType) or not functions.is_user_function(fn) or (
            fn.__code__.co_flags & 0x20):  # (a generator)
        return None
    if _registry.has_rule(fn) or _registry.is_nondiff(fn) or not _returns_a_derivative(fn):
        return None
    space = {name: fn}  # its defaults are the copy's: guarded, as a callee's are
    env.record_all([env.Read(space, None, name, (attr,), getattr(fn, attr))
                    for attr in ("__defaults__", "__kwdefaults__")])
    key = ("applied", fn.__defaults__, tuple(sorted((fn.__kwdefaults__ or {}).items())))
    try:
        hash(key)
    except TypeError:  # (a list default: the copy is made for that object)
        key = ("applied", id(fn.__defaults__), id(fn.__kwdefaults__))
    cell = returned_records._copy_returning(fn, key, _rewrite)[0]
    return cell.cell_contents


def call_node(lw, made, node, atom_node):
    """The call ``copy(a, srcad_applied=(b, ...))`` of ``node`` (``F(a)(b)``), its function
    the copy (``atom_node``: a node standing for an atom)."""
    inner = node.func
    spelled = Const(made, lw.bound_name(made, made.__name__))
    packed = gast.Tuple(elts=list(node.args), ctx=gast.Load())
    call = gast.Call(func=atom_node(spelled), args=list(inner.args), keywords=list(
        inner.keywords) + [gast.keyword(arg=APPLIED, value=packed)])
    for sub in walk_nodes(call):
        if getattr(sub, "lineno", None) is None and "lineno" in sub._attributes:
            gast.copy_location(sub, node)
    return call


def _returns_a_derivative(fn):
    try:
        fdef = source_module.read(fn).node
    except Exception:  # noqa: BLE001 - no source: not read so
        return False
    if not isinstance(fdef, gast.FunctionDef) or any(
            isinstance(n, (gast.Global, gast.Nonlocal, gast.Yield, gast.YieldFrom, gast.Await))
            for n in walk_nodes(fdef)):
        return False
    params = {a.id for a in fdef.args.posonlyargs + fdef.args.args + fdef.args.kwonlyargs}
    if APPLIED in params:
        return False
    found = False
    for ret in _own_returns(fdef):
        value = ret.value
        if value is None:
            return False
        if isinstance(value, gast.Call) and isinstance(value.func, gast.Name) and (
                value.args and isinstance(value.args[0], gast.Name)
                and value.args[0].id not in params):
            cells = dict(zip(fn.__code__.co_freevars, fn.__closure__ or ()))
            try:
                maker = cells[value.func.id].cell_contents if value.func.id in cells else (
                    fn.__globals__.get(value.func.id))
            except ValueError:  # an empty cell
                maker = None
            found = found or (maker is not None and functions.is_derivative_maker(maker))
    return found


def _own_returns(fdef):
    """The ``return`` statements of ``fdef`` itself (not of functions nested in it)."""
    return [n for n in returned_records.own_nodes(fdef.body) if isinstance(n, gast.Return)]


def _name(id_, ctx=None):
    return gast.Name(id=id_, ctx=ctx or gast.Load(), annotation=None, type_comment=None)


def _rewrite(fdef, taken):
    """``return e`` -> ``return e(*srcad_applied)``; Python's TypeError at the end."""
    for ret in _own_returns(fdef):
        ret.value = gast.copy_location(gast.Call(
            func=ret.value, args=[gast.Starred(value=_name(APPLIED), ctx=gast.Load())],
            keywords=[]), ret)
    fdef.args.kwonlyargs.append(_name(APPLIED, gast.Param()))
    fdef.args.kw_defaults.append(None)
    last = fdef.body[-1] if fdef.body else None
    if not isinstance(last, gast.Return):
        message = gast.Constant(value="'NoneType' object is not callable", kind=None)
        fdef.body.append(gast.copy_location(gast.Raise(exc=gast.Call(
            func=_name("TypeError"), args=[message], keywords=[]), cause=None), last))
    for sub in walk_nodes(fdef):
        if getattr(sub, "lineno", None) is None and "lineno" in sub._attributes:
            gast.copy_location(sub, fdef)
    return {}
