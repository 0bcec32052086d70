"""The computation graph of a function, drawn from its SSA form, as Graphviz DOT text.

A node is a value: a parameter (a *leaf* when it is differentiated, an *input* otherwise), an
intermediate value the user named, or the returned value (the *output*). An edge is an
operation, labelled with what it computes. Temporaries that srcad's SSA form introduces and
uses once (``t = 3 * a`` for ``b = 5 - 3 * a``) are folded into the expression on the edge, so
the graph has the shape of the user's code:

    >>> def g(a, o):
    ...     b = 5 - 3 * a
    ...     c = 2 * b + 3
    ...     d = 5 * b + 6
    ...     e = 7 * c + d**2
    ...     f = 2 * e
    ...     g = 3 * f - o
    ...     return g
    >>> graph = build(g)
    >>> sorted(graph.edge_pairs())  # doctest: +NORMALIZE_WHITESPACE
    [('a', 'b'), ('b', 'c'), ('b', 'd'), ('c', 'e'), ('d', 'e'), ('e', 'f'), ('f', 'g'),
     ('o', 'g')]

With ``args``, each node shows its value and, for an active value (one that depends on a
differentiated parameter and reaches the output), its gradient: the SSA statements are run on
:mod:`srcad.tape`, keeping every intermediate gradient (``retain_grad``).

An ``if`` is drawn as a cluster holding its two arms; a loop as a cluster holding its body, with
a dashed edge for each value carried to the next iteration (values shown are those of the last
iteration). :func:`render` turns the DOT text into SVG or PNG with Graphviz's ``dot`` program.
"""

from __future__ import annotations

import ast
import inspect
import re
import shutil
import subprocess
import warnings
from dataclasses import dataclass, field
from pathlib import Path

import gast
import numpy as np

from .. import pipeline
from ..core import ir
from ..frontend import source

__all__ = ["Graph", "build", "render", "to_dot"]


@dataclass
class Node:
    """A value. ``kind``: "leaf", "input", "intermediate" or "output"."""

    id: str
    kind: str
    ssa: str | None = None  # the SSA name, when there is one
    expr: str | None = None  # what computes it, in the user's names
    cluster: int | None = None
    active: bool | None = None
    value: object = None
    grad: object = None
    has_value: bool = False
    note: str | None = None  # one more line of label (a loop value's constant start)


@dataclass
class Edge:
    src: str
    dst: str
    label: str
    carried: bool = False  # a loop-carried value, into the next iteration


@dataclass
class Cluster:
    id: int
    label: str
    parent: int | None = None


@dataclass
class Graph:
    """Nodes (by id, in order of definition), edges, clusters and notes of a function."""

    name: str
    params: list
    nodes: dict = field(default_factory=dict)
    edges: list = field(default_factory=list)
    clusters: list = field(default_factory=list)
    notes: list = field(default_factory=list)

    def edge_pairs(self):
        """The (source, destination) node ids of every edge."""
        return [(e.src, e.dst) for e in self.edges]

    def to_dot(self):
        return _dot(self)


def to_dot(func, args=None, wrt=None, fold=True):
    """The DOT text of the computation graph of ``func`` (see :func:`build`)."""
    return build(func, args, wrt, fold).to_dot()


def build(func, args=None, wrt=None, fold=True):
    """The :class:`Graph` of ``func``'s SSA form.

    ``args``: values to annotate the nodes with (value, and gradient for active values).
    ``wrt``: the differentiated parameters, positions or names (default: every float argument
    when ``args`` are given, else every parameter). ``fold=False`` keeps every SSA temporary
    as a node of its own.
    """
    func = func.__srcad__._user if getattr(func, "__srcad__", None) is not None else (
        source.target(func))
    fn, _ = pipeline.to_ssa(func)
    wrt_names = _wrt(fn.params, args, wrt)  # by default the float arguments given
    if args is not None:
        args = _all_args(func, fn.params, args)
    builder = _Builder(fn, wrt_names, fold)
    graph = builder.run()
    _activity(graph, fn, args, wrt_names, builder)
    if args is not None:
        _annotate(graph, fn, tuple(args), wrt_names, builder)
    return graph


