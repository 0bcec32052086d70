"""The whole generated function's tree: the forward sweep, the seed, the backward sweep and the
return (:func:`assemble`; where the float gradients sit in it, :func:`grad_places`), and the
signatures of generated functions (:func:`signature`, :func:`arguments`, :func:`function_def`).

Imports ``srcad.core``, ``srcad.analysis`` (complexity) and ``srcad.transform`` (nodes).
"""

from __future__ import annotations

import ast

from ..analysis import complexity
from ..core import ir
from ..core.kinds import SCALAR
from ..core.walk import walk_nodes
from ..transform import nodes
from ..transform.nodes import Comment, assign, call, name


def assemble(fn, gen, label, wrt, mode, analysis, spelled, namer, helpers, as_tuple=False,
             holomorphic=False, check_real=True):
    """The tree of the whole adjoint function ``label``; ``helpers`` gains those the wrapping
    itself calls. ``check_real``: a real argument's gradient is checked real where the code
    may make complex values no kind shows (the Numba backend's ``**`` raises instead)."""
    body = [assign(s, ast.List(elts=[], ctx=nodes.LOAD)) for s in gen.stacks]
    body += nodes.realise(gen.forward, gen.saves)
    result = nodes.expr(gen.result)
    check = "check_holomorphic" if holomorphic else "check_scalar"
    seeded = False  # the seed is what check_scalar returns (an array of one element's ones)
    if mode != "vjp" and (holomorphic or analysis.kind(gen.result) != SCALAR):
        where = f"{fn.source.filename}:{fn.source.first_line}"
        helpers.add(check)
        checked = call(spelled.get(check, check), result, nodes.constant(where))
        seeded = check == "check_scalar" and check_real  # the Python backend's
        body.append(assign(gen.seed, checked) if seeded else ast.Expr(value=checked))
        result = nodes.expr(gen.result)
    restored = set()
    backward = nodes.realise(gen.backward, gen.saves, restored)
    # and every name the backward code assigns otherwise (the Numba backend's stacks are
    # read by plain assignments: srcad.backend.numba_backend.realise)
    restored |= {n.id for n in walk_nodes(ast.Module(body=backward, type_ignores=[]))
                 if n.__class__ is ast.Name and n.ctx.__class__ is not ast.Load}
    acts = any(not isinstance(s, Comment) for s in backward)
    backward_at = len(body)
    if mode != "vjp" and acts:
        body.append(Comment("backward"))
    if mode != "vjp" and not seeded:
        body.append(assign(gen.seed, nodes.constant(1.0)))  # a constant: tidy folds it
    if acts:
        body += backward
    grads = [gen.grads[w] for w in wrt]
    if check_real and complexity.unseen_complex(analysis):  # a real argument's gradient, real
        where = f"{fn.source.filename}:{fn.source.first_line}"
        helpers.add("check_real")
        grads = [g if analysis.is_complex(ir.Var(w)) else
                 call(spelled.get("check_real", "check_real"), g, nodes.constant(w),
                      nodes.constant(where)) for g, w in zip(grads, wrt)]
    if len(grads) == 1 and not as_tuple:
        out = grads[0]
    else:
        out = nodes.tuple_(grads)
    aux = getattr(fn, "aux", None)  # has_aux=True: srcad.frontend.aux_pairs
    if aux is not None:
        aux = _kept_aside(aux, restored, body, backward_at, namer, "aux")
    if mode == "value_and_grad":
        result = _kept_aside(gen.result, restored, body, backward_at, namer, "value")
        out = nodes.tuple_([result if aux is None else nodes.tuple_([result, aux]), out])
    elif aux is not None:
        out = nodes.tuple_([out, aux])
    body.append(ast.Return(value=out))
    return function_def(label, signature(fn, gen.seed, mode), body)


def grad_places(mode, wrt, floats, as_tuple, aux=False):
    """The places of the float parameters' gradients in the return ``assemble`` writes."""
    def places(ret):
        holder, index = ret, "value"
        if mode == "value_and_grad" or aux:  # ((value, aux), grads) or (grads, aux)
            holder, index = ret.value.elts, 1 if mode == "value_and_grad" else 0
        if len(wrt) == 1 and not as_tuple:
            return [(holder, index)] if wrt[0] in floats else []
        grads = holder[index] if isinstance(holder, list) else getattr(holder, index)
        return [(grads.elts, k) for k, w in enumerate(wrt) if w in floats]
    return places


def _kept_aside(value, restored, body, backward_at, namer, base):
    """The expression returning ``value`` (an atom of the forward sweep) after the backward
    sweep: when that sweep restores saved values, ``value``'s name among them, a copy made
    before it."""
    if isinstance(value, ir.Var) and value.name in restored:
        kept = namer.fresh(base)
        body.insert(backward_at, assign(kept, nodes.expr(value)))
        return name(kept)
    return nodes.expr(value)


def function_def(label, arguments, body):
    fdef = ast.FunctionDef(name=label, args=arguments, body=body, decorator_list=[],
                           returns=None, lineno=0, **_NO_TYPE_PARAMS)
    return fdef


#: Python 3.12 added ``type_params`` to a def; earlier versions refuse the keyword
_NO_TYPE_PARAMS = {"type_params": []} if "type_params" in ast.FunctionDef._fields else {}


def arguments(posonly, positional, kwonly):
    def args(names):
        return [ast.arg(arg=n, annotation=None) for n in names]

    return ast.arguments(posonlyargs=args(posonly), args=args(positional), vararg=None,
                         kwonlyargs=args(kwonly), kw_defaults=[None] * len(kwonly),
                         kwarg=None, defaults=[])


def signature(fn, seed, mode):
    src = fn.source.node.args
    posonly = [a.id for a in src.posonlyargs]
    positional = [a.id for a in src.args]
    kwonly = [a.id for a in src.kwonlyargs]
    if mode == "vjp":  # the seed first, positional-only when the first parameter is
        (posonly if posonly else positional).insert(0, seed)
    extra = list(fn.arity.names) if getattr(fn, "arity", None) else []
    if extra:  # a *args callee's items: keyword-only (see srcad.transform.nodes.call_part)
        kwonly = extra[:len(fn.arity.items)] + kwonly + extra[len(fn.arity.items):]
    return arguments(posonly, positional, kwonly)
