"""Activity, values and gradients on the nodes of a :class:`~.model.Graph`.

:func:`_activity` asks srcad's analysis which values are active; :func:`_annotate` runs the SSA
statements on the tape (:mod:`srcad.tape`), keeping every intermediate gradient, or plainly when
the tape cannot follow them.

Imports: NumPy, the standard library, ``srcad.core.ir``, and when it runs, ``srcad.analysis``,
``srcad.core.kinds`` and the tape.
"""

from __future__ import annotations

import ast

import numpy as np

from ...core import ir

# ================================================================================================
# Activity, values and gradients
# ================================================================================================


def _activity(graph, fn, args, wrt, builder):
    """Mark which nodes are active (see srcad's analysis); leave None when it cannot tell."""
    try:
        from ...analysis.analyse import Analysis
        from ...core.kinds import ANY, kind_of_value

        kinds = {p: (kind_of_value(a) if args is not None else ANY)
                 for p, a in zip(fn.params, args if args is not None else fn.params)}
        analysis = Analysis(fn, kinds, wrt)
    except Exception:  # a drawing never fails for want of an analysis
        return
    for node in graph.nodes.values():
        if node.ssa is not None:
            node.active = analysis.active(ir.Var(node.ssa))


class _WithLocals(ast.NodeTransformer):
    """``return x`` becomes ``return x, dict(locals())``."""

    def visit_Return(self, node):
        call = ast.Call(ast.Name("dict", ast.Load()),
                        [ast.Call(ast.Name("locals", ast.Load()), [], [])], [])
        value = node.value or ast.Constant(None)
        return ast.copy_location(ast.Return(ast.Tuple([value, call], ast.Load())), node)


def _ssa_function(fn):
    tree = ast.fix_missing_locations(_WithLocals().visit(ast.parse(ir.to_source(fn))))
    env = dict(fn.source.globals)
    env.update(fn.source.closure)
    env.setdefault("__name__", "srcad.graph.<ssa>")
    exec(compile(tree, f"<ssa of {fn.name}>", "exec"), env)  # our own SSA text
    return env[fn.name]


def _annotate(graph, fn, args, wrt, builder):
    try:
        ssa_fn = _ssa_function(fn)
    except Exception as exc:
        graph.notes.append(f"values unavailable: {_one_line(exc)}")
        return
    values, grads = None, {}
    if wrt:
        try:
            values, grads = _on_tape(ssa_fn, args, wrt)
        except Exception as exc:
            graph.notes.append(f"gradients unavailable: {_one_line(exc)}")
    on_tape = values is not None
    if values is None:
        try:
            values = ssa_fn(*args)[1]
        except Exception as exc:
            graph.notes.append(f"values unavailable: {_one_line(exc)}")
            return
    in_loop = _loop_clusters(graph)
    for node in graph.nodes.values():
        if node.ssa in values:
            node.value, node.has_value = values[node.ssa], True
            node.grad = grads.get(node.ssa)
    if in_loop and any(n.cluster in in_loop and n.has_value for n in graph.nodes.values()):
        graph.notes.append("inside loops: values of the last iteration")
    lost = [n.id for n in graph.nodes.values() if on_tape and n.active and n.has_value
            and n.grad is None and isinstance(n.value, (float, np.floating, np.ndarray))]
    if lost:
        graph.notes.append(f"no gradient from the tape for {', '.join(lost)} (a value written "
                           "into an array, or an operation the tape does not follow)")


def _on_tape(ssa_fn, args, wrt):
    from .. import tape

    out, scope = tape.trace(ssa_fn, *args, wrt=tuple(wrt))
    for v in scope.values():
        if isinstance(v, tape.Var) and v.requires_grad:
            v.retain_grad()
    if isinstance(out, tape.Var) and out.requires_grad:
        out.retain_grad()
        out.backward()
    values, grads = {}, {}
    for name, v in scope.items():
        values[name] = _plain(v, tape.Var)
        if isinstance(v, tape.Var) and v.grad is not None:
            grads[name] = v.grad
    return values, grads


def _plain(value, var_type):
    """A value with the tape's Vars replaced by what they hold, also inside lists and tuples."""
    if isinstance(value, var_type):
        return value.value
    if isinstance(value, (list, tuple)):
        return type(value)(_plain(v, var_type) for v in value)
    return value


def _loop_clusters(graph):
    loops = {c.id for c in graph.clusters if c.label.startswith(("for ", "while "))}
    changed = True
    while changed:
        changed = False
        for c in graph.clusters:
            if c.parent in loops and c.id not in loops:
                loops.add(c.id)
                changed = True
    return loops


def _one_line(exc):
    lines = str(exc).strip().splitlines()
    return f"{type(exc).__name__}: {lines[0] if lines else ''}".rstrip(": ")