def _all_args(func, params, args):
    """``args`` completed with the defaults, in the order of the SSA function's parameters."""
    try:
        bound = inspect.signature(func).bind(*args)
    except TypeError as exc:
        raise TypeError(f"{func.__name__}(): {exc}") from None
    bound.apply_defaults()
    return tuple(bound.arguments[p] for p in params)


def _wrt(params, args, wrt):
    if wrt is None:
        if args is None:
            return list(params)
        return [p for p, a in zip(params, args) if _is_float(a)]
    items = list(wrt) if isinstance(wrt, (tuple, list)) else [wrt]
    out = []
    for w in items:
        if isinstance(w, int) and not isinstance(w, bool) and -len(params) <= w < len(params):
            out.append(params[w])
        elif isinstance(w, str) and w in params:
            out.append(w)
        else:
            raise ValueError(f"wrt={w!r} names no parameter of this function {tuple(params)}")
    return out


def _is_float(x):
    if isinstance(x, np.ndarray):
        return x.dtype.kind == "f"
    return isinstance(x, (float, np.floating))


# ================================================================================================
# From SSA to nodes and edges
# ================================================================================================

_SUFFIX = re.compile(r"^(.*)_(\d+)$")


class _Text:
    """An operand printed as given text (a folded sub-expression or a display name)."""

    def __init__(self, text):
        self.text = text

    def __str__(self):
        return self.text


