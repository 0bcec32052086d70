"""A function of the user's that makes a derivative of its parameter, called in differentiated
code (issue 16, outside27)::

    def hessian(f):
        return jacfwd(jacrev(f))

    def loss(x):
        H = hessian(energy)(x)
        ...

JAX's users write such *makers* (``hessian``, ``hvp``, a ``grad`` with fixed ``argnums``):
the function returned is made at run time, so a call of it was refused as a call of a closure.
When the maker's body is one ``return`` of srcad's derivative makers (``srcad.grad``,
``value_and_grad``, ``jacobian``, ``jacfwd``, ``jacrev``, ``hessian``, ``hvp``, as imported
under any name, JAX's names pointed at them too) applied to its parameters and constants
(``argnums=(0, 1)``), and the call passes functions and constants srcad knows when it
transforms the caller, the call is made then: making a derivative changes nothing and
depends on nothing but the function given and the options, so the result is a constant,
the derivative, whose call the sweeps differentiate again as they do for ``srcad.grad(f)(x)``
written in place. The names the maker reads (``jacfwd``) are recorded: rebinding one makes
the caller's code again. Any other maker keeps the refusal (:mod:`.closures` converts those
returning a nested function).

Imports the standard library, gast, :mod:`srcad.core` and :mod:`.source`.
"""

from __future__ import annotations

import builtins

import gast

from ..core import env, functions
from ..core.ir import Const
from . import source as source_module

_MISSING = object()


def _params(fdef):
    args = fdef.args
    if args.vararg or args.kwarg:
        return None
    return {a.id for a in args.posonlyargs + args.args + args.kwonlyargs}


def _resolve(fn, node, reads):
    """The object a free name (or a dotted path of one: ``jax.jacfwd``) of ``fn`` names, its
    read noted in ``reads``; else ``_MISSING``."""
    attrs = []
    while isinstance(node, gast.Attribute):
        attrs.append(node.attr)
        node = node.value
    if not isinstance(node, gast.Name):
        return _MISSING
    attrs.reverse()
    cells = dict(zip(fn.__code__.co_freevars, fn.__closure__ or ()))
    if node.id in cells:
        try:
            value = cells[node.id].cell_contents
        except ValueError:
            return _MISSING
        read = env.Read(None, cells[node.id], node.id, attrs, None)
    else:
        value = fn.__globals__.get(node.id, getattr(builtins, node.id, _MISSING))
        read = env.Read(fn.__globals__, None, node.id, attrs, None)
    for attr in attrs:
        value = getattr(value, attr, _MISSING)
        if value is _MISSING:
            return _MISSING
    reads.append(env.Read(read.namespace, read.cell, read.name, read.attrs, value))
    return value


def _plain(node, fn, params, reads):
    """Whether the expression ``node`` only applies derivative makers to ``params`` and
    constants."""
    if isinstance(node, gast.Constant):
        return True
    if isinstance(node, gast.Name) and isinstance(node.ctx, gast.Load) and node.id in params:
        return True
    if isinstance(node, (gast.Tuple, gast.List)):
        return all(isinstance(e, gast.Constant) for e in node.elts)
    if isinstance(node, gast.UnaryOp) and isinstance(node.op, gast.USub):
        return isinstance(node.operand, gast.Constant)
    if isinstance(node, gast.Call):
        maker = _resolve(fn, node.func, reads)
        return maker is not _MISSING and functions.is_derivative_maker(maker) and all(
            not isinstance(a, gast.Starred) and _plain(a, fn, params, reads)
            for a in node.args) and all(
            k.arg is not None and _plain(k.value, fn, params, reads) for k in node.keywords)
    return False


def maker_reads(fn):
    """The reads of ``fn``'s free names when ``fn`` is a maker of derivatives (see above),
    else None."""
    try:
        src = source_module.read(fn)
    except Exception:  # noqa: BLE001 - no source: not such a maker
        return None
    fdef = src.node
    if not isinstance(fdef, gast.FunctionDef) or fdef.decorator_list:
        return None
    body = list(fdef.body)
    if body and isinstance(body[0], gast.Expr) and isinstance(body[0].value, gast.Constant):
        body = body[1:]  # the docstring
    params = _params(fdef)
    if params is None or len(body) != 1 or not isinstance(body[0], gast.Return) or not (
            isinstance(body[0].value, gast.Call)):
        return None
    reads = []
    return reads if _plain(body[0].value, fn, params, reads) else None


def call(lowerer, fn, args, kwargs):
    """``maker(f, ...)`` made now when ``fn`` is a maker of derivatives and the call's
    arguments are constants: the derivative, a constant; else None."""
    atoms = list(args) + list(kwargs.values())
    if not atoms or not all(isinstance(a, Const) for a in atoms):
        return None
    reads = maker_reads(fn)
    if reads is None:
        return None
    env.record_all(reads + env.code_reads({fn.__name__: fn}))
    made = fn(*[a.value for a in args], **{k: a.value for k, a in kwargs.items()})
    plain = functions.plain_form(made)  # a Jacobian or Hessian: the function srcad reads
    made = made if plain is None else plain
    name = f"{fn.__name__}_{getattr(args[0].value, '__name__', 'fn')}" if args else fn.__name__
    return Const(made, lowerer.bound_name(made, name))