class _Builder:
    def __init__(self, fn, wrt, fold):
        self.fn = fn
        self.wrt = wrt
        self.fold = fold
        self.graph = Graph(fn.name, list(fn.params))
        user = set(fn.params)
        user |= {n.id for n in gast.walk(fn.source.node)
                 if isinstance(n, gast.Name) and isinstance(n.ctx, gast.Store)}
        self.user = user
        self.defs = {}  # SSA name -> (statement, block id)
        self.uses = {}  # SSA name -> [(kind, block id)]
        self._scan(fn.body)
        versions = {}
        for name in [*fn.params, *self.defs]:
            base = self._base(name)
            if base is not None:
                versions.setdefault(base, set()).add(name)
        self.display = {}
        for name in [*fn.params, *self.defs]:
            base = self._base(name)
            single = base is not None and len(versions[base]) == 1
            self.display[name] = base if single or name in fn.params else name
        self.folded = {n for n in self.defs if self._foldable(n)}
        self._effects = 0

    # -- scanning ------------------------------------------------------------------------------

    def _base(self, name):
        """The user variable an SSA name is a version of, or None for a temporary."""
        if name in self.user:
            return name
        m = _SUFFIX.match(name)
        return m.group(1) if m and m.group(1) in self.user else None

    def _use(self, atom, kind, block):
        for var in ir.atoms_in(atom):
            self.uses.setdefault(var.name, []).append((kind, block))

    def _use_value(self, value, kind, block):
        if isinstance(value, ir.Prim):
            for var in value.operands():
                self.uses.setdefault(var.name, []).append((kind, block))
        else:
            self._use(value, kind, block)

    def _scan(self, stmts):
        block = id(stmts)
        for stmt in stmts:
            if isinstance(stmt, ir.Assign):
                if stmt.target is not None:
                    self.defs[stmt.target] = (stmt, block)
                self._use_value(stmt.value, "expr", block)
            elif isinstance(stmt, ir.SetItem):
                self.defs[stmt.target] = (stmt, block)
                for atom in (stmt.obj, stmt.index, stmt.value):
                    self._use(atom, "expr", block)
            elif isinstance(stmt, ir.If):
                self._use(stmt.test, "label", block)
                self._scan(stmt.body)
                self._scan(stmt.orelse)
                for phi in stmt.phis:
                    self.defs[phi.target] = (phi, block)
                    for src in phi.sources:
                        self._use(src, "phi", block)
            elif isinstance(stmt, ir.Loop):
                if stmt.iter is not None:
                    self._use_value(stmt.iter, "expr", block)
                if stmt.target:
                    self.defs[stmt.target] = (stmt, block)
                for phi in stmt.phis:
                    self.defs[phi.target] = (phi, block)
                    for src in phi.sources:
                        self._use(src, "phi", block)
                self._scan(stmt.header)
                self._scan(stmt.body)
                self._use(stmt.test, "label", id(stmt.header))
                self._use(stmt.exit, "label", id(stmt.body))
            elif isinstance(stmt, (ir.Return, ir.Raise)):
                self._use(stmt.value, "output", block)

    def _foldable(self, name):
        if not self.fold or self._base(name) is not None:
            return False
        stmt, block = self.defs[name]
        if not isinstance(stmt, ir.Assign) or stmt.effect:
            return False
        uses = self.uses.get(name, [])
        return len(uses) == 1 and uses[0][0] in ("expr", "label") and uses[0][1] == block

    # -- expressions ---------------------------------------------------------------------------

    def atom(self, atom):
        """An operand as text in the user's names, folded temporaries written out."""
        if isinstance(atom, ir.Var):
            if atom.name in self.folded:
                return _Text(f"({self.expr(self.defs[atom.name][0].value)})")
            return _Text(self.display.get(atom.name, atom.name))
        if isinstance(atom, ir.Slice):
            return ir.Slice(*(None if a is None else self.atom(a)
                              for a in (atom.lower, atom.upper, atom.step)))
        if isinstance(atom, ir.Index):
            return ir.Index(tuple(self.atom(a) for a in atom.items))
        return atom

    def expr(self, value):
        if isinstance(value, ir.Prim):
            text = str(ir.Prim(value.fn, [self.atom(a) for a in value.args],
                               {k: self.atom(v) for k, v in value.kwargs.items()},
                               value.spelling))
        else:
            text = str(self.atom(value))
        return _tidy(text)

    def inputs(self, value):
        """The node ids an expression reads, through folded temporaries, in order."""
        out = []
        vars_ = value.operands() if isinstance(value, ir.Prim) else ir.atoms_in(value)
        for var in vars_:
            if var.name in self.folded:
                out += self.inputs(self.defs[var.name][0].value)
            else:
                out.append(self.display.get(var.name, var.name))
        return list(dict.fromkeys(out))

    # -- nodes and edges -----------------------------------------------------------------------

    def node(self, ssa, kind, expr=None, cluster=None):
        node_id = self.display.get(ssa, ssa)
        node = Node(node_id, kind, ssa, expr, cluster)
        self.graph.nodes[node_id] = node
        return node

    def edge(self, src, dst, label, carried=False):
        if (src, dst) not in [(e.src, e.dst) for e in self.graph.edges if e.carried == carried]:
            self.graph.edges.append(Edge(src, dst, label, carried))

    def cluster(self, label, parent):
        c = Cluster(len(self.graph.clusters), label, parent)
        self.graph.clusters.append(c)
        return c.id

    def run(self):
        for p in self.fn.params:
            self.node(p, "leaf" if p in self.wrt else "input")
        self.block(self.fn.body, None)
        return self.graph

    def block(self, stmts, cluster):
        for stmt in stmts:
            if isinstance(stmt, ir.Assign):
                self.assign(stmt, cluster)
            elif isinstance(stmt, ir.SetItem):
                label = _tidy(f"{self.atom(stmt.obj)}[{self.atom(stmt.index)}] = "
                              f"{self.atom(stmt.value)}")
                node = self.node(stmt.target, "intermediate", label, cluster)
                reads = [*self.inputs(stmt.obj), *self.inputs(stmt.index),
                         *self.inputs(stmt.value)]
                for src in dict.fromkeys(reads):
                    self.edge(src, node.id, label)
            elif isinstance(stmt, ir.If):
                self.branch(stmt, cluster)
            elif isinstance(stmt, ir.Loop):
                self.loop(stmt, cluster)
            elif isinstance(stmt, ir.Return):
                self.output(stmt.value, cluster)

    def assign(self, stmt, cluster):
        if stmt.target in self.folded:
            return
        expr = self.expr(stmt.value)
        if stmt.target is None:
            self._effects += 1
            node = Node(f"(effect {self._effects})", "intermediate", None, expr, cluster)
            self.graph.nodes[node.id] = node
        else:
            node = self.node(stmt.target, "intermediate", expr, cluster)
        for src in self.inputs(stmt.value):
            self.edge(src, node.id, expr)
        value = stmt.value
        if stmt.target is None and isinstance(value, ir.Prim) and isinstance(
                value.fn, ir.Method) and isinstance(value.args[0], ir.Var):
            # a method called for its effect (ys.append(v)) changes its object
            obj = self.display.get(value.args[0].name, value.args[0].name)
            if obj in self.graph.nodes:
                self.edge(node.id, obj, "changes", carried=True)

    def branch(self, stmt, cluster):
        test = self.expr(stmt.test) if not isinstance(stmt.test, ir.Var) else str(
            self.atom(stmt.test)).strip("()")
        outer = self.cluster(f"if {_tidy(test)}", cluster)
        self.block(stmt.body, self.cluster("then", outer))
        self.block(stmt.orelse, self.cluster("else", outer))
        for phi in stmt.phis:
            sources = [self.expr(s) if s is not None else "(undefined)" for s in phi.sources]
            node = self.node(phi.target, "intermediate",
                             f"{sources[0]} if {_tidy(test)} else {sources[1]}", cluster)
            for arm, src in zip(("then", "else"), phi.sources):
                if src is not None:
                    for name in self.inputs(src):
                        self.edge(name, node.id, arm)

    def loop(self, stmt, cluster):
        if stmt.kind == "for":
            label = f"for {self.display.get(stmt.target, stmt.target)} in {self.expr(stmt.iter)}"
        else:
            test = stmt.test if stmt.test is not None else ir.Const(True)
            text = str(self.atom(test))
            label = f"while {_tidy(text[1:-1] if text.startswith('(') else text)}"
        inner = self.cluster(label, cluster)
        for phi in stmt.phis:
            entry = phi.sources[0]
            expr = self.expr(entry) if entry is not None else None
            node = self.node(phi.target, "intermediate", expr, inner)
            sources = self.inputs(entry) if entry is not None else []
            for name in sources:
                self.edge(name, node.id, f"initially {expr}")
            if entry is not None and not sources:
                node.note = f"initially {expr}"
        if stmt.kind == "for" and stmt.target:
            iter_text = self.expr(stmt.iter)
            node = self.node(stmt.target, "intermediate", f"element of {iter_text}", inner)
            for name in self.inputs(stmt.iter):
                self.edge(name, node.id, f"in {iter_text}")
        self.block(stmt.header, inner)
        self.block(stmt.body, inner)
        for phi in stmt.phis:
            latch = phi.sources[1]
            if latch is None:
                continue
            target = self.display.get(phi.target, phi.target)
            for name in self.inputs(latch):
                if name != target:
                    self.edge(name, target, "next iteration", carried=True)

    def output(self, value, cluster):
        if isinstance(value, ir.Var) and value.name not in self.folded:
            node_id = self.display.get(value.name, value.name)
            node = self.graph.nodes.get(node_id)
            if node is not None:
                if node.kind == "intermediate":
                    node.kind = "output"
                else:  # a parameter returned as it is
                    node.kind += "+output"
                return
        expr = self.expr(value)
        node = Node("out", "output", None, expr, cluster)
        self.graph.nodes[node.id] = node
        for src in self.inputs(value):
            self.edge(src, node.id, expr)


def _tidy(text):
    """``text`` with the parentheses Python does not need removed."""
    try:
        return ast.unparse(ast.parse(text.strip(), mode="eval"))
    except SyntaxError:
        return text


# ================================================================================================
# Activity, values and gradients
# ================================================================================================


def _activity(graph, fn, args, wrt, builder):
    """Mark which nodes are active (see srcad's analysis); leave None when it cannot tell."""
    try:
        from ..analysis.analyse import Analysis
        from ..core.kinds import ANY, kind_of_value

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
    from . import tape

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


# ================================================================================================
# DOT
# ================================================================================================

_STYLE = {
    "leaf": 'shape=box, style="rounded,filled", fillcolor="#cfe2ff"',
    "input": 'shape=box, style="rounded,filled", fillcolor="#e9ecef"',
    "intermediate": "shape=ellipse",
    "output": 'shape=ellipse, peripheries=2, style=filled, fillcolor="#ffd8a8"',
}


def _quote(text):
    return '"' + str(text).replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n") + '"'


def _short(value):
    if isinstance(value, np.ndarray):
        text = np.array2string(value, precision=4, threshold=4, edgeitems=2,
                               max_line_width=60)
        return " ".join(text.split())
    if isinstance(value, (float, np.floating)):
        value = float(value)
        return repr(value) if len(repr(value)) <= 10 else f"{value:.6g}"
    text = repr(value)
    return text if len(text) <= 30 else text[:27] + "..."


def _node_label(node):
    kinds = node.kind.split("+")
    tag = {"leaf": "leaf", "input": "input", "output": "output"}
    lines = [node.id + "".join(f" ({tag[k]})" for k in kinds if k in tag)]
    if node.expr is not None and not node.kind.startswith(("leaf", "input")):
        if node.id.startswith("(") or node.id == "out":
            lines.append(node.expr)
    if node.note:
        lines.append(node.note)
    if node.has_value:
        lines.append(f"value = {_short(node.value)}")
        if node.grad is not None:
            lines.append(f"grad = {_short(node.grad)}")
    return "\n".join(lines)


def _node_line(node, pad):
    style = _STYLE[node.kind.split("+")[-1] if "output" in node.kind else node.kind]
    if node.kind.startswith(("leaf", "input")) and "output" in node.kind:
        style = _STYLE[node.kind.split("+")[0]] + ", peripheries=2"
    if node.active is False and node.kind == "intermediate":
        style += ', style=dashed, color="#868e96", fontcolor="#868e96"'
    return f"{pad}{_quote(node.id)} [label={_quote(_node_label(node))}, {style}];"


def _dot(graph):
    title = f"{graph.name}({', '.join(graph.params)})"
    if graph.notes:
        title += "\n" + "\n".join(graph.notes)
    lines = [
        f"digraph {_quote(graph.name)} {{",
        "  rankdir=LR;",
        f"  label={_quote(title)};",
        "  labelloc=t;",
        '  node [fontname="Helvetica", fontsize=11];',
        '  edge [fontname="Helvetica", fontsize=9];',
    ]
    children = {}
    for c in graph.clusters:
        children.setdefault(c.parent, []).append(c)
    members = {}
    for node in graph.nodes.values():
        members.setdefault(node.cluster, []).append(node)

    def emit(cluster_id, depth):
        pad = "  " * depth
        for node in members.get(cluster_id, []):
            lines.append(_node_line(node, pad))
        for c in children.get(cluster_id, []):
            lines.append(f"{pad}subgraph {_quote(f'cluster_{c.id}')} {{")
            lines.append(f"{pad}  label={_quote(c.label)};")
            lines.append(f'{pad}  style="rounded,dashed"; color="#868e96";')
            emit(c.id, depth + 1)
            lines.append(f"{pad}}}")

    emit(None, 1)
    for e in graph.edges:
        attrs = f"label={_quote(e.label)}"
        if e.carried:
            attrs += ", style=dashed, constraint=false"
        lines.append(f"  {_quote(e.src)} -> {_quote(e.dst)} [{attrs}];")
    lines.append("}")
    return "\n".join(lines) + "\n"


# ================================================================================================
# Rendering
# ================================================================================================


def render(dot, path):
    """Write ``dot`` to ``path``, rendered by Graphviz when the suffix asks for an image.

    A ``.dot`` or ``.gv`` path gets the text. Another suffix (``.svg``, ``.png``, ``.pdf``)
    is rendered by the ``dot`` program; when ``dot`` is not installed the text is written to
    the same path with the suffix ``.dot`` instead, and a warning says so. Returns the path
    written.
    """
    path = Path(path)
    fmt = path.suffix.lstrip(".").lower()
    if fmt in ("dot", "gv", ""):
        path.write_text(dot)
        return path
    program = shutil.which("dot")
    if program is None:
        fallback = path.with_suffix(".dot")
        fallback.write_text(dot)
        warnings.warn(f"Graphviz's dot program is not installed: wrote the DOT text to "
                      f"{fallback} instead of {path}", RuntimeWarning, stacklevel=2)
        return fallback
    done = subprocess.run([program, f"-T{fmt}", "-o", str(path)], input=dot.encode(),
                          capture_output=True, check=False)
    if done.returncode != 0:
        raise RuntimeError(f"dot -T{fmt} failed: {done.stderr.decode().strip()}")
    return path
